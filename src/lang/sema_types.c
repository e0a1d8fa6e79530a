/*
 * Type rules shared by every checker (sema_types.h): how values widen
 * into map slots, what type two values stored in one place share, the
 * address space of what memory leads to, an aggregation read as a value.
 */
#include "lang/sema_types.h"

#include "lang/sema_state.h"
#include "util/arena.h"

/* A tuple of elements el laid out anew, a record if like is one (with
 * like's names). */
static const struct type *retuple(struct sema *s, const struct type *like,
				  const struct type **el)
{
	if (!type_is_record(like))
		return type_tuple(s->arena, el, like->nfields);
	const char **names = arena_alloc(s->arena,
					 sizeof(*names) * like->nfields);
	for (uint32_t i = 0; i < like->nfields; i++)
		names[i] = like->fields[i].name;
	return type_record(s->arena, el, names, like->nfields);
}

/* Map keys and values store integers as 64 bits, keeping their sign and
 * the address space of a pointer they came from. A pointer stays one (8
 * bytes already, its space in its type): @p++ steps by its pointee, as in
 * bpftrace. */
const struct type *sema_widen(struct sema *s, const struct type *t)
{
	if (t->kind == TY_INT)
		return type_int_enum(s->arena,
				     type_int_addr(s->arena,
						   type_int(8, t->is_signed),
						   (enum addr_space)t->addr),
				     t->enm);
	if (t->kind == TY_TUPLE) {
		const struct type **el = arena_alloc(
			s->arena, sizeof(*el) * (t->nfields + 1));
		for (uint32_t i = 0; i < t->nfields; i++)
			el[i] = sema_widen(s, t->fields[i].type);
		return retuple(s, t, el);
	}
	return t;
}

/* The type of an integer literal where its size shows (a tuple's or a
 * record's element, a variable, sizeof): bpftrace 0.26's, the smallest
 * signed integer that holds it, so (1, (int64)2) takes 16 bytes and
 * $x = 1 is an int8. t: the type sema gave e. */
const struct type *sema_literal_type(const struct type *t,
				     const struct ast_expr *e)
{
	bool neg = e->kind == E_UNARY && e->u.unary.op == OP_NEG;
	const struct ast_expr *n = neg ? e->u.unary.operand : e;
	if (n->kind != E_INT || n->u.num.is_bool || n->u.num.named ||
	    t->kind != TY_INT ||
	    !t->is_signed || n->u.num.value > INT64_MAX)
		return t;
	int64_t v = neg ? -(int64_t)n->u.num.value : (int64_t)n->u.num.value;
	return type_int(v >= INT8_MIN && v <= INT8_MAX ? 1 :
			v >= INT16_MIN && v <= INT16_MAX ? 2 :
			v >= INT32_MIN && v <= INT32_MAX ? 4 : 8, true);
}

bool sema_flexible_literal(const struct ast_expr *e)
{
	return e && e->kind == E_INT && !e->u.num.is_bool && !e->u.num.enm &&
	       !e->u.num.named && e->u.num.value <= INT64_MAX;
}

/* bpftrace 0.26's get_promoted_int: the integer one place holding a and
 * b takes. A side of flexible sign (fa, fb: only non-negative literals
 * stored so far) takes the other's; signs that differ otherwise give the
 * signed type of the wider signed side, else a signed one twice the
 * larger size (int64 at most). */
const struct type *sema_promote_int(const struct type *a, bool fa,
				    const struct type *b, bool fb)
{
	uint32_t size = a->size > b->size ? a->size : b->size;
	if (a->is_signed == b->is_signed)
		return type_int((int)size, a->is_signed);
	if (fa || fb)
		return type_int((int)size, (!fa && a->is_signed) ||
						   (!fb && b->is_signed));
	if (a->is_signed && a->size > b->size)
		return type_int((int)a->size, true);
	if (b->is_signed && b->size > a->size)
		return type_int((int)b->size, true);
	return type_int(size * 2 > 8 ? 8 : (int)size * 2, true);
}

/* The address space of one place holding addresses of spaces a and b. */
static enum addr_space unify_addr(uint8_t a, uint8_t b)
{
	if (a == b || b == AS_NONE)
		return (enum addr_space)a;
	return a == AS_NONE ? (enum addr_space)b : AS_MIXED;
}

/* The common type of two values stored in one place, or NULL if they
 * cannot share it. Strings and buffers take the longer size; ints the
 * wider. */
