/* Variables' storage (vars.h). */
#include "codegen/bigstr.h"
#include "codegen/emit.h"
#include "codegen/stacks.h"
#include "codegen/vars.h"

bool cg_in_reg(const struct type *t)
{
	return t->kind == TY_INT || t->kind == TY_PTR || t->kind == TY_BOOL;
}

struct cg_var *cg_find_var(struct cg *g, int32_t id)
{
	for (size_t i = g->vars.len; i-- > 0;)
		if (g->vars.data[i].id == id)
			return &g->vars.data[i];
	return NULL;
}

/* Gives every variable of a block its storage up front, zeroed: a
 * variable assigned on one path only must still read as something the
 * verifier accepts on the others. One first assigned in the probe's own
 * block (top) is assigned before any read (sema sees to that), and the
 * assignment writes every byte (cg_store_val zero-fills), so it needs no
 * zeroing, unless it holds a stack: a capture leaves unused frames. */
static void declare_vars(struct cg *g, const struct ast_block *b, bool top);

static void declare_var(struct cg *g, const struct ast_expr *t, bool zero)
{
	static const enum type_kind stacks[] = { TY_KSTACK, TY_USTACK,
						 TY_NONE };
	if (cg_find_var(g, t->aux))
		return;
	struct cg_var v = { t->u.name, t->aux, t->type, IR_NOREG,
			    { 0, IR_NOREG } };
	bool addressed = false;
	for (size_t i = 0; i < g->addressed.len && !addressed; i++)
		addressed = g->addressed.data[i] == t->aux;
	if (cg_in_reg(t->type) && !addressed) {
		v.reg = ir_const(g->ir, 0);
	} else {
		ir_set_origin(g->ir, t);
		v.mem = cg_value_mem(g, t->type, t->type->size);
		if (!zero && !addressed && !type_holds(t->type, stacks))
			;
		else if (cg_big_str(t->type)) /* one helper call */
			cg_zero_big(g, v.mem, 0, t->type->size);
		else
			cg_zero_mem(g, v.mem, 0, t->type->size);
		ir_set_origin(g->ir, NULL);
	}
	vec_push(&g->vars, v);
}

/* The variables first assigned inside a block expression (a macro's
 * expansion) are declared as those of any nested block. */
static void declare_in_expr(struct ast_expr *e, void *ctx)
{
	if (e->kind == E_BLOCK)
		declare_vars(ctx, &e->u.blockx.body, false);
}

static void declare_stmt(struct cg *g, const struct ast_stmt *s, bool top)
{
	switch (s->kind) {
	case S_EXPR:
	case S_RETURN:
		ast_walk_expr(s->u.expr, declare_in_expr, g);
		return;
	default:
		break;
	}
	if (s->kind == S_ASSIGN) {
		/* a map key may hold one too: @[m(3)] = m(4) */
		ast_walk_expr(s->u.assign.target, declare_in_expr, g);
		ast_walk_expr(s->u.assign.value, declare_in_expr, g);
	} else if (s->kind == S_LET)
		ast_walk_expr(s->u.let.value, declare_in_expr, g);
	else if (s->kind == S_FOR) {
		ast_walk_expr(s->u.for_.start, declare_in_expr, g);
		ast_walk_expr(s->u.for_.end, declare_in_expr, g);
	} else if (s->kind == S_IF)
		ast_walk_expr(s->u.if_.cond, declare_in_expr, g);
	else if (s->kind == S_WHILE || s->kind == S_UNROLL)
		ast_walk_expr(s->u.loop.cond, declare_in_expr, g);
	switch (s->kind) {
	case S_ASSIGN: {
		const struct ast_expr *t = s->u.assign.target;
		if (t->kind == E_VAR)
			declare_var(g, t, !top);
		return;
	}
	case S_LET:
		declare_var(g, s->u.let.var, !top || !s->u.let.value);
		return;
	case S_FOR:
		/* the body's variables are its callback's */
		return;
	case S_IF:
		declare_vars(g, &s->u.if_.then, false);
		if (s->u.if_.otherwise)
			declare_stmt(g, s->u.if_.otherwise, false);
		return;
	case S_UNROLL:
	case S_WHILE:
		declare_vars(g, &s->u.loop.body, false);
		return;
	case S_BLOCK:
		declare_vars(g, &s->u.block, false);
		return;
	default:
		return;
	}
}

void cg_declare_vars(struct cg *g, const struct ast_block *b)
{
	declare_vars(g, b, false);
}

void cg_declare_probe_vars(struct cg *g, const struct ast_probe *p)
{
	declare_vars(g, &p->body, true);
	if (p->pred)
		ast_walk_expr(p->pred, declare_in_expr, g);
}

static void declare_vars(struct cg *g, const struct ast_block *b, bool top)
{
	for (uint32_t i = 0; i < b->n; i++)
		declare_stmt(g, b->stmts[i], top);
}

struct val cg_var_val(struct cg *g, const struct cg_var *v)
{
	if (v->reg != IR_NOREG)
		return cg_reg_val(v->type, v->reg);
	if (v->mem.ptr != IR_NOREG) {
		/* in the scratch (or a for body's context): read where it
		 * is stored */
		struct val a = { .kind = V_ADDR, .type = v->type,
				 .reg = v->mem.ptr, .own = true,
				 .direct = true };
		return a;
	}
	return cg_mem_val(v->type, v->mem.slot, 0);
}
