/* Encoding: machine instructions -> struct bpf_insn[] with jump offsets. */
#include "backend/ir_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

int ir_encode(struct ir *ir, const struct mi_list *ml, struct bpf_code *out)
{
	int32_t *label_pc = xmalloc((ml->nlabels + 1) * sizeof(*label_pc));
	uint32_t pc = 0, nrelocs = 0;
	for (size_t i = 0; i < ml->v.len; i++) {
		const struct mi *m = &ml->v.data[i];
		if (m->kind == MI_LABEL)
			label_pc[m->label] = pc;
		else
			pc += m->kind == MI_LDIMM ? 2 : 1;
		nrelocs += m->kind == MI_LDIMM && m->ins.src_reg &&
			   m->ins.src_reg != BPF_PSEUDO_BTF_ID;
	}
	if (pc > IR_MAX_INSNS) {
		memset(out, 0, sizeof(*out));
		free(label_pc);
		return ir_fail(ir, E2BIG, "the program has %u BPF instructions, "
			       "more than the %d the kernel loads in one "
			       "program", pc, IR_MAX_INSNS);
	}
	struct bpf_insn *insns = xcalloc(pc + 1, sizeof(*insns));
	struct map_reloc *relocs = xcalloc(nrelocs + 1, sizeof(*relocs));
	out->ninsns = pc;
	out->nrelocs = 0;
	out->insns = insns;
	out->relocs = relocs;
	pc = 0;
	int err = 0;
	for (size_t i = 0; i < ml->v.len && !err; i++) {
		const struct mi *m = &ml->v.data[i];
		switch (m->kind) {
		case MI_LABEL:
			break;
		case MI_LDIMM:
			insns[pc] = (struct bpf_insn){
				.code = BPF_LD | BPF_IMM | BPF_DW,
				.dst_reg = m->ins.dst_reg,
				.src_reg = m->ins.src_reg,
				.imm = (int32_t)(uint32_t)m->imm64 };
			insns[pc + 1].imm = m->ins.src_reg == BPF_PSEUDO_MAP_VALUE
				? m->aux : (int32_t)((uint64_t)m->imm64 >> 32);
			/* a BTF id is the kernel's, no map to patch in */
			if (m->ins.src_reg && m->ins.src_reg != BPF_PSEUDO_BTF_ID)
				relocs[out->nrelocs++] = (struct map_reloc){
					pc, (uint32_t)m->imm64 };
			pc += 2;
			break;
		case MI_INSN:
			insns[pc] = m->ins;
			if (m->label >= 0) {
				long off = (long)label_pc[m->label] - pc - 1;
				if (off < INT16_MIN || off > INT16_MAX)
					err = ir_fail(ir, E2BIG, "jump at "
						      "instruction %u spans %ld "
						      "instructions, more than a "
						      "BPF jump can reach", pc,
						      off);
				insns[pc].off = (int16_t)off;
			}
			pc++;
			break;
		}
	}
	free(label_pc);
	out->stack_size = ml->stack_size;
	if (err)
		bpf_code_free(out);
	return err;
}
