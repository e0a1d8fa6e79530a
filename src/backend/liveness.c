/*
 * Basic blocks, liveness of vregs over the CFG, and dead code removal.
 *
 * Liveness is sparse, so that its time and memory grow with the program
 * and the live ranges, not with blocks x vregs (a 16k-statement script
 * took 2.8 GB with a bit-set per block): each vreg is followed backwards
 * from its uses that no earlier definition in their block covers, block
 * by block, until definitions stop it (the path-exploration method). The
 * work is the number of (vreg, block) pairs where the vreg is live, which
 * is also the size of the answer. Blocks keep their live-in and live-out
 * vregs as sorted lists.
 */
#include "backend/ir_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"
#include "util/xalloc.h"

static bool ends_block(const struct ir_insn *in)
{
	return in->kind == IRK_JMP || in->kind == IRK_JA ||
	       in->kind == IRK_EXIT;
}

void ir_relabel(struct ir *ir)
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
	ir_relabel(ir);
}

static int build_blocks(struct ir *ir, struct ir_cfg *cfg)
{
	size_t n = ir->insns.len;
	uint32_t *block_of = cfg->block_of;
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

/* Predecessor lists, from the successors. */
static void build_preds(struct ir_cfg *cfg)
{
	uint32_t nb = cfg->nblocks;
	uint32_t *start = xcalloc(nb + 2, sizeof(*start));
	for (uint32_t b = 0; b < nb; b++)
		for (int k = 0; k < 2; k++)
			if (cfg->blocks[b].succ[k] >= 0)
				start[cfg->blocks[b].succ[k] + 1]++;
	for (uint32_t b = 0; b < nb; b++)
		start[b + 1] += start[b];
	uint32_t *fill = xmalloc((nb + 1) * sizeof(*fill));
	memcpy(fill, start, (nb + 1) * sizeof(*fill));
	cfg->preds = xmalloc((start[nb] + 1) * sizeof(*cfg->preds));
	for (uint32_t b = 0; b < nb; b++)
		for (int k = 0; k < 2; k++) {
			int32_t s = cfg->blocks[b].succ[k];
			/* a conditional jump to the next block is one edge */
			if (s >= 0 && !(k == 1 && s == cfg->blocks[b].succ[0]))
				cfg->preds[fill[s]++] = b;
		}
	/* the duplicate edges skipped above leave their room unused */
	for (uint32_t b = 0; b < nb; b++) {
		cfg->blocks[b].preds = cfg->preds + start[b];
		cfg->blocks[b].npreds = fill[b] - start[b];
	}
	free(fill);
	free(start);
}

void ir_occs_build(const struct ir *ir, struct ir_occs *o)
{
	uint32_t nr = ir->nregs + 1;
	size_t n = ir->insns.len;
	o->start = xcalloc(nr + 1, sizeof(*o->start));
	for (size_t i = 0; i < n; i++) {
		const struct ir_insn *in = &ir->insns.data[i];
		ir_reg u[IR_MAX_ARGS];
		int nu = ir_insn_uses(in, u);
		for (int k = 0; k < nu; k++)
			o->start[u[k] + 1]++;
		ir_reg d = ir_insn_def(in);
		if (d)
			o->start[d + 1]++;
	}
	for (uint32_t v = 0; v < nr; v++)
		o->start[v + 1] += o->start[v];
	uint32_t *fill = xmalloc(nr * sizeof(*fill));
	memcpy(fill, o->start, nr * sizeof(*fill));
	o->occ = xmalloc((o->start[nr] + 1) * sizeof(*o->occ));
	for (size_t i = 0; i < n; i++) {
		const struct ir_insn *in = &ir->insns.data[i];
		ir_reg u[IR_MAX_ARGS];
		int nu = ir_insn_uses(in, u);
		for (int k = 0; k < nu; k++)
			o->occ[fill[u[k]]++] = (uint32_t)i << 1;
		ir_reg d = ir_insn_def(in);
		if (d)
			o->occ[fill[d]++] = (uint32_t)i << 1 | 1;
	}
	free(fill);
}

void ir_occs_free(struct ir_occs *o)
{
	free(o->start);
	free(o->occ);
	memset(o, 0, sizeof(*o));
}

struct pair {
	ir_reg v;
	uint32_t b;
};

/* The (vreg, block) pairs as per-block lists in cfg->live, sorted by
 * vreg since pairs come in vreg order. */
static void bucket(struct ir_cfg *cfg, const struct pair *p, size_t n,
		   size_t at, bool out)
{
	uint32_t nb = cfg->nblocks;
	uint32_t *count = xcalloc(nb + 1, sizeof(*count));
	for (size_t k = 0; k < n; k++)
		count[p[k].b]++;
	size_t pos = at;
	for (uint32_t b = 0; b < nb; b++) {
		struct ir_block *bl = &cfg->blocks[b];
		if (out) {
			bl->live_out = cfg->live + pos;
			bl->nlive_out = 0;
		} else {
			bl->live_in = cfg->live + pos;
			bl->nlive_in = 0;
		}
		pos += count[b];
	}
	for (size_t k = 0; k < n; k++) {
		struct ir_block *bl = &cfg->blocks[p[k].b];
		if (out)
			((ir_reg *)bl->live_out)[bl->nlive_out++] = p[k].v;
		else
			((ir_reg *)bl->live_in)[bl->nlive_in++] = p[k].v;
	}
	free(count);
}

static void solve(const struct ir *ir, struct ir_cfg *cfg)
{
	uint32_t nb = cfg->nblocks;
	const struct ir_occs *o = &cfg->occs;
	/* stamps: the vreg being followed marks its blocks */
	ir_reg *def_in = xcalloc(nb + 1, sizeof(*def_in));
	ir_reg *in_at = xcalloc(nb + 1, sizeof(*in_at));
	ir_reg *out_at = xcalloc(nb + 1, sizeof(*out_at));
	uint32_t *stack = xmalloc((nb + 1) * sizeof(*stack));
	VEC(struct pair) ins = { 0 }, outs = { 0 };
	for (ir_reg v = 1; v <= ir->nregs; v++) {
		uint32_t lo = o->start[v], hi = o->start[v + 1];
		for (uint32_t k = lo; k < hi; k++)
			if (o->occ[k] & 1)
				def_in[cfg->block_of[o->occ[k] >> 1]] = v;
		/* a use is upward exposed when no earlier definition in its
		 * block covers it (uses of one insn come before its def) */
		uint32_t defined = UINT32_MAX;
		for (uint32_t k = lo; k < hi; k++) {
			uint32_t b = cfg->block_of[o->occ[k] >> 1];
			if (o->occ[k] & 1) {
				defined = b;
				continue;
			}
			if (defined == b || in_at[b] == v)
				continue;
			uint32_t sp = 0;
			in_at[b] = v;
			vec_push(&ins, ((struct pair){ v, b }));
			stack[sp++] = b;
			while (sp) {
				const struct ir_block *bl =
					&cfg->blocks[stack[--sp]];
				for (uint32_t q = 0; q < bl->npreds; q++) {
					uint32_t p = bl->preds[q];
					if (out_at[p] != v) {
						out_at[p] = v;
						vec_push(&outs, ((struct pair){
							v, p }));
					}
					if (def_in[p] == v || in_at[p] == v)
						continue;
					in_at[p] = v;
					vec_push(&ins, ((struct pair){ v, p }));
					stack[sp++] = p;
				}
			}
		}
	}
	cfg->live = xmalloc((ins.len + outs.len + 1) * sizeof(*cfg->live));
	bucket(cfg, ins.data, ins.len, 0, false);
	bucket(cfg, outs.data, outs.len, ins.len, true);
	vec_free(&ins);
	vec_free(&outs);
	free(stack);
	free(out_at);
	free(in_at);
	free(def_in);
}

int ir_cfg_build(struct ir *ir, struct ir_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	if (!ir->insns.len)
		return ir_fail(ir, EINVAL, "empty program");
	ir_relabel(ir);
	for (;;) {
		cfg->block_of = xmalloc(ir->insns.len * sizeof(*cfg->block_of));
		int err = build_blocks(ir, cfg);
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
	build_preds(cfg);
	ir_occs_build(ir, &cfg->occs);
	solve(ir, cfg);
	/* Anything live at entry was read before being set: a codegen bug
	 * the verifier would report much less clearly. */
	if (cfg->blocks[0].nlive_in) {
		ir_reg v = cfg->blocks[0].live_in[0];
		ir_cfg_free(cfg);
		return ir_fail(ir, EINVAL, "virtual register %%%u is read "
			       "before it is set", v);
	}
	return 0;
}

void ir_cfg_free(struct ir_cfg *cfg)
{
	free(cfg->blocks);
	free(cfg->block_of);
	free(cfg->preds);
	free(cfg->live);
	ir_occs_free(&cfg->occs);
	memset(cfg, 0, sizeof(*cfg));
}

int ir_dce(struct ir *ir, const struct ir_cfg *cfg)
{
	/* live_at[v] == b + 1: v is live at this point of block b */
	uint32_t *live_at = xcalloc(ir->nregs + 1, sizeof(*live_at));
	bool *keep = xmalloc(ir->insns.len + 1);
	int changes = 0;
	memset(keep, 1, ir->insns.len + 1);
	for (uint32_t b = 0; b < cfg->nblocks; b++) {
		const struct ir_block *bl = &cfg->blocks[b];
		for (uint32_t k = 0; k < bl->nlive_out; k++)
			live_at[bl->live_out[k]] = b + 1;
		for (uint32_t i = bl->last + 1; i-- > bl->first;) {
			struct ir_insn *in = &ir->insns.data[i];
			ir_reg d = ir_insn_def(in);
			if (d && live_at[d] != b + 1) {
				changes++;
				if (ir_insn_pure(in)) {
					keep[i] = false;
					continue;
				}
				in->dst = IR_NOREG; /* an unread call result */
			}
			if (d)
				live_at[d] = 0;
			ir_reg uses[IR_MAX_ARGS];
			int nu = ir_insn_uses(in, uses);
			for (int u = 0; u < nu; u++)
				live_at[uses[u]] = b + 1;
		}
	}
	if (changes)
		ir_compact(ir, keep);
	free(keep);
	free(live_at);
	return changes;
}
