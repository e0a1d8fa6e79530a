/*
 * Lowering: IR with allocated registers -> machine instructions over
 * R0-R10 with symbolic jump targets. Also lays out the stack frame.
 */
#include "backend/ir_impl.h"

#include <errno.h>
#include <stdlib.h>

#include "util/xalloc.h"

#define FP BPF_REG_10

static void put(struct mi_list *ml, struct bpf_insn ins, int32_t label)
{
	vec_push(&ml->v, ((struct mi){ .kind = MI_INSN, .ins = ins,
				       .label = label }));
}

static void mov(struct mi_list *ml, int dst, int src)
{
	if (dst != src)
		put(ml, (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_X,
					   .dst_reg = dst, .src_reg = src }, -1);
}

static void ldimm(struct mi_list *ml, int dst, int pseudo, int64_t imm,
		  int32_t aux)
{
	vec_push(&ml->v, ((struct mi){ .kind = MI_LDIMM, .label = -1,
				       .ins = { .dst_reg = dst,
						.src_reg = pseudo },
				       .imm64 = imm, .aux = aux }));
}

static int size_code(int size)
{
	switch (size) {
	case 1: return BPF_B;
	case 2: return BPF_H;
	case 4: return BPF_W;
	}
	return BPF_DW;
}

/*
 * Moves call arguments into R1..R5 as one parallel assignment. A move is
 * safe once no other pending move still reads its destination; what is
 * left then are cycles among R1-R5, broken through R0, which by then
 * holds no pending source (R0 is never a destination).
 */
static void call_args(struct mi_list *ml, const int8_t *src, int n)
{
	int8_t from[IR_MAX_ARGS];
	bool pending[IR_MAX_ARGS];
	int left = 0;
	for (int a = 0; a < n; a++) {
		from[a] = src[a];
		pending[a] = from[a] != a + 1;
		left += pending[a];
	}
	while (left) {
		bool progress = false;
		for (int a = 0; a < n; a++) {
			if (!pending[a])
				continue;
			bool blocked = false;
			for (int b = 0; b < n; b++)
				if (pending[b] && b != a && from[b] == a + 1)
					blocked = true;
			if (blocked)
				continue;
			mov(ml, a + 1, from[a]);
			pending[a] = false;
			left--;
			progress = true;
		}
		if (progress)
			continue;
		for (int a = 0; a < n; a++)
			if (pending[a]) {
				mov(ml, BPF_REG_0, a + 1);
				for (int b = 0; b < n; b++)
					if (pending[b] && from[b] == a + 1)
						from[b] = BPF_REG_0;
				break;
			}
	}
}

