/*
 * Operators (sema_ops.h): unary and binary operators with bpftrace 0.26's
 * integer promotions, pointer arithmetic, ++ and --, and ?:.
 */
#include "lang/sema_ops.h"

#include "lang/sema_const.h"
#include "lang/sema_maps.h"
#include "lang/sema_state.h"
#include "lang/sema_stdlib.h"
#include "lang/sema_types.h"

/* ---- operators ---- */

static bool is_string_like(const struct type *t)
{
	return t->kind == TY_STRING;
}

/* The bytes one step of pointer p moves, as in C and bpftrace
 * (type_ptr_step: a byte for void *); 0 (after an error at sp) when what
 * it points to has no size. */
uint32_t sema_ptr_step(struct sema *s, const struct type *p,
		       struct span sp)
{
	uint32_t step = type_ptr_step(p);
	if (!step)
		sema_err(s, sp, "cannot do arithmetic on %s: what it points to "
			"has no size; cast it to a pointer of a sized type",
		    sema_tname(s, p));
	return step;
}

/* A pointer with an integer or with another pointer, as bpftrace has it:
 * p + n, n + p and p - n step by the pointee's size and stay pointers;
 * pointers compare with pointers and integers; p - q is refused, as in
 * bpftrace (it does not divide by the size), and so are the other
 * operators (p / 2, p & 3): the verifier refuses them on a variable's
 * address, and (uint64)p says the integer is meant. */
static const struct type *check_ptr_binary(struct sema *s, struct ast_expr *e,
					   const struct type *l,
					   const struct type *r)
{
	enum ast_op op = e->u.binary.op;
	if (op == OP_LAND || op == OP_LOR || (op >= OP_EQ && op <= OP_GE))
		return &type_bool;
	if (op != OP_ADD && op != OP_SUB) {
		sema_err(s, e->span, "the '%s' operator cannot be used on %s and "
			"%s", ast_op_str(op), sema_tname(s, l), sema_tname(s, r));
		return &type_none;
	}
	if ((l->kind == TY_PTR && r->kind == TY_PTR) ||
	    (op == OP_SUB && l->kind != TY_PTR)) {
		sema_err(s, e->span, "the '%s' operator cannot be used on %s and "
			"%s", ast_op_str(op), sema_tname(s, l), sema_tname(s, r));
		return &type_none;
	}
	const struct type *p = l->kind == TY_PTR ? l : r;
	if (!sema_ptr_step(s, p, e->span))
		return &type_none;
	return p;
}

/* A literal of either sign: bpftrace 0.26's "sign flexible" integer (a
 * non-negative one; folded sizes and offsets are unsigned), or a
 * variable that only such literals were stored in ($x = 1; (uint64)-1 >
 * $x compares unsigned, as in 0.26). */
static bool flexible(struct sema *s, const struct ast_expr *e)
{
	if (!e->type || e->type->kind != TY_INT || !e->type->is_signed)
		return false;
	if (e->kind == E_VAR)
		return e->aux >= 0 && (size_t)e->aux < s->vars.len &&
		       s->vars.data[e->aux].flex &&
		       !s->vars.data[e->aux].typed;
	return sema_flexible_literal(e);
}

