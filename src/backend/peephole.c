/*
 * Peephole over machine instructions, repeated until nothing changes:
 *  - self moves (r1 = r1) and r1 += 0 style no-ops go; 32-bit ones stay,
 *    they zero-extend;
 *  - jumps to the next instruction go;
 *  - a jump to a `goto L` is sent to L directly;
 *  - `if c goto A; goto B; A:` becomes `if !c goto B; A:`;
 *  - a spill store followed by a reload of the same slot becomes a move;
 *  - labels nobody jumps to go, and with them the code after a goto or
 *    exit that became unreachable (the verifier rejects such code).
 */
#include "backend/ir_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static bool is_jump(const struct mi *m)
{
	return m->kind == MI_INSN && m->label >= 0;
}

static bool is_ja(const struct mi *m)
{
	return is_jump(m) && m->ins.code == (BPF_JMP | BPF_JA);
}

static bool ends_flow(const struct mi *m)
{
	return is_ja(m) || (m->kind == MI_INSN &&
			    m->ins.code == (BPF_JMP | BPF_EXIT));
}

/* Index of the first non-label entry at or after i (len if none). */
static size_t skip_labels(const struct mi_list *ml, size_t i)
{
	while (i < ml->v.len && ml->v.data[i].kind == MI_LABEL)
		i++;
	return i;
}

/* True when label l is defined among the labels starting at i. */
static bool label_at(const struct mi_list *ml, size_t i, int32_t l)
{
	for (; i < ml->v.len && ml->v.data[i].kind == MI_LABEL; i++)
		if (ml->v.data[i].label == l)
			return true;
	return false;
}

static bool is_nop(const struct bpf_insn *in)
{
	if (in->code == (BPF_ALU64 | BPF_MOV | BPF_X))
		return in->dst_reg == in->src_reg;
	if (BPF_CLASS(in->code) != BPF_ALU64 || BPF_SRC(in->code) != BPF_K)
		return false;
	switch (BPF_OP(in->code)) {
	case BPF_ADD: case BPF_SUB: case BPF_OR: case BPF_XOR: case BPF_LSH:
	case BPF_RSH: case BPF_ARSH:
		return in->imm == 0;
	case BPF_MUL: case BPF_DIV:
		return in->imm == 1;
	case BPF_AND:
		return in->imm == -1;
	}
	return false;
}

static int pass(struct mi_list *ml, size_t *label_idx)
{
	int changes = 0;
	size_t n = ml->v.len;
	struct mi *v = ml->v.data;
	bool *dead = xcalloc(n + 1, 1);
	uint32_t *refs = xcalloc(ml->nlabels + 1, sizeof(*refs));

	for (size_t i = 0; i < n; i++)
		if (v[i].kind == MI_LABEL)
			label_idx[v[i].label] = i;
	for (size_t i = 0; i < n; i++) {
		struct mi *m = &v[i];
		if (m->kind != MI_INSN)
			continue;
		if (is_nop(&m->ins)) {
			dead[i] = true;
			changes++;
			continue;
		}
		if (!is_jump(m))
			continue;
		/* Thread through chains of gotos (bounded: goto loops). */
		for (int hop = 0; hop < 8; hop++) {
			size_t t = skip_labels(ml, label_idx[m->label]);
			if (t >= n || !is_ja(&v[t]) || v[t].label == m->label)
				break;
			m->label = v[t].label;
			changes++;
		}
		size_t next = i + 1;
		if (label_at(ml, next, m->label)) {
			dead[i] = true;
			changes++;
			continue;
		}
		int neg = ir_cond_negate(BPF_OP(m->ins.code));
		if (!is_ja(m) && neg >= 0 && next < n && is_ja(&v[next]) &&
		    label_at(ml, next + 1, m->label)) {
			m->ins.code = BPF_CLASS(m->ins.code) | neg |
				      BPF_SRC(m->ins.code);
			m->label = v[next].label;
			dead[next] = true;
			changes++;
			i++;
		}
	}
	for (size_t i = 0; i + 1 < n; i++) {
		struct bpf_insn *st = &v[i].ins, *ld = &v[i + 1].ins;
		if (dead[i] || dead[i + 1] || v[i].kind != MI_INSN ||
		    v[i + 1].kind != MI_INSN ||
		    st->code != (BPF_STX | BPF_MEM | BPF_DW) ||
		    ld->code != (BPF_LDX | BPF_MEM | BPF_DW) ||
		    st->dst_reg != BPF_REG_10 || ld->src_reg != BPF_REG_10 ||
		    st->off != ld->off)
			continue;
		*ld = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_X,
					 .dst_reg = ld->dst_reg,
					 .src_reg = st->src_reg };
		changes++;
	}
	for (size_t i = 0; i < n; i++)
		if (!dead[i] && is_jump(&v[i]))
			refs[v[i].label]++;
	bool reachable = true;
	for (size_t i = 0; i < n; i++) {
		if (v[i].kind == MI_LABEL) {
			if (!refs[v[i].label]) {
				dead[i] = true;
				changes++;
			} else {
				reachable = true;
			}
			continue;
		}
		if (dead[i])
			continue;
		if (!reachable) {
			dead[i] = true;
			changes++;
			continue;
		}
		if (ends_flow(&v[i]))
			reachable = false;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!dead[i])
			v[k++] = v[i];
	ml->v.len = k;
	free(refs);
	free(dead);
	return changes;
}

void ir_peephole(struct mi_list *ml)
{
	size_t *label_idx = xcalloc(ml->nlabels + 1, sizeof(*label_idx));
	/* Bounded: threading through a cycle of gotos never settles. */
	for (int round = 0; round < 32 && pass(ml, label_idx) > 0; round++)
		;
	free(label_idx);
}
