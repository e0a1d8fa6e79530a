/* Basic blocks, liveness of vregs over the CFG, and dead code removal. */
#include "backend/ir_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static bool ends_block(const struct ir_insn *in)
{
	return in->kind == IRK_JMP || in->kind == IRK_JA ||
	       in->kind == IRK_EXIT;
}

/* Label positions are recomputed after instructions were deleted. */
static void relabel(struct ir *ir)
{
	for (size_t l = 0; l < ir->label_pos.len; l++)
		ir->label_pos.data[l] = -1;
	for (size_t i = 0; i < ir->insns.len; i++)
		if (ir->insns.data[i].kind == IRK_LABEL)
			ir->label_pos.data[ir->insns.data[i].label] = i;
}

void ir_compact(struct ir *ir, const bool *keep)
{
	size_t n = 0;
	for (size_t i = 0; i < ir->insns.len; i++)
		if (keep[i])
			ir->insns.data[n++] = ir->insns.data[i];
	ir->insns.len = n;
	relabel(ir);
}

static int build_blocks(struct ir *ir, struct ir_cfg *cfg,
			uint32_t *block_of)
{
	size_t n = ir->insns.len;
	cfg->nblocks = 0;
	cfg->blocks = xcalloc(n + 1, sizeof(*cfg->blocks));
	for (size_t i = 0; i < n; i++) {
		const struct ir_insn *in = &ir->insns.data[i];
		if (i == 0 || in->kind == IRK_LABEL ||
		    ends_block(&ir->insns.data[i - 1]))
			cfg->blocks[cfg->nblocks++].first = i;
		cfg->blocks[cfg->nblocks - 1].last = i;
		block_of[i] = cfg->nblocks - 1;
	}
	for (uint32_t b = 0; b < cfg->nblocks; b++) {
		struct ir_block *bl = &cfg->blocks[b];
		const struct ir_insn *in = &ir->insns.data[bl->last];
		bl->succ[0] = bl->succ[1] = -1;
		if (in->kind == IRK_EXIT)
			continue;
		if (in->kind == IRK_JMP || in->kind == IRK_JA) {
			if (in->flags & IRF_OPEN)
				return ir_fail(ir, EINVAL, "jump at %u was never "
					       "patched", bl->last);
			int32_t pos = ir->label_pos.data[in->label];
			if (pos < 0)
				return ir_fail(ir, EINVAL, "label L%d is never "
					       "bound", in->label);
			bl->succ[0] = block_of[pos];
			if (in->kind == IRK_JA)
				continue;
		}
		bl->succ[1] = b + 1 < cfg->nblocks ? (int32_t)b + 1 : -2;
	}
	return 0;
}

/* The verifier rejects unreachable instructions, so they are deleted.
 * Returns 1 when something was deleted. */
static int prune_unreachable(struct ir *ir, struct ir_cfg *cfg)
{
	uint32_t nb = cfg->nblocks, *stack = xmalloc((nb + 1) * sizeof(*stack));
	bool *seen = xcalloc(nb + 1, 1), *keep;
	uint32_t sp = 0, nseen = 0;
	if (nb)
		seen[0] = true, stack[sp++] = 0, nseen = 1;
	while (sp) {
		struct ir_block *bl = &cfg->blocks[stack[--sp]];
		for (int k = 0; k < 2; k++) {
			int32_t s = bl->succ[k];
			if (s >= 0 && !seen[s])
				seen[s] = true, stack[sp++] = s, nseen++;
		}
	}
	int changed = nseen < nb;
	if (changed) {
		keep = xcalloc(ir->insns.len + 1, 1);
		for (uint32_t b = 0; b < nb; b++)
			for (uint32_t i = cfg->blocks[b].first;
			     i <= cfg->blocks[b].last; i++)
				keep[i] = seen[b];
		ir_compact(ir, keep);
		free(keep);
	}
	free(seen);
	free(stack);
	return changed;
}

