/*
 * Semantic analysis. The program is walked twice: the first walk, with
 * diagnostics muted, settles the types of maps and variables (strings
 * widen to the longest value stored, as in bpftrace); the second walk
 * reports errors against those final types and annotates the AST.
 */
#define _GNU_SOURCE /* name_to_handle_at */
#include "sema.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/btf.h"
#include "kernel/elfsym.h"
#include "kernel/kallsyms.h"
#include "kernel/regs.h"
#include "lang/ctypes.h"
#include "runtime/fmt.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/vec.h"

struct var {
	const char *name;
	uint32_t probe;
	const struct type *type;
	int assigned_pass; /* pass in which it was last assigned */
};

struct sema {
	struct arena *arena;
	struct diag *diag;
	struct diag muted;
	struct diag *report; /* diag or &muted, per pass */
	const struct sema_opts *opts;
	struct ast_program *prog;
	VEC(struct sema_map) maps;
	VEC(struct var) vars;
	int pass;
	uint32_t probe;              /* index of the probe being checked */
	const struct probe_target *tgt;
	int loop_depth;
	bool uses_ringbuf;
	struct ctypes *ct; /* type names, with the script's definitions */
};

static void err(struct sema *s, struct span sp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void err(struct sema *s, struct span sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(s->report, sp, fmt, ap);
	va_end(ap);
}

/* Type names for messages, in bpftrace's spelling. */
static const char *tname(struct sema *s, const struct type *t)
{
	struct strbuf sb = STRBUF_INIT;
	type_describe(t, &sb);
	const char *r = arena_strdup(s->arena, sb_str(&sb));
	sb_free(&sb);
	return r;
}

static bool is_int(const struct type *t)
{
	return t->kind == TY_INT;
}

static bool is_intlike(const struct type *t)
{
	return t->kind == TY_INT || t->kind == TY_PTR;
}

/* Map keys and values store integers as 64 bits, keeping their sign. */
static const struct type *widen(struct sema *s, const struct type *t)
{
	if (t->kind == TY_INT)
		return type_int(8, t->is_signed);
	if (t->kind == TY_PTR && t->is_user) {
		/* still a user address: str() of it must read user memory */
		struct type *u = type_new(s->arena, TY_INT, 8);
		u->is_user = true;
		return u;
	}
	if (t->kind == TY_PTR)
		return &type_u64;
	if (t->kind == TY_TUPLE) {
		const struct type **el = arena_alloc(
			s->arena, sizeof(*el) * (t->nfields + 1));
		for (uint32_t i = 0; i < t->nfields; i++)
			el[i] = widen(s, t->fields[i].type);
		return type_tuple(s->arena, el, t->nfields);
	}
	return t;
}

/* The common type of two values stored in one place, or NULL if they
 * cannot share it. Strings take the longer size; ints the wider. */
static const struct type *unify(struct sema *s, const struct type *a,
				const struct type *b)
{
	if (a->kind == TY_NONE)
		return b;
	if (b->kind == TY_NONE)
		return a;
	if (is_intlike(a) && is_intlike(b)) {
		if (a->kind == TY_PTR && b->kind == TY_PTR)
			return a;
		if (a->kind == TY_PTR || b->kind == TY_PTR)
			return a->kind == TY_PTR ? a : b;
		if (a->is_user && b->is_user) /* user pointers, widened */
			return a;
		uint32_t size = a->size > b->size ? a->size : b->size;
		return type_int((int)size, a->is_signed && b->is_signed);
	}
	if (a->kind != b->kind)
		return NULL;
	switch (a->kind) {
	case TY_STRING:
		return a->size >= b->size ? a : b;
	case TY_TUPLE: {
		if (a->nfields != b->nfields)
			return NULL;
		const struct type **el = arena_alloc(
			s->arena, sizeof(*el) * (a->nfields + 1));
		for (uint32_t i = 0; i < a->nfields; i++) {
			el[i] = unify(s, a->fields[i].type, b->fields[i].type);
			if (!el[i])
				return NULL;
		}
		return type_tuple(s->arena, el, a->nfields);
	}
	default:
		return type_equal(a, b) ? a : NULL;
	}
}

/* ---- maps and variables ---- */

static struct sema_map *find_map(struct sema *s, const char *name)
{
	for (size_t i = 0; i < s->maps.len; i++)
		if (!strcmp(s->maps.data[i].name, name))
			return &s->maps.data[i];
	return NULL;
}

static struct sema_map *get_map(struct sema *s, const struct ast_expr *e)
{
	struct sema_map *m = find_map(s, e->u.map.name);
	if (!m) {
		struct sema_map nm;
		memset(&nm, 0, sizeof(nm));
		nm.name = e->u.map.name;
		nm.value = &type_none;
		nm.first_use = e->span;
		nm.index = (uint32_t)s->maps.len;
		vec_push(&s->maps, nm);
		m = &s->maps.data[s->maps.len - 1];
	}
	return m;
}

static struct var *find_var(struct sema *s, const char *name)
{
	for (size_t i = 0; i < s->vars.len; i++)
		if (s->vars.data[i].probe == s->probe &&
		    !strcmp(s->vars.data[i].name, name))
			return &s->vars.data[i];
	return NULL;
}

static const struct type *check_expr(struct sema *s, struct ast_expr *e);

/* The key type of a map access: NULL without [], the (widened) key for
 * one key, a tuple of them for several. */
static const struct type *map_key_type(struct sema *s, struct ast_expr *e)
{
	if (!e->u.map.has_brackets)
		return NULL;
	uint32_t n = e->u.map.keys.n;
	const struct type **el = arena_alloc(s->arena, sizeof(*el) * (n + 1));
	for (uint32_t i = 0; i < n; i++) {
		struct ast_expr *k = e->u.map.keys.items[i];
		const struct type *t = check_expr(s, k);
		if (t->kind == TY_NONE)
			return &type_none;
		if (type_is_aggregation(t) || t->kind == TY_VOID ||
		    t->kind == TY_RECORD) {
			err(s, k->span, "%s cannot be used as a map key",
			    tname(s, t));
			return &type_none;
		}
		el[i] = widen(s, t);
	}
	return n == 1 ? el[0] : type_tuple(s->arena, el, n);
}

/* Records the key used for map m at e, unifying with earlier uses. */
static bool use_map_key(struct sema *s, struct sema_map *m,
			struct ast_expr *e, const struct type *key)
{
	if (key && key->kind == TY_NONE)
		return false;
	if (!m->key && !m->first_use.file) {
		m->key = key;
		return true;
	}
	bool had_key = m->key != NULL || m->value->kind != TY_NONE;
	if (!m->key && !key)
		return true;
	if (!m->key && had_key && key) {
		err(s, e->span, "%s is used without a key elsewhere, but "
			"with one here", m->name);
		return false;
	}
	if (m->key && !key) {
		err(s, e->span, "%s needs a key: it is used as %s[%s] "
			"elsewhere", m->name, m->name, tname(s, m->key));
		return false;
	}
	if (!m->key) {
		m->key = key;
		return true;
	}
	const struct type *u = unify(s, m->key, key);
	if (!u) {
		err(s, e->span, "%s is used with a key of type %s here but "
			"%s elsewhere", m->name, tname(s, key),
		    tname(s, m->key));
		return false;
	}
	m->key = u;
	return true;
}

/* ---- builtins ---- */

static bool tgt_has(struct sema *s, unsigned feature)
{
	return s->tgt && (s->tgt->features & feature);
}

static const char *probe_kind(struct sema *s)
{
	return s->tgt ? s->tgt->prov->name : "this";
}

static const struct type *builtin_type(struct sema *s, struct ast_expr *e)
{
	const char *n = e->u.name;
	static const char *const u64s[] = { "pid", "tid", "uid", "gid",
					    "nsecs", "elapsed", "cpu",
					    "cgroup", "jiffies", "numaid" };
	for (size_t i = 0; i < sizeof(u64s) / sizeof(*u64s); i++)
		if (!strcmp(n, u64s[i]))
			return &type_u64;
	if (!strcmp(n, "rand"))
		return &type_u32;
	if (!strcmp(n, "comm"))
		return type_string(s->arena, 16);
	if (!strcmp(n, "username"))
		return type_new(s->arena, TY_USERNAME, 8);
	if (!strcmp(n, "probe"))
		return type_new(s->arena, TY_PROBE, 8);
	if (!strcmp(n, "cpid")) {
		if (!s->opts->cpid) {
			err(s, e->span, "cpid is only available with -c CMD");
			return &type_none;
		}
		return &type_u64;
	}
	if (!strcmp(n, "curtask")) {
		const struct type *t = kbtf_type_by_name(s->arena,
							 "struct task_struct");
		return t ? type_ptr(s->arena, t, false) : &type_u64;
	}
	if (!strcmp(n, "kstack") || !strcmp(n, "ustack"))
		return type_stack(s->arena, n[0] == 'u', STACK_BPFTRACE, 127);
	if (!strcmp(n, "args")) {
		if (!tgt_has(s, CTX_ARGS) || !s->tgt->args) {
			err(s, e->span, "args is not available in %s probes",
			    probe_kind(s));
			return &type_none;
		}
		return s->tgt->args;
	}
	if (!strcmp(n, "retval")) {
		if (!tgt_has(s, CTX_RETVAL)) {
			err(s, e->span, "retval is not available in %s probes "
				"(only in return probes)", probe_kind(s));
			return &type_none;
		}
		return s->tgt->retval ? s->tgt->retval : &type_u64;
	}
	if (!strcmp(n, "func")) {
		if (!tgt_has(s, CTX_FUNC)) {
			err(s, e->span, "func is not available in %s probes",
			    probe_kind(s));
			return &type_none;
		}
		/* a name known per target, printed from a table as `probe` */
		if (s->tgt->func)
			return type_new(s->arena, TY_PROBE, 8);
		return type_new(s->arena, TY_KSYM, 8);
	}
	if ((n[0] == 'a' || n[0] == 's') && strstr(n, "arg")) {
		int idx = atoi(n + (n[0] == 's' ? 4 : 3));
		if (!tgt_has(s, CTX_ARGN) || (uint32_t)idx >= s->tgt->nargs) {
			err(s, e->span, "%s is not available in %s probes", n,
			    probe_kind(s));
			return &type_none;
		}
		return n[0] == 's' ? &type_s64 : &type_u64;
	}
	if (!strcmp(n, "ctx")) {
		err(s, e->span, "ctx is not supported");
		return &type_none;
	}
	err(s, e->span, "unknown builtin '%s'", n);
	return &type_none;
}

/* ---- record fields ---- */

/* The field name of record rec (tracefs/script records carry their
 * fields; BTF shells are looked up). */
static bool find_field(struct sema *s, const struct type *rec,
		       const char *name, struct type_field *out)
{
	for (uint32_t i = 0; i < rec->nfields; i++)
		if (rec->fields[i].name && !strcmp(rec->fields[i].name, name)) {
			*out = rec->fields[i];
			return true;
		}
	if (rec->nfields)
		return false;
	return kbtf_field(s->arena, rec, name, out) == 0;
}

static const struct type *check_field(struct sema *s, struct ast_expr *e)
{
	const struct type *base = check_expr(s, e->u.field.base);
	if (base->kind == TY_NONE)
		return &type_none;
	const struct type *rec = base;
	if (base->kind == TY_PTR && base->elem->kind == TY_RECORD)
		rec = base->elem;
	if (rec->kind != TY_RECORD) {
		err(s, e->u.field.name_span, "cannot access field '%s' of %s: "
			"it is not a struct", e->u.field.name, tname(s, base));
		return &type_none;
	}
	if (e->u.field.arrow && base->kind != TY_PTR &&
	    !(e->u.field.base->kind == E_BUILTIN &&
	      !strcmp(e->u.field.base->u.name, "args"))) {
		err(s, e->u.field.name_span, "'->' needs a pointer, but the "
			"left side is %s: use '.'", tname(s, base));
		return &type_none;
	}
	struct type_field f;
	if (!find_field(s, rec, e->u.field.name, &f)) {
		err(s, e->u.field.name_span, "%s has no field named '%s'",
		    tname(s, rec), e->u.field.name);
		return &type_none;
	}
	const struct type *t = f.type;
	/* What a user pointer leads to is user memory too. */
	if (rec->is_user && t->kind == TY_PTR && !t->is_user)
		t = type_ptr(s->arena, t->elem, true);
	return t;
}

/* ---- casts ---- */

static const struct type *resolve_typespec(struct sema *s,
					   const struct ast_typespec *ts)
{
	return ctypes_resolve(s->ct, s->report, ts);
}

static const struct type *check_cast(struct sema *s, struct ast_expr *e)
{
	const struct type *from = check_expr(s, e->u.cast.operand);
	const struct type *to = resolve_typespec(s, &e->u.cast.to);
	if (from->kind == TY_NONE || to->kind == TY_NONE)
		return &type_none;
	if (to->kind == TY_RECORD) {
		err(s, e->span, "cannot cast to %s: cast to a pointer to it",
		    tname(s, to));
		return &type_none;
	}
	if (to->kind == TY_ARRAY) {
		if (!is_int(from) || from->size != to->size) {
			err(s, e->span, "cannot cast %s to %s: the sizes must "
				"match", tname(s, from), tname(s, to));
			return &type_none;
		}
		return to;
	}
	if (!is_intlike(from) || !is_intlike(to)) {
		err(s, e->span, "cannot cast %s to %s", tname(s, from),
		    tname(s, to));
		return &type_none;
	}
	/* A cast pointer keeps the address space it came from; an integer
	 * becomes an address of the probe's space. */
	if (to->kind == TY_PTR && (from->kind == TY_PTR ? from->is_user :
						      tgt_has(s, CTX_USER)))
		to = type_ptr(s->arena, to->elem, true);
	return to;
}

/* ---- operators ---- */

static bool is_string_like(const struct type *t)
{
	return t->kind == TY_STRING;
}

static const struct type *check_binary(struct sema *s, struct ast_expr *e)
{
	const struct type *l = check_expr(s, e->u.binary.left);
	const struct type *r = check_expr(s, e->u.binary.right);
	enum ast_op op = e->u.binary.op;
	/* In the first pass a map read before its first store (@n = @n + 1)
	 * is still untyped; arithmetic with an integer makes it one. */
	if (s->pass == 0 && (l->kind == TY_NONE) != (r->kind == TY_NONE) &&
	    (is_int(l) || is_int(r)))
		return &type_s64;
	if (l->kind == TY_NONE || r->kind == TY_NONE)
		return &type_none;
	if (op == OP_EQ || op == OP_NE) {
		if (is_string_like(l) && is_string_like(r))
			return &type_u64;
		if (l->kind == TY_TUPLE && r->kind == TY_TUPLE) {
			if (!unify(s, widen(s, l), widen(s, r))) {
				err(s, e->span, "cannot compare %s with %s",
				    tname(s, l), tname(s, r));
				return &type_none;
			}
			return &type_u64;
		}
	}
	if (!is_intlike(l) || !is_intlike(r)) {
		const char *what = (op >= OP_EQ && op <= OP_GE) ? "compare" :
				   "combine";
		if (is_string_like(l) && is_string_like(r))
			err(s, e->span, "strings can only be compared with == "
				"and !=, not '%s'", ast_op_str(op));
		else
			err(s, e->span, "cannot %s %s with %s using '%s'", what,
			    tname(s, l), tname(s, r), ast_op_str(op));
		return &type_none;
	}
	if (op == OP_LAND || op == OP_LOR || (op >= OP_EQ && op <= OP_GE))
		return &type_u64;
	return type_int(8, (l->kind == TY_INT && l->is_signed) &&
				   (r->kind == TY_INT && r->is_signed));
}

static bool is_lvalue(const struct ast_expr *e)
{
	return e->kind == E_MAP || e->kind == E_VAR;
}

static const struct type *check_incdec(struct sema *s, struct ast_expr *e);

static const struct type *check_unary(struct sema *s, struct ast_expr *e)
{
	enum ast_op op = e->u.unary.op;
	if (op == OP_PREINC || op == OP_PREDEC || op == OP_POSTINC ||
	    op == OP_POSTDEC)
		return check_incdec(s, e);
	const struct type *t = check_expr(s, e->u.unary.operand);
	if (t->kind == TY_NONE)
		return t;
	switch (op) {
	case OP_LNOT:
		if (!is_intlike(t))
			break;
		return &type_u64;
	case OP_NEG:
		if (!is_int(t))
			break;
		return &type_s64;
	case OP_BNOT:
	case OP_PLUS:
		if (!is_int(t))
			break;
		return type_int(8, t->is_signed);
	case OP_DEREF:
		if (t->kind == TY_PTR && (t->elem->kind == TY_INT ||
					  t->elem->kind == TY_PTR))
			return t->elem;
		if (t->kind == TY_PTR && t->elem->kind == TY_RECORD)
			return t->elem;
		err(s, e->span, "cannot dereference %s", tname(s, t));
		return &type_none;
	case OP_ADDR:
		err(s, e->span, "the address-of operator '&' is not "
			"supported");
		return &type_none;
	default:
		break;
	}
	err(s, e->span, "the '%s' operator cannot be used on %s",
	    ast_op_str(op), tname(s, t));
	return &type_none;
}

/* ---- assignments ---- */

/* Storing a value of type t into map m (at e, the target). */
static void store_map(struct sema *s, struct sema_map *m, struct ast_expr *e,
		      const struct type *t, struct span at)
{
	if (t->kind == TY_NONE)
		return;
	if (t->kind == TY_VOID) {
		err(s, at, "this expression has no value to store in %s",
		    m->name);
		return;
	}
	const struct type *v = type_is_aggregation(t) ? t : widen(s, t);
	if (m->value->kind == TY_NONE) {
		m->value = v;
		return;
	}
	const struct type *u = NULL;
	if (type_is_aggregation(v) == type_is_aggregation(m->value))
		u = unify(s, m->value, v);
	if (!u) {
		err(s, at, "type mismatch for %s: storing %s, but it already "
			"holds %s", m->name, tname(s, v), tname(s, m->value));
		return;
	}
	m->value = u;
	(void)e;
}

static void store_var(struct sema *s, struct ast_expr *e,
		      const struct type *t, struct span at)
{
	if (t->kind == TY_NONE)
		return;
	if (t->kind == TY_VOID || type_is_aggregation(t)) {
		err(s, at, "cannot assign %s to variable %s", tname(s, t),
		    e->u.name);
		return;
	}
	struct var *v = find_var(s, e->u.name);
	if (!v) {
		struct var nv = { e->u.name, s->probe, t, s->pass };
		vec_push(&s->vars, nv);
		e->type = t;
		return;
	}
	const struct type *u = unify(s, v->type, t);
	if (!u || (is_int(v->type) && !is_int(t) && t->kind != TY_PTR)) {
		err(s, at, "type mismatch for %s: assigning %s, but it already "
			"holds %s", e->u.name, tname(s, t), tname(s, v->type));
		return;
	}
	/* A variable's integer width is its first assignment's. */
	if (!(is_int(v->type) && is_int(u)))
		v->type = u;
	v->assigned_pass = s->pass;
	e->type = v->type;
}

static const struct type *check_call(struct sema *s, struct ast_expr *e,
				     struct ast_expr *target);

static void check_assign(struct sema *s, struct ast_stmt *st)
{
	struct ast_expr *tgt = st->u.assign.target;
	struct ast_expr *val = st->u.assign.value;
	const struct type *t;
	if (val->kind == E_CALL)
		t = val->type = check_call(s, val, tgt);
	else
		t = check_expr(s, val);
	if (st->u.assign.op != OP_NONE) {
		/* x op= v is x = x op v; a map starts from 0 */
		if (tgt->kind == E_MAP) {
			struct sema_map *m = get_map(s, tgt);
			tgt->aux = (int32_t)m->index;
			if (m->value->kind == TY_NONE && is_int(t)) {
				const struct type *key = map_key_type(s, tgt);
				if (!use_map_key(s, m, tgt, key))
					return;
				m->value = &type_s64;
			}
		}
		const struct type *cur = check_expr(s, tgt);
		if (cur->kind == TY_NONE || t->kind == TY_NONE)
			return;
		if (!is_intlike(cur) || !is_intlike(t)) {
			err(s, st->span, "'%s=' needs integers, not %s and %s",
			    ast_op_str(st->u.assign.op), tname(s, cur),
			    tname(s, t));
			return;
		}
		return;
	}
	if (tgt->kind == E_MAP) {
		struct sema_map *m = get_map(s, tgt);
		tgt->aux = (int32_t)m->index;
		const struct type *key = map_key_type(s, tgt);
		if (!use_map_key(s, m, tgt, key))
			return;
		store_map(s, m, tgt, t, val->span);
		tgt->type = m->value;
	} else {
		store_var(s, tgt, t, val->span);
	}
}

static const struct type *check_incdec(struct sema *s, struct ast_expr *e)
{
	struct ast_expr *x = e->u.unary.operand;
	if (!is_lvalue(x)) {
		err(s, e->span, "can only increment or decrement a map or a "
			"variable");
		return &type_none;
	}
	if (x->kind == E_MAP) {
		struct sema_map *m = get_map(s, x);
		x->aux = (int32_t)m->index;
		const struct type *key = map_key_type(s, x);
		if (!use_map_key(s, m, x, key))
			return &type_none;
		if (m->value->kind == TY_NONE)
			m->value = &type_s64;
		if (m->value->kind != TY_INT) {
			err(s, e->span, "cannot increment %s: it holds %s",
			    m->name, tname(s, m->value));
			return &type_none;
		}
		x->type = m->value;
		return m->value;
	}
	const struct type *t = check_expr(s, x);
	if (t->kind != TY_NONE && !is_intlike(t)) {
		err(s, e->span, "cannot increment %s: it holds %s", x->u.name,
		    tname(s, t));
		return &type_none;
	}
	return t;
}

/* ---- calls ---- */

static const struct type *fold_const(struct ast_expr *e, uint64_t v);

static bool nargs_ok(struct sema *s, struct ast_expr *e, uint32_t min,
		     uint32_t max)
{
	uint32_t n = e->u.call.args.n;
	if (n >= min && n <= max)
		return true;
	if (min == max)
		err(s, e->span, "%s() takes %u argument%s (%u given)",
		    e->u.call.name, min, min == 1 ? "" : "s", n);
	else if (n < min)
		err(s, e->span, "%s() takes at least %u argument%s (%u given)",
		    e->u.call.name, min, min == 1 ? "" : "s", n);
	else
		err(s, e->span, "%s() takes at most %u argument%s (%u given)",
		    e->u.call.name, max, max == 1 ? "" : "s", n);
	return false;
}

static struct ast_expr *arg(struct ast_expr *e, uint32_t i)
{
	return e->u.call.args.items[i];
}

/* Constant integer value of e (literals, folded unary minus), or false. */
static bool const_int(struct sema *s, struct ast_expr *e, int64_t *v)
{
	if (e->kind == E_INT) {
		*v = (int64_t)e->u.num.value;
		return true;
	}
	if (e->kind == E_UNARY && e->u.unary.op == OP_NEG &&
	    const_int(s, e->u.unary.operand, v)) {
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

static const struct type *agg(struct sema *s, enum type_kind k)
{
	struct type *t = type_new(s->arena, k, 8);
	if (k == TY_MIN || k == TY_MAX || k == TY_AVG || k == TY_STATS)
		t->size = 16;
	t->is_signed = true;
	return t;
}

/* An aggregation may only be the whole value stored in a map. */
static bool agg_target(struct sema *s, struct ast_expr *e,
		       struct ast_expr *target)
{
	if (target && target->kind == E_MAP)
		return true;
	err(s, e->span, "%s() must be assigned directly to a map, as in "
		"@x = %s(...)", e->u.call.name, e->u.call.name);
	return false;
}

static bool want_int_arg(struct sema *s, struct ast_expr *e, uint32_t i)
{
	const struct type *t = check_expr(s, arg(e, i));
	if (t->kind == TY_NONE)
		return false;
	if (!is_intlike(t)) {
		err(s, arg(e, i)->span, "%s() expects an integer, not %s",
		    e->u.call.name, tname(s, t));
		return false;
	}
	return true;
}

static bool want_map_arg(struct sema *s, struct ast_expr *e, uint32_t i,
			 bool allow_key)
{
	struct ast_expr *m = arg(e, i);
	if (m->kind != E_MAP || (!allow_key && m->u.map.has_brackets)) {
		err(s, m->span, "%s() expects a map%s", e->u.call.name,
		    allow_key ? "" : " (without a key)");
		return false;
	}
	struct sema_map *sm = find_map(s, m->u.map.name);
	if (!sm) {
		if (s->pass > 0)
			err(s, m->span, "%s is never assigned", m->u.map.name);
		return false;
	}
	m->aux = (int32_t)sm->index;
	m->type = sm->value;
	if (allow_key && m->u.map.has_brackets) {
		const struct type *k = map_key_type(s, m);
		return use_map_key(s, sm, m, k);
	}
	return true;
}

/* A printf-like call: a literal format and arguments it accepts. */
static const struct type *check_format_call(struct sema *s,
					    struct ast_expr *e)
{
	const char *fn = e->u.call.name;
	uint32_t n = e->u.call.args.n;
	if (n < 1) {
		err(s, e->span, "%s() needs a format string", fn);
		return &type_none;
	}
	struct ast_expr *f = arg(e, 0);
	if (f->kind != E_STRING) {
		err(s, f->span, "%s()'s first argument must be a string "
			"literal", fn);
		check_expr(s, f);
		return &type_none;
	}
	f->type = type_string(s->arena, f->u.str.len + 1);
	if (n - 1 > FMT_MAX_ARGS) {
		err(s, e->span, "%s() takes at most %d arguments (%u given)",
		    fn, FMT_MAX_ARGS + 1, n);
		return &type_none;
	}
	const struct type **types = arena_alloc(s->arena,
						sizeof(*types) * n);
	bool ok = true;
	for (uint32_t i = 1; i < n; i++) {
		types[i - 1] = check_expr(s, arg(e, i));
		if (types[i - 1]->kind == TY_NONE)
			ok = false;
		else if (type_is_aggregation(types[i - 1])) {
			err(s, arg(e, i)->span, "%s() cannot print %s: use "
				"print() for maps", fn, tname(s, types[i - 1]));
			ok = false;
		}
	}
	if (!ok)
		return &type_none;
	const struct fmt *parsed = fmt_parse(s->arena, f->u.str.bytes,
					     f->u.str.len);
	struct fmt_error fe;
	if (fmt_check(s->arena, parsed, fn, types, n - 1, &fe) < 0) {
		err(s, fe.arg == FMT_AT_FORMAT ? e->span :
			   arg(e, (uint32_t)fe.arg + 1)->span, "%s", fe.msg);
		return &type_none;
	}
	s->uses_ringbuf = true;
	return &type_void;
}

/* uaddr("sym"): as bpftrace 0.17, the symbol's link-time address in the
 * probe's binary (so not what ASLR makes of it), typed as a user pointer
 * to an unsigned integer of the symbol's size (1, 2, 4 or 8 bytes). */
static const struct type *uaddr_call(struct sema *s, struct ast_expr *e)
{
	if (!nargs_ok(s, e, 1, 1))
		return &type_none;
	if (arg(e, 0)->kind != E_STRING) {
		err(s, arg(e, 0)->span, "uaddr() expects a string literal");
		return &type_none;
	}
	const char *kind = probe_kind(s);
	if (!s->tgt || (strcmp(kind, "uprobe") && strcmp(kind, "uretprobe") &&
			strcmp(kind, "usdt")) || !s->tgt->a) {
		err(s, e->span, "uaddr() is only available in uprobe, "
			"uretprobe and usdt probes, not %s probes", kind);
		return &type_none;
	}
	const char *name = arg(e, 0)->u.str.bytes;
	uint64_t addr, size;
	if (elfsym_find_any(s->tgt->a, name, &addr, &size) < 0) {
		err(s, arg(e, 0)->span, "no symbol %s in %s", name, s->tgt->a);
		return &type_none;
	}
	fold_const(e, addr);
	int w = size == 1 || size == 2 || size == 4 ? (int)size : 8;
	return type_ptr(s->arena, type_int(w, false), true);
}

static const struct type *stack_call(struct sema *s, struct ast_expr *e,
				     bool user)
{
	if (!nargs_ok(s, e, 0, 2))
		return &type_none;
	enum stack_mode mode = STACK_BPFTRACE;
	uint32_t limit = 127;
	for (uint32_t i = 0; i < e->u.call.args.n; i++) {
		struct ast_expr *a = arg(e, i);
		int64_t v;
		if (a->kind == E_IDENT && i == 0) {
			if (!strcmp(a->u.name, "bpftrace"))
				mode = STACK_BPFTRACE;
			else if (!strcmp(a->u.name, "perf"))
				mode = STACK_PERF;
			else if (!strcmp(a->u.name, "raw"))
				mode = STACK_RAW;
			else {
				err(s, a->span, "unknown stack mode '%s' "
					"(bpftrace, perf or raw)", a->u.name);
				return &type_none;
			}
			a->type = &type_void;
		} else if (const_int(s, a, &v)) {
			if (v < 1 || v > 1024) {
				err(s, a->span, "stack limit must be between 1 "
					"and 1024");
				return &type_none;
			}
			limit = (uint32_t)v;
			a->type = &type_s64;
		} else {
			err(s, a->span, "expected a stack mode or a constant "
				"limit");
			return &type_none;
		}
	}
	return type_stack(s->arena, user, mode, limit);
}

/* Signal names for signal("SIGUSR1"), with or without the SIG prefix. */
static int signal_number(const char *name)
{
	static const struct {
		const char *name;
		int num;
	} sigs[] = {
		{ "HUP", 1 },   { "INT", 2 },   { "QUIT", 3 },  { "ILL", 4 },
		{ "TRAP", 5 },  { "ABRT", 6 },  { "BUS", 7 },   { "FPE", 8 },
		{ "KILL", 9 },  { "USR1", 10 }, { "SEGV", 11 }, { "USR2", 12 },
		{ "PIPE", 13 }, { "ALRM", 14 }, { "TERM", 15 }, { "CHLD", 17 },
		{ "CONT", 18 }, { "STOP", 19 }, { "TSTP", 20 }, { "TTIN", 21 },
		{ "TTOU", 22 }, { "URG", 23 },  { "XCPU", 24 }, { "XFSZ", 25 },
		{ "VTALRM", 26 }, { "PROF", 27 }, { "WINCH", 28 }, { "IO", 29 },
		{ "PWR", 30 },  { "SYS", 31 },
	};
	if (!strncmp(name, "SIG", 3))
		name += 3;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		if (!strcmp(name, sigs[i].name))
			return sigs[i].num;
	return -1;
}

static int kernel_symbol(const char *name, uint64_t *addr)
{
	if (ksyms_load() < 0)
		return -1;
	*addr = ksyms_addr(name);
	return *addr ? 0 : -1;
}

/* A cgroup's id is its kernfs node id, which name_to_handle_at() gives
 * for a path on the cgroup2 mount (as bpftrace does). */
static int cgroup_id(const char *path, uint64_t *id)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h;
	int mount_id;
	h.fh.handle_bytes = sizeof(h.id);
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) < 0)
		return -1;
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

static const struct type *check_call(struct sema *s, struct ast_expr *e,
				     struct ast_expr *target)
{
	const char *n = e->u.call.name;
	int64_t v;
	e->type = &type_none;
	/* aggregations */
	if (!strcmp(n, "count")) {
		if (!agg_target(s, e, target) || !nargs_ok(s, e, 0, 0))
			return &type_none;
		return agg(s, TY_COUNT);
	}
	static const struct {
		const char *name;
		enum type_kind kind;
	} aggs1[] = { { "sum", TY_SUM },   { "min", TY_MIN },
		      { "max", TY_MAX },   { "avg", TY_AVG },
		      { "stats", TY_STATS }, { "hist", TY_HIST } };
	for (size_t i = 0; i < sizeof(aggs1) / sizeof(*aggs1); i++) {
		if (strcmp(n, aggs1[i].name))
			continue;
		if (!agg_target(s, e, target) || !nargs_ok(s, e, 1, 1) ||
		    !want_int_arg(s, e, 0))
			return &type_none;
		struct type *t = (struct type *)agg(s, aggs1[i].kind);
		if (aggs1[i].kind == TY_SUM)
			t->is_signed = arg(e, 0)->type->is_signed ||
				       arg(e, 0)->type->kind != TY_INT;
		return t;
	}
	if (!strcmp(n, "lhist")) {
		if (!agg_target(s, e, target) || !nargs_ok(s, e, 4, 4) ||
		    !want_int_arg(s, e, 0))
			return &type_none;
		int64_t p[3];
		for (int i = 0; i < 3; i++) {
			if (!const_int(s, arg(e, (uint32_t)i + 1), &p[i])) {
				err(s, arg(e, (uint32_t)i + 1)->span,
				    "lhist()'s %s must be a constant",
				    i == 0 ? "min" : i == 1 ? "max" : "step");
				return &type_none;
			}
			arg(e, (uint32_t)i + 1)->type = &type_s64;
		}
		if (p[0] < 0 || p[1] <= p[0] || p[2] <= 0 ||
		    (p[1] - p[0]) / p[2] > 1000) {
			err(s, e->span, "lhist() needs 0 <= min < max, step > "
				"0 and at most 1000 buckets");
			return &type_none;
		}
		struct type *t = (struct type *)agg(s, TY_LHIST);
		t->lmin = p[0];
		t->lmax = p[1];
		t->lstep = p[2];
		return t;
	}
	/* map functions */
	if (!strcmp(n, "delete")) {
		if (!nargs_ok(s, e, 1, 1) || !want_map_arg(s, e, 0, true))
			return &type_none;
		s->maps.data[arg(e, 0)->aux].deleted = true;
		return &type_void;
	}
	if (!strcmp(n, "clear") || !strcmp(n, "zero")) {
		if (!nargs_ok(s, e, 1, 1) || !want_map_arg(s, e, 0, false))
			return &type_none;
		s->uses_ringbuf = true;
		return &type_void;
	}
	if (!strcmp(n, "print")) {
		if (!nargs_ok(s, e, 1, 3))
			return &type_none;
		s->uses_ringbuf = true;
		struct ast_expr *a0 = arg(e, 0);
		if (a0->kind == E_MAP && !a0->u.map.has_brackets) {
			if (!want_map_arg(s, e, 0, false))
				return &type_none;
			for (uint32_t i = 1; i < e->u.call.args.n; i++) {
				if (!const_int(s, arg(e, i), &v) || v < 0) {
					err(s, arg(e, i)->span, "print()'s %s "
						"must be a non-negative constant",
					    i == 1 ? "top" : "div");
					return &type_none;
				}
				arg(e, i)->type = &type_s64;
			}
			return &type_void;
		}
		if (e->u.call.args.n > 1) {
			err(s, e->span, "print() of a value takes one "
				"argument");
			return &type_none;
		}
		const struct type *t = check_expr(s, a0);
		if (t->kind == TY_NONE)
			return t;
		if (type_is_aggregation(t)) {
			err(s, a0->span, "print() of one element of an "
				"aggregation map is not supported: print the "
				"map");
			return &type_none;
		}
		return &type_void;
	}
	/* output */
	if (!strcmp(n, "printf") || !strcmp(n, "cat"))
		return check_format_call(s, e);
	if (!strcmp(n, "system")) {
		if (!s->opts->unsafe) {
			err(s, e->span, "system() is unsafe: run sonde with "
				"--unsafe to allow it");
			return &type_none;
		}
		return check_format_call(s, e);
	}
	if (!strcmp(n, "time")) {
		if (!nargs_ok(s, e, 0, 1))
			return &type_none;
		if (e->u.call.args.n && arg(e, 0)->kind != E_STRING) {
			err(s, arg(e, 0)->span, "time()'s format must be a "
				"string literal");
			return &type_none;
		}
		if (e->u.call.args.n)
			arg(e, 0)->type = &type_void;
		s->uses_ringbuf = true;
		return &type_void;
	}
	if (!strcmp(n, "exit")) {
		if (!nargs_ok(s, e, 0, 0))
			return &type_none;
		s->uses_ringbuf = true;
		return &type_void;
	}
	/* values */
	if (!strcmp(n, "str")) {
		if (!nargs_ok(s, e, 1, 2))
			return &type_none;
		const struct type *t = check_expr(s, arg(e, 0));
		if (t->kind == TY_NONE)
			return t;
		if (t->kind == TY_STRING)
			return t;
		if (!is_intlike(t)) {
			err(s, arg(e, 0)->span, "str() expects a pointer, not "
				"%s", tname(s, t));
			return &type_none;
		}
		uint32_t size = SEMA_STRLEN;
		if (e->u.call.args.n == 2) {
			if (const_int(s, arg(e, 1), &v)) {
				if (v < 1 || v > 1024) {
					err(s, arg(e, 1)->span, "str() length "
						"must be between 1 and 1024");
					return &type_none;
				}
				if (v + 1 < SEMA_STRLEN)
					size = (uint32_t)v + 1;
				arg(e, 1)->type = &type_s64;
			} else if (!want_int_arg(s, e, 1)) {
				return &type_none;
			}
		}
		return type_string(s->arena, size);
	}
	if (!strcmp(n, "kstack") || !strcmp(n, "ustack"))
		return stack_call(s, e, n[0] == 'u');
	if (!strcmp(n, "bswap")) {
		if (!nargs_ok(s, e, 1, 1) || !want_int_arg(s, e, 0))
			return &type_none;
		return type_int((int)arg(e, 0)->type->size, false);
	}
	if (!strcmp(n, "kptr") || !strcmp(n, "uptr")) {
		if (!nargs_ok(s, e, 1, 1) || !want_int_arg(s, e, 0))
			return &type_none;
		const struct type *t = arg(e, 0)->type;
		if (t->kind == TY_PTR)
			return type_ptr(s->arena, t->elem, n[0] == 'u');
		return t;
	}
	if (!strcmp(n, "strncmp")) {
		if (!nargs_ok(s, e, 3, 3))
			return &type_none;
		for (uint32_t i = 0; i < 2; i++) {
			const struct type *t = check_expr(s, arg(e, i));
			if (t->kind != TY_NONE && t->kind != TY_STRING) {
				err(s, arg(e, i)->span, "strncmp() compares "
					"strings, not %s", tname(s, t));
				return &type_none;
			}
		}
		if (!const_int(s, arg(e, 2), &v) || v < 0) {
			err(s, arg(e, 2)->span, "strncmp()'s length must be a "
				"non-negative constant");
			return &type_none;
		}
		arg(e, 2)->type = &type_s64;
		return &type_u64;
	}
	if (!strcmp(n, "strftime")) {
		if (!nargs_ok(s, e, 2, 2))
			return &type_none;
		if (arg(e, 0)->kind != E_STRING) {
			err(s, arg(e, 0)->span, "strftime()'s format must be a "
				"string literal");
			return &type_none;
		}
		arg(e, 0)->type = &type_void;
		if (!want_int_arg(s, e, 1))
			return &type_none;
		struct type *t = type_new(s->arena, TY_TIMESTAMP, 8);
		t->name = arena_strndup(s->arena, arg(e, 0)->u.str.bytes,
					arg(e, 0)->u.str.len);
		return t;
	}
	if (!strcmp(n, "buf")) {
		if (!nargs_ok(s, e, 1, 2))
			return &type_none;
		const struct type *t = check_expr(s, arg(e, 0));
		if (t->kind == TY_NONE)
			return t;
		uint32_t len = SEMA_STRLEN;
		if (t->kind == TY_ARRAY || t->kind == TY_STRING) {
			len = t->size;
		} else if (!is_intlike(t)) {
			err(s, arg(e, 0)->span, "buf() expects a pointer or an "
				"array, not %s", tname(s, t));
			return &type_none;
		} else if (e->u.call.args.n < 2) {
			err(s, e->span, "buf() of a pointer needs a length");
			return &type_none;
		}
		if (e->u.call.args.n == 2) {
			if (const_int(s, arg(e, 1), &v)) {
				if (v < 1 || v > 1024) {
					err(s, arg(e, 1)->span, "buf() length "
						"must be between 1 and 1024");
					return &type_none;
				}
				len = (uint32_t)v;
				arg(e, 1)->type = &type_s64;
			} else if (!want_int_arg(s, e, 1)) {
				return &type_none;
			}
		}
		struct type *b = type_new(s->arena, TY_BUF, 4 + len);
		b->align = 4;
		return b;
	}
	if (!strcmp(n, "join")) {
		if (!nargs_ok(s, e, 1, 2) || !want_int_arg(s, e, 0))
			return &type_none;
		if (e->u.call.args.n == 2) {
			if (arg(e, 1)->kind != E_STRING) {
				err(s, arg(e, 1)->span, "join()'s separator "
					"must be a string literal");
				return &type_none;
			}
			arg(e, 1)->type = &type_void;
		}
		s->uses_ringbuf = true;
		return &type_void;
	}
	if (!strcmp(n, "signal")) {
		if (!s->opts->unsafe) {
			err(s, e->span, "signal() is unsafe: run sonde with "
				"--unsafe to allow it");
			return &type_none;
		}
		if (!nargs_ok(s, e, 1, 1))
			return &type_none;
		struct ast_expr *a0 = arg(e, 0);
		if (a0->kind == E_STRING) {
			int sig = signal_number(a0->u.str.bytes);
			if (sig < 0) {
				err(s, a0->span, "unknown signal %s",
				    a0->u.str.bytes);
				return &type_none;
			}
			fold_const(a0, (uint64_t)sig);
			a0->type = &type_s64;
		} else if (!want_int_arg(s, e, 0)) {
			return &type_none;
		}
		return &type_void;
	}
	if (!strcmp(n, "ntop")) {
		if (!nargs_ok(s, e, 1, 2))
			return &type_none;
		struct ast_expr *a = arg(e, e->u.call.args.n - 1);
		if (e->u.call.args.n == 2 && !want_int_arg(s, e, 0))
			return &type_none;
		const struct type *t = check_expr(s, a);
		if (t->kind == TY_NONE)
			return t;
		bool ok = is_int(t) ||
			  ((t->kind == TY_ARRAY || t->kind == TY_STRING) &&
			   (t->size == 4 || t->size == 16));
		if (!ok) {
			err(s, a->span, "ntop() expects an integer or an array "
				"of 4 or 16 bytes, not %s", tname(s, t));
			return &type_none;
		}
		return type_new(s->arena, TY_INET, 24);
	}
	if (!strcmp(n, "macaddr")) {
		if (!nargs_ok(s, e, 1, 1))
			return &type_none;
		const struct type *t = check_expr(s, arg(e, 0));
		if (t->kind == TY_NONE)
			return t;
		if (!is_intlike(t) && !((t->kind == TY_ARRAY ||
					 t->kind == TY_STRING) &&
					t->size >= 6)) {
			err(s, arg(e, 0)->span, "macaddr() expects a pointer or "
				"an array of 6 bytes, not %s", tname(s, t));
			return &type_none;
		}
		struct type *m = type_new(s->arena, TY_MACADDR, 6);
		m->align = 1;
		return m;
	}
	if (!strcmp(n, "ksym")) {
		if (!nargs_ok(s, e, 1, 1) || !want_int_arg(s, e, 0))
			return &type_none;
		return type_new(s->arena, TY_KSYM, 8);
	}
	if (!strcmp(n, "usym")) {
		if (!nargs_ok(s, e, 1, 1) || !want_int_arg(s, e, 0))
			return &type_none;
		return type_new(s->arena, TY_USYM, 16);
	}
	if (!strcmp(n, "uaddr"))
		return uaddr_call(s, e);
	if (!strcmp(n, "kaddr") || !strcmp(n, "cgroupid")) {
		if (!nargs_ok(s, e, 1, 1))
			return &type_none;
		if (arg(e, 0)->kind != E_STRING) {
			err(s, arg(e, 0)->span, "%s() expects a string literal",
			    n);
			return &type_none;
		}
		uint64_t val;
		const char *what = arg(e, 0)->u.str.bytes;
		if (n[0] == 'k' ? kernel_symbol(what, &val) < 0 :
				  cgroup_id(what, &val) < 0) {
			err(s, arg(e, 0)->span, n[0] == 'k' ?
				"no kernel symbol named %s" :
				"cannot find the cgroup %s", what);
			return &type_none;
		}
		fold_const(e, val);
		return &type_u64;
	}
	if (!strcmp(n, "reg")) {
		if (!tgt_has(s, CTX_REGS)) {
			err(s, e->span, "reg() is not available in %s probes "
				"(only in kprobe and uprobe probes)",
			    probe_kind(s));
			return &type_none;
		}
		if (!nargs_ok(s, e, 1, 1))
			return &type_none;
		if (arg(e, 0)->kind != E_STRING) {
			err(s, arg(e, 0)->span, "reg() expects a string literal");
			return &type_none;
		}
		if (regs_offset(arg(e, 0)->u.str.bytes) < 0) {
			err(s, e->span, "'%s' is not a valid register on this "
			    "architecture", arg(e, 0)->u.str.bytes);
			return &type_none;
		}
		return &type_u64;
	}
	err(s, e->u.call.name_span, "unknown function %s()", n);
	for (uint32_t i = 0; i < e->u.call.args.n; i++)
		check_expr(s, arg(e, i));
	return &type_none;
}

/* ---- expressions ---- */

/* Positional parameters are constants: they become literals here, so
 * codegen never sees them. $# is the count; a missing $N is 0 (or "" in
 * str()), as in bpftrace. */
static const struct type *check_positional(struct sema *s,
					   struct ast_expr *e)
{
	long n = e->u.pos.num;
	if (n < 0 || n > s->opts->nparams) {
		e->kind = E_INT;
		e->u.num.value = n < 0 ? (uint64_t)s->opts->nparams : 0;
		e->u.num.is_char = false;
		return &type_s64;
	}
	const char *p = s->opts->params[n - 1];
	char *end;
	long long x = strtoll(p, &end, 0);
	if (*p && !*end) {
		e->kind = E_INT;
		e->u.num.value = (uint64_t)x;
		e->u.num.is_char = false;
		return &type_s64;
	}
	e->kind = E_STRING;
	e->u.str.bytes = p;
	e->u.str.len = (uint32_t)strlen(p);
	return type_string(s->arena, e->u.str.len + 1);
}

/* sizeof and offsetof are constants once types are known. */
static const struct type *fold_const(struct ast_expr *e, uint64_t v)
{
	e->kind = E_INT;
	e->u.num.value = v;
	e->u.num.is_char = false;
	return &type_u64;
}

static const struct type *check_expr_inner(struct sema *s,
					   struct ast_expr *e)
{
	switch (e->kind) {
	case E_INT:
		return e->u.num.value > INT64_MAX ? &type_u64 : &type_s64;
	case E_STRING:
		return type_string(s->arena, e->u.str.len + 1);
	case E_BUILTIN:
		return builtin_type(s, e);
	case E_IDENT: {
		int64_t v;
		if (ctypes_constant(s->ct, e->u.name, &v)) {
			fold_const(e, (uint64_t)v);
			return v < 0 ? &type_s64 : &type_u64;
		}
		err(s, e->span, "unknown identifier '%s'", e->u.name);
		return &type_none;
	}
	case E_POSITIONAL:
		return check_positional(s, e);
	case E_VAR: {
		struct var *v = find_var(s, e->u.name);
		if (!v || (s->pass > 0 && v->assigned_pass != s->pass)) {
			err(s, e->span, "variable %s is used before it is "
				"assigned", e->u.name);
			return &type_none;
		}
		return v->type;
	}
	case E_MAP: {
		struct sema_map *m = find_map(s, e->u.map.name);
		if (!m || m->value->kind == TY_NONE) {
			if (s->pass > 0)
				err(s, e->span, "map %s is used but never "
					"assigned", e->u.map.name);
			map_key_type(s, e);
			return &type_none;
		}
		e->aux = (int32_t)m->index;
		const struct type *key = map_key_type(s, e);
		if (!use_map_key(s, m, e, key))
			return &type_none;
		return m->value;
	}
	case E_CALL: {
		const struct type *t = check_call(s, e, NULL);
		if (type_is_aggregation(t))
			return &type_none;
		return t;
	}
	case E_UNARY:
		return check_unary(s, e);
	case E_BINARY:
		return check_binary(s, e);
	case E_TERNARY: {
		const struct type *c = check_expr(s, e->u.ternary.cond);
		const struct type *a = check_expr(s, e->u.ternary.then);
		const struct type *b = check_expr(s, e->u.ternary.otherwise);
		if (c->kind == TY_NONE || a->kind == TY_NONE ||
		    b->kind == TY_NONE)
			return &type_none;
		if (!is_intlike(c)) {
			err(s, e->u.ternary.cond->span, "the condition must be "
				"an integer, not %s", tname(s, c));
			return &type_none;
		}
		const struct type *u = unify(s, is_int(a) ? widen(s, a) : a,
					     is_int(b) ? widen(s, b) : b);
		if (!u) {
			err(s, e->span, "the two branches have different types: "
				"%s and %s", tname(s, a), tname(s, b));
			return &type_none;
		}
		return u;
	}
	case E_CAST:
		return check_cast(s, e);
	case E_FIELD:
		return check_field(s, e);
	case E_INDEX: {
		const struct type *b = check_expr(s, e->u.index.base);
		const struct type *i = check_expr(s, e->u.index.index);
		if (b->kind == TY_NONE || i->kind == TY_NONE)
			return &type_none;
		if (!is_int(i)) {
			err(s, e->u.index.index->span, "an index must be an "
				"integer, not %s", tname(s, i));
			return &type_none;
		}
		if (b->kind == TY_ARRAY || (b->kind == TY_PTR &&
					    b->elem->kind != TY_VOID))
			return b->elem;
		err(s, e->span, "%s cannot be indexed", tname(s, b));
		return &type_none;
	}
	case E_TUPLE: {
		uint32_t n = e->u.list.n;
		const struct type **el = arena_alloc(s->arena,
						     sizeof(*el) * (n + 1));
		for (uint32_t i = 0; i < n; i++) {
			el[i] = check_expr(s, e->u.list.items[i]);
			if (el[i]->kind == TY_NONE)
				return &type_none;
			if (el[i]->kind == TY_VOID ||
			    type_is_aggregation(el[i])) {
				err(s, e->u.list.items[i]->span, "%s cannot be "
					"a tuple element", tname(s, el[i]));
				return &type_none;
			}
		}
		return type_tuple(s->arena, el, n);
	}
	case E_TUPLE_INDEX: {
		const struct type *b = check_expr(s, e->u.tindex.base);
		if (b->kind == TY_NONE)
			return b;
		if (b->kind != TY_TUPLE) {
			err(s, e->span, "%s is not a tuple", tname(s, b));
			return &type_none;
		}
		if (e->u.tindex.index >= b->nfields) {
			err(s, e->span, "tuple index %u is out of range (the "
				"tuple has %u elements)", e->u.tindex.index,
			    b->nfields);
			return &type_none;
		}
		return b->fields[e->u.tindex.index].type;
	}
	case E_SIZEOF: {
		const struct type *t = e->u.size_of.expr ?
			check_expr(s, e->u.size_of.expr) :
			resolve_typespec(s, &e->u.size_of.type);
		if (t->kind == TY_NONE)
			return t;
		return fold_const(e, t->size);
	}
	case E_OFFSETOF: {
		const struct type *t = resolve_typespec(s, &e->u.offset_of.type);
		if (t->kind == TY_NONE)
			return t;
		uint64_t off = 0;
		for (uint32_t i = 0; i < e->u.offset_of.nfields; i++) {
			struct type_field f;
			if (t->kind != TY_RECORD ||
			    !find_field(s, t, e->u.offset_of.fields[i], &f)) {
				err(s, e->span, "%s has no field named '%s'",
				    tname(s, t), e->u.offset_of.fields[i]);
				return &type_none;
			}
			off += f.offset;
			t = f.type;
		}
		return fold_const(e, off);
	}
	}
	return &type_none;
}

static const struct type *check_expr(struct sema *s, struct ast_expr *e)
{
	e->type = check_expr_inner(s, e);
	return e->type;
}

/* ---- statements ---- */

static void check_block(struct sema *s, struct ast_block *b);

static void check_cond(struct sema *s, struct ast_expr *c)
{
	const struct type *t = check_expr(s, c);
	if (t->kind != TY_NONE && !is_intlike(t))
		err(s, c->span, "a condition must be an integer, not %s",
		    tname(s, t));
}

static void check_stmt(struct sema *s, struct ast_stmt *st)
{
	switch (st->kind) {
	case S_EXPR: {
		struct ast_expr *e = st->u.expr;
		if (e->kind == E_CALL)
			e->type = check_call(s, e, NULL);
		else
			check_expr(s, e);
		return;
	}
	case S_ASSIGN:
		check_assign(s, st);
		return;
	case S_IF:
		check_cond(s, st->u.if_.cond);
		check_block(s, &st->u.if_.then);
		if (st->u.if_.otherwise)
			check_stmt(s, st->u.if_.otherwise);
		return;
	case S_UNROLL: {
		int64_t n;
		if (!const_int(s, st->u.loop.cond, &n) || n < 1 || n > 100) {
			err(s, st->u.loop.cond->span, "unroll() needs a "
				"constant count between 1 and 100");
			return;
		}
		st->u.loop.cond->type = &type_s64;
		check_block(s, &st->u.loop.body);
		return;
	}
	case S_WHILE:
		check_cond(s, st->u.loop.cond);
		s->loop_depth++;
		check_block(s, &st->u.loop.body);
		s->loop_depth--;
		return;
	case S_BREAK:
	case S_CONTINUE:
		if (!s->loop_depth)
			err(s, st->span, "'%s' outside of a while loop",
			    st->kind == S_BREAK ? "break" : "continue");
		return;
	case S_RETURN:
		if (st->u.expr)
			check_expr(s, st->u.expr);
		return;
	case S_BLOCK:
		check_block(s, &st->u.block);
		return;
	}
}

static void check_block(struct sema *s, struct ast_block *b)
{
	for (uint32_t i = 0; i < b->n; i++)
		check_stmt(s, b->stmts[i]);
}

static void check_probe(struct sema *s, struct ast_probe *p,
			const struct sema_probe *sp)
{
	/* Each distinct context gets the body checked against it; the last
	 * one's annotations stay on the AST, and codegen re-derives what
	 * differs (field offsets) per target. */
	for (uint32_t t = 0; t < (sp->ntargets ? sp->ntargets : 1); t++) {
		s->tgt = sp->ntargets ? &sp->targets[t] : NULL;
		if (t > 0 && s->tgt->args == sp->targets[t - 1].args)
			continue;
		if (p->pred)
			check_cond(s, p->pred);
		check_block(s, &p->body);
	}
}

int sema_check(struct arena *a, struct diag *d, struct ast_program *prog,
	       const struct sema_probe *probes, const struct sema_opts *opts,
	       struct sema_result *out)
{
	struct sema s;
	memset(&s, 0, sizeof(s));
	s.arena = a;
	s.diag = d;
	s.opts = opts;
	s.prog = prog;
	s.muted = *d;
	s.muted.out = NULL;
	s.muted.max_errors = 0;
	s.ct = ctypes_build(a, d, prog);
	for (s.pass = 0; s.pass < 2; s.pass++) {
		s.report = s.pass == 0 ? &s.muted : d;
		for (uint32_t i = 0; i < prog->nprobes; i++) {
			s.probe = i;
			check_probe(&s, &prog->probes[i], &probes[i]);
		}
	}
	for (size_t i = 0; i < s.maps.len; i++) {
		struct sema_map *m = &s.maps.data[i];
		if (m->value->kind == TY_NONE && !d->nerrors)
			diag_error(d, m->first_use, "map %s is never assigned "
				   "a value", m->name);
	}
	out->nmaps = (uint32_t)s.maps.len;
	out->maps = arena_alloc(a, sizeof(*out->maps) * (s.maps.len + 1));
	if (s.maps.len)
		memcpy(out->maps, s.maps.data, sizeof(*out->maps) * s.maps.len);
	out->uses_ringbuf = s.uses_ringbuf;
	vec_free(&s.maps);
	vec_free(&s.vars);
	return d->nerrors ? -1 : 0;
}
