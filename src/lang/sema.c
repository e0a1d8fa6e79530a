/*
 * Semantic analysis. The program is walked twice: the first walk, with
 * diagnostics muted, settles the types of maps and variables (strings
 * widen to the longest value stored, as in bpftrace); the second walk
 * reports errors against those final types and annotates the AST.
 */
#include "sema_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/btf.h"
#include "kernel/features.h"
#include "lang/ctypes.h"
#include "lang/fmt_parse.h"
#include "model/limits.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/intparse.h"
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
static const struct type *widen(struct sema *s, const struct type *t)
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
			el[i] = widen(s, t->fields[i].type);
		return retuple(s, t, el);
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
 * cannot share it. Strings and buffers take the longer size; ints the
 * wider. */
static const struct type *unify(struct sema *s, const struct type *a,
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
			el[i] = bf ? unify(s, a->fields[i].type, bf->type) : NULL;
			if (!el[i])
				return NULL;
		}
		return retuple(s, a, el);
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

/* The variable declared by node decl (its first assignment, its `let`
 * or its loop), made on the first walk and found again on the others. */
static int32_t var_for_decl(struct sema *s, const void *decl,
			    const char *name)
{
	for (size_t i = s->vars.len; i-- > 0;)
		if (s->vars.data[i].decl == decl)
			return (int32_t)i;
	struct var nv;
	memset(&nv, 0, sizeof(nv));
	nv.name = name;
	nv.probe = s->probe;
	nv.type = &type_none;
	nv.decl = decl;
	vec_push(&s->vars, nv);
	return (int32_t)s->vars.len - 1;
}

/* A use of variable id found at scope depth level: the for loops whose
 * bodies are deeper take it into their callbacks. */
static void note_var_use(struct sema *s, int32_t id, uint32_t level)
{
	for (size_t f = 0; f < s->fors.len; f++) {
		struct sema_for *sf = &s->fors.data[f];
		if (sf->level <= level)
			continue;
		bool have = false;
		for (size_t k = 0; k < sf->captures.len && !have; k++)
			have = sf->captures.data[k] == id;
		if (!have)
			vec_push(&sf->captures, id);
	}
}

/* The variable e names in the open scopes, annotated on e (aux); NULL
 * (and the error bpftrace 0.26 gives) when none has it. */
