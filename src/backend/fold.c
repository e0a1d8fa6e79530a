/*
 * Constant operands: a vreg defined once, by a constant that fits the
 * 32-bit immediate field, is replaced by that immediate where an
 * instruction has an immediate form (ALU src, jump src, store src, exit).
 * This saves the `rX = K` and a register per use (codegen writes
 * ir_const() freely); the dead constant is then removed by ir_dce().
 */
#include "backend/ir_impl.h"

#include <stdlib.h>

/* Whether `op imm` is accepted by the verifier where `op reg` would be:
 * constant shifts must be in range and constant divisors non-zero. */
static bool k_ok(const struct ir_insn *in, int64_t k)
{
	if (in->kind == IRK_ALU) {
		if (in->flags & IRF_SIGNED)
			return false;
		int bits = in->flags & IRF_32 ? 32 : 64;
		switch (in->op) {
		case BPF_LSH: case BPF_RSH: case BPF_ARSH:
			return k >= 0 && k < bits;
		case BPF_DIV: case BPF_MOD:
			return k != 0;
		case BPF_NEG:
			return false;
		}
	}
	return true;
}

int ir_fold_consts(struct ir *ir)
{
	uint32_t n = ir->nregs + 1;
	uint8_t *ndef = calloc(n, 1);
	int64_t *val = calloc(n, sizeof(*val));
	bool *isk = calloc(n, sizeof(*isk));
	int changed = 0;
	if (!ndef || !val || !isk)
		goto out;
	for (size_t i = 0; i < ir->insns.len; i++) {
		const struct ir_insn *in = &ir->insns.data[i];
		ir_reg d = ir_insn_def(in);
		if (d == IR_NOREG || d >= n)
			continue;
		if (ndef[d] < 2)
			ndef[d]++;
		if (in->kind == IRK_LDIMM && in->imm >= INT32_MIN &&
		    in->imm <= INT32_MAX) {
			isk[d] = true;
			val[d] = in->imm;
		} else if (in->kind == IRK_ALU && in->op == BPF_MOV &&
			   (in->flags & (IRF_K | IRF_32)) == IRF_K) {
			isk[d] = true;
			val[d] = in->imm;
		} else {
			isk[d] = false;
		}
	}
	for (size_t i = 0; i < ir->insns.len; i++) {
		struct ir_insn *in = &ir->insns.data[i];
		ir_reg s = in->src;
		if ((in->flags & IRF_K) || s == IR_NOREG ||
		    s >= n || ndef[s] != 1 || !isk[s])
			continue;
		switch (in->kind) {
		case IRK_ALU:
		case IRK_JMP:
		case IRK_STORE:
		case IRK_EXIT:
			break;
		default:
			continue;
		}
		if (!k_ok(in, val[s]))
			continue;
		in->flags |= IRF_K;
		in->src = IR_NOREG;
		in->imm = val[s];
		changed++;
	}
out:
	free(ndef);
	free(val);
	free(isk);
	return changed;
}
