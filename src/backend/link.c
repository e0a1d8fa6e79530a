/*
 * Linking callbacks after a program: BPF-to-BPF functions live in the
 * same instruction array, after the main program, and a function's
 * address is an ld_imm64 with src_reg BPF_PSEUDO_FUNC whose imm is the
 * distance to the function's first instruction (from the instruction
 * after the load), as the kernel's verifier reads it.
 */
#include "backend/ir.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Frames take the verifier's rounding: 32 bytes, at least one unit. */
static uint32_t frame_bytes(uint32_t stack)
{
	return stack ? (stack + 31) & ~31u : 32;
}

/* The deepest chain of frames from function f (-1: prog). */
static uint32_t chain_depth(const struct bpf_code *prog,
			    const struct bpf_code *fns, uint32_t n, int f,
			    int depth)
{
	const struct bpf_code *c = f < 0 ? prog : &fns[f];
	uint32_t deepest = 0;
	if (depth > 8)
		return UINT32_MAX / 2; /* nesting beyond the kernel's 8 frames */
	for (uint32_t r = 0; r < c->nrelocs; r++) {
		const struct bpf_insn *in = &c->insns[c->relocs[r].insn];
		if (in->src_reg != BPF_PSEUDO_FUNC)
			continue;
		uint32_t callee = c->relocs[r].map_idx;
		if (callee >= n)
			continue;
		uint32_t d = chain_depth(prog, fns, n, (int)callee, depth + 1);
		if (d > deepest)
			deepest = d;
	}
	return frame_bytes(c->stack_size) + deepest;
}

/* Marks the functions code c loads (and theirs) in used[]. */
static void mark_used(const struct bpf_code *c, const struct bpf_code *fns,
		      uint32_t n, bool *used)
{
	for (uint32_t r = 0; r < c->nrelocs; r++) {
		uint32_t callee = c->relocs[r].map_idx;
		if (c->insns[c->relocs[r].insn].src_reg != BPF_PSEUDO_FUNC ||
		    callee >= n || used[callee])
			continue;
		used[callee] = true;
		mark_used(&fns[callee], fns, n, used);
	}
}

int ir_link(struct bpf_code *prog, const struct bpf_code *fns, uint32_t n,
	    char *err, size_t errlen)
{
	if (!n)
		return 0;
	/* A body whose loop is dead code (after exit()) lost its load with
	 * it: left in, the kernel would refuse it as unreachable. */
	bool *used = xcalloc(n + 1, sizeof(*used));
	mark_used(prog, fns, n, used);
	/* bpf_loop inlined by the verifier (6.1+) keeps 3 values in the
	 * caller's frame */
	uint32_t depth = chain_depth(prog, fns, n, -1, 0) + 32;
	if (depth > 512) {
		free(used);
		snprintf(err, errlen, "the probe and its for loop bodies need "
			 "%u bytes of stack together, more than the 512 the "
			 "kernel gives them: use smaller values (e.g. "
			 "str(x, LEN)) or fewer variables in the loops", depth);
		return -E2BIG;
	}
	uint32_t total = prog->ninsns, nrel = prog->nrelocs;
	uint32_t *start = xmalloc(sizeof(*start) * n);
	for (uint32_t i = 0; i < n; i++) {
		start[i] = total;
		if (!used[i])
			continue;
		total += fns[i].ninsns;
		nrel += fns[i].nrelocs;
	}
	struct bpf_insn *insns = xcalloc(total + 1, sizeof(*insns));
	struct map_reloc *rel = xcalloc(nrel + 1, sizeof(*rel));
	uint32_t nr = 0;
	for (int f = -1; f < (int)n; f++) {
		if (f >= 0 && !used[f])
			continue;
		const struct bpf_code *c = f < 0 ? prog : &fns[f];
		uint32_t base = f < 0 ? 0 : start[f];
		memcpy(insns + base, c->insns, sizeof(*insns) * c->ninsns);
		for (uint32_t r = 0; r < c->nrelocs; r++) {
			uint32_t at = base + c->relocs[r].insn;
			if (insns[at].src_reg == BPF_PSEUDO_FUNC) {
				uint32_t callee = c->relocs[r].map_idx;
				insns[at].imm = callee < n ?
					(int32_t)start[callee] - (int32_t)at - 1 : 0;
				continue;
			}
			rel[nr].insn = at;
			rel[nr].map_idx = c->relocs[r].map_idx;
			nr++;
		}
	}
	free(start);
	free(used);
	free(prog->insns);
	free(prog->relocs);
	prog->insns = insns;
	prog->ninsns = total;
	prog->relocs = rel;
	prog->nrelocs = nr;
	uint32_t deepest = depth - 32;
	prog->stack_size = deepest > 512 ? 512 : deepest;
	return 0;
}