static struct var *lookup_var(struct sema *s, struct ast_expr *e)
{
	uint32_t level;
	int32_t id = scope_find(&s->scopes, e->u.name, &level);
	if (id < 0) {
		sema_err(s, e->span, "Undefined or undeclared variable: %s",
			 e->u.name);
		if (scope_was_closed(&s->scopes, e->u.name) && s->report->out)
			diag_report(s->report, "HINT", (struct span){ 0 },
				    "since bpftrace 0.22 a variable lives in "
				    "the block that first assigns it: before "
				    "that block, assign it (%s = ...;) or "
				    "declare it (let %s;)", e->u.name,
				    e->u.name);
		return NULL;
	}
	e->aux = id;
	note_var_use(s, id, level);
	return &s->vars.data[id];
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

/* A tracepoint field of a C enum type ("enum skb_drop_reason reason")
 * has its enum's enumerators from BTF, as bpftrace 0.26 types it. */
static void enum_field(struct sema *s, struct type_field *f)
{
	const struct type *t = f->type;
	if (t->kind != TY_INT || t->enm || !t->name ||
	    strncmp(t->name, "enum ", 5))
		return;
	const struct type *bt = kbtf_type_by_name(s->arena, t->name);
	if (bt && bt->kind == TY_INT && bt->enm)
		f->type = type_int_enum(s->arena, type_int((int)t->size, false),
					bt->enm);
}

/* The field name of record rec (tracefs/script records carry their
 * fields; BTF shells are looked up). */
static bool find_field(struct sema *s, const struct type *rec,
		       const char *name, struct type_field *out)
{
	for (uint32_t i = 0; i < rec->nfields; i++)
		if (rec->fields[i].name && !strcmp(rec->fields[i].name, name)) {
			*out = rec->fields[i];
			enum_field(s, out);
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
	if (type_is_record(base)) {
		const struct type_field *rf =
			type_record_field(base, e->u.field.name);
		if (!rf) {
			sema_err(s, e->u.field.name_span, "Record does not contain "
				"a field named '%s'", e->u.field.name);
			return &type_none;
		}
		e->u.field.resolved = rf;
		return rf->type;
	}
	const struct type *rec = base;
	/* '.' and '->' go through any number of pointers, as in bpftrace
	 * 0.26 (codegen reads each one) */
	while (rec->kind == TY_PTR && rec->elem->kind == TY_PTR)
		rec = rec->elem;
	if (rec->kind == TY_PTR && rec->elem->kind == TY_RECORD) {
		base = rec;
		rec = rec->elem;
	}
	/* the script's definition of a record wins over the kernel's, and
	 * completes a pointer declared before it (struct node *next) */
	const struct type *def = rec->kind == TY_RECORD && !rec->nfields ?
		ctypes_script_record(s->ct, rec->name) : NULL;
	if (def)
		rec = def;
	if (rec->kind != TY_RECORD) {
		sema_err(s, e->u.field.name_span, "Can not access field '%s' on "
			"expression of type '%s'", e->u.field.name,
		    sema_tname(s, rec));
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

static const struct type *decay(struct ast_expr *e, const struct type *t);

static const struct type *resolve_typespec(struct sema *s,
					   const struct ast_typespec *ts)
{
	if (ts->of) {
		const struct type *t = decay(ts->of, sema_expr(s, ts->of));
		if (type_is_aggregation(t) || t->kind == TY_VOID) {
			sema_err(s, ts->of->span, "typeof() of %s is no type a "
				 "value has", sema_tname(s, t));
			return &type_none;
		}
		for (int i = 0; i < ts->ptr_depth; i++)
			t = type_ptr(s->arena, t, t->is_user);
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

/* A map of count(), sum(), min(), max() or avg() read where an integer
 * is wanted (bpftrace 0.26's "castable" map types): e becomes a read of
 * the combined value (codegen sums the CPUs), an integer. */
static const struct type *decay(struct ast_expr *e, const struct type *t)
{
	if (e->kind != E_MAP || t->kind < TY_COUNT || t->kind > TY_AVG)
		return t;
	e->type = type_int(8, t->kind != TY_COUNT && t->is_signed);
	return e->type;
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

static const struct type *check_cast(struct sema *s, struct ast_expr *e)
{
	const struct type *from = decay(e->u.cast.operand,
					sema_expr(s, e->u.cast.operand));
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
	const struct type *to = resolve_typespec(s, &e->u.cast.to);
	if (from->kind == TY_NONE || to->kind == TY_NONE)
		return &type_none;
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
		return &type_bool;
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

/* A literal of either sign: bpftrace 0.26's "sign flexible" integer (a
 * non-negative one; folded sizes and offsets are unsigned). */
static bool flexible(const struct ast_expr *e)
{
	return e->kind == E_INT && !e->u.num.is_bool && e->type &&
	       e->type->kind == TY_INT && e->type->is_signed &&
	       e->u.num.value <= INT64_MAX;
}

static const struct type *check_binary(struct sema *s, struct ast_expr *e)
{
	const struct type *l = decay(e->u.binary.left,
				     sema_expr(s, e->u.binary.left));
	const struct type *r = decay(e->u.binary.right,
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
			if (!unify(s, widen(s, l), widen(s, r))) {
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
	bool lf = flexible(e->u.binary.left), rf = flexible(e->u.binary.right);
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

static const struct type *check_incdec(struct sema *s, struct ast_expr *e);

static const struct type *check_unary(struct sema *s, struct ast_expr *e)
{
	enum ast_op op = e->u.unary.op;
	if (op == OP_PREINC || op == OP_PREDEC || op == OP_POSTINC ||
	    op == OP_POSTDEC)
		return check_incdec(s, e);
	const struct type *t = decay(e->u.unary.operand,
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
			return in_space(s, t, t->elem);
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

/* The variable an assignment to e stores into: the one of that name in
 * the open scopes, or a new one in the innermost. */
static struct var *target_var(struct sema *s, struct ast_expr *e)
{
	uint32_t level;
	int32_t id = scope_find(&s->scopes, e->u.name, &level);
	if (id < 0) {
		id = var_for_decl(s, e, e->u.name);
		scope_add(&s->scopes, e->u.name, id);
		level = scope_depth(&s->scopes) - 1;
	}
	e->aux = id;
	note_var_use(s, id, level);
	return &s->vars.data[id];
}

static void store_var(struct sema *s, struct ast_expr *e,
		      const struct type *t, struct span at)
{
	struct var *v = target_var(s, e);
	v->assigned_ever = true;
	if (t->kind == TY_NONE) {
		/* after an error in the value: later reads stay quiet */
		v->assigned = true;
		return;
	}
	if (t->kind == TY_VOID || type_is_aggregation(t)) {
		sema_err(s, at, "cannot assign %s to variable %s", sema_tname(s, t),
		    e->u.name);
		return;
	}
	v->assigned = true;
	if (v->type->kind == TY_NONE) {
		v->type = t;
		e->type = t;
		return;
	}
	/* let $p: struct C *; $p = (struct C *)arg0: the declared layout,
	 * in the address space of the value (a uprobe's user memory) */
	if (v->typed && t->kind == v->type->kind && t->size == v->type->size &&
	    (t->kind == TY_PTR || t->kind == TY_ARRAY) &&
	    (t->is_user != v->type->is_user || t->addr != v->type->addr)) {
		v->type = t;
		e->type = t;
		return;
	}
	const struct type *u = unify(s, v->type, t);
	if (!u || (sema_is_int(v->type) && !sema_is_int(t) && t->kind != TY_PTR)) {
		sema_err(s, at, "type mismatch for %s: assigning %s, but it already "
			"holds %s", e->u.name, sema_tname(s, t), sema_tname(s, v->type));
		return;
	}
	/* A variable's integer width is its first assignment's (or its
	 * declared type's). */
	if (!v->typed && !(sema_is_int(v->type) && sema_is_int(u)))
		v->type = u;
	/* ... but it is of an enum only while every value is */
	if (!v->typed && v->type->kind == TY_INT && u->kind == TY_INT &&
	    v->type->enm != u->enm)
		v->type = type_int_enum(s->arena, v->type, u->enm);
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
	else /* @a = @count stores its value, as bpftrace 0.26 */
		t = decay(val, sema_expr(s, val));
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
		/* x op= v is arithmetic: an enum's x holds plain integers
		 * from here on, as x = x op v does */
		if (cur->kind == TY_INT && cur->enm) {
			const struct type *plain =
				type_int_enum(s->arena, cur, NULL);
			if (tgt->kind == E_MAP)
				get_map(s, tgt)->value = plain;
			else if (tgt->kind == E_VAR &&
				 !target_var(s, tgt)->typed)
				target_var(s, tgt)->type = plain;
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
static bool const_value(struct sema *s, struct ast_expr *e, int64_t *v)
{
	int64_t a, b;
	if (e->kind == E_UNARY && (e->u.unary.op == OP_PLUS ||
				   e->u.unary.op == OP_BNOT) &&
	    const_value(s, e->u.unary.operand, &a)) {
		*v = e->u.unary.op == OP_PLUS ? a : ~a;
		return true;
	}
	if (e->kind != E_BINARY)
		return e->kind == E_INT ? (*v = (int64_t)e->u.num.value, true) :
					  sema_const_int(s, e, v);
	if (!const_value(s, e->u.binary.left, &a) ||
	    !const_value(s, e->u.binary.right, &b))
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
	return &type_u64;
}

static void check_block(struct sema *s, struct ast_block *b);
static void check_stmt(struct sema *s, struct ast_stmt *st);
static bool hoist_agg_block(struct sema *s, struct ast_stmt *st);

/* The kind of t alone, as bpftrace 0.26's typestr(Type) names it in
 * "Invalid condition: string". */
static const char *kind_name(const struct type *t)
{
	switch (t->kind) {
	case TY_STRING: return "string";
	case TY_BUF: return "buffer";
	case TY_TUPLE: return type_is_record(t) ? "record" : "tuple";
	case TY_RECORD: return "c_type";
	case TY_ARRAY: return "array";
	case TY_KSTACK: return "kstack";
	case TY_USTACK: return "ustack";
	case TY_KSYM: return "ksym_t";
	case TY_USYM: return "usym_t";
	case TY_INET: return "inet";
	case TY_MACADDR: return "mac_address";
	case TY_USERNAME: return "username";
	case TY_CGROUP_PATH: return "cgroup_path_t";
	case TY_TIMESTAMP: return "timestamp";
	case TY_VOID: return "void";
	default: return "none";
	}
}

/* The type of an integer literal where it sets a layout (a tuple's or a
 * record's element): bpftrace 0.26's, the smallest signed integer that
 * holds it, so (1, (int64)2) takes 16 bytes. t: the type sema gave e. */
static const struct type *literal_type(const struct type *t,
				       const struct ast_expr *e)
{
	bool neg = e->kind == E_UNARY && e->u.unary.op == OP_NEG;
	const struct ast_expr *n = neg ? e->u.unary.operand : e;
	if (n->kind != E_INT || n->u.num.is_bool || t->kind != TY_INT ||
	    !t->is_signed || n->u.num.value > INT64_MAX)
		return t;
	int64_t v = neg ? -(int64_t)n->u.num.value : (int64_t)n->u.num.value;
	return type_int(v >= INT8_MIN && v <= INT8_MAX ? 1 :
			v >= INT16_MIN && v <= INT16_MAX ? 2 :
			v >= INT32_MIN && v <= INT32_MAX ? 4 : 8, true);
}

static const struct type *check_expr_inner(struct sema *s,
					   struct ast_expr *e)
{
	switch (e->kind) {
	case E_INT:
		if (e->u.num.is_bool)
			return &type_bool;
		/* an enumerator: bpftrace 0.26's CreateEnum(64, name) */
		if (e->u.num.enm)
			return type_int_enum(s->arena, &type_u64, e->u.num.enm);
		return e->u.num.value > INT64_MAX ? &type_u64 : &type_s64;
	case E_STRING:
		return type_string(s->arena, e->u.str.len + 1);
	case E_BUILTIN:
		/* bpftrace 0.26 passes no probe arguments to a for body's
		 * callback */
		if (s->fors.len && (e->builtin == BI_ARGN ||
				    e->builtin == BI_SARGN ||
				    e->builtin == BI_RETVAL ||
				    e->builtin == BI_ARGS ||
				    e->builtin == BI_CTX)) {
			sema_err(s, e->span, "'%s' builtin is not allowed in a "
				 "for-loop", e->u.name);
			return &type_none;
		}
		return sema_builtin_var(s, e);
	case E_IDENT: {
		int64_t v;
		const struct type_enum *enm;
		if (ctypes_constant(s->ct, e->u.name, &v, &enm)) {
			sema_fold_const(e, (uint64_t)v);
			if (enm) {
				e->u.num.enm = enm;
				return type_int_enum(s->arena, &type_u64, enm);
			}
			return v < 0 ? &type_s64 : &type_u64;
		}
		sema_err(s, e->span, "unknown identifier '%s'", e->u.name);
		return &type_none;
	}
	case E_POSITIONAL:
		return check_positional(s, e);
	case E_VAR: {
		struct var *v = lookup_var(s, e);
		if (!v)
			return &type_none;
		if (v->let && !v->assigned && !v->used_unassigned &&
		    s->report != &s->muted) {
			v->used_unassigned = true;
			diag_warning(s->report, e->span, "Variable used before "
				     "it was assigned: %s", e->u.name);
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
		const struct type *c = decay(e->u.ternary.cond,
					     sema_expr(s, e->u.ternary.cond));
		const struct type *a = decay(e->u.ternary.then,
					     sema_expr(s, e->u.ternary.then));
		const struct type *b = decay(e->u.ternary.otherwise,
					     sema_expr(s, e->u.ternary.otherwise));
		if (c->kind == TY_NONE || a->kind == TY_NONE ||
		    b->kind == TY_NONE)
			return &type_none;
		if (!sema_is_scalar(c)) {
			sema_err(s, e->u.ternary.cond->span, "Invalid condition: %s",
			    kind_name(c));
			return &type_none;
		}
		/* a branch of no value (an if/else run for its effects, as a
		 * macro's last statement): neither value is one */
		if (a->kind == TY_VOID || b->kind == TY_VOID)
			return &type_void;
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
		int64_t k;
		if (b->kind == TY_TUPLE && !type_is_record(b)) {
			/* $t[1 + 1] is $t.2: the index is a constant */
			if (!const_value(s, e->u.index.index, &k) || k < 0) {
				sema_err(s, e->u.index.index->span, "The index of a "
					"tuple must be a non-negative integer literal");
				return &type_none;
			}
			if ((uint64_t)k >= b->nfields) {
				sema_err(s, e->span, "Invalid tuple index: %lld. Found "
					"%u elements in tuple.", (long long)k,
				    b->nfields);
				return &type_none;
			}
			struct ast_expr *base = e->u.index.base;
			e->kind = E_TUPLE_INDEX;
			e->u.tindex.base = base;
			e->u.tindex.index = (uint32_t)k;
			return b->fields[k].type;
		}
		if (!sema_is_int(i)) {
			sema_err(s, e->u.index.index->span, "an index must be an "
				"integer, not %s", sema_tname(s, i));
			return &type_none;
		}
		uint32_t count = b->kind == TY_STRING ? b->size : b->count;
		if ((b->kind == TY_ARRAY || b->kind == TY_STRING) && count &&
		    sema_const_int(s, e->u.index.index, &k) &&
		    (k < 0 || (uint64_t)k >= count)) {
			sema_err(s, e->u.index.index->span, "the index %lld is out "
				"of bounds for array of size %u", (long long)k,
			    count);
			return &type_none;
		}
		/* a string's bytes are int8, as in bpftrace 0.26 */
		if (b->kind == TY_STRING)
			return &type_s8;
		if (b->kind == TY_ARRAY || (b->kind == TY_PTR &&
					    b->elem->kind != TY_VOID))
			return in_space(s, b, b->elem);
		sema_err(s, e->span, "The array index operator [] can only be used "
			"on arrays, pointers, and tuples, found %s.",
		    sema_tname(s, b));
		return &type_none;
	}
	case E_TUPLE: {
		uint32_t n = e->u.list.n;
		const struct type **el = arena_alloc(s->arena,
						     sizeof(*el) * (n + 1));
		for (uint32_t i = 0; i < n; i++) {
			/* a count() ... avg() map is its value there */
			struct ast_expr *it = e->u.list.items[i];
			el[i] = literal_type(decay(it, sema_expr(s, it)), it);
			if (el[i]->kind == TY_NONE)
				return &type_none;
			if (el[i]->kind == TY_VOID ||
			    type_is_aggregation(el[i])) {
				sema_err(s, e->u.list.items[i]->span, "%s cannot be "
					"a tuple element", sema_tname(s, el[i]));
				return &type_none;
			}
		}
		if (e->u.list.names)
			return type_record(s->arena, el, e->u.list.names, n);
		return type_tuple(s->arena, el, n);
	}
	case E_TUPLE_INDEX: {
		const struct type *b = sema_expr(s, e->u.tindex.base);
		if (b->kind == TY_NONE)
			return b;
		if (b->kind != TY_TUPLE || type_is_record(b)) {
			sema_err(s, e->span, "Can not access index '%u' on "
				"expression of type '%s'", e->u.tindex.index,
			    sema_tname(s, b));
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
	case E_BLOCK: {
		/* the value is the block's last word: it sees what the block
		 * declares */
		scope_push(&s->scopes);
		for (uint32_t i = 0; i < e->u.blockx.body.n; i++)
			check_stmt(s, e->u.blockx.body.stmts[i]);
		/* a block with no value is void, as a call of printf() */
		const struct type *t = e->u.blockx.value ?
					       sema_expr(s, e->u.blockx.value) :
					       &type_void;
		scope_pop(&s->scopes);
		return t;
	}
	}
	return &type_none;
}

/* After errors inside a macro's copy: the calls it came through. Only
 * when one was printed (a repeat for another probe context is not). */
static void name_expansion(struct sema *s, const struct ast_expansion *x,
			   int printed_before)
{
	struct diag *d = s->report;
	if (!x || !d->out || d->nerrors - d->nrepeats <= printed_before)
		return;
	/* the innermost call first, as the error's place is in it */
	name_expansion(s, x->inner, printed_before);
	diag_report(d, "ERROR", x->site, "in the expansion of the macro "
		    "%s() called here", x->macro);
}

const struct type *sema_expr(struct sema *s, struct ast_expr *e)
{
	int before = s->report->nerrors - s->report->nrepeats;
	e->type = check_expr_inner(s, e);
	if (e->expansion)
		name_expansion(s, e->expansion, before);
	return e->type;
}

/* ---- statements ---- */
static bool block_leaves(const struct ast_block *b, bool nested);

static void check_cond(struct sema *s, struct ast_expr *c)
{
	const struct type *t = decay(c, sema_expr(s, c));
	if (t->kind != TY_NONE && !sema_is_scalar(t))
		sema_err(s, c->span, "Invalid condition: %s", kind_name(t));
}

static void check_let(struct sema *s, struct ast_stmt *st);
static void check_for(struct sema *s, struct ast_stmt *st);

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
		if (hoist_agg_block(s, st)) {
			check_stmt(s, st);
			return;
		}
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
			sema_err(s, st->span, "'%s' statement is not allowed "
				 "in a probe",
			    st->kind == S_BREAK ? "break" : "continue");
		return;
	case S_LET:
		check_let(s, st);
		return;
	case S_FOR:
		check_for(s, st);
		return;
	case S_RETURN:
		if (st->u.expr)
			sema_expr(s, st->u.expr);
		return;
	case S_BLOCK: {
		int before = s->report->nerrors - s->report->nrepeats;
		check_block(s, &st->u.block);
		if (st->u.block.expansion)
			name_expansion(s, st->u.block.expansion, before);
		return;
	}
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
					.stmts = (struct ast_stmt **)
						&st->u.if_.otherwise,
					.n = 1, .span = st->span };
				if (block_leaves(&one, nested))
					return true;
			}
			break;
		case S_WHILE:
			if (block_leaves(&st->u.loop.body, true))
				return true;
			break;
		case S_FOR:
			if (block_leaves(&st->u.for_.body, true))
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

/* @m = { stmts; agg(...) } (a block or a macro whose value is an
 * aggregation): st becomes { stmts; @m = agg(...) }, which is what 0.26
 * runs, as an aggregation is only ever the whole value stored. */
static bool hoist_agg_block(struct sema *s, struct ast_stmt *st)
{
	static const char *const aggs[] = { "count", "sum", "avg", "min",
		"max", "stats", "hist", "lhist", "tseries" };
	struct ast_expr *v = st->u.assign.value;
	if (st->u.assign.target->kind != E_MAP || st->u.assign.op != OP_NONE ||
	    !v || v->kind != E_BLOCK || !v->u.blockx.value ||
	    v->u.blockx.value->kind != E_CALL)
		return false;
	bool agg = false;
	for (size_t i = 0; i < sizeof(aggs) / sizeof(*aggs); i++)
		agg |= !strcmp(v->u.blockx.value->u.call.name, aggs[i]);
	if (!agg)
		return false;
	const struct ast_block *b = &v->u.blockx.body;
	struct ast_stmt **items = arena_alloc(s->arena,
					      sizeof(*items) * (b->n + 1));
	if (b->n)
		memcpy(items, b->stmts, sizeof(*items) * b->n);
	struct ast_stmt *as = arena_alloc(s->arena, sizeof(*as));
	*as = *st;
	as->u.assign.value = v->u.blockx.value;
	items[b->n] = as;
	st->kind = S_BLOCK;
	memset(&st->u.block, 0, sizeof(st->u.block));
	st->u.block.stmts = items;
	st->u.block.n = b->n + 1;
	st->u.block.span = st->span;
	return true;
}

/* Whether control never goes on past st: a jump, exit() (0.26 returns
 * right after it), or an if whose two branches both end so. */
static bool stmt_ends(const struct ast_stmt *st)
{
	switch (st->kind) {
	case S_BREAK:
	case S_CONTINUE:
	case S_RETURN:
		return true;
	case S_EXPR: {
		const struct ast_expr *e = st->u.expr;
		return e && e->kind == E_CALL && !strcmp(e->u.call.name, "exit") &&
		       e->u.call.args.n <= 1;
	}
	case S_BLOCK:
		return st->u.block.n &&
		       stmt_ends(st->u.block.stmts[st->u.block.n - 1]);
	case S_IF: {
		const struct ast_block *t = &st->u.if_.then;
		return st->u.if_.otherwise && t->n &&
		       stmt_ends(t->stmts[t->n - 1]) &&
		       stmt_ends(st->u.if_.otherwise);
	}
	default:
		return false;
	}
}

/* Every block is a scope: what it declares ends with it. What follows a
 * statement that ends the block is checked (it is typed as 0.26 types
 * dead code) but never runs: the first of it gets 0.26's warning. */
static void check_block(struct sema *s, struct ast_block *b)
{
	scope_push(&s->scopes);
	bool dead = false;
	for (uint32_t i = 0; i < b->n; i++) {
		if (!dead && i && stmt_ends(b->stmts[i - 1])) {
			dead = true;
			diag_warning(s->report, b->stmts[i]->span,
				     "Unreachable statement.");
		}
		check_stmt(s, b->stmts[i]);
	}
	scope_pop(&s->scopes);
}

/* let $x [: type] [= value]: a new variable of the innermost scope; one
 * of the same name in an open scope would be shadowed, which bpftrace
 * refuses. */
static void check_let(struct sema *s, struct ast_stmt *st)
{
	struct ast_expr *var = st->u.let.var;
	int32_t old = scope_find(&s->scopes, var->u.name, NULL);
	if (old >= 0) {
		sema_err(s, st->span, "Variable %s was already declared. "
			 "Variable shadowing is not allowed.", var->u.name);
		const struct var *o = &s->vars.data[old];
		const struct ast_expr *d = o->decl;
		if (d && d->kind == E_VAR)
			sema_err(s, d->span, "This is the initial %s.",
				 o->let ? "declaration" : "assignment");
		if (st->u.let.value)
			sema_expr(s, st->u.let.value);
		return;
	}
	/* `string` is bpftrace's: a string of the default size */
	const struct ast_typespec *ts = &st->u.let.type;
	const struct type *t = !st->u.let.has_type ? NULL :
		!strcmp(ts->base, "string") && !ts->ptr_depth && !ts->array_len ?
		type_string(s->arena, limits.strlen) : resolve_typespec(s, ts);
	/* the value is checked before the variable exists: let $x = $x is
	 * an undefined $x */
	const struct type *vt = NULL;
	struct ast_expr *val = st->u.let.value;
	if (val) {
		if (val->kind == E_CALL)
			vt = val->type = sema_call(s, val, NULL);
		else
			vt = sema_expr(s, val);
	}
	int32_t id = var_for_decl(s, var, var->u.name);
	scope_add(&s->scopes, var->u.name, id);
	struct var *v = &s->vars.data[id];
	v->let = true;
	var->aux = id;
	if (t && t->kind != TY_NONE) {
		if (t->kind == TY_VOID || t->kind == TY_RECORD) {
			sema_err(s, st->u.let.type.span, "a variable cannot "
				 "hold %s", sema_tname(s, t));
		} else {
			v->type = t;
			v->typed = true;
		}
	}
	if (val)
		store_var(s, var, vt, val->span);
	if (v->type->kind != TY_NONE)
		var->type = v->type;
}

/* The loop variable of a map: (key, value), the key a tuple for a map of
 * several keys; NULL after an error. */
static const struct type *map_loop_type(struct sema *s, struct ast_expr *m)
{
	struct sema_map *sm = sema_find_map(s, m->u.map.name);
	if (!sm || sm->value->kind == TY_NONE) {
		if (s->pass > 0)
			sema_err(s, m->span, "map %s is used but never assigned",
				 m->u.map.name);
		return NULL;
	}
	m->aux = (int32_t)sm->index;
	if (!sm->key) {
		sema_err(s, m->span, "%s has no explicit keys (scalar map), and "
			 "cannot be used for iteration", sm->name);
		return NULL;
	}
	const struct type *val = sm->value;
	switch (val->kind) {
	case TY_COUNT:
		val = &type_u64;
		break;
	case TY_SUM:
		val = val->is_signed ? &type_s64 : &type_u64;
		break;
	case TY_MIN:
	case TY_MAX:
	case TY_AVG:
		val = &type_s64;
		break;
	case TY_STATS:
	case TY_HIST:
	case TY_LHIST:
		sema_err(s, m->span, "Loop expression does not support type: "
			 "%s_t", sema_tname(s, val));
		return NULL;
	default:
		break;
	}
	const struct type *el[2] = { sm->key, val };
	return type_tuple(s->arena, el, 2);
}

/* for ($x : @map) / for ($x : a..b): the loop variable lives in the
 * body; the variables of outer scopes the body uses are noted (they go
 * to the body's callback and back). */
static void check_for(struct sema *s, struct ast_stmt *st)
{
	struct ast_expr *var = st->u.for_.var;
	int32_t old = scope_find(&s->scopes, var->u.name, NULL);
	if (old >= 0) {
		sema_err(s, var->span, "Loop declaration shadows existing "
			 "variable: %s", var->u.name);
		return;
	}
	const struct type *t = NULL;
	if (st->u.for_.map) {
		t = map_loop_type(s, st->u.for_.map);
	} else {
		const struct type *a = sema_expr(s, st->u.for_.start);
		const struct type *b = sema_expr(s, st->u.for_.end);
		bool ok = a->kind != TY_NONE && b->kind != TY_NONE;
		if (a->kind != TY_NONE && !sema_is_int(a)) {
			sema_err(s, st->u.for_.start->span, "Loop range requires "
				 "an integer for the start value");
			ok = false;
		}
		if (b->kind != TY_NONE && !sema_is_int(b)) {
			sema_err(s, st->u.for_.end->span, "Loop range requires "
				 "an integer for the end value");
			ok = false;
		}
		if (ok)
			t = type_int(8, a->is_signed || b->is_signed);
	}
	struct sema_for sf;
	memset(&sf, 0, sizeof(sf));
	sf.st = st;
	scope_push(&s->scopes);
	sf.level = scope_depth(&s->scopes) - 1;
	vec_push(&s->fors, sf);
	int32_t id = var_for_decl(s, var, var->u.name);
	scope_add(&s->scopes, var->u.name, id);
	struct var *v = &s->vars.data[id];
	v->assigned = true;
	var->aux = id;
	if (t) {
		v->type = t;
		var->type = t;
	}
	s->loop_depth++;
	check_block(s, &st->u.for_.body);
	s->loop_depth--;
	scope_pop(&s->scopes);
	struct sema_for *done = &s->fors.data[--s->fors.len];
	st->u.for_.ncaptures = (uint32_t)done->captures.len;
	st->u.for_.captures = arena_alloc(s->arena, sizeof(int32_t) *
					  (done->captures.len + 1));
	for (size_t i = 0; i < done->captures.len; i++)
		st->u.for_.captures[i] = done->captures.data[i];
	vec_free(&done->captures);
	if (!t)
		return;
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
	scope_reset(&s->scopes);
	for (size_t i = 0; i < s->vars.len; i++)
		if (s->vars.data[i].probe == s->probe)
			s->vars.data[i].assigned = false;
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
	/* the walk's scopes are done with: the state lives on, they not */
	scope_free(&s->scopes);
	vec_free(&s->fors);
}

/* let @m = TYPE(N): the types bpftrace 0.26 takes, by name (its
 * list is sorted, and so is its hint). */
static const struct {
	const char *name;
	uint32_t type;
	bool percpu;
} map_kinds[] = {
	{ "hash", BPF_MAP_TYPE_HASH, false },
	{ "lruhash", BPF_MAP_TYPE_LRU_HASH, false },
	{ "percpuhash", BPF_MAP_TYPE_PERCPU_HASH, true },
	{ "percpulruhash", BPF_MAP_TYPE_LRU_PERCPU_HASH, true },
};

static void check_mapdecls(struct sema *s, struct diag *d)
{
	const struct ast_program *prog = s->prog;
	for (uint32_t i = 0; i < prog->nmapdecls; i++) {
		const struct ast_mapdecl *md = &prog->mapdecls[i];
		int k = -1;
		for (size_t j = 0; j < sizeof(map_kinds) / sizeof(map_kinds[0]);
		     j++)
			if (!strcmp(map_kinds[j].name, md->kind))
				k = (int)j;
		if (k < 0) {
			diag_error(d, md->kind_span, "Invalid bpf map type: %s",
				   md->kind);
			diag_report(d, "HINT", (struct span){ 0 }, "Valid map "
				    "types: hash, lruhash, percpuhash, "
				    "percpulruhash");
			continue;
		}
		for (uint32_t j = 0; j < i; j++)
			if (!strcmp(prog->mapdecls[j].map, md->map))
				diag_error(d, md->span, "Map %s is declared "
					   "more than once", md->map);
		if (md->max_entries < 1 || md->max_entries > UINT32_MAX) {
			diag_error(d, md->span, "the map size must be between 1 "
				   "and %u", UINT32_MAX);
			continue;
		}
		struct sema_map *m = sema_find_map(s, md->map);
		if (!m) {
			diag_warning(d, md->span, "Unused map: %s", md->map);
			continue;
		}
		bool percpu = type_is_aggregation(m->value);
		if (percpu != map_kinds[k].percpu) {
			diag_error(d, m->first_use, "Incompatible map types. Type "
				   "from declaration: %s. Type from value/key "
				   "type: %s", md->kind,
				   percpu ? "percpuhash" : "hash");
			continue;
		}
		if (m->value->kind == TY_HIST || m->value->kind == TY_LHIST) {
			/* their buckets are keys too: N would count them */
			diag_error(d, md->span, "a declared map cannot hold "
				   "hist() or lhist()");
			continue;
		}
		m->decl_type = map_kinds[k].type;
		m->decl_max = (uint32_t)md->max_entries;
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
	s.kernel = opts->kernel ? opts->kernel : &sema_kernel_none;
	s.prog = prog;
	s.probes = probes;
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
		/* let $x never assigned a typed value: an integer (0) */
		for (size_t i = 0; i < s.vars.len; i++)
			if (s.vars.data[i].type->kind == TY_NONE &&
			    s.vars.data[i].let)
				s.vars.data[i].type = &type_s64;
	}
	for (size_t i = 0; i < s.vars.len; i++) {
		struct var *v = &s.vars.data[i];
		const struct ast_expr *dcl = v->decl;
		if (v->let && !v->assigned_ever && dcl && !d->nerrors)
			diag_warning(d, dcl->span, "Variable %s was never "
				     "assigned to.", v->name);
	}
	scope_free(&s.scopes);
	vec_free(&s.fors);
	for (size_t i = 0; i < s.maps.len; i++) {
		struct sema_map *m = &s.maps.data[i];
		if (m->value->kind == TY_NONE && !d->nerrors)
			diag_error(d, m->first_use, "map %s is never assigned "
				   "a value", m->name);
	}
	check_mapdecls(&s, d);
	out->nmaps = (uint32_t)s.maps.len;
	out->maps = arena_alloc(a, sizeof(*out->maps) * (s.maps.len + 1));
	if (s.maps.len)
		memcpy(out->maps, s.maps.data, sizeof(*out->maps) * s.maps.len);
	out->uses_ringbuf = s.uses_ringbuf;
	out->named = s.named;
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
