/* Emitters of bpftrace 0.26's standard library entries that need code
 * (lang/sema_stdlib.c types them): strlen(). */
#include "codegen/cg.h"

#include "model/limits.h"

static struct ast_expr *arg(struct ast_expr *e, uint32_t i)
{
	return e->u.call.args.items[i];
}

/* ret - 1 for a string helper's ret (the bytes copied, NUL included),
 * 0 when it failed. */
static ir_reg len_of(struct cg *g, ir_reg ret)
{
	ir_reg r = ir_copy(g->ir, ret);
	ir_jlist bad = ir_jmpi(g->ir, BPF_JSLE, r, 0, IR_NOLABEL);
	ir_alui(g->ir, BPF_SUB, r, 1);
	ir_jlist done = ir_ja(g->ir, IR_NOLABEL);
	ir_jlist_patch_here(g->ir, bad);
	ir_movi(g->ir, r, 0);
	ir_jlist_patch_here(g->ir, done);
	return r;
}

/* strlen(s): a string or char array (its bytes up to the NUL) is copied
 * onto itself by the kernel's string read, which counts them; a pointer
 * is read as str() reads it, at most str()'s length. */
struct val cg_bi_strlen(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	struct ast_expr *a = arg(e, 0);
	if (a->type->kind == TY_PTR) {
		ir_reg p = cg_int(g, a);
		uint32_t n = limits.strlen;
		struct cg_mem dst = cg_scratch(g, n);
		ir_reg d = cg_mem_addr(g, dst, 0);
		ir_reg ret = cg_call(g, cg_read_fn(g, a->type, true), 3, d,
				     ir_const(g->ir, n), p);
		return cg_reg_val(e->type, len_of(g, ret));
	}
	struct val v = cg_to_mem(g, cg_expr(g, a));
	uint32_t n = v.type->size;
	ir_reg d = ir_reg_new(g->ir);
	ir_slot_addr(g->ir, d, v.slot, v.off);
	ir_reg s = ir_copy(g->ir, d);
	ir_reg ret = cg_call(g, BPF_FUNC_probe_read_kernel_str, 3, d,
			     ir_const(g->ir, n), s);
	return cg_reg_val(e->type, len_of(g, ret));
}

/* write_user(dst, src, len): bpf_probe_write_user of len bytes of src
 * (memory of the program: sema checked len fits) to the user address
 * dst; true when it wrote them. */
struct val cg_bi_write_user(struct cg *g, struct ast_expr *e,
			    struct ast_expr *tg)
{
	ir_reg dst = cg_int(g, arg(e, 0));
	struct val v = cg_to_mem(g, cg_expr(g, arg(e, 1)));
	ir_reg src = ir_reg_new(g->ir);
	ir_slot_addr(g->ir, src, v.slot, v.off);
	ir_reg ret = cg_call(g, BPF_FUNC_probe_write_user, 3, dst, src,
			     ir_const(g->ir, (int64_t)arg(e, 2)->u.num.value));
	ir_reg r = ir_const(g->ir, 1);
	ir_jlist ok = ir_jmpi(g->ir, BPF_JEQ, ret, 0, IR_NOLABEL);
	ir_movi(g->ir, r, 0);
	ir_jlist_patch_here(g->ir, ok);
	return cg_reg_val(e->type, r);
}