const struct type *sema_check_binary(struct sema *s, struct ast_expr *e)
{
	const struct type *l = sema_decay(e->u.binary.left,
					  sema_expr(s, e->u.binary.left));
	const struct type *r = sema_decay(e->u.binary.right,
					  sema_expr(s, e->u.binary.right));
	enum ast_op op = e->u.binary.op;
	e->u.binary.cmp_signed = false;	/* pointers, strings: unsigned */
	/* In the first pass a map read before its first store (@n = @n + 1)
	 * is still untyped; arithmetic with an integer makes it one. */
	if (s->pass == 0 && (l->kind == TY_NONE) != (r->kind == TY_NONE) &&
	    (sema_is_int(l) || sema_is_int(r)))
		return &type_s64;
	if (l->kind == TY_NONE || r->kind == TY_NONE)
		return &type_none;
	if (op == OP_EQ || op == OP_NE) {
		/* probe == "kprobe:f": the name compared as a string */
		if (is_string_like(l) || is_string_like(r)) {
			l = sema_probe_string(s, e->u.binary.left, l);
			r = sema_probe_string(s, e->u.binary.right, r);
		}
		if (is_string_like(l) && is_string_like(r))
			return &type_bool;
		if (l->kind == TY_BUF && r->kind == TY_BUF)
			return &type_bool;
		/* two users are one when their uids are */
		if (l->kind == TY_USERNAME && r->kind == TY_USERNAME)
			return &type_bool;
		if (l->kind == TY_ARRAY && r->kind == TY_ARRAY) {
			/* as bpftrace: byte for byte, arrays of one type */
			if (!type_equal(l, r) || l->elem->kind != TY_INT) {
				sema_err(s, e->span, "only arrays of the same size "
					"and integer type can be compared, not %s "
					"and %s", sema_tname(s, l), sema_tname(s, r));
				return &type_none;
			}
			return &type_bool;
		}
		if (l->kind == TY_TUPLE && r->kind == TY_TUPLE) {
			if (!sema_unify(s, sema_widen(s, l), sema_widen(s, r))) {
				sema_err(s, e->span, "cannot compare %s with %s",
				    sema_tname(s, l), sema_tname(s, r));
				return &type_none;
			}
			return &type_bool;
		}
	}
	if ((l->kind == TY_PTR || r->kind == TY_PTR) && sema_is_scalar(l) &&
	    sema_is_scalar(r))
		return check_ptr_binary(s, e, l, r);
	if (!sema_is_scalar(l) || !sema_is_scalar(r)) {
		const char *what = (op >= OP_EQ && op <= OP_GE) ? "compare" :
				   "combine";
		if (is_string_like(l) && is_string_like(r))
			sema_err(s, e->span, "strings can only be compared with == "
				"and !=, not '%s'", ast_op_str(op));
		else
			sema_err(s, e->span, "cannot %s %s with %s using '%s'", what,
			    sema_tname(s, l), sema_tname(s, r), ast_op_str(op));
		return &type_none;
	}
	/* bpftrace 0.26 (get_binop_int): signed when either side is, a
	 * non-negative literal taking the other side's sign; a difference
	 * is always signed ((uint64)1 - (uint64)2 is -1) */
	bool ls = l->kind == TY_INT && l->is_signed;
	bool rs = r->kind == TY_INT && r->is_signed;
	bool lf = flexible(s, e->u.binary.left),
	     rf = flexible(s, e->u.binary.right);
	if (lf && !rf)
		ls = rs;
	else if (rf && !lf)
		rs = ls;
	/* A comparison of mixed signs is made in a signed type wide enough
	 * for both (0.26's get_promoted_int): (uint64)0 < (int8)-32 is
	 * false, as in 0.17, where the left side was signed too. */
	e->u.binary.cmp_signed = ls || rs;
	if (op == OP_LAND || op == OP_LOR || (op >= OP_EQ && op <= OP_GE))
		return &type_bool;
	/* bool op bool stays one, as in bpftrace 0.26 */
	if (l->kind == TY_BOOL && r->kind == TY_BOOL)
		return &type_bool;
	return type_int(8, ls || rs || op == OP_SUB);
}

static bool is_lvalue(const struct ast_expr *e)
{
	return e->kind == E_MAP || e->kind == E_VAR;
}

/* ++ and -- (sema_check_unary() sees them first) */
static const struct type *check_incdec(struct sema *s, struct ast_expr *e);

const struct type *sema_check_unary(struct sema *s, struct ast_expr *e)
{
	enum ast_op op = e->u.unary.op;
	if (op == OP_PREINC || op == OP_PREDEC || op == OP_POSTINC ||
	    op == OP_POSTDEC)
		return check_incdec(s, e);
	const struct type *t = sema_decay(e->u.unary.operand,
					  sema_expr(s, e->u.unary.operand));
	if (t->kind == TY_NONE)
		return t;
	switch (op) {
	case OP_LNOT:
		if (!sema_is_scalar(t))
			break;
		return &type_bool;
	case OP_NEG:
		if (!sema_is_int(t))
			break;
		return &type_s64;
	case OP_BNOT:
		/* ~ of a literal is folded before typing, as bpftrace 0.26's
		 * LiteralFolder does: ~10 is the literal 2^64 - 11, unsigned
		 * (past INT64_MAX), where ~ of a signed value is signed */
		if (e->u.unary.operand->kind == E_INT &&
		    !e->u.unary.operand->u.num.is_bool &&
		    !e->u.unary.operand->u.num.enm) {
			sema_fold_const(e, ~e->u.unary.operand->u.num.value);
			return sema_check_int(s, e);
		}
		/* fall through */
	case OP_PLUS:
		if (!sema_is_int(t))
			break;
		return type_int(8, t->is_signed);
	case OP_DEREF:
		if (t->kind == TY_INT) {
			/* *x of an integer: an integer of x's size read at
			 * address x (bpftrace 0.26: *kaddr("avenrun")), in the
			 * space x holds an address of, else the probe's */
			enum addr_space as = type_addr_space(t);
			if (as == AS_NONE)
				as = sema_tgt_has(s, CTX_USER) ? AS_USER :
				     sema_tgt_has(s, CTX_KERNEL) ? AS_KERNEL :
								   AS_MIXED;
			e->u.unary.operand->type = type_int_addr(s->arena, t, as);
			return type_int((int)t->size, t->is_signed);
		}
		if (t->kind == TY_PTR && (t->elem->kind == TY_INT ||
					  t->elem->kind == TY_PTR))
			return sema_in_space(s, t, t->elem);
		if (t->kind == TY_PTR && t->elem->kind == TY_RECORD)
			return t->elem;
		/* *&$v of any value (bpftrace 0.26's variable addresses) */
		if (t->kind == TY_PTR && t->elem->size &&
		    t->elem->kind != TY_VOID && t->elem->kind != TY_ARRAY)
			return t->elem;
		sema_err(s, e->span, "cannot dereference %s", sema_tname(s, t));
		return &type_none;
	case OP_ADDR:
		/* &$x: the variable's stack slot (codegen keeps it in
		 * memory), an address in kernel space as bpftrace 0.26 */
		if (e->u.unary.operand->kind == E_VAR)
			return type_ptr(s->arena, t, false);
		if (e->u.unary.operand->kind == E_MAP)
			sema_err(s, e->span, "the address-of operator (&) of a map "
				"is not supported");
		else
			sema_err(s, e->span, "address-of operator (&) can only be "
				"used on a map or variable");
		return &type_none;
	default:
		break;
	}
	sema_err(s, e->span, "the '%s' operator cannot be used on %s",
	    ast_op_str(op), sema_tname(s, t));
	return &type_none;
}

