/*
 * Literals and constants (sema_const.h): integer and string literals,
 * enumerators, positional parameters (which become literals here, so
 * codegen never sees them), and the values sema folds at compile time.
 */
#include "lang/sema_const.h"

#include <stdlib.h>
#include <string.h>

#include "lang/ctypes.h"
#include "lang/sema_state.h"
#include "util/intparse.h"

const struct type *sema_check_int(struct sema *s, struct ast_expr *e)
{
	if (e->u.num.is_bool)
		return &type_bool;
	/* an enumerator: bpftrace 0.26's CreateEnum(64, name) */
	if (e->u.num.enm)
		return type_int_enum(s->arena, &type_u64, e->u.num.enm);
	return e->u.num.value > INT64_MAX ? &type_u64 : &type_s64;
}

const struct type *sema_check_string(struct sema *s, struct ast_expr *e)
{
	return type_string(s->arena, e->u.str.len + 1);
}

/* an enumerator or a constant of the script's C definitions */
const struct type *sema_check_ident(struct sema *s, struct ast_expr *e)
{
	int64_t v;
	const struct type_enum *enm;
	if (ctypes_constant(s->ct, e->u.name, &v, &enm)) {
		sema_fold_const(e, (uint64_t)v);
		e->u.num.named = true;
		if (enm) {
			e->u.num.enm = enm;
			return type_int_enum(s->arena, &type_u64, enm);
		}
		return v < 0 ? &type_s64 : &type_u64;
	}
	sema_err(s, e->span, "Unknown identifier: '%s'", e->u.name);
	return &type_none;
}

/* Positional parameters are constants: they become literals here, so
 * codegen never sees them. $# is the count; a missing $N is 0 (or "" in
 * str()), as in bpftrace. */
const struct type *sema_check_positional(struct sema *s,
					 struct ast_expr *e)
{
	long n = e->u.pos.num;
	if (n < 0 || n > s->opts->nparams) {
		e->kind = E_INT;
		e->u.num.value = n < 0 ? (uint64_t)s->opts->nparams : 0;
		e->u.num.is_char = false;
		e->u.num.is_bool = false;
		return &type_s64;
	}
	const char *p = s->opts->params[n - 1];
	/* a number as bpftrace 0.26 reads one (1e3, 1_000, 100ms), else
	 * a string */
	uint64_t x;
	char why[128];
	bool neg = p[0] == '-';
	if (*p && !intparse_u64(p + neg, &x, why, sizeof(why)) &&
	    (!neg || x <= (uint64_t)INT64_MAX + 1)) {
		e->kind = E_INT;
		e->u.num.value = neg ? (uint64_t)0 - x : x;
		e->u.num.is_char = false;
		e->u.num.is_bool = false;
		return &type_s64;
	}
	e->kind = E_STRING;
	e->u.str.bytes = p;
	e->u.str.len = (uint32_t)strlen(p);
	return type_string(s->arena, e->u.str.len + 1);
}

bool sema_positional_str(struct sema *s, struct ast_expr *a,
			 struct ast_expr *into)
{
	struct ast_expr *pos = a, *off = NULL;
	if (a->kind == E_BINARY && a->u.binary.op == OP_ADD) {
		pos = a->u.binary.left;
		off = a->u.binary.right;
		if (pos->kind != E_POSITIONAL) {
			pos = a->u.binary.right;
			off = a->u.binary.left;
		}
	}
	if (pos->kind != E_POSITIONAL || pos->u.pos.num < 1)
		return false;
	long n = pos->u.pos.num;
	const char *p = n <= s->opts->nparams ? s->opts->params[n - 1] : "";
	size_t len = strlen(p);
	int64_t k = 0;
	if (off && (off->kind != E_INT || (k = (int64_t)off->u.num.value) < 0 ||
		    (size_t)k > len)) {
		sema_err(s, a->span, "only addition of a single constant less or "
			"equal to the length of $%ld (which is %zu) is allowed "
			"inside str()", n, len);
		return true;
	}
	into->kind = E_STRING;
	into->u.str.bytes = p + k;
	into->u.str.len = (uint32_t)(len - (size_t)k);
	return true;
}

/* sizeof and offsetof are constants once types are known. */
bool sema_const_int(struct sema *s, struct ast_expr *e, int64_t *v)
{
	if (e->kind == E_INT) {
		*v = (int64_t)e->u.num.value;
		return true;
	}
	if (e->kind == E_UNARY && e->u.unary.op == OP_NEG &&
	    sema_const_int(s, e->u.unary.operand, v)) {
		*v = -*v;
		return true;
	}
	if (e->kind == E_POSITIONAL && e->u.pos.num > 0) {
		if (e->u.pos.num > s->opts->nparams)
			return *v = 0, true;
		char *end;
		const char *p = s->opts->params[e->u.pos.num - 1];
		long long x = strtoll(p, &end, 0);
		if (*p && !*end) {
			*v = x;
			return true;
		}
	}
	return false;
}

/* The value of e when it is made of integer literals and operators
 * (bpftrace 0.26 folds those before typing: (1, 2)[1 - 1]). */
bool sema_const_value(struct sema *s, struct ast_expr *e, int64_t *v)
{
	int64_t a, b;
	if (e->kind == E_UNARY && (e->u.unary.op == OP_PLUS ||
				   e->u.unary.op == OP_BNOT) &&
	    sema_const_value(s, e->u.unary.operand, &a)) {
		*v = e->u.unary.op == OP_PLUS ? a : ~a;
		return true;
	}
	if (e->kind != E_BINARY)
		return e->kind == E_INT ? (*v = (int64_t)e->u.num.value, true) :
					  sema_const_int(s, e, v);
	if (!sema_const_value(s, e->u.binary.left, &a) ||
	    !sema_const_value(s, e->u.binary.right, &b))
		return false;
	uint64_t x = (uint64_t)a, y = (uint64_t)b;
	switch (e->u.binary.op) {
	case OP_ADD: *v = (int64_t)(x + y); return true;
	case OP_SUB: *v = (int64_t)(x - y); return true;
	case OP_MUL: *v = (int64_t)(x * y); return true;
	case OP_DIV: *v = b ? a / b : 0; return b != 0;
	case OP_MOD: *v = b ? a % b : 0; return b != 0;
	case OP_BAND: *v = a & b; return true;
	case OP_BOR: *v = a | b; return true;
	case OP_BXOR: *v = a ^ b; return true;
	case OP_SHL: *v = (int64_t)(x << (y & 63)); return y < 64;
	case OP_SHR: *v = (int64_t)(x >> (y & 63)); return y < 64;
	default: return false;
	}
}

const struct type *sema_fold_const(struct ast_expr *e, uint64_t v)
{
	e->kind = E_INT;
	e->u.num.value = v;
	e->u.num.is_char = false;
	e->u.num.is_bool = false;
	e->u.num.enm = NULL;
	e->u.num.named = false;
	return &type_u64;
}
