/*
 * Types handed to macros (bpftrace's development branch, PR #5234 and
 * #5235): a call passes a type as `typeof(T)` (an E_TYPEARG), and the
 * macro's body uses its identifier parameter where a type goes:
 * `sizeof(t)`, `sizeof(t*)`, `(t*)x`, `let $x: t`, `offsetof(t, f)`,
 * `struct t`. macro.c's expansion calls these on each type the body
 * writes, after the body's own typeof() expressions are expanded.
 */
#ifndef SONDE_LANG_MACROTYPE_H
#define SONDE_LANG_MACROTYPE_H

#include "lang/ast.h"

struct arena;
struct diag;

/* One expansion: the macro, its parameters and the call's arguments. */
struct mtype_frame {
	struct arena *a;
	struct diag *d;
	const char *macro;
	struct ast_expr *const *params;
	struct ast_expr *const *args;
	uint32_t nparams;
};

/* ts as the body writes it, with the types its parameters stand for
 * put in: a name a typeof() argument stands for is that type (with ts's
 * pointers and dimensions added), a name an identifier stands for is
 * that name; `typeof(T)` of a type argument is T. A replacement that
 * makes no type is reported at the argument, in bpftrace's words.
 * f NULL: outside any macro (only typeof(T) is resolved). */
void mtype_subst(const struct mtype_frame *f, struct ast_typespec *ts);

/* offsetof(t, f) whose one field f is a parameter: the identifier, or
 * the path of identifiers (a.b.c), the argument is. */
void mtype_subst_fields(const struct mtype_frame *f, struct ast_expr *e);

#endif