static const struct type *check_incdec(struct sema *s, struct ast_expr *e)
{
	struct ast_expr *x = e->u.unary.operand;
	enum ast_op op = e->u.unary.op;
	if (!is_lvalue(x)) {
		sema_err(s, e->span, "can only increment or decrement a map or a "
			"variable");
		return &type_none;
	}
	if (x->kind == E_MAP) {
		struct sema_map *m = sema_get_map(s, x);
		x->aux = (int32_t)m->index;
		const struct type *key = sema_map_key_type(s, x);
		if (!sema_use_map_key(s, m, x, key))
			return &type_none;
		if (m->value->kind == TY_NONE)
			m->value = &type_s64;
		if (m->value->kind == TY_PTR) {
			x->type = m->value;
			return sema_ptr_step(s, m->value, e->span) ? m->value :
								&type_none;
		}
		if (m->value->kind != TY_INT) {
			sema_err(s, e->span, "cannot increment %s: it holds %s",
			    m->name, sema_tname(s, m->value));
			return &type_none;
		}
		x->type = m->value;
		return m->value;
	}
	const struct type *t = sema_expr(s, x);
	if (t->kind != TY_NONE && !sema_is_intlike(t)) {
		sema_err(s, e->span, "cannot increment %s: it holds %s", x->u.name,
		    sema_tname(s, t));
		return &type_none;
	}
	if (t->kind == TY_PTR && !sema_ptr_step(s, t, e->span))
		return &type_none;
	/* $x++ stores $x + 1: the variable takes 64 bits, signed when it
	 * was or for -- (bpftrace 0.26) */
	if (t->kind == TY_INT) {
		sema_store_var(s, x, type_int(8, t->is_signed ||
					      op == OP_PREDEC ||
					      op == OP_POSTDEC), NULL, e->span);
		return x->type;
	}
	return t;
}

const struct type *sema_check_ternary(struct sema *s, struct ast_expr *e)
{
	const struct type *c = sema_decay(e->u.ternary.cond,
					  sema_expr(s, e->u.ternary.cond));
	const struct type *a = sema_decay(e->u.ternary.then,
					  sema_expr(s, e->u.ternary.then));
	const struct type *b = sema_decay(e->u.ternary.otherwise,
					  sema_expr(s, e->u.ternary.otherwise));
	if (c->kind == TY_NONE || a->kind == TY_NONE ||
	    b->kind == TY_NONE)
		return &type_none;
	if (!sema_is_scalar(c)) {
		sema_err(s, e->u.ternary.cond->span, "Invalid condition: %s",
		    sema_kind_name(c));
		return &type_none;
	}
	/* a branch of no value (an if/else run for its effects, as a
	 * macro's last statement): neither value is one */
	if (a->kind == TY_VOID || b->kind == TY_VOID)
		return &type_void;
	const struct type *u = sema_unify(s,
					  sema_is_int(a) ? sema_widen(s, a) : a,
					  sema_is_int(b) ? sema_widen(s, b) : b);
	if (!u) {
		sema_err(s, e->span, "the two branches have different types: "
			"%s and %s", sema_tname(s, a), sema_tname(s, b));
		return &type_none;
	}
	return u;
}
