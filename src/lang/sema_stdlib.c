/*
 * Typing rules of bpftrace 0.26's standard library entries that sonde
 * resolves in sema (lang/builtins.def names them): getopt(), ...
 */
#include "sema_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lang/namedopt.h"
#include "util/arena.h"

static struct ast_expr *arg(struct ast_expr *e, uint32_t i)
{
	return e->u.call.args.items[i];
}

static struct ast_expr *new_expr(struct sema *s, enum ast_expr_kind k,
				 struct span sp)
{
	struct ast_expr *e = arena_alloc(s->arena, sizeof(*e));
	e->kind = k;
	e->span = sp;
	e->type = &type_none;
	e->builtin = BI_NONE;
	return e;
}

/* `true` and `false`. */
static bool bool_literal(const struct ast_expr *e, uint64_t *v)
{
	if (e->kind != E_IDENT ||
	    (strcmp(e->u.name, "true") && strcmp(e->u.name, "false")))
		return false;
	*v = e->u.name[0] == 't';
	return true;
}

static const char *default_text(struct sema *s, const struct namedopt *o)
{
	switch (o->kind) {
	case NOPT_BOOL: return o->def_num ? "true" : "false";
	case NOPT_UINT:
		return arena_printf(s->arena, "%" PRIu64, o->def_num);
	case NOPT_INT:
		return arena_printf(s->arena, "%" PRId64, (int64_t)o->def_num);
	case NOPT_STRING: return o->def_str;
	}
	return "";
}

/* e becomes the value v, of bool type. */
static const struct type *fold_bool(struct ast_expr *e, uint64_t v)
{
	e->kind = E_INT;
	e->u.num.value = v;
	e->u.num.is_char = false;
	return &type_u8;
}

/* getopt("name" [, default [, "description"]]): the named program option,
 * whose type its default gives (none: bool), folded into its value. */
const struct type *sema_ty_getopt(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	uint32_t n = e->u.call.args.n;
	struct ast_expr *name = arg(e, 0);
	if (name->kind != E_STRING) {
		sema_err(s, name->span, "First argument to 'getopt' must be a "
			 "string literal.");
		return &type_none;
	}
	struct namedopt o = { .name = name->u.str.bytes, .description = "",
			      .kind = NOPT_BOOL, .def_str = "" };
	if (n == 3) {
		if (arg(e, 2)->kind != E_STRING) {
			sema_err(s, arg(e, 2)->span, "Function 'getopt' "
				 "requires the third parameter to be a string "
				 "literal.");
			return &type_none;
		}
		o.description = arg(e, 2)->u.str.bytes;
	}
	if (n >= 2) {
		struct ast_expr *d = arg(e, 1);
		if (d->kind == E_STRING) {
			o.kind = NOPT_STRING;
			o.def_str = d->u.str.bytes;
		} else if (bool_literal(d, &o.def_num)) {
			o.kind = NOPT_BOOL;
		} else if (d->kind == E_INT) {
			o.kind = NOPT_UINT;
			o.def_num = d->u.num.value;
		} else if (d->kind == E_UNARY && d->u.unary.op == OP_NEG &&
			   d->u.unary.operand->kind == E_INT) {
			o.kind = NOPT_INT;
			o.def_num = 0 - d->u.unary.operand->u.num.value;
		} else {
			sema_err(s, d->span, "Second argument to 'getopt' must "
				 "be a string literal, integer literal, or a "
				 "boolean literal.");
			return &type_none;
		}
	}
	struct namedopt *have = namedopt_find(&s->named, o.name);
	if (have) {
		if (have->kind != o.kind || have->def_num != o.def_num ||
		    strcmp(have->def_str, o.def_str)) {
			sema_err(s, e->span, "Command line option '%s' needs to "
				 "have the same default value in all places it "
				 "is used. Previous default value: %s", o.name,
				 default_text(s, have));
			return &type_none;
		}
		if (o.description[0] && have->description[0] &&
		    strcmp(o.description, have->description)) {
			sema_err(s, e->span, "Command line option '%s' must "
				 "have the same description in all places it's "
				 "used. Hint: You can wrap it in a macro", o.name);
			return &type_none;
		}
		if (o.description[0])
			have->description = o.description;
	} else {
		have = namedopt_add(s->arena, &s->named, &o,
				    s->opts->named, s->opts->nnamed);
	}
	switch (have->kind) {
	case NOPT_BOOL:
		return fold_bool(e, have->num);
	case NOPT_STRING:
		e->kind = E_STRING;
		e->u.str.bytes = have->str;
		e->u.str.len = (uint32_t)strlen(have->str);
		return sema_expr(s, e);
	case NOPT_UINT:
	case NOPT_INT: {
		/* (uint64)V or (int64)V: 0.26 types the option by the sign
		 * of its default, whatever its value. */
		struct ast_expr *v = new_expr(s, E_INT, e->span);
		v->u.num.value = have->num;
		e->kind = E_CAST;
		memset(&e->u.cast, 0, sizeof(e->u.cast));
		e->u.cast.to.span = e->span;
		e->u.cast.to.base = have->kind == NOPT_UINT ? "uint64" : "int64";
		e->u.cast.operand = v;
		return sema_expr(s, e);
	}
	}
	return &type_none;
}
