/*
 * Webs: a vreg assigned more than once (a script variable, a value built
 * in steps) is split into one vreg per web: a set of definitions together
 * with the uses they reach, closed under "reach the same use". Linear scan
 * gives each vreg one interval from its first touch to its last, so
 * without this `$acc = $acc + x`, repeated, keeps $acc and its copies in
 * different registers for the whole program and every copy stays. Split,
 * each piece is short, and the allocator's copy hints put a copy's source
 * and destination in one register, which the peephole then drops.
 *
 * Two-address instructions (dst op= src, bswap) read and write dst in
 * place, so their definition joins the web of the definitions they read.
 *
 * Each vreg is done on its own, sparsely, over the CFG of liveness.c (so
 * a value carried around a loop stays one web): a use takes the last
 * definition before it in its block, or else the vreg's value at the
 * block's entry, which joins the last definitions of the predecessors
 * that define it and the entry values of those that do not, followed
 * back as far as it is live. The work is the vreg's occurrences plus the
 * blocks it is live into, so the pass is linear in the program and its
 * live ranges (bit-sets of reaching definitions per block made it grow
 * with blocks x definitions).
 */
#include "backend/ir_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util/vec.h"
#include "util/xalloc.h"

/* Union-find nodes: definitions are 0..ndefs-1 (one per defining insn),
 * a vreg's block-entry values follow while that vreg is done. unite()
 * makes the smaller node the root, so a definition's root is always a
 * definition and entry nodes can be dropped after each vreg. */
struct webs {
	struct ir *ir;
	struct ir_cfg cfg;
	uint32_t ndefs;
	uint32_t *def_of_insn;   /* def id + 1, 0: none */
	VEC(uint32_t) parent;
	/* per block, for the vreg being done (stamped with it) */
	ir_reg *stamp_def, *stamp_entry;
	uint32_t *last_def;      /* its last definition in the block */
	uint32_t *entry;         /* the node of its value at entry */
	uint32_t *stack;
};

static uint32_t find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x)
		x = parent[x] = parent[parent[x]];
	return x;
}

static void unite(uint32_t *parent, uint32_t a, uint32_t b)
{
	a = find(parent, a);
	b = find(parent, b);
	if (a != b)
		parent[a > b ? a : b] = a < b ? a : b;
}

static bool two_address(const struct ir_insn *in)
{
	return (in->kind == IRK_ALU && in->op != BPF_MOV) ||
	       in->kind == IRK_ENDIAN;
}

static uint32_t new_node(struct webs *w)
{
	uint32_t n = (uint32_t)w->parent.len;
	vec_push(&w->parent, n);
	return n;
}

/* The node of v's value at the entry of block b, made (with those of the
 * blocks it comes from) on first use. */
static uint32_t entry_of(struct webs *w, ir_reg v, uint32_t b)
{
	if (w->stamp_entry[b] == v)
		return w->entry[b];
	uint32_t sp = 0;
	w->stamp_entry[b] = v;
	w->entry[b] = new_node(w);
	w->stack[sp++] = b;
	while (sp) {
		uint32_t x = w->stack[--sp];
		const struct ir_block *bl = &w->cfg.blocks[x];
		for (uint32_t q = 0; q < bl->npreds; q++) {
			uint32_t p = bl->preds[q];
			uint32_t from;
			if (w->stamp_def[p] == v) {
				from = w->last_def[p];
			} else if (w->stamp_entry[p] == v) {
				from = w->entry[p];
			} else {
				w->stamp_entry[p] = v;
				from = w->entry[p] = new_node(w);
				w->stack[sp++] = p;
			}
			unite(w->parent.data, w->entry[x], from);
		}
	}
	return w->entry[b];
}

/* The node whose web reaches the use at insn i of v, given the last
 * definition of v so far in i's block (UINT32_MAX: none). */
static uint32_t reaching(struct webs *w, ir_reg v, uint32_t i,
			 uint32_t last)
{
	return last != UINT32_MAX ? last :
				    entry_of(w, v, w->cfg.block_of[i]);
}

/* The use fields of in that hold from now hold to. */
static void rename_uses(struct ir_insn *in, ir_reg from, ir_reg to)
{
	if (from == to)
		return;
	if (!(in->flags & IRF_K) && in->src == from &&
	    (in->kind == IRK_ALU || in->kind == IRK_STORE ||
	     in->kind == IRK_XADD || in->kind == IRK_JMP ||
	     in->kind == IRK_EXIT))
		in->src = to;
	if (!(in->flags & IRF_SLOT) && in->base == from &&
	    (in->kind == IRK_LOAD || in->kind == IRK_STORE ||
	     in->kind == IRK_XADD))
		in->base = to;
	if (in->dst == from && (two_address(in) || in->kind == IRK_JMP))
		in->dst = to;
	if (in->kind == IRK_CALL)
		for (int a = 0; a < in->nargs; a++)
			if (in->args[a] == from)
				in->args[a] = to;
}

