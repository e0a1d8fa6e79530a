/*
 * bpftrace 0.26's root imports (import "helpers.bt"; import "dir";
 * import "types.h";): the imported scripts' probes and macros are merged
 * into prog, headers become #include lines. Import cycles, missing paths
 * and world-writable places are located errors.
 */
#ifndef SONDE_IMPORT_H
#define SONDE_IMPORT_H

#include "lang/ast.h"
#include "util/arena.h"
#include "util/diag.h"

/* Returns 0, or -1 after errors (reported to d). */
int import_resolve(struct arena *a, struct diag *d, struct ast_program *prog);

#endif
