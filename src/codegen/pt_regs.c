/* What pt_regs probes (uprobe, usdt, kprobe) read beyond the argument
 * registers of context.c: reg("name"), sargN from the stack, `func` as a
 * name known per target, and USDT arguments wherever their notes put
 * them (a register, a constant, or memory relative to a register). */
#include "codegen/cg.h"

#include <stdlib.h>
#include <string.h>

#include "kernel/regs.h"
#include "kernel/usdt.h"
#include "lang/types.h"
#include "probes/provider.h"

static struct val reg_of(const struct type *t, ir_reg r)
{
	struct val v = { .kind = V_REG, .type = t, .reg = r };
	return v;
}

static struct val ctx_u64(uint32_t off)
{
	struct val v = { .kind = V_CTX, .type = &type_u64, .ctx_off = off };
	return v;
}

/* The address reg + disp, as a value of type t still to be read (from
 * user memory for uprobes and USDT). */
static struct val at(struct cg *g, uint32_t reg, int64_t disp,
		     const struct type *t)
{
	ir_reg p = ir_copy(g->ir, cg_to_reg(g, ctx_u64(reg)));
	if (disp)
		ir_alu(g->ir, BPF_ADD, p, ir_const(g->ir, disp));
	struct val v = { .kind = V_ADDR, .type = t, .reg = p,
			 .user = g->tgt->prov->name[0] != 'k' };
	return v;
}

static struct val usdt_arg(struct cg *g, struct ast_expr *e, uint32_t idx)
{
	const struct probe_target *t = g->tgt;
	if (idx >= t->nargs) {
		cg_error(g, e->span, "%s is not available in %s (it has %u "
			 "arguments)", e->u.name, t->name, t->nargs);
		return reg_of(e->type, ir_const(g->ir, 0));
	}
	const struct usdt_arg *a = &t->uargs[idx];
	const struct type *it = type_int(a->size, a->is_signed);
	switch (a->kind) {
	case USDT_ARG_CONST:
		return reg_of(e->type, ir_const(g->ir, a->val));
	case USDT_ARG_REG: {
		/* the low bytes of the register, as a little-endian load */
		struct val v = { .kind = V_CTX, .type = it, .ctx_off = a->reg };
		return reg_of(e->type, cg_to_reg(g, v));
	}
	case USDT_ARG_MEM:
		return reg_of(e->type, cg_to_reg(g, at(g, a->reg, a->val, it)));
	case USDT_ARG_BAD:
		break;
	}
	cg_error(g, e->span, "%s of %s is '%s', a location sonde cannot read",
		 e->u.name, t->name, a->text);
	return reg_of(e->type, ir_const(g->ir, 0));
}

bool cg_regs_builtin(struct cg *g, struct ast_expr *e, struct val *out)
{
	const struct probe_target *t = g->tgt;
	const char *n = e->u.name;
	if (!t || t->layout != CTXL_PT_REGS)
		return false;
	if (!strcmp(n, "func") && t->func) {
		*out = reg_of(e->type, ir_const(g->ir, cg_name_index(g,
								     t->func)));
		return true;
	}
	bool sarg = !strncmp(n, "sarg", 4);
	if (!sarg && strncmp(n, "arg", 3))
		return false;
	uint32_t idx = (uint32_t)atoi(n + (sarg ? 4 : 3));
	if (t->uargs && !sarg) {
		*out = usdt_arg(g, e, idx);
		return true;
	}
	if (!sarg)
		return false;
	/* At entry the return address is at sp; the stack arguments follow. */
	*out = at(g, (uint32_t)regs_offset("sp"), 8 * ((int64_t)idx + 1),
		  e->type);
	return true;
}

struct val cg_reg_call(struct cg *g, struct ast_expr *e)
{
	const char *name = e->u.call.args.items[0]->u.str.bytes;
	return reg_of(e->type, cg_to_reg(g, ctx_u64((uint32_t)regs_offset(name))));
}

bool cg_user_addr(struct cg *g, const struct type *t)
{
	if (t->kind == TY_PTR || t->is_user)
		return t->is_user;
	return g->tgt && (g->tgt->features & CTX_USER);
}
