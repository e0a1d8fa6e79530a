/*
 * Access into values (sema_field.c).
 */
#ifndef SONDE_SEMA_FIELD_H
#define SONDE_SEMA_FIELD_H

#include "lang/ast.h"

struct sema;

const struct type *sema_check_field(struct sema *s, struct ast_expr *e);
const struct type *sema_check_index(struct sema *s, struct ast_expr *e);
const struct type *sema_check_tuple(struct sema *s, struct ast_expr *e);
const struct type *sema_check_tuple_index(struct sema *s, struct ast_expr *e);
const struct type *sema_check_offsetof(struct sema *s, struct ast_expr *e);

#endif
