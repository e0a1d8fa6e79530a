/*
 * The builtin registry's typing rules (sema_builtins.c): calls and
 * builtin variables.
 */
#ifndef SONDE_SEMA_BUILTINS_H
#define SONDE_SEMA_BUILTINS_H

#include "lang/ast.h"

struct sema;

/* Types a call through the registry (target: the map it is assigned
 * to, else NULL); an aggregation's type only where it is stored. */
const struct type *sema_call(struct sema *s, struct ast_expr *e,
			     struct ast_expr *target);
const struct type *sema_check_call(struct sema *s, struct ast_expr *e);
const struct type *sema_check_builtin_var(struct sema *s, struct ast_expr *e);

#endif
