/*
 * bpftrace 0.26's macros (macro name($var, @map, expr) { ... }): every
 * call of one, and every bare name of one without parameters, in the
 * probes of prog is replaced by a hygienic copy of its body, in one pass
 * before sema. Errors (a macro calling itself, a call that matches no
 * definition, a map the body was not given) are located at the call,
 * with the macro's line.
 */
#ifndef SONDE_MACRO_H
#define SONDE_MACRO_H

#include "lang/ast.h"
#include "util/arena.h"
#include "util/diag.h"

/* Returns 0, or -1 after errors (reported to d). */
int macro_expand(struct arena *a, struct diag *d, struct ast_program *prog);

#endif
