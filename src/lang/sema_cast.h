/*
 * Casts and type names (sema_cast.c).
 */
#ifndef SONDE_SEMA_CAST_H
#define SONDE_SEMA_CAST_H

#include "lang/ast.h"

struct sema;

/* The type a type written in the script names (type_none after an
 * error). */
const struct type *sema_resolve_typespec(struct sema *s,
					 const struct ast_typespec *ts);
const struct type *sema_check_cast(struct sema *s, struct ast_expr *e);
const struct type *sema_check_sizeof(struct sema *s, struct ast_expr *e);

#endif