static void lower_insn(struct ir *ir, const struct ir_insn *in,
		       const int8_t *P, struct mi_list *ml,
		       unsigned *entry_clobbered)
{
	uint8_t k = in->flags & IRF_K ? BPF_K : BPF_X;
	int src = k == BPF_X ? P[in->src] : 0;
	int32_t slot_off = in->flags & IRF_SLOT ?
		ir->slots.data[in->slot].fp_off : 0;
	int base = in->flags & IRF_SLOT ? FP : P[in->base];
	switch (in->kind) {
	case IRK_LABEL:
		vec_push(&ml->v, ((struct mi){ .kind = MI_LABEL,
					       .label = in->label }));
		return;
	case IRK_CTX: {
		/* a callback's arguments, copied out at entry in turn: a copy
		 * must not land in a register a later one still reads */
		int from = in->imm ? (int)in->imm : BPF_REG_1;
		if (*entry_clobbered >> from & 1) {
			ir_fail(ir, EINVAL, "internal error: argument R%d "
				"overwritten at entry", from);
			return;
		}
		if (P[in->dst] != from)
			*entry_clobbered |= 1u << P[in->dst];
		mov(ml, P[in->dst], from);
		return;
	}
	case IRK_ALU: {
		uint8_t cls = in->flags & IRF_32 ? BPF_ALU : BPF_ALU64;
		if (in->op == BPF_NEG)
			k = BPF_K;
		if (in->op == BPF_MOV && k == BPF_X && cls == BPF_ALU64) {
			mov(ml, P[in->dst], src);
			return;
		}
		put(ml, (struct bpf_insn){ .code = cls | in->op | k,
					   .dst_reg = P[in->dst],
					   .src_reg = src,
					   .off = in->flags & IRF_SIGNED ? 1 : 0,
					   .imm = (int32_t)in->imm }, -1);
		return;
	}
	case IRK_LDIMM:
		if (in->imm >= INT32_MIN && in->imm <= INT32_MAX)
			put(ml, (struct bpf_insn){
				.code = BPF_ALU64 | BPF_MOV | BPF_K,
				.dst_reg = P[in->dst], .imm = in->imm }, -1);
		else if (in->imm > 0 && in->imm <= UINT32_MAX)
			/* mov32 zero-extends: one slot instead of two. */
			put(ml, (struct bpf_insn){
				.code = BPF_ALU | BPF_MOV | BPF_K,
				.dst_reg = P[in->dst],
				.imm = (int32_t)(uint32_t)in->imm }, -1);
		else
			ldimm(ml, P[in->dst], 0, in->imm, 0);
		return;
	case IRK_LDMAP:
		ldimm(ml, P[in->dst],
		      in->flags & IRF_FUNC ? BPF_PSEUDO_FUNC :
		      in->flags & IRF_BTFVAR ? BPF_PSEUDO_BTF_ID :
		      in->flags & IRF_MAPVAL ? BPF_PSEUDO_MAP_VALUE
					     : BPF_PSEUDO_MAP_FD,
		      in->imm, in->off);
		return;
	case IRK_ENDIAN:
		put(ml, (struct bpf_insn){ .code = BPF_ALU | BPF_END | in->op,
					   .dst_reg = P[in->dst],
					   .imm = in->size }, -1);
		return;
	case IRK_LOAD:
		put(ml, (struct bpf_insn){
			.code = BPF_LDX | BPF_MEM | size_code(in->size),
			.dst_reg = P[in->dst], .src_reg = base,
			.off = slot_off + in->off }, -1);
		return;
	case IRK_STORE:
		put(ml, (struct bpf_insn){
			.code = (k == BPF_K ? BPF_ST : BPF_STX) | BPF_MEM |
				size_code(in->size),
			.dst_reg = base, .src_reg = src,
			.off = slot_off + in->off, .imm = (int32_t)in->imm },
		    -1);
		return;
	case IRK_XADD:
		put(ml, (struct bpf_insn){
			.code = BPF_STX | BPF_ATOMIC | size_code(in->size),
			.dst_reg = base, .src_reg = src, .off = in->off,
			.imm = BPF_ADD }, -1);
		return;
	case IRK_SLOTADDR:
		mov(ml, P[in->dst], FP);
		put(ml, (struct bpf_insn){ .code = BPF_ALU64 | BPF_ADD | BPF_K,
					   .dst_reg = P[in->dst],
					   .imm = ir->slots.data[in->slot].fp_off +
						  in->off }, -1);
		return;
	case IRK_JMP:
		put(ml, (struct bpf_insn){
			.code = (in->flags & IRF_32 ? BPF_JMP32 : BPF_JMP) |
				in->op | k,
			.dst_reg = P[in->dst], .src_reg = src,
			.imm = (int32_t)in->imm }, in->label);
		return;
	case IRK_JA:
		put(ml, (struct bpf_insn){ .code = BPF_JMP | BPF_JA },
		    in->label);
		return;
	case IRK_CALL: {
		int8_t from[IR_MAX_ARGS];
		for (int a = 0; a < in->nargs; a++)
			from[a] = P[in->args[a]];
		call_args(ml, from, in->nargs);
		put(ml, (struct bpf_insn){ .code = BPF_JMP | BPF_CALL,
					   .src_reg = in->flags & IRF_KFUNC ?
						BPF_PSEUDO_KFUNC_CALL : 0,
					   .imm = (int32_t)in->imm }, -1);
		if (in->dst)
			mov(ml, P[in->dst], BPF_REG_0);
		return;
	}
	case IRK_EXIT:
		if (k == BPF_K)
			put(ml, (struct bpf_insn){
				.code = BPF_ALU64 | BPF_MOV | BPF_K,
				.dst_reg = BPF_REG_0,
				.imm = (int32_t)in->imm }, -1);
		else
			mov(ml, BPF_REG_0, src);
		put(ml, (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT }, -1);
		return;
	}
}

int ir_lower(struct ir *ir, const int8_t *preg, struct mi_list *out)
{
	int err = ir_frame_layout(ir, &out->stack_size);
	if (err)
		return err;
	out->nlabels = ir->label_pos.len;
	unsigned clobbered = 0;
	for (size_t i = 0; i < ir->insns.len; i++)
		lower_insn(ir, &ir->insns.data[i], preg, out, &clobbered);
	return ir->err[0] ? -EINVAL : 0;
}
