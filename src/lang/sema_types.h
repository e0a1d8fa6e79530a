/*
 * Type rules every checker shares (sema_types.c).
 */
#ifndef SONDE_SEMA_TYPES_H
#define SONDE_SEMA_TYPES_H

#include "lang/ast.h"
#include "model/types.h"

struct sema;

/* Map keys and values store integers as 64 bits, keeping their sign,
 * enum and address space; tuples widen element by element. */
const struct type *sema_widen(struct sema *s, const struct type *t);
/* The common type of two values stored in one place, or NULL if they
 * cannot share it. */
const struct type *sema_unify(struct sema *s, const struct type *a,
			      const struct type *b);
/* An integer literal e (of type t) where its size shows: the smallest
 * signed integer that holds it, as bpftrace 0.26 types literals; other
 * expressions keep t. */
const struct type *sema_literal_type(const struct type *t,
				     const struct ast_expr *e);
/* Whether e is a literal of either sign (bpftrace 0.26's "sign
 * flexible" integer: a non-negative one). */
bool sema_flexible_literal(const struct ast_expr *e);
/* The integer a place holding integers a and b takes (bpftrace 0.26's
 * get_promoted_int); fa, fb: each is of flexible sign. */
const struct type *sema_promote_int(const struct type *a, bool fa,
				    const struct type *b, bool fb);
/* Type t read out of from: what user memory leads to is user memory. */
const struct type *sema_in_space(struct sema *s, const struct type *from,
				 const struct type *t);
/* A count/sum/min/max/avg map e (of type t) read where an integer is
 * wanted: e becomes a read of its combined value, an integer. */
const struct type *sema_decay(struct ast_expr *e, const struct type *t);
/* The kind of t alone, as bpftrace 0.26 names it ("string"). */
const char *sema_kind_name(const struct type *t);

#endif
