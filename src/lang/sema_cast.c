/*
 * Casts and type names (sema_cast.h): what a type written in the script
 * resolves to, casts between integers, pointers, bools, arrays and
 * enums, and sizeof.
 */
#include "lang/sema_cast.h"

#include <inttypes.h>
#include <string.h>

#include "lang/ctypes.h"
#include "lang/sema_const.h"
#include "lang/sema_state.h"
#include "lang/sema_types.h"
#include "util/arena.h"

const struct type *sema_resolve_typespec(struct sema *s,
					 const struct ast_typespec *ts)
{
	if (ts->of) {
		const struct type *t = sema_decay(ts->of, sema_expr(s, ts->of));
		if (type_is_aggregation(t) || t->kind == TY_VOID) {
			sema_err(s, ts->of->span, "typeof() of %s is no type a "
				 "value has", sema_tname(s, t));
			return &type_none;
		}
		for (int i = 0; i < ts->ptr_depth; i++)
			t = type_ptr(s->arena, t, t->is_user);
		/* typeof(x)[2], a macro's t[2] of typeof(x): the last
		 * dimension innermost */
		for (int i = (int)ts->ninner - 1; ts->array_len && i >= 0; i--)
			t = type_array(s->arena, t, ts->inner[i]);
		if (ts->array_len)
			t = type_array(s->arena, t, ts->array_len);
		return t;
	}
	const struct type *t = ctypes_resolve(s->ct, s->report, ts);
	/* `enum Foo` as a value's type (a cast, sizeof, let $x: enum Foo) is
	 * 64 bits, as bpftrace 0.26 types it; in a struct or behind a pointer
	 * it is C's int */
	if (t->kind == TY_INT && t->enm)
		return type_int_enum(s->arena, &type_u64, t->enm);
	return t;
}

/* The bytes of the smallest signed integer that holds literal e, as
 * bpftrace 0.26 types an integer literal; 0 when e is none. */
static uint32_t literal_size(const struct ast_expr *e)
{
	if (e->kind != E_INT || e->u.num.is_bool)
		return 0;
	uint64_t v = e->u.num.value;
	return v <= INT8_MAX ? 1 : v <= INT16_MAX ? 2 : v <= INT32_MAX ? 4 : 8;
}

/* Whether a cast from type `from` of operand op to `to` changes nothing,
 * as bpftrace's development branch sees it (its TypeChecker warns): a
 * literal is of the smallest signed type that holds it (-1 too), whatever
 * sonde's own typing of it; an aggregation read is its count_t, sum_t...
 * (the cast is how bpftrace reads one). */
static bool same_type(const struct ast_expr *op, const struct type *from,
		      const struct type *to)
{
	bool neg = op->kind == E_UNARY && op->u.unary.op == OP_NEG &&
		   op->u.unary.operand->kind == E_INT;
	const struct ast_expr *lit = neg ? op->u.unary.operand : op;
	if (lit->kind == E_INT && !lit->u.num.is_bool && !lit->u.num.is_char &&
	    !lit->u.num.enm && !lit->u.num.named) {
		uint64_t v = lit->u.num.value;
		if (v > (uint64_t)INT64_MAX + neg)
			return false;
		if (neg) /* -v fits in the type that holds v - 1 */
			v = v ? v - 1 : 0;
		uint32_t size = v <= INT8_MAX ? 1 : v <= INT16_MAX ? 2 :
				v <= INT32_MAX ? 4 : 8;
		return to->kind == TY_INT && to->is_signed && !to->enm &&
		       to->size == size;
	}
	return type_equal(from, to) && from->enm == to->enm;
}

/* (uint8[4])x, (int8[])"str": an integer, bool or string as an array of
 * integers or bools, as bpftrace 0.26 allows (its TypeChecker::visit
 * (Cast)): the sizes match, or an integer widens into an array of up to
 * 8 bytes; int8[] takes the size of what it casts. */
static const struct type *cast_to_array(struct sema *s, struct ast_expr *e,
					const struct type *from,
					const struct type *to)
{
	const struct type *el = to->elem;
	bool ok = el->kind == TY_INT || el->kind == TY_BOOL;
	uint32_t lit = literal_size(e->u.cast.operand);
	uint32_t size = lit ? lit : from->size;
	if (ok && !to->count) {
		if (!el->size || size % el->size) {
			sema_err(s, e->span, "Cannot determine array size: the "
				"element size is incompatible with the cast integer "
				"size");
			return &type_none;
		}
		struct type *n = type_new(s->arena, TY_ARRAY, size);
		*n = *to;
		n->count = size / el->size;
		n->size = n->count * el->size;
		to = n;
	}
	if (ok && sema_is_int(from))
		ok = to->size == from->size ||
		     (to->size <= 8 && to->size >= size);
	else if (ok)
		ok = (from->kind == TY_BOOL || from->kind == TY_STRING) &&
		     to->size == from->size;
	if (!ok) {
		sema_err(s, e->span, "Cannot cast from \"%s\" to \"%s\"",
		    sema_tname(s, from), sema_tname(s, to));
		return &type_none;
	}
	return to;
}

