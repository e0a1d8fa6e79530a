/*
 * comptime in sema (sema_comptime.c): a comptime decided as its probe is
 * typed (lang/comptime.h), and the builtin registry's compile-time
 * questions about the kernel.
 */
#ifndef SONDE_SEMA_COMPTIME_H
#define SONDE_SEMA_COMPTIME_H

#include "lang/ast.h"

struct sema;

/* The checker of E_COMPTIME (sema_expr.c dispatches to it). */
const struct type *sema_check_comptime(struct sema *s, struct ast_expr *e);

/* field_exist(struct T, a.b), field_exist(EXPR, a): whether the field
 * path exists, as '.' and '->' would read it */
const struct type *sema_ty_field_exist(struct sema *s, struct ast_expr *e,
				       struct ast_expr *target);
/* probe_exist("PROVIDER:..."): answered before the probes are expanded
 * (comptime_decide); what reaches sema is a misuse */
const struct type *sema_ty_probe_exist(struct sema *s, struct ast_expr *e,
				       struct ast_expr *target);
/* arg_exist(N): whether argN is there in this probe (raw tracepoints
 * gain arguments: sched_switch's fourth in Linux 5.18) */
const struct type *sema_ty_arg_exist(struct sema *s, struct ast_expr *e,
				     struct ast_expr *target);
/* kfunc_allowed("name"): whether this probe's program type may call the
 * kernel function (bpftrace 0.26's stdlib) */
const struct type *sema_ty_kfunc_allowed(struct sema *s, struct ast_expr *e,
					 struct ast_expr *target);

#endif
