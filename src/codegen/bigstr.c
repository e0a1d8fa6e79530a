/* Strings too long for the BPF stack (bigstr.h). */
#include "codegen/bigstr.h"
#include "codegen/emit.h"
#include "codegen/stacks.h"

bool cg_big_str(const struct type *t)
{
	if (t->kind == TY_STRING)
		return t->size > CG_STR_STACK_MAX;
	if (t->kind != TY_TUPLE)
		return false;
	for (uint32_t i = 0; i < t->nfields; i++)
		if (cg_big_str(t->fields[i].type))
			return true;
	return false;
}

bool cg_in_scratch(const struct type *t)
{
	return cg_stack_in_scratch(t) || cg_big_str(t);
}

struct cg_mem cg_value_mem(struct cg *g, const struct type *t, uint32_t size)
{
	if (cg_big_str(t))
		return cg_scratch(g, size + 1);
	if (cg_stack_in_scratch(t))
		return cg_scratch(g, size);
	return cg_slot_mem(ir_slot_new(g->ir, size, 8));
}

void cg_zero_big(struct cg *g, struct cg_mem dst, uint32_t off, uint32_t size)
{
	ir_reg args[3] = { cg_mem_addr(g, dst, off), ir_const(g->ir, size),
			   ir_const(g->ir, 0) };
	ir_call(g->ir, ir_reg_new(g->ir), BPF_FUNC_probe_read_kernel, args, 3);
}

/*
 * A word (8 bytes) at a time, diff collecting the differing bits of the
 * bytes that count: those up to a's first NUL (included). In a word x of
 * a, t = (x - 0x01..01) & ~x & 0x80..80 has its lowest set bit in the
 * first zero byte (higher ones may be false), so ((t & -t) << 1) - 1
 * masks the bytes up to it (all of them when t is 0), and after a word
 * with a NUL no byte counts (alive). The bytes past the last whole word
 * are compared one by one. No branch in the loop: a branch there would
 * leave the verifier a state per iteration (8192 is its limit); it
 * follows n / 8 iterations of 27 instructions.
 */
/* (-t) op t, in a new register */
static ir_reg with_neg(struct ir *ir, int op, ir_reg t)
{
	ir_reg r = ir_copy(ir, t);
	ir_neg(ir, r);
	ir_alu(ir, op, r, t);
	return r;
}

ir_jlist cg_big_str_ne(struct cg *g, ir_reg pa, ir_reg pb, uint32_t n)
{
	struct ir *ir = g->ir;
	ir_reg diff = ir_const(ir, 0), alive = ir_const(ir, -1);
	ir_reg x = ir_reg_new(ir), y = ir_reg_new(ir);
	uint32_t words = n / 8;
	if (words) {
		ir_reg ones = ir_reg_new(ir), highs = ir_reg_new(ir);
		ir_movi(ir, ones, 0x0101010101010101LL);
		ir_movi(ir, highs, (int64_t)0x8080808080808080ULL);
		ir_reg i = ir_const(ir, 0);
		/* the first iteration runs untested (words > 0), so that the
		 * edge closing the loop is a jump, as 5.10's verifier wants
		 * (loops.c) */
		ir_label body = ir_label_here(ir);
		ir_reg a = ir_copy(ir, pa), b = ir_copy(ir, pb);
		ir_alu(ir, BPF_ADD, a, i);
		ir_alu(ir, BPF_ADD, b, i);
		ir_load(ir, 8, x, a, 0);
		ir_load(ir, 8, y, b, 0);
		ir_reg t = ir_copy(ir, x), nx = ir_copy(ir, x);
		ir_alu(ir, BPF_SUB, t, ones);
		ir_alui(ir, BPF_XOR, nx, -1);
		ir_alu(ir, BPF_AND, t, nx);
		ir_alu(ir, BPF_AND, t, highs);
		ir_reg m = with_neg(ir, BPF_AND, t); /* t's lowest bit */
		ir_alui(ir, BPF_LSH, m, 1);
		ir_alui(ir, BPF_SUB, m, 1);
		ir_alu(ir, BPF_XOR, x, y);
		ir_alu(ir, BPF_AND, x, m);
		ir_alu(ir, BPF_AND, x, alive);
		ir_alu(ir, BPF_OR, diff, x);
		/* alive &= (t != 0) - 1: (t | -t) >> 63 is t != 0 */
		ir_reg nz = with_neg(ir, BPF_OR, t);
		ir_alui(ir, BPF_RSH, nz, 63);
		ir_alui(ir, BPF_SUB, nz, 1);
		ir_alu(ir, BPF_AND, alive, nz);
		ir_alui(ir, BPF_ADD, i, 8);
		ir_jlist done = ir_jmpi(ir, BPF_JGE, i, (int32_t)(words * 8),
					IR_NOLABEL);
		ir_ja(ir, body);
		ir_jlist_patch_here(ir, done);
	}
	for (uint32_t k = words * 8; k < n; k++) {
		ir_load(ir, 1, x, pa, (int16_t)k);
		ir_load(ir, 1, y, pb, (int16_t)k);
		ir_alu(ir, BPF_XOR, y, x);
		ir_alu(ir, BPF_AND, y, alive);
		ir_alu(ir, BPF_OR, diff, y);
		/* alive &= -(x != 0): (x + 255) >> 8 is x != 0 for a byte */
		ir_alui(ir, BPF_ADD, x, 255);
		ir_alui(ir, BPF_RSH, x, 8);
		ir_neg(ir, x);
		ir_alu(ir, BPF_AND, alive, x);
	}
	return ir_jmpi(ir, BPF_JNE, diff, 0, IR_NOLABEL);
}
