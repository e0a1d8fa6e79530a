/*
 * Maps and variables (sema_maps.h): their types, unified over every use
 * in every probe; the scopes variables live in; reads of a map or a
 * variable (E_MAP, E_VAR) and stores into them.
 */
#include "lang/sema_maps.h"

#include <string.h>

#include "kernel/features.h"
#include "lang/sema_field.h"
#include "lang/sema_state.h"
#include "lang/sema_types.h"
#include "util/arena.h"
#include "util/diag.h"

struct sema_map *sema_find_map(struct sema *s, const char *name)
{
	for (size_t i = 0; i < s->maps.len; i++)
		if (!strcmp(s->maps.data[i].name, name))
			return &s->maps.data[i];
	return NULL;
}

struct sema_map *sema_get_map(struct sema *s, const struct ast_expr *e)
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
int32_t sema_var_for_decl(struct sema *s, const void *decl,
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
struct var *sema_lookup_var(struct sema *s, struct ast_expr *e)
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
		el[i] = sema_widen(s, t);
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

/* The key of the access e as written: its parts' own types, not
 * widened (key, the widened one, where a part has none). */
static const struct type *shown_key(struct sema *s, struct ast_expr *e,
				    const struct type *key)
{
	uint32_t n = e->u.map.keys.n;
	const struct type **el = arena_alloc(s->arena, sizeof(*el) * (n + 1));
	for (uint32_t i = 0; i < n; i++) {
		const struct ast_expr *k = e->u.map.keys.items[i];
		if (!k->type || k->type->kind == TY_NONE)
			return key;
		el[i] = sema_literal_type(k->type, k);
	}
	return n == 1 ? el[0] : type_tuple(s->arena, el, n);
}

/* Records the key used for map m at e, unifying with earlier uses. */
bool sema_use_map_key(struct sema *s, struct sema_map *m,
		      struct ast_expr *e, const struct type *key)
{
	if (key && key->kind == TY_NONE)
		return false;
	const struct type *shown = key ? shown_key(s, e, key) : NULL;
	if (key)
		note_key_names(s, m, e);
	if (!m->key && !m->first_use.file) {
		m->key = key;
		m->shown_key = shown;
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
		m->shown_key = shown;
		return true;
	}
	const struct type *u = sema_unify(s, m->key, key);
	const struct type *was = m->shown_key ? m->shown_key : m->key;
	if (!u) {
		sema_err(s, e->span, "Argument mismatch for %s: trying to access "
			 "with arguments: '%s' when map expects arguments: '%s'",
			 m->name, sema_tname(s, shown), sema_tname(s, was));
		return false;
	}
	m->key = u;
	u = sema_unify(s, was, shown);
	m->shown_key = u ? u : m->key;
	return true;
}

/* ---- assignments ---- */

/* Storing the value val, of type t, into map m (at: the assignment). */
void sema_store_map(struct sema *s, struct sema_map *m, struct ast_expr *val,
		    const struct type *t, struct span at)
{
	if (t->kind == TY_NONE)
		return;
	if (t->kind == TY_VOID) {
		sema_err(s, at, "this expression has no value to store in %s",
		    m->name);
		return;
	}
	const struct type *v = type_is_aggregation(t) ? t : sema_widen(s, t);
	if (m->value->kind == TY_NONE) {
		m->value = v;
		return;
	}
	const struct type *u = NULL;
	if (type_is_aggregation(v) == type_is_aggregation(m->value))
		u = sema_unify(s, m->value, v);
	if (!u && v->kind == TY_HIST && m->value->kind == TY_HIST) {
		sema_err(s, val->span, /* at the call, as 0.26 */
			 "Different bits in a single hist unsupported");
		return;
	}
	if (!u) {
		sema_err(s, at, "type mismatch for %s: storing %s, but it already "
			"holds %s", m->name, sema_tname(s, v), sema_tname(s, m->value));
		return;
	}
	m->value = u;
}

/* The variable an assignment to e stores into: the one of that name in
 * the open scopes, or a new one in the innermost. */
struct var *sema_target_var(struct sema *s, struct ast_expr *e)
{
	uint32_t level;
	int32_t id = scope_find(&s->scopes, e->u.name, &level);
	if (id < 0) {
		id = sema_var_for_decl(s, e, e->u.name);
		scope_add(&s->scopes, e->u.name, id);
		level = scope_depth(&s->scopes) - 1;
	}
	e->aux = id;
	note_var_use(s, id, level);
	return &s->vars.data[id];
}

void sema_store_var(struct sema *s, struct ast_expr *e,
		    const struct type *t, const struct ast_expr *val,
		    struct span at)
{
	struct var *v = sema_target_var(s, e);
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
	/* bpftrace 0.26: a literal stored is of the smallest signed type
	 * that holds it ($x = 1 is an int8), of either sign while only
	 * non-negative literals are stored */
	bool flex = sema_flexible_literal(val);
	if (val && !v->typed)
		t = sema_literal_type(t, val);
	if (v->type->kind == TY_NONE) {
		v->type = t;
		v->flex = flex;
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
	const struct type *u = sema_unify(s, v->type, t);
	if (!u || (sema_is_int(v->type) && !sema_is_int(t) && t->kind != TY_PTR)) {
		sema_err(s, at, "type mismatch for %s: assigning %s, but it already "
			"holds %s", e->u.name, sema_tname(s, t), sema_tname(s, v->type));
		return;
	}
	/* A variable's integer is wide enough for every value stored in it
	 * (bpftrace 0.26's get_promoted_int): $x = (uint32)0; $x = $a + $b
	 * makes it 64 bits; a declared type stays. */
	if (!v->typed && v->type->kind == TY_INT && t->kind == TY_INT) {
		u = type_int_enum(s->arena, type_int_addr(s->arena,
			sema_promote_int(v->type, v->flex, t, flex),
			(enum addr_space)u->addr), u->enm);
		v->flex = v->flex && flex;
	}
	if (!v->typed)
		v->type = u;
	/* ... but it is of an enum only while every value is */
	if (!v->typed && v->type->kind == TY_INT && u->kind == TY_INT &&
	    v->type->enm != u->enm)
		v->type = type_int_enum(s->arena, v->type, u->enm);
	e->type = v->type;
}

/* ---- expressions ---- */

/* A kernel without bpf_map_lookup_percpu_elem (before 5.19) keeps a
 * count, sum or avg whose combined value the program reads in one value
 * for all CPUs, added to atomically (read_shared); a min or max cannot be
 * kept so without a compare-and-swap (5.12) or a lock, and is refused. */
bool sema_agg_combined(struct sema *s, struct sema_map *m, struct span sp)
{
	if (s->pass == 0 || feat_has(FEAT_LOOKUP_PERCPU_ELEM))
		return true;
	enum type_kind k = m->value->kind;
	if ((k == TY_COUNT || k == TY_SUM || k == TY_AVG) && !m->decl_type) {
		m->read_shared = true;
		return true;
	}
	const char *what = arena_printf(s->arena, "reading a %s map as a "
					"value", k == TY_MIN ? "min()" :
					k == TY_MAX ? "max()" : "per-CPU");
	return sema_need_feat(s, sp, FEAT_LOOKUP_PERCPU_ELEM, what,
			      "bpf_map_lookup_percpu_elem");
}

/* A count/sum/min/max/avg map read as a value (@c > 5, (uint64)@c): the
 * integer its per-CPU values merge to, which codegen sums in the program
 * with bpf_map_lookup_percpu_elem, as bpftrace 0.26 does. */
static const struct type *agg_value(struct sema *s, struct sema_map *m,
				    struct ast_expr *e)
{
	if (!sema_agg_combined(s, m, e->span))
		return &type_none;
	if (m->value->kind == TY_COUNT || !m->value->is_signed)
		return &type_u64;
	return &type_s64;
}

const struct type *sema_check_var(struct sema *s, struct ast_expr *e)
{
	struct var *v = sema_lookup_var(s, e);
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

const struct type *sema_check_map(struct sema *s, struct ast_expr *e)
{
	struct sema_map *m = sema_find_map(s, e->u.map.name);
	if (!m || m->value->kind == TY_NONE) {
		if (s->pass > 0)
			sema_err(s, e->span, "Undefined map: %s", /* 0.26's */
				 e->u.map.name);
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