/* "(enum Foo)" of a cast, where bpftrace 0.26 reports enum casts. */
static struct span cast_type_span(const struct ast_expr *e)
{
	struct span sp = e->span;
	const struct span *ts = &e->u.cast.to.span;
	uint32_t end = ts->off + ts->len;
	if (!sp.file || ts->file != sp.file || end < sp.off)
		return sp;
	while (end < sp.file->len && sp.file->text[end] != ')')
		end++;
	sp.len = end + 1 - sp.off;
	return sp;
}

/* (enum Foo)x: a 64-bit value of the enum, as bpftrace 0.26 types it; a
 * literal must be one of its enumerators' values. */
static const struct type *cast_to_enum(struct sema *s, struct ast_expr *e,
				       const struct type *from,
				       const struct type *to)
{
	const struct ast_expr *op = e->u.cast.operand;
	if (!sema_is_int(from) && from->kind != TY_BOOL) {
		sema_err(s, cast_type_span(e), "Cannot cast from \"%s\" to "
			 "\"%s\"", sema_tname(s, from), sema_tname(s, to));
		return &type_none;
	}
	if (op->kind == E_INT && !op->u.num.enm && !op->u.num.is_bool &&
	    !type_enum_name(to->enm, op->u.num.value)) {
		sema_err(s, cast_type_span(e), "Enum: %s doesn't contain a variant value "
			 "of %" PRId64, to->enm->name ? to->enm->name : "",
			 (int64_t)op->u.num.value);
		return &type_none;
	}
	return type_int_enum(s->arena, &type_u64, to->enm);
}

const struct type *sema_check_cast(struct sema *s, struct ast_expr *e)
{
	struct ast_expr *op = e->u.cast.operand;
	const struct type *from = sema_decay(op, sema_expr(s, op));
	const struct ast_typespec *ts = &e->u.cast.to;
	if (!strncmp(ts->base, "enum ", 5) && !ts->ptr_depth &&
	    !ts->array_len && !ts->array_auto) {
		/* looked up quietly: an unknown enum is the cast's error */
		const struct type *t = ctypes_resolve(s->ct, &s->muted, ts);
		if (t->kind == TY_NONE) {
			sema_err(s, cast_type_span(e), "Unknown enum: %s",
				 ts->base + 5);
			return &type_none;
		}
	}
	const struct type *to = sema_resolve_typespec(s, &e->u.cast.to);
	if (from->kind == TY_NONE || to->kind == TY_NONE)
		return &type_none;
	/* (uint64)@count reads the aggregation (of count_t, sum_t... in
	 * bpftrace): no cast of a value to its own type */
	bool agg = op->kind == E_MAP && from->kind != TY_NONE &&
		   type_is_aggregation(s->maps.data[op->aux].value);
	if (!agg && same_type(op, from, to)) {
		/* bpftrace's development branch (PR #5208) */
		if (!e->u.cast.warned_same)
			diag_warning(s->report, e->span, "Unnecessary cast: "
				     "expression is already of type %s",
				     sema_tname(s, to));
		if (s->report->out) /* not a muted pass (diag.h) */
			e->u.cast.warned_same = true;
		/* the value as it is (a literal is still made the type) */
		if (type_equal(from, to) && from->enm == to->enm)
			return from;
	}
	if (to->kind == TY_RECORD) {
		sema_err(s, e->span, "cannot cast to %s: cast to a pointer to it",
		    sema_tname(s, to));
		return &type_none;
	}
	if (to->kind == TY_ARRAY)
		return cast_to_array(s, e, from, to);
	if (to->kind == TY_INT && to->enm)
		return cast_to_enum(s, e, from, to);
	/* an integer array of an integer's size reads as that integer */
	if (from->kind == TY_ARRAY && to->kind == TY_INT) {
		if (from->size != to->size || from->elem->kind == TY_RECORD) {
			sema_err(s, e->span, "Cannot cast from \"%s\" to \"%s\"",
			    sema_tname(s, from), sema_tname(s, to));
			return &type_none;
		}
		return to;
	}
	/* bpftrace 0.26: anything scalar or a string is true when not zero
	 * (empty); a bool is 0 or 1 as an integer */
	if (to->kind == TY_BOOL) {
		if (sema_is_scalar(from) || from->kind == TY_STRING)
			return to;
		sema_err(s, e->span, "Cannot cast from \"%s\" to \"bool\"",
		    sema_tname(s, from));
		return &type_none;
	}
	if (from->kind == TY_BOOL && to->kind == TY_INT)
		return to;
	if (!sema_is_intlike(from) || !sema_is_intlike(to)) {
		/* 0.26's words; its aggregation types are NAME_t */
		sema_err(s, e->span, "Cannot cast from \"%s%s\" to \"%s\"",
			 sema_tname(s, from),
			 type_is_aggregation(from) ? "_t" : "",
			 sema_tname(s, to));
		return &type_none;
	}
	/* A cast pointer keeps the address space it came from, and so does
	 * an integer that holds one; any other integer becomes an address of
	 * the probe's space. A pointer cast to an integer keeps its space. */
	enum addr_space as = type_addr_space(from);
	if (to->kind == TY_INT)
		return type_int_addr(s->arena, to, as);
	if (to->kind != TY_PTR)
		return to;
	if (as == AS_NONE)
		as = sema_tgt_has(s, CTX_USER) ? AS_USER :
		     sema_tgt_has(s, CTX_KERNEL) ? AS_KERNEL : AS_MIXED;
	if (as != AS_KERNEL)
		to = type_ptr_in(s->arena, to->elem, as);
	return to;
}

