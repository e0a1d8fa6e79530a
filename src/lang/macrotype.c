/* Types handed to macros (macrotype.h): bpftrace's
 * MacroExpander::visit_expr_or_type and its offsetof field replacement. */
#include "lang/macrotype.h"

#include <string.h>

#include "util/arena.h"
#include "util/diag.h"
#include "util/strbuf.h"

/* The argument the identifier parameter name stands for, or NULL. */
static struct ast_expr *arg_of(const struct mtype_frame *f, const char *name)
{
	for (uint32_t i = 0; f && i < f->nparams; i++)
		if (f->params[i]->kind == E_IDENT &&
		    !strcmp(f->params[i]->u.name, name))
			return f->args[i];
	return NULL;
}

/* "struct ", "union " or "enum " at the start of base: its length. */
static size_t keyword_len(const char *base)
{
	static const char *const kws[] = { "struct ", "union ", "enum " };
	for (size_t i = 0; i < sizeof(kws) / sizeof(*kws); i++)
		if (!strncmp(base, kws[i], strlen(kws[i])))
			return strlen(kws[i]);
	return 0;
}

/* The one name a type argument is, when it is one (typeof(task_struct),
 * typeof(uint64)): what `struct t` may be made of. NULL otherwise. */
static const char *bare_name(const struct ast_typespec *t)
{
	if (t->ptr_depth || t->array_len || t->array_auto)
		return NULL;
	if (t->of)
		return t->of->kind == E_IDENT ? t->of->u.name : NULL;
	return t->base && !strchr(t->base, ' ') ? t->base : NULL;
}

/* ts as bpftrace names it in its message ('struct t', 't*'). */
static const char *ts_name(struct arena *a, const struct ast_typespec *ts)
{
	struct strbuf sb = STRBUF_INIT;
	sb_append(&sb, ts->base ? ts->base : "typeof");
	for (int i = 0; i < ts->ptr_depth; i++)
		sb_putc(&sb, '*');
	if (ts->array_len)
		sb_printf(&sb, "[%u]", ts->array_len);
	for (uint8_t i = 0; i < ts->ninner; i++)
		sb_printf(&sb, "[%u]", ts->inner[i]);
	const char *r = arena_strdup(a, sb_str(&sb));
	sb_free(&sb);
	return r;
}

/* outer (a name's pointers and dimensions) over type t: t, then outer's
 * pointers, then outer's dimensions (`t*[2]` of uint64 is uint64*[2]). */
static void compose(const struct mtype_frame *f, struct ast_typespec *outer,
		    const struct ast_typespec *t, struct span at)
{
	struct ast_typespec r = *t;
	r.span = outer->span;
	r.implicit_struct = false;
	bool t_array = t->array_len || t->array_auto;
	if (outer->ptr_depth && t_array) {
		/* sonde's type names have no pointer to an array */
		diag_error(f->d, at, "sonde cannot make a pointer to the array "
			   "type this argument is, for '%s'",
			   ts_name(f->a, outer));
		return;
	}
	r.ptr_depth += outer->ptr_depth;
	if (outer->array_len || outer->array_auto) {
		uint32_t dims[AST_MAX_DIMS * 2];
		uint32_t n = 0;
		for (uint8_t i = 0; i < outer->ninner; i++)
			dims[n++] = outer->inner[i];
		if (t_array) {
			dims[n++] = t->array_len;
			for (uint8_t i = 0; i < t->ninner; i++)
				dims[n++] = t->inner[i];
		}
		if (n > AST_MAX_DIMS - 1 || (t_array && t->array_auto)) {
			diag_error(f->d, at, "too many array dimensions for "
				   "'%s'", ts_name(f->a, outer));
			return;
		}
		r.array_len = outer->array_len;
		r.array_auto = outer->array_auto;
		r.ninner = (uint8_t)n;
		for (uint32_t i = 0; i < n; i++)
			r.inner[i] = dims[i];
	}
	*outer = r;
}

void mtype_subst(const struct mtype_frame *f, struct ast_typespec *ts)
{
	if (ts->of && ts->of->kind == E_TYPEARG) {
		/* typeof(t) of a type argument: that type */
		compose(f, ts, &ts->of->u.size_of.type, ts->of->span);
		return;
	}
	if (!f || !ts->base || ts->of)
		return;
	size_t kw = ts->implicit_struct ? 0 : keyword_len(ts->base);
	const char *name = ts->implicit_struct ? ts->base + 7 : ts->base + kw;
	struct ast_expr *arg = arg_of(f, name);
	if (!arg)
		return;
	if (arg->kind == E_IDENT) {
		/* a name for a name (offsetof(t, x) of Foo: struct Foo) */
		ts->base = ts->implicit_struct ?
			arena_printf(f->a, "struct %s", arg->u.name) :
			arena_printf(f->a, "%.*s%s", (int)kw, ts->base,
				     arg->u.name);
		return;
	}
	if (arg->kind == E_TYPEARG) {
		const struct ast_typespec *t = &arg->u.size_of.type;
		const char *bare = bare_name(t);
		if (!kw && !(ts->implicit_struct && bare && t->of)) {
			compose(f, ts, t, arg->span);
			return;
		}
		if (bare) {
			ts->base = arena_printf(f->a, "%.*s%s",
						(int)(kw ? kw : 7),
						kw ? ts->base : "struct ", bare);
			return;
		}
	}
	diag_error(f->d, arg->span, "Invalid replacement for macro '%s' type "
		   "parameter '%s' which makes up the type '%s'", f->macro,
		   name, ts_name(f->a, ts));
}

void mtype_subst_fields(const struct mtype_frame *f, struct ast_expr *e)
{
	if (!f || e->u.offset_of.nfields != 1)
		return;
	struct ast_expr *arg = arg_of(f, e->u.offset_of.fields[0]);
	if (!arg)
		return;
	if (arg->kind == E_IDENT) {
		/* a new array: the copy of the body shares the macro's */
		const char **one = arena_alloc(f->a, sizeof(*one));
		one[0] = arg->u.name;
		e->u.offset_of.fields = one;
		return;
	}
	if (arg->kind != E_FIELD)
		return; /* as bpftrace: the name stays, and is no field */
	uint32_t n = 1;
	const struct ast_expr *b = arg;
	for (; b->kind == E_FIELD; b = b->u.field.base)
		n++;
	if (b->kind != E_IDENT) {
		diag_error(f->d, arg->span, "FieldAccess expressions must be "
			   "made up entirely of idents (e.g. a.b.c) to replace "
			   "the second argument in `offsetof`");
		return;
	}
	const char **fields = arena_alloc(f->a, n * sizeof(*fields));
	uint32_t i = n;
	for (b = arg; b->kind == E_FIELD; b = b->u.field.base)
		fields[--i] = b->u.field.name;
	fields[0] = b->u.name;
	e->u.offset_of.fields = fields;
	e->u.offset_of.nfields = n;
}
