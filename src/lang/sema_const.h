/*
 * Literals and constants (sema_const.c).
 */
#ifndef SONDE_SEMA_CONST_H
#define SONDE_SEMA_CONST_H

#include <stdbool.h>
#include <stdint.h>

#include "lang/ast.h"

struct sema;

const struct type *sema_check_int(struct sema *s, struct ast_expr *e);
const struct type *sema_check_string(struct sema *s, struct ast_expr *e);
const struct type *sema_check_ident(struct sema *s, struct ast_expr *e);
const struct type *sema_check_positional(struct sema *s, struct ast_expr *e);
/* Turns e into the integer literal v. */
const struct type *sema_fold_const(struct ast_expr *e, uint64_t v);
/* Constant integer value of e (literals, folded unary minus, positional
 * parameters), or false. */
bool sema_const_int(struct sema *s, struct ast_expr *e, int64_t *v);
/* The value of e when it is made of integer literals and operators. */
bool sema_const_value(struct sema *s, struct ast_expr *e, int64_t *v);
/* str($N) and str($N + k): whether a (str()'s argument) is such a
 * parameter; if so the call into becomes the string literal of the
 * parameter (from byte k), whatever it holds, as in bpftrace, or stays a
 * call after a located error (k past the end). */
bool sema_positional_str(struct sema *s, struct ast_expr *a,
			 struct ast_expr *into);

#endif
