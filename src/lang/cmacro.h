/*
 * C macros in expressions, as bpftrace 0.26 expands them: an identifier
 * that names an object-like #define (of the script or a header it
 * includes) is replaced by the macro's body parsed as an expression, and
 * that expression's own identifiers likewise (`#define M N+1`). The body
 * is one expression, not text: `M*2` is (N+1)*2, as in 0.26 (0.17 pasted
 * text and made it N+1*2). Function-like macros are not expanded, as in
 * bpftrace (their use is an unknown function); a macro with no body is
 * no macro. A macro that comes back to the name of one of the script's
 * enumerators (enum { A }; #define A A) stops there, at the enumerator,
 * as the C preprocessor leaves it.
 */
#ifndef SONDE_CMACRO_H
#define SONDE_CMACRO_H

#include "lang/ast.h"
#include "util/arena.h"
#include "util/diag.h"

/* Expands the macros of p's directives (after include_expand) in its
 * probes. Returns 0, or -1 after reporting a macro that is not an
 * expression or that expands into itself, at the identifier (bpftrace's
 * "unable to expand macro as an expression", "Macro recursion"). */
int cmacro_expand(struct arena *a, struct diag *d, struct ast_program *p);

#endif
