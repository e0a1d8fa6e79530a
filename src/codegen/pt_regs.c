/* What pt_regs probes (uprobe, usdt, kprobe) read beyond the argument
 * registers of context.c: reg("name"), sargN from the stack, and USDT
 * arguments wherever their notes put them (a register, a constant, or
 * memory relative to a register). */
#include "codegen/emit.h"
#include "codegen/emitters.h"
#include "codegen/pt_regs.h"
#include "codegen/values.h"

#include <stdlib.h>
#include <string.h>

#include "kernel/elfsym.h"
#include "kernel/regs.h"
#include "kernel/usdt.h"
#include "model/types.h"
#include "probes/provider.h"

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
			 .user = (g->tgt->features & CTX_USER) != 0 };
	return v;
}

struct val cg_usdt_arg(struct cg *g, struct ast_expr *e, uint32_t idx)
{
	const struct probe_target *t = g->tgt;
	if (idx >= t->nargs) {
		cg_error(g, e->span, "%s is not available in %s (it has %u "
			 "arguments)", e->u.name, t->name, t->nargs);
		return cg_reg_val(e->type, ir_const(g->ir, 0));
	}
	const struct usdt_arg *a = &t->uargs[idx];
	const struct type *it = type_int(a->size, a->is_signed);
	switch (a->kind) {
	case USDT_ARG_CONST:
		return cg_reg_val(e->type, ir_const(g->ir, a->val));
	case USDT_ARG_REG: {
		/* the low bytes of the register, as a little-endian load */
		struct val v = { .kind = V_CTX, .type = it, .ctx_off = a->reg };
		return cg_reg_val(e->type, cg_to_reg(g, v));
	}
	case USDT_ARG_MEM: {
		struct val v = at(g, a->reg, a->val, it);
		if (a->scale) {
			/* DISP(%base,%index,SCALE): add index * scale */
			ir_reg ix = ir_copy(g->ir,
					    cg_to_reg(g, ctx_u64(a->index)));
			if (a->scale > 1)
				ir_alui(g->ir, BPF_MUL, ix, a->scale);
			ir_alu(g->ir, BPF_ADD, v.reg, ix);
		}
		return cg_reg_val(e->type, cg_to_reg(g, v));
	}
	case USDT_ARG_BAD:
		break;
	}
	cg_error(g, e->span, "%s of %s is '%s', a location sonde cannot read",
		 e->u.name, t->name, a->text);
	return cg_reg_val(e->type, ir_const(g->ir, 0));
}

/* At entry the stack arguments start regs_stack_args() above sp (past
 * the return address on x86_64; at sp on aarch64, whose return address is
 * in x30). */
struct val cg_stack_arg(struct cg *g, struct ast_expr *e, uint32_t idx)
{
	return at(g, regs_sp_offset(),
		  (int64_t)regs_stack_args() + 8 * (int64_t)idx, e->type);
}

struct val cg_bi_reg(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	const char *name = e->u.call.args.items[0]->u.str.bytes;
	return cg_reg_val(e->type, cg_to_reg(g, ctx_u64((uint32_t)regs_offset(name))));
}

/* uaddr("sym") of a PIE or library (sema folds an executable's): the
 * instruction pointer at the probe is where the probed instruction was
 * mapped, and the symbol is as far from it as in the file. */
struct val cg_bi_uaddr(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	const struct probe_target *t = g->tgt;
	const char *name = e->u.call.args.items[0]->u.str.bytes;
	struct elf_syms *es = NULL;
	uint64_t sym, size, at;
	if (!t || !t->binary || elfsym_load(t->binary, &es) ||
	    elfsym_off_to_vaddr(es, t->u.user.offset, &at) ||
	    elfsym_find_any(t->binary, name, &sym, &size) < 0) {
		elfsym_free(es);
		cg_error(g, e->span, "cannot place %s in %s", name,
			 t && t->binary ? t->binary : "the probed file");
		return cg_reg_val(e->type, ir_const(g->ir, 0));
	}
	elfsym_free(es);
	ir_reg r = ir_copy(g->ir, cg_to_reg(g, ctx_u64(regs_pc_offset())));
	ir_alu(g->ir, BPF_ADD, r, ir_const(g->ir, (int64_t)(sym - at)));
	return cg_reg_val(e->type, r);
}
