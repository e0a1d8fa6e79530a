/*
 * User-space symbolisation: address -> "func+off" in a process.
 *
 * Each pid's executable mappings (/proc/PID/maps) are snapshotted and kept,
 * so that stacks of processes that have exited by print time still
 * resolve; the runtime snapshots pids while they live (usyms_snapshot).
 * The ELF symbols of each mapped file are read once (kernel/elfsym.h) and
 * shared by every pid mapping it, keyed by device and inode. The vdso is
 * the same image in every process of a kernel, so sonde reads its own.
 * JIT code resolves through perf map files (/tmp/perf-PID.map).
 */
#ifndef SONDE_USYMS_H
#define SONDE_USYMS_H

#include <stdbool.h>
#include <stdint.h>

struct strbuf;
struct usyms;

struct usyms *usyms_new(void);
void usyms_free(struct usyms *u);

/* Reads pid's mappings if not known yet, or again when refresh. Returns 0,
 * or -errno (-ENOENT: the process is gone; a kept snapshot stays). */
int usyms_snapshot(struct usyms *u, int32_t pid, bool refresh);
/* Whether pid has a snapshot. */
bool usyms_known(const struct usyms *u, int32_t pid);

/* Mapping changes seen as they happen (runtime/mmap_events.h), so that
 * processes that exit before the first snapshot still resolve. */
/* pid exec'd: its new image's mappings follow. */
void usyms_exec(struct usyms *u, int32_t pid);
/* A new process shares its parent's mappings. */
void usyms_fork(struct usyms *u, int32_t ppid, int32_t pid);
/* An executable mapping of path at [start, start + len). */
void usyms_add_mapping(struct usyms *u, int32_t pid, uint64_t start,
		       uint64_t len, uint64_t pgoff, uint64_t dev,
		       uint64_t ino, const char *path);

/* Whether addr lies in an executable mapping of pid (a file's, the vdso,
 * or one of no file: JIT code): 1 yes, 0 no, -1 when pid's mappings were
 * never seen. A frame elsewhere (data, a stack) is no return address: a
 * frame-pointer walk that met a frame pointer the code does not keep. */
int usyms_mapped(struct usyms *u, int32_t pid, uint64_t addr);

/* Appends the symbol of addr in pid: "func", or "func+off" (decimal, as
 * bpftrace) when offset. *module (may be NULL) gets the path of the
 * mapping holding addr, or NULL when none; it lives as long as u. Returns
 * 0, or -ENOENT when no symbol covers addr. */
int usyms_resolve(struct usyms *u, int32_t pid, uint64_t addr, bool offset,
		  struct strbuf *sb, const char **module);

/* Where addr of pid is: its mapping (path NULL: none; "[perf-map]" for
 * JIT code, which has no mapping), the ELF file read for it and addr's
 * link-time address there, and its symbol as the file names it (not
 * demangled; NULL: none). Strings live as long as u. Returns 0, or
 * -ENOENT when no symbol covers addr (what is known is still filled). */
struct elf_syms;
struct usyms_frame {
	const char *path;
	uint64_t start, end, pgoff;  /* the mapping */
	const struct elf_syms *elf;  /* NULL: not read */
	uint64_t vaddr;
	const char *sym;
	uint64_t sym_off;
};
int usyms_frame(struct usyms *u, int32_t pid, uint64_t addr,
		struct usyms_frame *f);

#endif