const struct type *sema_unify(struct sema *s, const struct type *a,
			      const struct type *b)
{
	if (a->kind == TY_NONE)
		return b;
	if (b->kind == TY_NONE)
		return a;
	if (a->kind == TY_BOOL || b->kind == TY_BOOL)
		return a->kind == b->kind ? a : NULL;
	if (sema_is_intlike(a) && sema_is_intlike(b)) {
		/* One place holding user and kernel pointers is an address of
		 * no one space (read with the helpers that try both). */
		if (a->kind == TY_PTR && b->kind == TY_PTR)
			return a->is_user == b->is_user ? a :
				type_int_addr(s->arena, &type_u64, AS_MIXED);
		if (a->kind == TY_PTR || b->kind == TY_PTR)
			return a->kind == TY_PTR ? a : b;
		uint32_t size = a->size > b->size ? a->size : b->size;
		const struct type *r = type_int_addr(
			s->arena, type_int((int)size, a->is_signed && b->is_signed),
			unify_addr(a->addr, b->addr));
		/* values of one enum stay its; mixed with any other integer
		 * they are plain (bpftrace 0.26's get_promoted_int) */
		return type_same_enum(a, b) && a->enm && b->enm &&
				       a->size == b->size ?
			       type_int_enum(s->arena, r, a->enm) : r;
	}
	if (a->kind != b->kind)
		return NULL;
	switch (a->kind) {
	case TY_STRING:
	case TY_BUF: /* the shorter fits the longer: its length says */
		return a->size >= b->size ? a : b;
	case TY_TUPLE: {
		if (a->nfields != b->nfields ||
		    type_is_record(a) != type_is_record(b))
			return NULL;
		const struct type **el = arena_alloc(
			s->arena, sizeof(*el) * (a->nfields + 1));
		for (uint32_t i = 0; i < a->nfields; i++) {
			/* records match by name, in a's order (bpftrace 0.26:
			 * "the final ordering is ambiguous") */
			const struct type_field *bf = type_is_record(a) ?
				type_record_field(b, a->fields[i].name) :
				&b->fields[i];
			el[i] = bf ? sema_unify(s, a->fields[i].type, bf->type) : NULL;
			if (!el[i])
				return NULL;
		}
		return retuple(s, a, el);
	}
	default:
		return type_equal(a, b) ? a : NULL;
	}
}

/* Type t read out of from: what a user pointer, array or record leads
 * to is user memory too (a pointer read through it is a user pointer). */
const struct type *sema_in_space(struct sema *s, const struct type *from,
				 const struct type *t)
{
	/* likewise memory of unknown space (AS_MIXED) */
	bool any = !from->is_user && from->addr == AS_MIXED &&
		   (from->kind == TY_PTR || from->kind == TY_ARRAY);
	if ((!from->is_user && !any) || t->is_user ||
	    (t->kind != TY_PTR && t->kind != TY_ARRAY) ||
	    (any && t->addr == AS_MIXED))
		return t;
	struct type *u = type_new(s->arena, t->kind, t->size);
	*u = *t;
	if (any)
		u->addr = AS_MIXED;
	else
		u->is_user = true;
	return u;
}

/* A map of count(), sum(), min(), max() or avg() read where an integer
 * is wanted (bpftrace 0.26's "castable" map types): e becomes a read of
 * the combined value (codegen sums the CPUs), an integer. */
const struct type *sema_decay(struct ast_expr *e, const struct type *t)
{
	if (e->kind != E_MAP || t->kind < TY_COUNT || t->kind > TY_AVG)
		return t;
	e->type = type_int(8, t->kind != TY_COUNT && t->is_signed);
	return e->type;
}

/* The kind of t alone, as bpftrace 0.26's typestr(Type) names it (its
 * to_string(Type)): "Invalid condition: string", typeinfo's base_type. */
const char *sema_kind_name(const struct type *t)
{
	switch (t->kind) {
	case TY_NONE: return "none";
	case TY_VOID: return "void";
	case TY_INT: return "int";
	case TY_BOOL: return "bool";
	case TY_STRING: return "string";
	case TY_BUF: return "buffer";
	case TY_TUPLE: return type_is_record(t) ? "record" : "tuple";
	case TY_RECORD: case TY_FLOAT: return "c_type";
	case TY_PTR: return "pointer";
	case TY_ARRAY: return "array";
	case TY_KSTACK: return "kstack";
	case TY_USTACK: return "ustack";
	case TY_KSYM: return "ksym_t";
	case TY_USYM: return "usym_t";
	case TY_INET: return "inet";
	case TY_MACADDR: return "mac_address";
	case TY_USERNAME: return "username_t";
	case TY_CGROUP_PATH: return "cgroup_path_t";
	case TY_TIMESTAMP: return "timestamp";
	/* sonde's named values are bpftrace's strings */
	case TY_PROBE: case TY_STRERROR: case TY_SIGNAME:
	case TY_SYSCALL_NAME: return "string";
	case TY_COUNT: return "count_t";
	case TY_SUM: return "sum_t";
	case TY_MIN: return "min_t";
	case TY_MAX: return "max_t";
	case TY_AVG: return "avg_t";
	case TY_STATS: return "stats_t";
	case TY_HIST: return "hist_t";
	case TY_LHIST: return "lhist_t";
	case TY_TSERIES: return "tseries_t";
	}
	return "none";
}
