/*
 * comptime in sema (sema_comptime.h). A comptime is decided each time its
 * probe is typed in a context (each pass, each distinct context of its
 * attach points): a fresh copy of its condition is typed there, so that
 * what folds in place (is_str, field_exist, sizeof) is asked anew, and
 * its value computed (comptime_eval). The owner then takes the branch:
 * the if statement's `then` becomes the branch chosen and its `else` goes,
 * before sema_stmt.c reads them (it types an if's condition first); the
 * probe's body, for a predicate; the node's result, for a value.
 */
#include "lang/sema_comptime.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "kernel/btf.h"
#include "kernel/features.h"
#include "lang/comptime.h"
#include "lang/ctypes.h"
#include "lang/sema_cast.h"
#include "lang/sema_const.h"
#include "lang/sema_state.h"
#include "probes/provider.h"
#include "util/arena.h"
#include "util/diag.h"

static const struct ast_block no_block;

/* The branches as decided: v true takes the first; a false one takes
 * the else, if any, as the if's only branch. NULL v: neither (the
 * condition is in error: no branch is typed). */
static void take_if(struct sema *s, struct ast_comptime *st,
		    const struct ct_value *v)
{
	struct ast_stmt *if_ = st->stmt;
	if_->u.if_.otherwise = NULL;
	if (v && comptime_truth(v)) {
		if_->u.if_.then = st->then;
		return;
	}
	if_->u.if_.then = no_block;
	if (!v || !st->otherwise)
		return;
	struct ast_block *b = &if_->u.if_.then;
	b->stmts = arena_alloc(s->arena, sizeof(*b->stmts));
	b->stmts[0] = st->otherwise;
	b->n = 1;
	b->span = st->otherwise->span;
}

/* The probe being typed, whose predicate e is. */
static struct ast_probe *pred_probe(struct sema *s, struct ast_expr *e)
{
	struct ast_probe *p = &s->prog->probes[s->probe];
	return p->pred == e ? p : NULL;
}

/* What the owner takes for v (NULL: the condition is in error). Returns
 * e's type. */
static const struct type *take(struct sema *s, struct ast_expr *e,
			       struct ast_comptime *st,
			       const struct ct_value *v)
{
	struct ast_probe *p;
	switch (st->owner) {
	case CT_IF:
		take_if(s, st, v);
		break;
	case CT_PRED:
		if ((p = pred_probe(s, e)))
			p->body = v && comptime_truth(v) ? st->then : no_block;
		break;
	case CT_VALUE:
		if (!v)
			return &type_none;
		if (e->u.comptime.then) {
			e->u.comptime.result = comptime_truth(v) ?
				e->u.comptime.then : e->u.comptime.otherwise;
			return sema_expr(s, e->u.comptime.result);
		}
		e->u.comptime.result = comptime_literal(s->arena, v,
							e->span);
		return sema_expr(s, e->u.comptime.result);
	}
	if (!v)
		return &type_none;
	/* the if holds the branch taken as its first: its condition is
	 * true from now on; a predicate is what it decided */
	struct ct_value b = { .kind = CT_BOOL,
			      .i = st->owner == CT_PRED ? comptime_truth(v) :
							  1 };
	e->u.comptime.result = comptime_literal(s->arena, &b, e->span);
	return sema_expr(s, e->u.comptime.result);
}

/* The name of target t for messages. */
static const char *tname(const struct probe_target *t)
{
	return t ? t->name : "the probe";
}

const struct type *sema_check_comptime(struct sema *s, struct ast_expr *e)
{
	struct ast_comptime *st = e->u.comptime.st;
	if (!st) {
		/* a value (or an if whose value is used): its own owner */
		st = arena_alloc(s->arena, sizeof(*st));
		memset(st, 0, sizeof(*st));
		st->owner = CT_VALUE;
		e->u.comptime.st = st;
	}
	uint32_t budget = UINT32_MAX;
	struct ast_expr *c = ast_clone_expr(s->arena, e->u.comptime.expr,
					    &budget);
	comptime_link_expr(s->arena, c);
	const struct type *t = sema_expr(s, c);
	struct ct_value v;
	if (t->kind == TY_NONE)
		return take(s, e, st, NULL);
	if (!comptime_eval(s->arena, c, NULL, NULL, &v)) {
		sema_err(s, e->u.comptime.at, "Unable to resolve comptime "
			 "expression");
		return take(s, e, st, NULL);
	}
	/* One tree is every attach point's body: a value that differs
	 * between two of them cannot be one branch (the same target's is
	 * taken again: types settle in sema's first pass). */
	if (st->decided && st->first != s->tgt && !comptime_equal(&st->v, &v)) {
		sema_err(s, e->u.comptime.at, "comptime expression is %s for "
			 "%s but %s for %s, which share this probe's body: "
			 "give each its own probe",
			 comptime_spell(s->arena, &st->v), tname(st->first),
			 comptime_spell(s->arena, &v), tname(s->tgt));
		return take(s, e, st, NULL);
	}
	if (!st->decided || st->first == s->tgt) {
		st->decided = true;
		st->v = v;
		st->first = s->tgt;
	}
	return take(s, e, st, &v);
}

