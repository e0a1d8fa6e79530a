/*
 * Source lines of code addresses in user ELF files, from their DWARF line
 * tables and scopes (elfutils' libdw), with the functions inlined at the
 * address, as addr2line -i gives them. The debug info is found as gdb
 * finds it (the file, /usr/lib/debug/.build-id, .gnu_debuglink, in
 * --debuginfo's directories first: kernel/dwarf.h), a split unit's
 * DIEs in its .dwo file (not yet in a package, PROGRAM.dwp: there the
 * functions' addresses cannot be read). A file without debug info gives
 * nothing and costs one look.
 */
#ifndef SONDE_SRCLINE_H
#define SONDE_SRCLINE_H

#include <stdbool.h>
#include <stdint.h>

struct srcline {
	const char *func;   /* linkage name (mangled) or name; NULL: none */
	const char *file;   /* the function's source file, or NULL */
	int64_t decl_line;  /* where the function starts; 0: unknown */
	int64_t line;       /* the line of the address in it; 0: unknown */
};

/* The frames at link-time address vaddr of the ELF file path: the
 * innermost inlined function first, the function vaddr is in last; at
 * most max. Returns their number (0: no debug info covers vaddr). The
 * strings stay valid until the next call. */
int srcline_frames(const char *path, uint64_t vaddr, struct srcline *out,
		   int max);
/* The link-time address of the first statement at file:line (and column
 * col; 0: any) of the ELF file path, as a debugger sets a breakpoint
 * there: file names a compile unit's source (its last path components),
 * and only statements of that source count, not of headers it includes.
 * Returns 0, or -ENOENT with why (a sentence, bpftrace's words) set to
 * what is missing: no debug info, no unit, an ambiguous name, no such
 * statement. */
int srcline_address(const char *path, const char *file, uint64_t line,
		    uint64_t col, uint64_t *vaddr, const char **why);
/* Whether path has debug info (line tables) at all. */
bool srcline_available(const char *path);
/* Closes every file read. */
void srcline_unload(void);

#endif
