/*
 * Kernel symbols from /proc/kallsyms, read on first use into one sorted
 * array searched by binary search (as libbpf-tools' trace_helpers does).
 * The table is process-wide and read-only once loaded.
 */
#ifndef SONDE_KALLSYMS_H
#define SONDE_KALLSYMS_H

#include <stdbool.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module; /* NULL for vmlinux */
	char kind;          /* nm-style: 'T', 't', 'D', ... */
};

/* Loads the table if needed: 0, or -EPERM when kptr_restrict hides the
 * addresses (all zero), or another -errno. */
int ksyms_load(void);
/* The symbol containing addr (the last one at or below it), or NULL.
 * *offset (may be NULL) gets addr - sym->addr. */
const struct ksym *ksyms_lookup(uint64_t addr, uint64_t *offset);
/* The address of name (the first if several), or 0. Functions win over
 * other kinds when names clash. */
uint64_t ksyms_addr(const char *name);
/* The number of symbols loaded (0 before ksyms_load). */
uint32_t ksyms_count(void);
/* The kernel functions kprobes can attach to, in the kernel's order, each
 * line's name once (duplicates stay): available_filter_functions, or
 * where it cannot be opened the text symbols ('t', 'T') of /proc/kallsyms.
 * Read on first use and kept. Returns their number, or -errno. */
struct ksym_fn {
	const char *name;
	const char *module; /* NULL: vmlinux */
};
int ksyms_traceable(const struct ksym_fn **fns);
/* Whether function name of module (NULL: any; "vmlinux": the kernel's
 * own) is among the traceable ones (false when they cannot be read). */
bool ksyms_is_traceable(const char *module, const char *name);
/* Reads the traceable functions from path (--traceable-functions, in
 * available_filter_functions' format) instead of tracefs. */
void ksyms_traceable_from(const char *path);
/* The symbols from kallsyms (/proc/kallsyms' format; NULL: none, read on
 * first use) and the traceable functions from traceable
 * (available_filter_functions' format, or /proc/kallsyms' when
 * traceable_syms; NULL: none, read on first use), both malloc'd,
 * NUL-terminated and taken over, in place of the files: for tests and
 * the fuzz_kallsyms target. Returns 0, or -EPERM when every address is
 * 0 (as ksyms_load). */
int ksyms_load_text(char *kallsyms, char *traceable, bool traceable_syms);
/* Frees the symbols and the traceable functions. */
void ksyms_unload(void);

#endif
