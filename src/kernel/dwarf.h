/*
 * Types of user-space programs from their DWARF debug info, through
 * elfutils' libdw: a function's parameters (uprobe `args`, -lv) and
 * structs by name (casts). The debug info is found as gdb finds it: in the
 * file itself, by build id under /usr/lib/debug/.build-id, or through
 * .gnu_debuglink. Reading is lazy: a function is found through the address
 * ranges of its compile unit, and only the types it names are converted.
 * A file without debug info is no error: its probes just have no `args`.
 */
#ifndef SONDE_DWARF_H
#define SONDE_DWARF_H

#include <stdint.h>

struct arena;
struct type;
struct Dwfl;
struct Dwfl_Module;

struct dwarf_param {
	const char *name;
	const struct type *type; /* pointers are user pointers */
	const char *ctype;       /* as C writes it: "struct Foo*" */
};

struct dwarf_func {
	struct dwarf_param *params;
	uint32_t nparams;
};

/* The parameters of function func at vaddr (its ELF symbol's address) in
 * ELF file path, in arena a. Returns 0, -ENOENT when the file has no
 * debug info or it does not describe func, or -errno. */
int dwarf_func_params(struct arena *a, const char *path, const char *func,
		      uint64_t vaddr, struct dwarf_func *out);

/* The struct or union name ("struct Foo") as ELF file path's debug info
 * defines it, or NULL. */
const struct type *dwarf_record(struct arena *a, const char *path,
				const char *name);

/* The user-space files probed by the program being compiled, whose debug
 * info casts may name structs from (dwarf_record_any). */
void dwarf_note_file(const char *path);
/* --debuginfo DIR[:DIR]: more directories where separate debug files are
 * searched for, before .debug and /usr/lib/debug. */
void dwarf_debuginfo_dirs(const char *dirs);
/* A libdwfl session of ELF file path alone (*mod: its module, NULL when
 * it is no ELF file), whose debug info is searched for as above: for
 * every reader of user-space DWARF (kernel/srcline.c too). */
struct Dwfl *dwarf_offline(const char *path, struct Dwfl_Module **mod);
/* Forgets the noted files, for a process that compiles one program after
 * another (the fuzz targets); the opened files stay open. */
void dwarf_forget_files(void);
/* Closes the opened files, which are kept by path: for a process that
 * reads a changing file at one path (fuzz_elf: /proc/self/fd/N). */
void dwarf_close_files(void);
const struct type *dwarf_record_any(struct arena *a, const char *name);

#endif
