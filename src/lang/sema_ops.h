/*
 * Operators (sema_ops.c).
 */
#ifndef SONDE_SEMA_OPS_H
#define SONDE_SEMA_OPS_H

#include <stdint.h>

#include "lang/ast.h"

struct sema;

/* The bytes one step of pointer p moves; 0 (after an error at sp) when
 * what it points to has no size. */
uint32_t sema_ptr_step(struct sema *s, const struct type *p, struct span sp);
const struct type *sema_check_unary(struct sema *s, struct ast_expr *e);
const struct type *sema_check_binary(struct sema *s, struct ast_expr *e);
const struct type *sema_check_ternary(struct sema *s, struct ast_expr *e);

#endif
