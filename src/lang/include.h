/*
 * #include for scripts: the program's `#include <x.h>` / `#include "x.h"`
 * lines and --include FILE options are looked up in -I DIRs, then in
 * $BPFTRACE_KERNEL_SOURCE/include and the system's include directories,
 * and their preprocessor lines (followed through nested includes) are
 * added before the program's own, so that their integer macros
 * (`#define EPERM 1`) are constants of the script. C declarations in
 * headers are not read: a script that needs a struct declares it. A
 * missing kernel header (linux/, net/ ...) is skipped when the kernel has
 * BTF, which gives its types and enums. Conditionals (#ifdef, #ifndef,
 * #if/#elif through lang/cpp_expr.h, #else, #endif) are followed in the
 * headers and in the program, whose C definitions and #defines in a
 * branch left out are dropped. A header is read only when it is a
 * regular file of FILES_READ_MAX (16 MiB) at most: a device, a FIFO or a
 * larger file is refused at the #include naming it (a directory is
 * passed over in the search, as the preprocessor does).
 */
#ifndef SONDE_INCLUDE_H
#define SONDE_INCLUDE_H

#include <stddef.h>

#include "lang/ast.h"
#include "util/arena.h"
#include "util/diag.h"

struct include_opts {
	const char *const *files; /* --include FILE, in order */
	size_t nfiles;
	const char *const *dirs;  /* -I DIR, searched first */
	size_t ndirs;
	const char *kernel_source; /* BPFTRACE_KERNEL_SOURCE or NULL */
};

/* Returns 0, or -1 after reporting a header that cannot be found
 * ("'x.h' file not found", as clang words it) or read ("cannot read
 * 'x.h': not a regular file"). */
int include_expand(struct arena *a, struct diag *d, struct ast_program *p,
		   const struct include_opts *o);

#endif
