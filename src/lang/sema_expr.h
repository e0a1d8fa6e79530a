/*
 * The expression walker (sema_expr.c).
 */
#ifndef SONDE_SEMA_EXPR_H
#define SONDE_SEMA_EXPR_H

#include "lang/ast.h"

struct sema;

/* Types and annotates e through the checker of its kind, and names the
 * macro calls its errors came through; sema_check() installs it as the
 * state's walker (sema_expr()). */
const struct type *sema_walk_expr(struct sema *s, struct ast_expr *e);

#endif