/* bpftrace's typestr(t), typeinfo's full_type: type_describe's words,
 * but for the kinds bpftrace spells otherwise. */
static const char *full_type_name(struct sema *s, const struct type *t)
{
	switch (t->kind) {
	case TY_KSYM: case TY_USYM: case TY_USERNAME: case TY_CGROUP_PATH:
	case TY_COUNT: case TY_HIST: case TY_LHIST: case TY_TSERIES:
	case TY_MACADDR:
		return sema_kind_name(t);
	case TY_SUM: case TY_MIN: case TY_MAX: case TY_AVG: case TY_STATS:
		return arena_printf(s->arena, "%s%s", t->is_signed ? "" : "u",
				    sema_kind_name(t));
	case TY_PROBE: case TY_STRERROR: case TY_SIGNAME:
	case TY_SYSCALL_NAME:
		return arena_printf(s->arena, "string[%u]", t->size);
	default:
		return sema_tname(s, t);
	}
}

/* typeinfo(x): the record (btf_id = 0, base_type, full_type) bpftrace's
 * AstTransformer makes of x's type (it has no unique type ids either:
 * btf_id is 0). e becomes it once x's type is final (after the muted
 * walk, for an expression). */
static const struct type *typeinfo_record(struct sema *s, struct ast_expr *e,
					  const struct type *t)
{
	static const char *const names[] = { "btf_id", "base_type",
					     "full_type" };
	const char *words[] = { NULL, sema_kind_name(t),
				full_type_name(s, t) };
	struct ast_expr **items = arena_alloc(s->arena, 3 * sizeof(*items));
	for (int i = 0; i < 3; i++) {
		struct ast_expr *v = arena_alloc(s->arena, sizeof(*v));
		v->span = e->span;
		v->type = &type_none;
		v->builtin = BI_NONE;
		v->kind = words[i] ? E_STRING : E_INT;
		if (words[i]) {
			v->u.str.bytes = words[i];
			v->u.str.len = (uint32_t)strlen(words[i]);
		}
		items[i] = v;
	}
	struct ast_expr *r = arena_alloc(s->arena, sizeof(*r));
	*r = *e;
	r->kind = E_TUPLE;
	memset(&r->u, 0, sizeof(r->u));
	r->u.list.items = items;
	r->u.list.n = 3;
	r->u.list.names = (const char **)names;
	const struct type *rt = sema_expr(s, r);
	if (!e->u.size_of.expr || s->pass != 0)
		*e = *r;
	return rt;
}

const struct type *sema_check_sizeof(struct sema *s, struct ast_expr *e)
{
	const struct type *t = e->u.size_of.expr ?
		sema_expr(s, e->u.size_of.expr) :
		sema_resolve_typespec(s, &e->u.size_of.type);
	if (t->kind == TY_NONE)
		return t;
	if (e->u.size_of.expr) /* sizeof(1) is 1, as in bpftrace 0.26 */
		t = sema_literal_type(t, e->u.size_of.expr);
	if (e->u.size_of.info)
		return typeinfo_record(s, e, t);
	/* a variable's size is final only after the muted walk */
	if (e->u.size_of.expr && s->pass == 0)
		return &type_u64;
	return sema_fold_const(e, t->size);
}