/* ---- the questions ---- */

static struct ast_expr *arg0(struct ast_expr *e)
{
	return e->u.call.args.items[0];
}

/* e, a call answered v, becomes the literal (of type bool). */
static const struct type *fold_answer(struct sema *s, struct ast_expr *e,
				      bool v)
{
	struct span sp = e->span;
	memset(&e->u, 0, sizeof(e->u));
	e->kind = E_INT;
	e->span = sp;
	e->builtin = BI_NONE;
	e->u.num.value = v;
	e->u.num.is_bool = true;
	return sema_expr(s, e);
}

const struct type *sema_ty_field_exist(struct sema *s, struct ast_expr *e,
				       struct ast_expr *target)
{
	struct ast_expr *path = arg0(e);
	if (path->kind != E_OFFSETOF) {
		/* the parser builds the path: a call of another making */
		sema_err(s, e->span, "field_exist() takes a type or an "
			 "expression, then a field: field_exist(struct "
			 "task_struct, pid)");
		return &type_none;
	}
	const struct ast_typespec *ts = &path->u.offset_of.type;
	const struct type *t;
	if (ts->of) {
		t = sema_resolve_typespec(s, ts);
		if (t->kind == TY_NONE)
			return t;
	} else {
		/* a type this kernel lacks has no fields: no error */
		struct diag quiet = s->muted;
		t = ctypes_resolve(s->ct, &quiet, ts);
		if (t->kind == TY_NONE)
			t = NULL;
	}
	const char *which = NULL;
	int r = comptime_field_exist(s->arena, s->ct, t, ts->base,
				     path->u.offset_of.fields,
				     path->u.offset_of.nfields, &which);
	if (r < 0) {
		sema_err(s, e->span, "field_exist(): %s is the kernel's, and "
			 "this kernel has no BTF to say what fields it has",
			 which ? which : ts->base);
		return &type_none;
	}
	return fold_answer(s, e, r == 1);
}

const struct type *sema_ty_probe_exist(struct sema *s, struct ast_expr *e,
				       struct ast_expr *target)
{
	if (arg0(e)->kind != E_STRING) {
		sema_err(s, e->span, "probe_exist() accepts a string literal "
			 "only");
		return &type_none;
	}
	/* comptime_decide() answered every other: its walk does not enter
	 * the types a typeof() names, which only sema reads */
	sema_err(s, e->span, "probe_exist() is answered as the probes are "
		 "looked up, which is before typeof() is: ask it outside "
		 "typeof()");
	return &type_none;
}

const struct type *sema_ty_arg_exist(struct sema *s, struct ast_expr *e,
				     struct ast_expr *target)
{
	struct ast_expr *x = arg0(e);
	const struct type *t = sema_expr(s, x);
	int64_t n;
	if (t->kind == TY_NONE)
		return t;
	if (!sema_const_int(s, x, &n) || n < 0) {
		sema_err(s, x->span, "arg_exist() takes the number of an "
			 "argument: arg_exist(3) asks whether arg3 is there");
		return &type_none;
	}
	/* argN's own rule (sema_builtins.c) */
	return fold_answer(s, e, sema_tgt_has(s, CTX_ARGN) &&
			   (uint64_t)n < s->tgt->nargs);
}

static enum bpf_prog_type prog_type(const struct probe_target *t)
{
	return t->prog_type ? t->prog_type : t->prov->prog_type;
}

const struct type *sema_ty_kfunc_allowed(struct sema *s, struct ast_expr *e,
					 struct ast_expr *target)
{
	struct ast_expr *x = arg0(e);
	if (x->kind != E_STRING) {
		sema_err(s, e->span, "kfunc_allowed() accepts a string literal "
			 "only");
		return &type_none;
	}
	if (!s->tgt)
		return fold_answer(s, e, false);
	/* one answer for the whole body: its targets are of one type */
	const struct sema_probe *sp = &s->probes[s->probe];
	for (uint32_t k = 0; k < sp->ntargets; k++)
		if (prog_type(&sp->targets[k]) != prog_type(s->tgt)) {
			sema_err(s, e->span, "kfunc_allowed() is asked for "
				 "one program type, and %s and %s are of two: "
				 "give each its own probe",
				 tname(s->tgt), tname(&sp->targets[k]));
			return &type_none;
		}
	return fold_answer(s, e, kbtf_kfunc_id(x->u.str.bytes) > 0 &&
			   feat_kfunc_allowed(x->u.str.bytes,
					      prog_type(s->tgt)));
}
