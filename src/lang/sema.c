/*
 * Semantic analysis. The program is walked twice: the first walk, with
 * diagnostics muted, settles the types of maps and variables (strings
 * widen to the longest value stored, as in bpftrace); the second walk
 * reports errors against those final types and annotates the AST.
 */
#define _GNU_SOURCE /* name_to_handle_at */
#include "sema_impl.h"

#include <errno.h>
#include <linux/bpf.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/btf.h"
#include "kernel/elfsym.h"
#include "kernel/features.h"
#include "kernel/kallsyms.h"
#include "kernel/regs.h"
#include "lang/ctypes.h"
#include "lang/fmt_parse.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/vec.h"

void sema_err(struct sema *s, struct span sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(s->report, sp, fmt, ap);
	va_end(ap);
}

const char *sema_tname(struct sema *s, const struct type *t)
{
	struct strbuf sb = STRBUF_INIT;
	type_describe(t, &sb);
	const char *r = arena_strdup(s->arena, sb_str(&sb));
	sb_free(&sb);
	return r;
}

/* Map keys and values store integers as 64 bits, keeping their sign and
 * the address space of a pointer they came from. A pointer stays one (8
 * bytes already, its space in its type): @p++ steps by its pointee, as in
 * bpftrace. */
static const struct type *widen(struct sema *s, const struct type *t)
{
	if (t->kind == TY_INT)
		return type_int_addr(s->arena, type_int(8, t->is_signed),
				     (enum addr_space)t->addr);
	if (t->kind == TY_TUPLE) {
		const struct type **el = arena_alloc(
			s->arena, sizeof(*el) * (t->nfields + 1));
		for (uint32_t i = 0; i < t->nfields; i++)
			el[i] = widen(s, t->fields[i].type);
		return type_tuple(s->arena, el, t->nfields);
	}
	return t;
}

