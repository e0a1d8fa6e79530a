/*
 * What a probe's context offers, by context layout: args, ctx, argN,
 * sargN, retval and func. Arguments are read straight from the context
 * (V_CTX): the verifier allows direct loads from pt_regs and from the u64
 * argument array.
 */
#include "codegen/emit.h"
#include "codegen/emitters.h"
#include "codegen/program.h"
#include "codegen/pt_regs.h"

#include "kernel/regs.h"
#include "probes/provider.h"

/* The context offset of argument idx, or of the return value, in target
 * t's layout; false when that layout does not hold it. */
static bool ctx_offset(const struct probe_target *t, bool ret, uint32_t idx,
		       uint32_t *off)
{
	switch (t->layout) {
	case CTXL_PT_REGS:
		if (ret) {
			*off = regs_retval_offset();
			return true;
		}
		if (idx >= regs_nargs())
			return false;
		*off = regs_arg_offset(idx);
		return true;
	case CTXL_U64_ARRAY:
		/* fexit puts the return value after the arguments. */
		*off = 8 * (ret ? t->nargs : idx);
		return true;
	default:
		return false;
	}
}

static struct val ctx_value(struct cg *g, struct ast_expr *e, bool ret,
			    uint32_t idx)
{
	uint32_t off;
	if (!ctx_offset(g->tgt, ret, idx, &off)) {
		cg_error(g, e->span, "internal error: %s has no place in the "
			 "context of %s", e->u.name, g->tgt->name);
		return cg_reg_val(&type_u64, ir_const(g->ir, 0));
	}
	struct val v = { .kind = V_CTX, .type = e->type, .ctx_off = off };
	return v;
}

struct val cg_bi_args(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	struct val v = { .kind = V_CTX, .type = e->type, .ctx_off = 0 };
	return v;
}

struct val cg_bi_ctx(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	return cg_reg_val(e->type, ir_copy(g->ir, ir_ctx(g->ir)));
}

struct val cg_bi_argn(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	if (g->tgt->layout == CTXL_PT_REGS && g->tgt->uargs)
		return cg_usdt_arg(g, e, e->builtin_n);
	return ctx_value(g, e, false, e->builtin_n);
}

struct val cg_bi_sargn(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	if (g->tgt->layout == CTXL_PT_REGS)
		return cg_stack_arg(g, e, e->builtin_n);
	return ctx_value(g, e, false, e->builtin_n);
}

struct val cg_bi_retval(struct cg *g, struct ast_expr *e,
			struct ast_expr *tg)
{
	return ctx_value(g, e, true, 0);
}

struct val cg_bi_func(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	const struct probe_target *t = g->tgt;
	/* fentry/fexit know their function's address; no register has it
	 * (before Linux 5.15, no helper either: the target names it). */
	if (t->layout == CTXL_U64_ARRAY && !t->func)
		return cg_reg_val(e->type, cg_call(g, BPF_FUNC_get_func_ip, 1,
						   ir_ctx(g->ir)));
	/* one program for many targets: from the attach cookie */
	if (g->func_reg != IR_NOREG)
		return cg_reg_val(e->type, ir_copy(g->ir, g->func_reg));
	/* pt_regs probes (and fentry without bpf_get_func_ip) know their
	 * function by name, per target. */
	if ((t->layout == CTXL_PT_REGS || t->layout == CTXL_U64_ARRAY) &&
	    t->func)
		return cg_reg_val(e->type, ir_const(g->ir,
					cg_name_index(g, t->func)));
	cg_error(g, e->span, "internal error: func has no value in %s",
		 t->name);
	return cg_reg_val(&type_u64, ir_const(g->ir, 0));
}