static void solve(struct ir *ir, struct ir_cfg *cfg)
{
	uint32_t w = cfg->words = (ir->nregs + 1 + 63) / 64;
	uint32_t nb = cfg->nblocks;
	uint64_t *gen = xcalloc((size_t)nb * w + 1, 8);
	uint64_t *kill = xcalloc((size_t)nb * w + 1, 8);
	for (uint32_t b = 0; b < nb; b++) {
		struct ir_block *bl = &cfg->blocks[b];
		uint64_t *g = gen + (size_t)b * w, *k = kill + (size_t)b * w;
		bl->live_in = xcalloc(w + 1, 8);
		bl->live_out = xcalloc(w + 1, 8);
		for (uint32_t i = bl->first; i <= bl->last; i++) {
			const struct ir_insn *in = &ir->insns.data[i];
			ir_reg uses[IR_MAX_ARGS];
			int nu = ir_insn_uses(in, uses);
			for (int u = 0; u < nu; u++)
				if (!ir_bit(k, uses[u]))
					g[uses[u] / 64] |= 1ull << uses[u] % 64;
			ir_reg d = ir_insn_def(in);
			if (d)
				k[d / 64] |= 1ull << d % 64;
		}
	}
	/* Reverse order converges fast for mostly-forward code. */
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t b = nb; b-- > 0;) {
			struct ir_block *bl = &cfg->blocks[b];
			const uint64_t *g = gen + (size_t)b * w;
			const uint64_t *k = kill + (size_t)b * w;
			for (uint32_t x = 0; x < w; x++) {
				uint64_t out = 0;
				for (int s = 0; s < 2; s++)
					if (bl->succ[s] >= 0)
						out |= cfg->blocks[bl->succ[s]]
							       .live_in[x];
				uint64_t in = g[x] | (out & ~k[x]);
				if (in != bl->live_in[x] ||
				    out != bl->live_out[x])
					changed = true;
				bl->live_out[x] = out;
				bl->live_in[x] = in;
			}
		}
	}
	free(gen);
	free(kill);
}

int ir_cfg_build(struct ir *ir, struct ir_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	if (!ir->insns.len)
		return ir_fail(ir, EINVAL, "empty program");
	relabel(ir);
	for (;;) {
		uint32_t *block_of = xmalloc(ir->insns.len * sizeof(*block_of));
		int err = build_blocks(ir, cfg, block_of);
		free(block_of);
		if (err) {
			ir_cfg_free(cfg);
			return err;
		}
		if (!prune_unreachable(ir, cfg))
			break;
		ir_cfg_free(cfg);
	}
	for (uint32_t b = 0; b < cfg->nblocks; b++)
		if (cfg->blocks[b].succ[1] == -2) {
			ir_cfg_free(cfg);
			return ir_fail(ir, EINVAL, "control reaches the end of "
				       "the program without exit");
		}
	solve(ir, cfg);
	/* Anything live at entry was read before being set: a codegen bug
	 * the verifier would report much less clearly. */
	for (uint32_t v = 1; v <= ir->nregs; v++)
		if (ir_bit(cfg->blocks[0].live_in, v)) {
			ir_cfg_free(cfg);
			return ir_fail(ir, EINVAL, "virtual register %%%u is "
				       "read before it is set", v);
		}
	return 0;
}

void ir_cfg_free(struct ir_cfg *cfg)
{
	for (uint32_t b = 0; b < cfg->nblocks; b++) {
		free(cfg->blocks[b].live_in);
		free(cfg->blocks[b].live_out);
	}
	free(cfg->blocks);
	memset(cfg, 0, sizeof(*cfg));
}

int ir_dce(struct ir *ir, const struct ir_cfg *cfg)
{
	uint32_t w = cfg->words;
	uint64_t *live = xmalloc((w + 1) * 8);
	bool *keep = xmalloc(ir->insns.len + 1);
	int changes = 0;
	memset(keep, 1, ir->insns.len + 1);
	for (uint32_t b = 0; b < cfg->nblocks; b++) {
		const struct ir_block *bl = &cfg->blocks[b];
		memcpy(live, bl->live_out, w * 8);
		for (uint32_t i = bl->last + 1; i-- > bl->first;) {
			struct ir_insn *in = &ir->insns.data[i];
			ir_reg d = ir_insn_def(in);
			if (d && !ir_bit(live, d)) {
				changes++;
				if (ir_insn_pure(in)) {
					keep[i] = false;
					continue;
				}
				in->dst = IR_NOREG; /* an unread call result */
			}
			if (d)
				live[d / 64] &= ~(1ull << d % 64);
			ir_reg uses[IR_MAX_ARGS];
			int nu = ir_insn_uses(in, uses);
			for (int u = 0; u < nu; u++)
				live[uses[u] / 64] |= 1ull << uses[u] % 64;
		}
	}
	if (changes)
		ir_compact(ir, keep);
	free(keep);
	free(live);
	return changes;
}
