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
 * Reaching definitions are solved over the CFG of liveness.c, so a value
 * carried around a loop stays one web.
 */
#include "backend/ir_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

struct webs {
	struct ir *ir;
	struct ir_cfg cfg;
	uint32_t ndefs, words;     /* definitions, bitset words over them */
	uint32_t *def_of_insn;     /* def id + 1, 0: none */
	ir_reg *def_reg;           /* by def id: the vreg it defines */
	uint32_t *first_def, *next_def; /* by vreg / def id: lists, +1 */
	uint32_t *parent;          /* union-find over def ids */
	uint64_t *in;              /* by block: reaching definitions */
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

static void set_bit(uint64_t *s, uint32_t i)
{
	s[i / 64] |= 1ull << i % 64;
}

/* A definition of vreg d (def id id) in set s: d's others leave. */
static void apply_def(const struct webs *w, uint64_t *s, ir_reg d,
		      uint32_t id)
{
	for (uint32_t k = w->first_def[d]; k; k = w->next_def[k - 1])
		s[(k - 1) / 64] &= ~(1ull << (k - 1) % 64);
	set_bit(s, id);
}

static void number_defs(struct webs *w)
{
	struct ir *ir = w->ir;
	size_t n = ir->insns.len;
	w->def_of_insn = xcalloc(n + 1, sizeof(*w->def_of_insn));
	w->def_reg = xcalloc(n + 1, sizeof(*w->def_reg));
	w->next_def = xcalloc(n + 1, sizeof(*w->next_def));
	w->parent = xcalloc(n + 1, sizeof(*w->parent));
	w->first_def = xcalloc(ir->nregs + 1, sizeof(*w->first_def));
	for (size_t i = n; i-- > 0;) {
		ir_reg d = ir_insn_def(&ir->insns.data[i]);
		if (!d)
			continue;
		uint32_t id = w->ndefs++;
		w->def_of_insn[i] = id + 1;
		w->def_reg[id] = d;
		w->parent[id] = id;
		w->next_def[id] = w->first_def[d];
		w->first_def[d] = id + 1;
	}
	w->words = (w->ndefs + 63) / 64 + 1;
}

/* Forward dataflow: in[b] = union of the predecessors' outs. */
static void solve(struct webs *w)
{
	uint32_t nb = w->cfg.nblocks, W = w->words;
	uint64_t *out = xcalloc((size_t)nb * W, 8);
	uint64_t *cur = xmalloc((size_t)W * 8);
	w->in = xcalloc((size_t)nb * W, 8);
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t b = 0; b < nb; b++) {
			const struct ir_block *bl = &w->cfg.blocks[b];
			memcpy(cur, w->in + (size_t)b * W, (size_t)W * 8);
			for (uint32_t i = bl->first; i <= bl->last; i++)
				if (w->def_of_insn[i])
					apply_def(w, cur,
						  w->def_reg[w->def_of_insn[i] - 1],
						  w->def_of_insn[i] - 1);
			uint64_t *o = out + (size_t)b * W;
			if (memcmp(o, cur, (size_t)W * 8)) {
				memcpy(o, cur, (size_t)W * 8);
				changed = true;
			}
			for (int k = 0; k < 2; k++) {
				int32_t s = bl->succ[k];
				if (s < 0)
					continue;
				uint64_t *si = w->in + (size_t)s * W;
				for (uint32_t x = 0; x < W; x++) {
					if (o[x] & ~si[x])
						changed = true;
					si[x] |= o[x];
				}
			}
		}
	}
	free(out);
	free(cur);
}

/* Some definition of v in s, as its web (def id), or UINT32_MAX. */
static uint32_t reaching(const struct webs *w, const uint64_t *s, ir_reg v,
			 bool unite_all)
{
	uint32_t first = UINT32_MAX;
	for (uint32_t k = w->first_def[v]; k; k = w->next_def[k - 1]) {
		if (!ir_bit(s, k - 1))
			continue;
		if (first == UINT32_MAX)
			first = k - 1;
		else if (unite_all)
			unite(w->parent, first, k - 1);
	}
	return first == UINT32_MAX ? UINT32_MAX : find(w->parent, first);
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

/*
 * Walks every block with its reaching definitions. First (!rename): joins
 * the definitions that reach one use, and two-address definitions with
 * what they read. Then (rename): gives each web its vreg (web_reg).
 */
static void walk(struct webs *w, bool rename, ir_reg *web_reg)
{
	struct ir *ir = w->ir;
	uint32_t W = w->words;
	uint64_t *cur = xmalloc((size_t)W * 8);
	for (uint32_t b = 0; b < w->cfg.nblocks; b++) {
		const struct ir_block *bl = &w->cfg.blocks[b];
		memcpy(cur, w->in + (size_t)b * W, (size_t)W * 8);
		for (uint32_t i = bl->first; i <= bl->last; i++) {
			struct ir_insn *in = &ir->insns.data[i];
			ir_reg uses[IR_MAX_ARGS];
			int nu = ir_insn_uses(in, uses);
			uint32_t id = w->def_of_insn[i];
			for (int u = 0; u < nu; u++) {
				uint32_t web = reaching(w, cur, uses[u], !rename);
				if (web == UINT32_MAX)
					continue;
				if (!rename && id && two_address(in) &&
				    uses[u] == in->dst)
					unite(w->parent, web, id - 1);
				if (rename)
					rename_uses(in, uses[u], web_reg[web]);
			}
			if (!id)
				continue;
			apply_def(w, cur, w->def_reg[id - 1], id - 1);
			if (rename)
				in->dst = web_reg[find(w->parent, id - 1)];
		}
	}
	free(cur);
}

int ir_split_webs(struct ir *ir)
{
	struct webs w = { .ir = ir };
	if (ir_cfg_build(ir, &w.cfg))
		return 0; /* regalloc reports the error */
	number_defs(&w);
	solve(&w);
	walk(&w, false, NULL);
	/* The web of each vreg's earliest definition keeps the vreg. */
	ir_reg *web_reg = xcalloc(w.ndefs + 1, sizeof(*web_reg));
	bool *kept = xcalloc(ir->nregs + 1, sizeof(*kept));
	int split = 0;
	for (uint32_t id = w.ndefs; id-- > 0;) {
		uint32_t root = find(w.parent, id);
		if (web_reg[root])
			continue;
		ir_reg v = w.def_reg[root];
		if (!kept[v]) {
			kept[v] = true;
			web_reg[root] = v;
		} else {
			web_reg[root] = ir_reg_new(ir);
			split++;
		}
	}
	if (split)
		walk(&w, true, web_reg);
	free(web_reg);
	free(kept);
	free(w.def_of_insn);
	free(w.def_reg);
	free(w.first_def);
	free(w.next_def);
	free(w.parent);
	free(w.in);
	ir_cfg_free(&w.cfg);
	return split;
}
