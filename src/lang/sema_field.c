/*
 * Access into values (sema_field.h): fields of records (the script's,
 * tracefs' and BTF's), indexes of arrays, pointers and tuples, tuple and
 * record literals, and offsetof.
 */
#include "lang/sema_field.h"

#include <string.h>

#include "kernel/btf.h"
#include "lang/ctypes.h"
#include "lang/sema_cast.h"
#include "lang/sema_const.h"
#include "lang/sema_state.h"
#include "lang/sema_types.h"
#include "util/arena.h"

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

const struct type *sema_check_field(struct sema *s, struct ast_expr *e)
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
	return sema_in_space(s, base->kind == TY_PTR &&
				   type_addr_space(base) != AS_KERNEL ? base : rec,
			f.type);
}

const struct type *sema_check_index(struct sema *s, struct ast_expr *e)
{
	const struct type *b = sema_expr(s, e->u.index.base);
	const struct type *i = sema_expr(s, e->u.index.index);
	if (b->kind == TY_NONE || i->kind == TY_NONE)
		return &type_none;
	int64_t k;
	if (b->kind == TY_TUPLE && !type_is_record(b)) {
		/* $t[1 + 1] is $t.2: the index is a constant */
		if (!sema_const_value(s, e->u.index.index, &k) || k < 0) {
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
		sema_err(s, e->span, "the index %lld is out " /* as 0.26 */
			"of bounds for array of size %u", (long long)k,
		    count);
		return &type_none;
	}
	/* a string's bytes are int8, as in bpftrace 0.26 */
	if (b->kind == TY_STRING)
		return &type_s8;
	if (b->kind == TY_ARRAY || (b->kind == TY_PTR &&
				    b->elem->kind != TY_VOID))
		return sema_in_space(s, b, b->elem);
	sema_err(s, e->span, "The array index operator [] can only be used "
		"on arrays, pointers, and tuples, found %s.",
	    sema_tname(s, b));
	return &type_none;
}

const struct type *sema_check_tuple(struct sema *s, struct ast_expr *e)
{
	uint32_t n = e->u.list.n;
	const struct type **el = arena_alloc(s->arena,
					     sizeof(*el) * (n + 1));
	for (uint32_t i = 0; i < n; i++) {
		/* a count() ... avg() map is its value there */
		struct ast_expr *it = e->u.list.items[i];
		el[i] = sema_literal_type(sema_decay(it, sema_expr(s, it)), it);
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

const struct type *sema_check_tuple_index(struct sema *s, struct ast_expr *e)
{
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

const struct type *sema_check_offsetof(struct sema *s, struct ast_expr *e)
{
	const struct type *t = sema_resolve_typespec(s, &e->u.offset_of.type);
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