/* Walks v's occurrences. First (!rename): joins the definitions that
 * reach one use, and two-address definitions with what they read. Then
 * (rename): gives each use and definition its web's vreg. */
static int walk(struct webs *w, ir_reg v, const ir_reg *web_reg)
{
	struct ir *ir = w->ir;
	const struct ir_occs *o = &w->cfg.occs;
	uint32_t last = UINT32_MAX, block = UINT32_MAX;
	int n = 0;
	for (uint32_t k = o->start[v]; k < o->start[v + 1]; k++) {
		uint32_t i = o->occ[k] >> 1, b = w->cfg.block_of[i];
		struct ir_insn *in = &ir->insns.data[i];
		if (b != block)
			last = UINT32_MAX, block = b;
		if (o->occ[k] & 1) {
			last = w->def_of_insn[i] - 1;
			if (web_reg)
				in->dst = web_reg[find(w->parent.data, last)];
			continue;
		}
		/* reaching() may grow the union-find: call it first */
		uint32_t node = reaching(w, v, i, last);
		uint32_t r = find(w->parent.data, node);
		if (r >= w->ndefs)
			continue; /* no definition reaches it */
		if (!web_reg) {
			uint32_t id = w->def_of_insn[i];
			if (id && two_address(in) && in->dst == v)
				unite(w->parent.data, r, id - 1);
		} else {
			rename_uses(in, v, web_reg[r]);
		}
		n++;
	}
	return n;
}

int ir_split_webs(struct ir *ir)
{
	struct webs w = { .ir = ir };
	if (ir_cfg_build(ir, &w.cfg))
		return 0; /* regalloc reports the error */
	size_t n = ir->insns.len;
	uint32_t nb = w.cfg.nblocks;
	w.def_of_insn = xcalloc(n + 1, sizeof(*w.def_of_insn));
	for (size_t i = 0; i < n; i++)
		if (ir_insn_def(&ir->insns.data[i]))
			w.def_of_insn[i] = ++w.ndefs;
	vec_reserve(&w.parent, w.ndefs + 1);
	for (uint32_t id = 0; id < w.ndefs; id++)
		w.parent.data[w.parent.len++] = id;
	w.stamp_def = xcalloc(nb + 1, sizeof(*w.stamp_def));
	w.stamp_entry = xcalloc(nb + 1, sizeof(*w.stamp_entry));
	w.last_def = xmalloc((nb + 1) * sizeof(*w.last_def));
	w.entry = xmalloc((nb + 1) * sizeof(*w.entry));
	w.stack = xmalloc((nb + 1) * sizeof(*w.stack));
	ir_reg *web_reg = xcalloc(w.ndefs + 1, sizeof(*web_reg));
	const struct ir_occs *o = &w.cfg.occs;
	uint32_t nregs = ir->nregs;
	int split = 0;
	for (ir_reg v = 1; v <= nregs; v++) {
		uint32_t lo = o->start[v], hi = o->start[v + 1];
		uint32_t first = UINT32_MAX;
		for (uint32_t k = lo; k < hi; k++) {
			if (!(o->occ[k] & 1))
				continue;
			uint32_t i = o->occ[k] >> 1, b = w.cfg.block_of[i];
			w.stamp_def[b] = v;
			w.last_def[b] = w.def_of_insn[i] - 1;
			if (first == UINT32_MAX)
				first = w.def_of_insn[i] - 1;
		}
		if (first == UINT32_MAX)
			continue;
		walk(&w, v, NULL);
		/* The web of v's earliest definition keeps v. */
		bool renamed = false;
		for (uint32_t k = lo; k < hi; k++) {
			if (!(o->occ[k] & 1))
				continue;
			uint32_t id = w.def_of_insn[o->occ[k] >> 1] - 1;
			uint32_t root = find(w.parent.data, id);
			if (web_reg[root])
				continue;
			if (root == find(w.parent.data, first)) {
				web_reg[root] = v;
			} else {
				web_reg[root] = ir_reg_new(ir);
				renamed = true;
				split++;
			}
		}
		if (renamed)
			walk(&w, v, web_reg);
		/* v's entry nodes are done with */
		w.parent.len = w.ndefs;
	}
	free(web_reg);
	free(w.stack);
	free(w.entry);
	free(w.last_def);
	free(w.stamp_entry);
	free(w.stamp_def);
	vec_free(&w.parent);
	free(w.def_of_insn);
	ir_cfg_free(&w.cfg);
	return split;
}