/* The address space of one place holding addresses of spaces a and b. */
static enum addr_space unify_addr(uint8_t a, uint8_t b)
{
	if (a == b || b == AS_NONE)
		return (enum addr_space)a;
	return a == AS_NONE ? (enum addr_space)b : AS_MIXED;
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
	if (sema_is_intlike(a) && sema_is_intlike(b)) {
		/* One place holding user and kernel pointers is an address of
		 * no one space (read with the helpers that try both). */
		if (a->kind == TY_PTR && b->kind == TY_PTR)
			return a->is_user == b->is_user ? a :
				type_int_addr(s->arena, &type_u64, AS_MIXED);
		if (a->kind == TY_PTR || b->kind == TY_PTR)
			return a->kind == TY_PTR ? a : b;
		uint32_t size = a->size > b->size ? a->size : b->size;
		return type_int_addr(s->arena,
				     type_int((int)size, a->is_signed && b->is_signed),
				     unify_addr(a->addr, b->addr));
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

struct sema_map *sema_find_map(struct sema *s, const char *name)
{
	for (size_t i = 0; i < s->maps.len; i++)
		if (!strcmp(s->maps.data[i].name, name))
			return &s->maps.data[i];
	return NULL;
}

static struct sema_map *get_map(struct sema *s, const struct ast_expr *e)
{
	struct sema_map *m = sema_find_map(s, e->u.map.name);
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


/* The key type of a map access: NULL without [], the (widened) key for
 * one key, a tuple of them for several. */
const struct type *sema_map_key_type(struct sema *s, struct ast_expr *e)
{
	if (!e->u.map.has_brackets)
		return NULL;
	uint32_t n = e->u.map.keys.n;
	const struct type **el = arena_alloc(s->arena, sizeof(*el) * (n + 1));
	for (uint32_t i = 0; i < n; i++) {
		struct ast_expr *k = e->u.map.keys.items[i];
		const struct type *t = sema_expr(s, k);
		if (t->kind == TY_NONE)
			return &type_none;
		if (type_is_aggregation(t) || t->kind == TY_VOID) {
			sema_err(s, k->span, "%s cannot be used as a map key",
			    sema_tname(s, t));
			return &type_none;
		}
		el[i] = widen(s, t);
	}
	return n == 1 ? el[0] : type_tuple(s->arena, el, n);
}

/* The source text of e with its white space collapsed into buf (65
 * bytes), or "" when it is too long to name anything. */
static const char *key_text(const struct ast_expr *e, char *buf)
{
	const struct span *sp = &e->span;
	uint32_t n = 0;
	if (sp->file && sp->len <= 64 && sp->off + sp->len <= sp->file->len)
		for (uint32_t i = 0; i < sp->len; i++) {
			char c = sp->file->text[sp->off + i];
			if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
				if (n && buf[n - 1] != ' ')
					buf[n++] = ' ';
			} else if (c) {
				buf[n++] = c;
			}
		}
	while (n && buf[n - 1] == ' ')
		n--;
	buf[n] = 0;
	return buf;
}

/* Notes how the use at e writes m's key parts (sema_map.key_names). */
static void note_key_names(struct sema *s, struct sema_map *m,
			   const struct ast_expr *e)
{
	uint32_t n = e->u.map.keys.n;
	char buf[65];
	if (!m->key_names) {
		m->key_names = arena_alloc(s->arena, sizeof(char *) * (n + 1));
		m->nkey_names = n;
		for (uint32_t i = 0; i < n; i++)
			m->key_names[i] = arena_printf(
				s->arena, "%s",
				key_text(e->u.map.keys.items[i], buf));
		return;
	}
	for (uint32_t i = 0; i < n && i < m->nkey_names; i++)
		if (strcmp(m->key_names[i],
			   key_text(e->u.map.keys.items[i], buf)))
			m->key_names[i] = "";
}

/* Records the key used for map m at e, unifying with earlier uses. */
bool sema_use_map_key(struct sema *s, struct sema_map *m,
			struct ast_expr *e, const struct type *key)
{
	if (key && key->kind == TY_NONE)
		return false;
	if (key)
		note_key_names(s, m, e);
	if (!m->key && !m->first_use.file) {
		m->key = key;
		return true;
	}
	bool had_key = m->key != NULL || m->value->kind != TY_NONE;
	if (!m->key && !key)
		return true;
	if (!m->key && had_key && key) {
		sema_err(s, e->span, "%s is used without a key elsewhere, but "
			"with one here", m->name);
		return false;
	}
	if (m->key && !key) {
		sema_err(s, e->span, "%s needs a key: it is used as %s[%s] "
			"elsewhere", m->name, m->name, sema_tname(s, m->key));
		return false;
	}
	if (!m->key) {
		m->key = key;
		return true;
	}
	const struct type *u = unify(s, m->key, key);
	if (!u) {
		sema_err(s, e->span, "Argument mismatch for %s: trying to access "
			 "with arguments: '%s' when map expects arguments: '%s'",
			 m->name, sema_tname(s, key), sema_tname(s, m->key));
		return false;
	}
	m->key = u;
	return true;
}

/* ---- builtins ---- */

bool sema_tgt_has(struct sema *s, unsigned feature)
{
	return s->tgt && (s->tgt->features & feature);
}

const char *sema_probe_kind(struct sema *s)
{
	return s->tgt ? s->tgt->prov->name : "this";
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

/* Type t read out of from: what a user pointer, array or record leads
 * to is user memory too (a pointer read through it is a user pointer). */
static const struct type *in_space(struct sema *s, const struct type *from,
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

static const struct type *check_field(struct sema *s, struct ast_expr *e)
{
	const struct type *base = sema_expr(s, e->u.field.base);
	if (base->kind == TY_NONE)
		return &type_none;
	const struct type *rec = base;
	if (base->kind == TY_PTR && base->elem->kind == TY_RECORD)
		rec = base->elem;
	/* the script's definition of a record wins over the kernel's, and
	 * completes a pointer declared before it (struct node *next) */
	const struct type *def = rec->kind == TY_RECORD && !rec->nfields ?
		ctypes_script_record(s->ct, rec->name) : NULL;
	if (def)
		rec = def;
	if (rec->kind != TY_RECORD) {
		sema_err(s, e->u.field.name_span, "cannot access field '%s' of %s: "
			"it is not a struct", e->u.field.name, sema_tname(s, base));
		return &type_none;
	}
	if (e->u.field.arrow && base->kind != TY_PTR &&
	    !(e->u.field.base->kind == E_BUILTIN &&
	      e->u.field.base->builtin == BI_ARGS)) {
		sema_err(s, e->u.field.name_span, "'->' needs a pointer, but the "
			"left side is %s: use '.'", sema_tname(s, base));
		return &type_none;
	}
	struct type_field f;
	if (ctypes_script_failed(s->ct, rec->name))
		return &type_none;
	if (!find_field(s, rec, e->u.field.name, &f)) {
		sema_err(s, e->u.field.name_span, "%s has no field named '%s'",
		    sema_tname(s, rec), e->u.field.name);
		return &type_none;
	}
	struct type_field *rf = arena_alloc(s->arena, sizeof(*rf));
	*rf = f;
	e->u.field.resolved = rf;
	/* What a user pointer leads to is user memory too (a field read
	 * through a user pointer, or of a record in user memory). */
	return in_space(s, base->kind == TY_PTR &&
				   type_addr_space(base) != AS_KERNEL ? base : rec,
			f.type);
}

/* ---- casts ---- */

static const struct type *resolve_typespec(struct sema *s,
					   const struct ast_typespec *ts)
{
	return ctypes_resolve(s->ct, s->report, ts);
}

static const struct type *check_cast(struct sema *s, struct ast_expr *e)
{
	const struct type *from = sema_expr(s, e->u.cast.operand);
	const struct type *to = resolve_typespec(s, &e->u.cast.to);
	if (from->kind == TY_NONE || to->kind == TY_NONE)
		return &type_none;
	if (to->kind == TY_RECORD) {
		sema_err(s, e->span, "cannot cast to %s: cast to a pointer to it",
		    sema_tname(s, to));
		return &type_none;
	}
	if (to->kind == TY_ARRAY) {
		if (!sema_is_int(from) || from->size != to->size) {
			sema_err(s, e->span, "cannot cast %s to %s: the sizes must "
				"match", sema_tname(s, from), sema_tname(s, to));
			return &type_none;
		}
		return to;
	}
	if (!sema_is_intlike(from) || !sema_is_intlike(to)) {
		sema_err(s, e->span, "cannot cast %s to %s", sema_tname(s, from),
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

/* ---- operators ---- */

static bool is_string_like(const struct type *t)
{
	return t->kind == TY_STRING;
}

/* The bytes one step of pointer p moves, as in C and bpftrace; 0 (after
 * an error at sp) when what it points to has no size (void *). */
static uint32_t ptr_step(struct sema *s, const struct type *p,
			 struct span sp)
{
	const struct type *el = p->elem;
	uint32_t step = el->kind == TY_PTR ? 8 : el->size;
	if (!step)
		sema_err(s, sp, "cannot do arithmetic on %s: what it points to "
			"has no size; cast it to a pointer of a sized type",
		    sema_tname(s, p));
	return step;
}

/* A pointer with an integer or with another pointer, as bpftrace has it:
 * p + n, n + p and p - n step by the pointee's size and stay pointers;
 * pointers compare with pointers and integers; p - q is refused, as in
 * bpftrace (it does not divide by the size). Other operators work on the
 * address as an integer. */
static const struct type *check_ptr_binary(struct sema *s, struct ast_expr *e,
					   const struct type *l,
					   const struct type *r)
{
	enum ast_op op = e->u.binary.op;
	if (op == OP_LAND || op == OP_LOR || (op >= OP_EQ && op <= OP_GE))
		return &type_u64;
	if (op != OP_ADD && op != OP_SUB)
		return &type_u64;
	if ((l->kind == TY_PTR && r->kind == TY_PTR) ||
	    (op == OP_SUB && l->kind != TY_PTR)) {
		sema_err(s, e->span, "the '%s' operator cannot be used on %s and "
			"%s", ast_op_str(op), sema_tname(s, l), sema_tname(s, r));
		return &type_none;
	}
	const struct type *p = l->kind == TY_PTR ? l : r;
	if (!ptr_step(s, p, e->span))
		return &type_none;
	return p;
}

static const struct type *check_binary(struct sema *s, struct ast_expr *e)
{
	const struct type *l = sema_expr(s, e->u.binary.left);
	const struct type *r = sema_expr(s, e->u.binary.right);
	enum ast_op op = e->u.binary.op;
	/* In the first pass a map read before its first store (@n = @n + 1)
	 * is still untyped; arithmetic with an integer makes it one. */
	if (s->pass == 0 && (l->kind == TY_NONE) != (r->kind == TY_NONE) &&
	    (sema_is_int(l) || sema_is_int(r)))
		return &type_s64;
	if (l->kind == TY_NONE || r->kind == TY_NONE)
		return &type_none;
	if (op == OP_EQ || op == OP_NE) {
		if (is_string_like(l) && is_string_like(r))
			return &type_u64;
		if (l->kind == TY_BUF && r->kind == TY_BUF)
			return &type_u64;
		if (l->kind == TY_ARRAY && r->kind == TY_ARRAY) {
			/* as bpftrace: byte for byte, arrays of one type */
			if (!type_equal(l, r) || l->elem->kind != TY_INT) {
				sema_err(s, e->span, "only arrays of the same size "
					"and integer type can be compared, not %s "
					"and %s", sema_tname(s, l), sema_tname(s, r));
				return &type_none;
			}
			return &type_u64;
		}
		if (l->kind == TY_TUPLE && r->kind == TY_TUPLE) {
			if (!unify(s, widen(s, l), widen(s, r))) {
				sema_err(s, e->span, "cannot compare %s with %s",
				    sema_tname(s, l), sema_tname(s, r));
				return &type_none;
			}
			return &type_u64;
		}
	}
	if ((l->kind == TY_PTR || r->kind == TY_PTR) && sema_is_intlike(l) &&
	    sema_is_intlike(r))
		return check_ptr_binary(s, e, l, r);
	if (!sema_is_intlike(l) || !sema_is_intlike(r)) {
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
	const struct type *t = sema_expr(s, e->u.unary.operand);
	if (t->kind == TY_NONE)
		return t;
	switch (op) {
	case OP_LNOT:
		if (!sema_is_intlike(t))
			break;
		return &type_u64;
	case OP_NEG:
		if (!sema_is_int(t))
			break;
		return &type_s64;
	case OP_BNOT:
	case OP_PLUS:
		if (!sema_is_int(t))
			break;
		return type_int(8, t->is_signed);
	case OP_DEREF:
		if (t->kind == TY_PTR && (t->elem->kind == TY_INT ||
					  t->elem->kind == TY_PTR))
			return in_space(s, t, t->elem);
		if (t->kind == TY_PTR && t->elem->kind == TY_RECORD)
			return t->elem;
		sema_err(s, e->span, "cannot dereference %s", sema_tname(s, t));
		return &type_none;
	case OP_ADDR:
		sema_err(s, e->span, "the address-of operator '&' is not "
			"supported");
		return &type_none;
	default:
		break;
	}
	sema_err(s, e->span, "the '%s' operator cannot be used on %s",
	    ast_op_str(op), sema_tname(s, t));
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
		sema_err(s, at, "this expression has no value to store in %s",
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
	if (!u && v->kind == TY_HIST && m->value->kind == TY_HIST) {
		sema_err(s, at, "Different bits in a single hist unsupported");
		return;
	}
	if (!u) {
		sema_err(s, at, "type mismatch for %s: storing %s, but it already "
			"holds %s", m->name, sema_tname(s, v), sema_tname(s, m->value));
		return;
	}
	m->value = u;
	(void)e;
}

static void store_var(struct sema *s, struct ast_expr *e,
		      const struct type *t, struct span at)
{
	if (t->kind == TY_NONE) {
		/* after an error in the value: later reads stay quiet */
		struct var *v = find_var(s, e->u.name);
		if (v) {
			v->assigned_pass = s->pass;
		} else {
			struct var nv = { e->u.name, s->probe, t, s->pass };
			vec_push(&s->vars, nv);
		}
		return;
	}
	if (t->kind == TY_VOID || type_is_aggregation(t)) {
		sema_err(s, at, "cannot assign %s to variable %s", sema_tname(s, t),
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
	if (!u || (sema_is_int(v->type) && !sema_is_int(t) && t->kind != TY_PTR)) {
		sema_err(s, at, "type mismatch for %s: assigning %s, but it already "
			"holds %s", e->u.name, sema_tname(s, t), sema_tname(s, v->type));
		return;
	}
	/* A variable's integer width is its first assignment's. */
	if (!(sema_is_int(v->type) && sema_is_int(u)))
		v->type = u;
	v->assigned_pass = s->pass;
	e->type = v->type;
}


/* @m = @agg: an aggregation cannot be copied to another map, only read
 * as the value of a map that holds integers otherwise (bpftrace 0.26's
 * is_valid_assignment); notes the maps that are given plain values. */
static bool agg_copy_ok(struct sema *s, struct sema_map *m,
			struct ast_stmt *st)
{
	static const char *const hints[] = {
		[TY_COUNT] = "count()", [TY_SUM] = "sum(retval)",
		[TY_MIN] = "min(retval)", [TY_MAX] = "max(retval)",
		[TY_AVG] = "avg(retval)", [TY_STATS] = "stats(arg2)",
		[TY_HIST] = "hist(retval)",
		[TY_LHIST] = "lhist(rand %10, 0, 10, 1)",
		[TY_TSERIES] = "tseries(rand %10, 10s, 1)",
	};
	struct ast_expr *val = st->u.assign.value;
	const struct sema_map *from = val->kind == E_MAP ?
		sema_find_map(s, val->u.map.name) : NULL;
	if (!from || !type_is_aggregation(from->value)) {
		if (val->kind != E_CALL || !type_is_aggregation(val->type))
			m->plain_stored = true;
		return true;
	}
	if (type_is_castable_agg(from->value) && m->plain_stored)
		return true;
	const char *name = sema_tname(s, from->value);
	sema_err(s, st->span, "Map value '%s_t' cannot be assigned from one "
		 "map to another. The function that returns this type must be "
		 "called directly e.g. `%s = %s;`.",
		 name, m->name,
		 hints[from->value->kind]);
	return false;
}

static void check_assign(struct sema *s, struct ast_stmt *st)
{
	struct ast_expr *tgt = st->u.assign.target;
	struct ast_expr *val = st->u.assign.value;
	const struct type *t;
	if (val->kind == E_CALL)
		t = val->type = sema_call(s, val, tgt);
	else
		t = sema_expr(s, val);
	if (st->u.assign.op != OP_NONE) {
		/* x op= v is x = x op v; a map starts from 0 */
		if (tgt->kind == E_MAP) {
			struct sema_map *m = get_map(s, tgt);
			tgt->aux = (int32_t)m->index;
			if (m->value->kind == TY_NONE && sema_is_int(t)) {
				const struct type *key = sema_map_key_type(s, tgt);
				if (!sema_use_map_key(s, m, tgt, key))
					return;
				m->value = &type_s64;
			}
		}
		const struct type *cur = sema_expr(s, tgt);
		if (cur->kind == TY_NONE || t->kind == TY_NONE)
			return;
		if (!sema_is_intlike(cur) || !sema_is_intlike(t)) {
			sema_err(s, st->span, "'%s=' needs integers, not %s and %s",
			    ast_op_str(st->u.assign.op), sema_tname(s, cur),
			    sema_tname(s, t));
			return;
		}
		/* p += n steps by the pointee, as p = p + n does */
		enum ast_op op = st->u.assign.op;
		if ((op == OP_ADD || op == OP_SUB) &&
		    (cur->kind == TY_PTR || t->kind == TY_PTR)) {
			if (cur->kind != TY_PTR || t->kind == TY_PTR)
				sema_err(s, st->span, "the '%s=' operator cannot be "
					"used on %s and %s", ast_op_str(op),
				    sema_tname(s, cur), sema_tname(s, t));
			else
				ptr_step(s, cur, st->span);
		}
		return;
	}
	if (tgt->kind == E_MAP) {
		struct sema_map *m = get_map(s, tgt);
		tgt->aux = (int32_t)m->index;
		const struct type *key = sema_map_key_type(s, tgt);
		if (!sema_use_map_key(s, m, tgt, key))
			return;
		if (!agg_copy_ok(s, m, st))
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
		sema_err(s, e->span, "can only increment or decrement a map or a "
			"variable");
		return &type_none;
	}
	if (x->kind == E_MAP) {
		struct sema_map *m = get_map(s, x);
		x->aux = (int32_t)m->index;
		const struct type *key = sema_map_key_type(s, x);
		if (!sema_use_map_key(s, m, x, key))
			return &type_none;
		if (m->value->kind == TY_NONE)
			m->value = &type_s64;
		if (m->value->kind == TY_PTR) {
			x->type = m->value;
			return ptr_step(s, m->value, e->span) ? m->value :
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
	if (t->kind == TY_PTR && !ptr_step(s, t, e->span))
		return &type_none;
	return t;
}

/* ---- expressions ---- */

/* A count/sum/min/max/avg map read as a value (@c > 5, (uint64)@c): the
 * integer its per-CPU values merge to, which codegen sums in the program
 * with bpf_map_lookup_percpu_elem, as bpftrace 0.26 does; a kernel
 * without that helper cannot read it, and 0.26 refuses it in its words. */
static const struct type *agg_value(struct sema *s, struct sema_map *m,
				    struct ast_expr *e)
{
	if (s->pass > 0 && !feat_has(FEAT_LOOKUP_PERCPU_ELEM)) {
		sema_err(s, e->span, "Missing required kernel feature: "
			 "map_lookup_percpu_elem");
		return &type_none;
	}
	if (m->value->kind == TY_COUNT || !m->value->is_signed)
		return &type_u64;
	return &type_s64;
}

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

const struct type *sema_fold_const(struct ast_expr *e, uint64_t v)
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
		return sema_builtin_var(s, e);
	case E_IDENT: {
		int64_t v;
		if (ctypes_constant(s->ct, e->u.name, &v)) {
			sema_fold_const(e, (uint64_t)v);
			return v < 0 ? &type_s64 : &type_u64;
		}
		sema_err(s, e->span, "unknown identifier '%s'", e->u.name);
		return &type_none;
	}
	case E_POSITIONAL:
		return check_positional(s, e);
	case E_VAR: {
		struct var *v = find_var(s, e->u.name);
		if (!v || (s->pass > 0 && v->assigned_pass != s->pass)) {
			sema_err(s, e->span, "variable %s is used before it is "
				"assigned", e->u.name);
			return &type_none;
		}
		return v->type;
	}
	case E_MAP: {
		struct sema_map *m = sema_find_map(s, e->u.map.name);
		if (!m || m->value->kind == TY_NONE) {
			if (s->pass > 0)
				sema_err(s, e->span, "map %s is used but never "
					"assigned", e->u.map.name);
			sema_map_key_type(s, e);
			return &type_none;
		}
		e->aux = (int32_t)m->index;
		const struct type *key = sema_map_key_type(s, e);
		if (!sema_use_map_key(s, m, e, key))
			return &type_none;
		if (type_is_castable_agg(m->value))
			return agg_value(s, m, e);
		return m->value;
	}
	case E_CALL: {
		const struct type *t = sema_call(s, e, NULL);
		if (type_is_aggregation(t))
			return &type_none;
		return t;
	}
	case E_UNARY:
		return check_unary(s, e);
	case E_BINARY:
		return check_binary(s, e);
	case E_TERNARY: {
		const struct type *c = sema_expr(s, e->u.ternary.cond);
		const struct type *a = sema_expr(s, e->u.ternary.then);
		const struct type *b = sema_expr(s, e->u.ternary.otherwise);
		if (c->kind == TY_NONE || a->kind == TY_NONE ||
		    b->kind == TY_NONE)
			return &type_none;
		if (!sema_is_intlike(c)) {
			sema_err(s, e->u.ternary.cond->span, "the condition must be "
				"an integer, not %s", sema_tname(s, c));
			return &type_none;
		}
		const struct type *u = unify(s, sema_is_int(a) ? widen(s, a) : a,
					     sema_is_int(b) ? widen(s, b) : b);
		if (!u) {
			sema_err(s, e->span, "the two branches have different types: "
				"%s and %s", sema_tname(s, a), sema_tname(s, b));
			return &type_none;
		}
		return u;
	}
	case E_CAST:
		return check_cast(s, e);
	case E_FIELD:
		return check_field(s, e);
	case E_INDEX: {
		const struct type *b = sema_expr(s, e->u.index.base);
		const struct type *i = sema_expr(s, e->u.index.index);
		if (b->kind == TY_NONE || i->kind == TY_NONE)
			return &type_none;
		if (!sema_is_int(i)) {
			sema_err(s, e->u.index.index->span, "an index must be an "
				"integer, not %s", sema_tname(s, i));
			return &type_none;
		}
		int64_t k;
		if (b->kind == TY_ARRAY &&
		    sema_const_int(s, e->u.index.index, &k) &&
		    (k < 0 || (uint64_t)k >= b->count)) {
			sema_err(s, e->u.index.index->span, "the index %lld is out "
				"of bounds for array of size %u", (long long)k,
			    b->count);
			return &type_none;
		}
		if (b->kind == TY_ARRAY || (b->kind == TY_PTR &&
					    b->elem->kind != TY_VOID))
			return in_space(s, b, b->elem);
		sema_err(s, e->span, "%s cannot be indexed", sema_tname(s, b));
		return &type_none;
	}
	case E_TUPLE: {
		uint32_t n = e->u.list.n;
		const struct type **el = arena_alloc(s->arena,
						     sizeof(*el) * (n + 1));
		for (uint32_t i = 0; i < n; i++) {
			el[i] = sema_expr(s, e->u.list.items[i]);
			if (el[i]->kind == TY_NONE)
				return &type_none;
			if (el[i]->kind == TY_VOID ||
			    type_is_aggregation(el[i])) {
				sema_err(s, e->u.list.items[i]->span, "%s cannot be "
					"a tuple element", sema_tname(s, el[i]));
				return &type_none;
			}
		}
		return type_tuple(s->arena, el, n);
	}
	case E_TUPLE_INDEX: {
		const struct type *b = sema_expr(s, e->u.tindex.base);
		if (b->kind == TY_NONE)
			return b;
		if (b->kind != TY_TUPLE) {
			sema_err(s, e->span, "%s is not a tuple", sema_tname(s, b));
			return &type_none;
		}
		if (e->u.tindex.index >= b->nfields) {
			sema_err(s, e->span, "tuple index %u is out of range (the "
				"tuple has %u elements)", e->u.tindex.index,
			    b->nfields);
			return &type_none;
		}
		return b->fields[e->u.tindex.index].type;
	}
	case E_SIZEOF: {
		const struct type *t = e->u.size_of.expr ?
			sema_expr(s, e->u.size_of.expr) :
			resolve_typespec(s, &e->u.size_of.type);
		if (t->kind == TY_NONE)
			return t;
		return sema_fold_const(e, t->size);
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
				sema_err(s, e->span, "%s has no field named '%s'",
				    sema_tname(s, t), e->u.offset_of.fields[i]);
				return &type_none;
			}
			off += f.offset;
			t = f.type;
		}
		return sema_fold_const(e, off);
	}
	}
	return &type_none;
}

const struct type *sema_expr(struct sema *s, struct ast_expr *e)
{
	e->type = check_expr_inner(s, e);
	return e->type;
}

/* ---- statements ---- */

static void check_block(struct sema *s, struct ast_block *b);
static bool block_leaves(const struct ast_block *b, bool nested);

static void check_cond(struct sema *s, struct ast_expr *c)
{
	const struct type *t = sema_expr(s, c);
	if (t->kind != TY_NONE && !sema_is_intlike(t))
		sema_err(s, c->span, "a condition must be an integer, not %s",
		    sema_tname(s, t));
}

static void check_stmt(struct sema *s, struct ast_stmt *st)
{
	switch (st->kind) {
	case S_EXPR: {
		struct ast_expr *e = st->u.expr;
		if (e->kind == E_CALL)
			e->type = sema_call(s, e, NULL);
		else
			sema_expr(s, e);
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
		struct ast_expr *c = st->u.loop.cond;
		if (!sema_const_int(s, c, &n)) {
			sema_err(s, c->span, "unroll() needs a constant count "
				"between 1 and 100");
			return;
		}
		if (n < 1 || n > 100) {
			sema_err(s, c->span, "unroll %s value is %d",
			    n < 1 ? "minimum" : "maximum", n < 1 ? 1 : 100);
			return;
		}
		/* unroll($1): codegen reads the count as a literal */
		sema_fold_const(c, (uint64_t)n);
		c->type = &type_s64;
		check_block(s, &st->u.loop.body);
		return;
	}
	case S_WHILE: {
		check_cond(s, st->u.loop.cond);
		int64_t c;
		if (sema_const_int(s, st->u.loop.cond, &c) && c &&
		    !block_leaves(&st->u.loop.body, false))
			sema_err(s, st->u.loop.cond->span, "this while loop never "
				"ends: its condition is always true and it has no "
				"break or return (the kernel's verifier rejects a "
				"loop it cannot see end)");
		s->loop_depth++;
		check_block(s, &st->u.loop.body);
		s->loop_depth--;
		return;
	}
	case S_BREAK:
	case S_CONTINUE:
		if (!s->loop_depth)
			sema_err(s, st->span, "'%s' outside of a while loop",
			    st->kind == S_BREAK ? "break" : "continue");
		return;
	case S_RETURN:
		if (st->u.expr)
			sema_expr(s, st->u.expr);
		return;
	case S_BLOCK:
		check_block(s, &st->u.block);
		return;
	}
}

/* Whether b has a way out of the loop it is the body of: a break of that
 * loop (nested: b is in an inner while, whose breaks do not count) or a
 * return. */
static bool block_leaves(const struct ast_block *b, bool nested)
{
	for (uint32_t i = 0; i < b->n; i++) {
		const struct ast_stmt *st = b->stmts[i];
		switch (st->kind) {
		case S_BREAK:
			if (!nested)
				return true;
			break;
		case S_RETURN:
			return true;
		case S_IF:
			if (block_leaves(&st->u.if_.then, nested))
				return true;
			if (st->u.if_.otherwise) {
				struct ast_block one = {
					(struct ast_stmt **)&st->u.if_.otherwise,
					1, st->span };
				if (block_leaves(&one, nested))
					return true;
			}
			break;
		case S_WHILE:
			if (block_leaves(&st->u.loop.body, true))
				return true;
			break;
		case S_UNROLL:
			if (block_leaves(&st->u.loop.body, nested))
				return true;
			break;
		case S_BLOCK:
			if (block_leaves(&st->u.block, nested))
				return true;
			break;
		default:
			break;
		}
	}
	return false;
}

static void check_block(struct sema *s, struct ast_block *b)
{
	for (uint32_t i = 0; i < b->n; i++)
		check_stmt(s, b->stmts[i]);
}

/* Whether a body typed for target a is typed the same for target b. */
static bool same_context(const struct probe_target *a,
			 const struct probe_target *b)
{
	return a->args == b->args && a->layout == b->layout &&
	       a->features == b->features && a->nargs == b->nargs &&
	       a->retval == b->retval && !a->func == !b->func &&
	       a->prov == b->prov;
}

static void check_body(struct sema *s, struct ast_probe *p,
		       const struct probe_target *t)
{
	s->tgt = t;
	if (p->pred)
		check_cond(s, p->pred);
	check_block(s, &p->body);
	s->annotated[s->probe] = t;
}

static void check_probe(struct sema *s, struct ast_probe *p,
			const struct sema_probe *sp)
{
	/* Each distinct context gets the body checked against it. The AST
	 * keeps the last one's annotations; sema_retarget() puts back those
	 * of the target codegen compiles next. */
	if (!sp->ntargets) {
		check_body(s, p, NULL);
		return;
	}
	for (uint32_t t = 0; t < sp->ntargets; t++)
		if (t == 0 || !same_context(&sp->targets[t],
					    &sp->targets[t - 1]))
			check_body(s, p, &sp->targets[t]);
}

void sema_retarget(const struct sema_result *r, uint32_t probe,
		   const struct probe_target *t)
{
	struct sema *s = r->state;
	const struct probe_target *cur = s->annotated[probe];
	if (cur == t || (cur && t && same_context(cur, t)))
		return;
	/* The types of maps and variables are final: checking again only
	 * rewrites this probe's annotations, and reports nothing new. */
	s->report = &s->muted;
	s->probe = probe;
	check_body(s, &s->prog->probes[probe], t);
}

/* let @m = hash(n), lruhash, percpuhash, percpulruhash (bpftrace 0.26):
 * the map's BPF type and size, which must suit its values (per-CPU ones
 * for aggregations); a declared map no probe uses is warned about. */
static void check_map_decls(struct sema *s, const struct ast_program *prog)
{
	static const struct { const char *name; uint32_t type; } kinds[] = {
		{ "hash", BPF_MAP_TYPE_HASH },
		{ "lruhash", BPF_MAP_TYPE_LRU_HASH },
		{ "percpuhash", BPF_MAP_TYPE_PERCPU_HASH },
		{ "percpulruhash", BPF_MAP_TYPE_LRU_PERCPU_HASH },
	};
	for (uint32_t i = 0; i < prog->nmapdecls; i++) {
		const struct ast_mapdecl *d = &prog->mapdecls[i];
		uint32_t type = 0;
		const char *tname = NULL;
		for (size_t k = 0; k < sizeof(kinds) / sizeof(*kinds); k++)
			if (!strcmp(d->kind, kinds[k].name)) {
				type = kinds[k].type;
				tname = kinds[k].name;
			}
		if (!type) {
			sema_err(s, d->span, "Invalid bpf map type: %s", d->kind);
			continue;
		}
		if (!d->size || d->size > UINT32_MAX) {
			sema_err(s, d->span, "the number of entries of %s must be "
				 "from 1 to %u", d->name, UINT32_MAX);
			continue;
		}
		struct sema_map *m = sema_find_map(s, d->name);
		if (!m) {
			diag_warning(s->report, d->span, "Unused map: %s", d->name);
			continue;
		}
		bool percpu = type == BPF_MAP_TYPE_PERCPU_HASH ||
			      type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
		if (m->value->kind != TY_NONE &&
		    percpu != type_is_aggregation(m->value)) {
			sema_err(s, m->first_use, "Incompatible map types. Type "
				 "from declaration: %s. Type from value/key type: "
				 "%s", tname, percpu ? "hash" : "percpuhash");
			continue;
		}
		m->decl_type = type;
		m->decl_size = (uint32_t)d->size;
	}
}

int sema_check(struct arena *a, struct diag *d, struct ast_program *prog,
	       const struct sema_probe *probes, const struct sema_opts *opts,
	       struct sema_result *out)
{
	struct sema *sp = arena_alloc(a, sizeof(*sp));
	struct sema s;
	memset(&s, 0, sizeof(s));
	s.annotated = arena_alloc(a, sizeof(*s.annotated) *
					     (prog->nprobes + 1));
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
	check_map_decls(&s, prog);
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
	/* sema_retarget() reads the maps from out and the variables, which
	 * are all declared by now, from the arena. */
	struct var *vars = arena_alloc(a, sizeof(*vars) * (s.vars.len + 1));
	if (s.vars.len)
		memcpy(vars, s.vars.data, sizeof(*vars) * s.vars.len);
	size_t nvars = s.vars.len;
	vec_free(&s.vars);
	*sp = s;
	sp->vars.data = vars;
	sp->vars.len = sp->vars.cap = nvars;
	sp->maps.data = out->maps;
	sp->maps.len = sp->maps.cap = out->nmaps;
	sp->pass = 1;
	out->state = sp;
	return d->nerrors ? -1 : 0;
}
