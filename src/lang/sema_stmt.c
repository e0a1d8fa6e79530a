/*
 * Statements (sema_stmt.h): blocks and their scopes, conditions, loops,
 * let, assignments into maps and variables, and block expressions. The
 * expressions in them are checked through the walker's callback
 * (sema_expr()), so this file does not depend on the walker.
 */
#include "lang/sema_stmt.h"

#include <string.h>

#include "kernel/features.h"
#include "lang/sema_builtins.h"
#include "lang/sema_cast.h"
#include "lang/sema_const.h"
#include "lang/sema_maps.h"
#include "lang/sema_ops.h"
#include "lang/sema_state.h"
#include "lang/sema_types.h"
#include "model/limits.h"
#include "util/arena.h"
#include "util/diag.h"

void sema_check_cond(struct sema *s, struct ast_expr *c, struct span at)
{
	const struct type *t = sema_decay(c, sema_expr(s, c));
	if (t->kind != TY_NONE && !sema_is_scalar(t))
		sema_err(s, at, "Invalid condition: %s", sema_kind_name(t));
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
		t = sema_decay(val, sema_expr(s, val));
	if (st->u.assign.op != OP_NONE) {
		/* x op= v is x = x op v; a map starts from 0 */
		if (tgt->kind == E_MAP) {
			struct sema_map *m = sema_get_map(s, tgt);
			tgt->aux = (int32_t)m->index;
			if (m->value->kind == TY_NONE && sema_is_int(t)) {
				const struct type *key = sema_map_key_type(s, tgt);
				if (!sema_use_map_key(s, m, tgt, key))
					return;
				m->value = &type_s64;
			}
		}
		/* @agg += v stores a plain value into an aggregation, which
		 * bpftrace 0.26 refuses as any such store */
		if (tgt->kind == E_MAP && t->kind != TY_NONE &&
		    type_is_aggregation(sema_get_map(s, tgt)->value)) {
			sema_err(s, st->span, "type mismatch for %s: storing %s, "
				 "but it already holds %s", tgt->u.map.name,
				 sema_tname(s, sema_widen(s, t)),
				 sema_tname(s, sema_get_map(s, tgt)->value));
			return;
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
				sema_get_map(s, tgt)->value = plain;
			else if (tgt->kind == E_VAR &&
				 !sema_target_var(s, tgt)->typed)
				sema_target_var(s, tgt)->type = plain;
		}
		/* p += n steps by the pointee, as p = p + n does; the other
		 * operators are refused on pointers, as in p = p / 2 */
		enum ast_op op = st->u.assign.op;
		if (cur->kind == TY_PTR || t->kind == TY_PTR) {
			if ((op != OP_ADD && op != OP_SUB) ||
			    cur->kind != TY_PTR || t->kind == TY_PTR)
				sema_err(s, st->span, "the '%s=' operator cannot be "
					"used on %s and %s", ast_op_str(op),
				    sema_tname(s, cur), sema_tname(s, t));
			else
				sema_ptr_step(s, cur, st->span);
		}
		/* $x op= v is $x = $x op v (bpftrace 0.26's parser): the
		 * variable takes the operator's 64-bit result, signed when
		 * either side is (a literal, or a variable of literals, taking
		 * the other side's sign) */
		if (tgt->kind == E_VAR && cur->kind == TY_INT &&
		    t->kind == TY_INT) {
			bool ls = cur->is_signed, rs = t->is_signed;
			bool lf = sema_target_var(s, tgt)->flex;
			bool rf = sema_flexible_literal(val);
			if (lf && !rf)
				ls = rs;
			else if (rf && !lf)
				rs = ls;
			sema_store_var(s, tgt, type_int(8, ls || rs || op == OP_SUB),
				       NULL, st->span);
		}
		return;
	}
	if (tgt->kind == E_MAP) {
		struct sema_map *m = sema_get_map(s, tgt);
		tgt->aux = (int32_t)m->index;
		const struct type *key = sema_map_key_type(s, tgt);
		if (!sema_use_map_key(s, m, tgt, key))
			return;
		if (!agg_copy_ok(s, m, st))
			return;
		/* located at the assignment, as 0.26 locates its errors */
		sema_store_map(s, m, val, t, st->span);
		tgt->type = m->value;
	} else {
		sema_store_var(s, tgt, t, val, st->span);
	}
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
		type_string(s->arena, limits.strlen) : sema_resolve_typespec(s, ts);
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
	int32_t id = sema_var_for_decl(s, var, var->u.name);
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
		sema_store_var(s, var, vt, val, st->span); /* 'let' to the value */
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
			sema_err(s, m->span, "Undefined map: %s", /* as 0.26 */
				 m->u.map.name);
		return NULL;
	}
	m->aux = (int32_t)sm->index;
	if (!sema_need_feat(s, m->span, FEAT_FOR_EACH_MAP, "for over a map",
			    "bpf_for_each_map_elem"))
		return NULL;
	if (!sm->key) {
		sema_err(s, m->span, "%s has no explicit keys (scalar map), and "
			 "cannot be used for iteration", sm->name);
		return NULL;
	}
	const struct type *val = sm->value;
	if (val->kind >= TY_COUNT && val->kind <= TY_AVG &&
	    !sema_agg_combined(s, sm, m->span))
		return NULL;
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
	case TY_TSERIES:
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
		/* at the range, START..END, as 0.26 locates both */
		struct span range = span_join(st->u.for_.start->span,
					      st->u.for_.end->span);
		if (a->kind != TY_NONE && !sema_is_int(a)) {
			sema_err(s, range, "Loop range requires "
				 "an integer for the start value");
			ok = false;
		}
		if (b->kind != TY_NONE && !sema_is_int(b)) {
			sema_err(s, range, "Loop range requires "
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
	int32_t id = sema_var_for_decl(s, var, var->u.name);
	scope_add(&s->scopes, var->u.name, id);
	struct var *v = &s->vars.data[id];
	v->assigned = true;
	var->aux = id;
	if (t) {
		v->type = t;
		var->type = t;
	}
	s->loop_depth++;
	sema_check_block(s, &st->u.for_.body);
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

void sema_check_stmt(struct sema *s, struct ast_stmt *st)
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
			sema_check_stmt(s, st);
			return;
		}
		check_assign(s, st);
		return;
	case S_IF:
		sema_check_cond(s, st->u.if_.cond, st->u.if_.cond->span);
		sema_check_block(s, &st->u.if_.then);
		if (st->u.if_.otherwise)
			sema_check_stmt(s, st->u.if_.otherwise);
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
		sema_check_block(s, &st->u.loop.body);
		return;
	}
	case S_WHILE: {
		sema_check_cond(s, st->u.loop.cond, st->u.loop.cond->span);
		int64_t c;
		if (sema_const_int(s, st->u.loop.cond, &c) && c &&
		    !block_leaves(&st->u.loop.body, false))
			sema_err(s, st->u.loop.cond->span, "this while loop never "
				"ends: its condition is always true and it has no "
				"break or return (the kernel's verifier rejects a "
				"loop it cannot see end)");
		s->loop_depth++;
		sema_check_block(s, &st->u.loop.body);
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
		sema_check_block(s, &st->u.block);
		if (st->u.block.expansion)
			sema_name_expansion(s, st->u.block.expansion, before);
		return;
	}
	}
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
void sema_check_block(struct sema *s, struct ast_block *b)
{
	scope_push(&s->scopes);
	bool dead = false;
	for (uint32_t i = 0; i < b->n; i++) {
		if (!dead && i && stmt_ends(b->stmts[i - 1])) {
			dead = true;
			diag_warning(s->report, b->stmts[i]->span,
				     "Unreachable statement.");
		}
		sema_check_stmt(s, b->stmts[i]);
	}
	scope_pop(&s->scopes);
}

const struct type *sema_check_block_expr(struct sema *s, struct ast_expr *e)
{
	/* the value is the block's last word: it sees what the block
	 * declares */
	scope_push(&s->scopes);
	for (uint32_t i = 0; i < e->u.blockx.body.n; i++)
		sema_check_stmt(s, e->u.blockx.body.stmts[i]);
	/* a block with no value is void, as a call of printf() */
	const struct type *t = e->u.blockx.value ?
				       sema_expr(s, e->u.blockx.value) :
				       &type_void;
	scope_pop(&s->scopes);
	return t;
}
