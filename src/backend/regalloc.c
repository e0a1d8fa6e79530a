/*
 * Register allocation: linear scan over live intervals computed from CFG
 * liveness, so loops are handled (a value live around a back edge is live
 * over the whole loop body).
 *
 * Positions: instruction i reads its operands at 2i and writes its result
 * at 2i+1, so a value dying at i and one born at i may share a register
 * (this is what coalesces `t = a; t += b` when a dies).
 *
 * Helper calls clobber R0-R5. An interval that is live across a call may
 * only get R6-R9; call arguments are moved into R1-R5 by the lowering
 * (a parallel move), and the result comes out of R0, so no register is
 * pinned here beyond hints.
 *
 * Spilling rewrites the IR: each spilled vreg gets an 8-byte stack slot, a
 * reload into a fresh short-lived vreg before every use and a store after
 * every def (constants are recomputed instead), and allocation starts over.
 * The fresh vregs are never spilled themselves, so this converges.
 */
#include "backend/ir_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define NREGS 10 /* R0-R9; R10 is the frame pointer */
#define CALLEE_SAVED 0x3c0u /* R6-R9 */
#define ALL_REGS 0x3ffu

struct interval {
	uint32_t start, end;
	bool crosses_call;
	int8_t hint;     /* preferred register, -1 none */
	ir_reg hint_reg; /* prefer the register of this vreg (copies) */
};

struct ra {
	struct ir *ir;
	struct interval *iv;  /* by vreg */
	int8_t *preg;         /* by vreg */
	bool *nospill;        /* by vreg: spill temporaries */
	bool *spill;          /* by vreg: chosen for spilling this round */
	uint32_t cap;         /* size of the by-vreg arrays */
};

static void grow(struct ra *ra)
{
	uint32_t n = ra->ir->nregs + 1;
	if (n <= ra->cap)
		return;
	ra->nospill = xreallocarray(ra->nospill, n, sizeof(bool));
	memset(ra->nospill + ra->cap, 0, n - ra->cap);
	ra->cap = n;
	ra->iv = xreallocarray(ra->iv, n, sizeof(*ra->iv));
	ra->preg = xreallocarray(ra->preg, n, sizeof(*ra->preg));
	ra->spill = xreallocarray(ra->spill, n, sizeof(*ra->spill));
}

static void extend(struct interval *iv, uint32_t pos)
{
	if (pos < iv->start)
		iv->start = pos;
	if (pos > iv->end)
		iv->end = pos;
}

static void set_hint(struct interval *iv, int reg)
{
	if (iv->hint < 0)
		iv->hint = reg;
}

static void build_intervals(struct ra *ra, const struct ir_cfg *cfg)
{
	struct ir *ir = ra->ir;
	for (uint32_t v = 0; v <= ir->nregs; v++)
		ra->iv[v] = (struct interval){ UINT32_MAX, 0, false, -1, 0 };
	for (uint32_t b = 0; b < cfg->nblocks; b++) {
		const struct ir_block *bl = &cfg->blocks[b];
		for (uint32_t k = 0; k < bl->nlive_in; k++)
			extend(&ra->iv[bl->live_in[k]], 2 * bl->first);
		for (uint32_t k = 0; k < bl->nlive_out; k++)
			extend(&ra->iv[bl->live_out[k]], 2 * bl->last + 2);
	}
	/* ncalls[i]: calls at instructions before i. */
	uint32_t n = ir->insns.len;
	uint32_t *ncalls = xmalloc((n + 1) * sizeof(*ncalls));
	ncalls[0] = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct ir_insn *in = &ir->insns.data[i];
		ir_reg uses[IR_MAX_ARGS];
		int nu = ir_insn_uses(in, uses);
		for (int u = 0; u < nu; u++)
			extend(&ra->iv[uses[u]], 2 * i);
		ir_reg d = ir_insn_def(in);
		if (d)
			extend(&ra->iv[d], 2 * i + 1);
		ncalls[i + 1] = ncalls[i] + (in->kind == IRK_CALL);
		switch (in->kind) {
		case IRK_CALL:
			for (int a = 0; a < in->nargs; a++)
				set_hint(&ra->iv[in->args[a]], a + 1);
			if (d)
				set_hint(&ra->iv[d], 0);
			break;
		case IRK_EXIT:
			if (!(in->flags & IRF_K))
				set_hint(&ra->iv[in->src], 0);
			break;
		case IRK_CTX:
			set_hint(&ra->iv[d], in->imm ? (int)in->imm : 1);
			break;
		case IRK_ALU:
			if (in->op == BPF_MOV && !(in->flags & IRF_K) &&
			    !ra->iv[d].hint_reg)
				ra->iv[d].hint_reg = in->src;
			break;
		}
	}
	/* Live across call c means start < 2c and end > 2c + 1. */
	for (uint32_t v = 1; v <= ir->nregs; v++) {
		struct interval *iv = &ra->iv[v];
		if (iv->start == UINT32_MAX)
			continue;
		uint32_t lo = iv->start / 2 + 1, hi = iv->end / 2;
		iv->crosses_call = hi > lo && ncalls[hi] > ncalls[lo];
	}
	free(ncalls);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Preference among free registers when there is no usable hint: values
 * that do not cross calls leave R6-R9 to those that do. */
static const int8_t order_any[NREGS] = { 1, 2, 3, 4, 5, 0, 6, 7, 8, 9 };

static int pick(struct ra *ra, ir_reg v, unsigned free_mask)
{
	const struct interval *iv = &ra->iv[v];
	unsigned allowed = (iv->crosses_call ? CALLEE_SAVED : ALL_REGS) &
			   free_mask;
	if (!allowed)
		return -1;
	if (iv->hint >= 0 && (allowed >> iv->hint & 1))
		return iv->hint;
	if (iv->hint_reg && ra->preg[iv->hint_reg] >= 0 &&
	    (allowed >> ra->preg[iv->hint_reg] & 1))
		return ra->preg[iv->hint_reg];
	for (int k = 0; k < NREGS; k++)
		if (allowed >> order_any[k] & 1)
			return order_any[k];
	return -1;
}

/* One linear scan. Returns the number of vregs marked for spilling. */
static int scan(struct ra *ra)
{
	struct ir *ir = ra->ir;
	/* (start << 32 | vreg): sorting by start, ties by vreg number. */
	uint64_t *order = xmalloc((ir->nregs + 1) * sizeof(*order));
	uint32_t n = 0;
	int nspill = 0;
	for (ir_reg v = 1; v <= ir->nregs; v++) {
		ra->preg[v] = -1;
		ra->spill[v] = false;
		if (ra->iv[v].start != UINT32_MAX)
			order[n++] = (uint64_t)ra->iv[v].start << 32 | v;
	}
	qsort(order, n, sizeof(*order), cmp_u64);

	ir_reg active[NREGS] = { 0 }; /* by register */
	for (uint32_t k = 0; k < n; k++) {
		ir_reg v = (ir_reg)order[k];
		struct interval *cur = &ra->iv[v];
		unsigned free_mask = 0;
		for (int r = 0; r < NREGS; r++) {
			if (active[r] && ra->iv[active[r]].end < cur->start)
				active[r] = 0;
			if (!active[r])
				free_mask |= 1u << r;
		}
		int r = pick(ra, v, free_mask);
		if (r < 0) {
			/* Spill whichever usable occupant (or cur) is needed
			 * furthest away: it frees the register longest. */
			unsigned allowed = cur->crosses_call ? CALLEE_SAVED
							     : ALL_REGS;
			int victim = -1;
			for (int q = 0; q < NREGS; q++) {
				ir_reg o = active[q];
				if (!(allowed >> q & 1) || ra->nospill[o])
					continue;
				if (victim < 0 || ra->iv[o].end >
						  ra->iv[active[victim]].end)
					victim = q;
			}
			if (!ra->nospill[v] &&
			    (victim < 0 || cur->end >= ra->iv[active[victim]].end)) {
				ra->spill[v] = true;
				nspill++;
				continue;
			}
			if (victim < 0) {
				free(order);
				return ir_fail(ir, EINVAL, "register allocation "
					       "failed: too many values needed "
					       "at once");
			}
			ra->spill[active[victim]] = true;
			ra->preg[active[victim]] = -1;
			nspill++;
			r = victim;
		}
		ra->preg[v] = r;
		active[r] = v;
	}
	free(order);
	return nspill;
}

/* For each spilled vreg, the single LDIMM defining it when it fits one
 * instruction (its index + 1; 0: none): such values are recomputed at
 * each use instead of reloaded. */
static uint32_t *remat_defs(const struct ra *ra)
{
	const struct ir *ir = ra->ir;
	uint32_t *def = xcalloc(ir->nregs + 1, sizeof(*def));
	for (size_t i = 0; i < ir->insns.len; i++) {
		ir_reg v = ir_insn_def(&ir->insns.data[i]);
		if (v && ra->spill[v])
			def[v] = def[v] ? UINT32_MAX : (uint32_t)i + 1;
	}
	for (ir_reg v = 1; v <= ir->nregs; v++) {
		if (!def[v] || def[v] == UINT32_MAX) {
			def[v] = 0;
			continue;
		}
		const struct ir_insn *in = &ir->insns.data[def[v] - 1];
		if (in->kind != IRK_LDIMM || in->imm < INT32_MIN ||
		    in->imm > UINT32_MAX)
			def[v] = 0;
	}
	return def;
}

static void replace(struct ir_insn *in, ir_reg from, ir_reg to)
{
	if (in->dst == from)
		in->dst = to;
	if (in->src == from)
		in->src = to;
	if (in->base == from)
		in->base = to;
	for (int a = 0; a < in->nargs; a++)
		if (in->args[a] == from)
			in->args[a] = to;
}

static bool ends_run(const struct ir_insn *in)
{
	return in->kind == IRK_JMP || in->kind == IRK_JA ||
	       in->kind == IRK_EXIT || in->kind == IRK_CALL;
}

/* A spilled vreg while the rewrite passes over the program. */
struct spilled {
	ir_slot slot;   /* its home; unused when rematerialised */
	ir_reg t;       /* the temporary of the current run, or 0 */
	bool dirty;     /* t holds a value not yet stored */
};

struct rewrite {
	struct ra *ra;
	struct spilled *sp;     /* by vreg */
	const uint32_t *remat;  /* by vreg: remat_defs() */
	VEC(struct ir_insn) out;
	ir_reg active[2 * IR_MAX_ARGS + 4]; /* vregs with a run open */
	int nactive;
};

static void emit_store(struct rewrite *w, ir_reg v)
{
	struct spilled *s = &w->sp[v];
	if (s->dirty)
		vec_push(&w->out, ((struct ir_insn){
			.kind = IRK_STORE, .size = 8, .flags = IRF_SLOT,
			.slot = s->slot, .src = s->t }));
	s->t = IR_NOREG;
	s->dirty = false;
}

/* The spilled vregs in touches (uses and definition), each once. */
static int touched(const struct rewrite *w, const struct ir_insn *in,
		   ir_reg *v)
{
	ir_reg u[IR_MAX_ARGS + 1];
	int nu = ir_insn_uses(in, u), n = 0;
	ir_reg d = ir_insn_def(in);
	if (d)
		u[nu++] = d;
	for (int k = 0; k < nu; k++) {
		if (!w->ra->spill[u[k]])
			continue;
		bool seen = false;
		for (int j = 0; j < n; j++)
			seen |= v[j] == u[k];
		if (!seen)
			v[n++] = u[k];
	}
	return n;
}

/*
 * Rewrites every spilled vreg into temporaries, in one pass. Consecutive
 * instructions that all touch v share one temporary, loaded once and
 * stored once after the last write (`t = a; t *= 3; t += 1` costs one
 * store, not three). Such a run stops at labels and before leaving the
 * block, and at calls, so a temporary never lives across a call and never
 * spans more than the instructions using it: at most IR_MAX_ARGS + 1
 * temporaries are ever live at once.
 */
static void spill_all(struct ra *ra)
{
	struct ir *ir = ra->ir;
	uint32_t nregs = ir->nregs;
	struct rewrite w = { .ra = ra };
	w.sp = xcalloc(nregs + 1, sizeof(*w.sp));
	uint32_t *remat = remat_defs(ra);
	for (ir_reg v = 1; v <= nregs; v++)
		if (ra->spill[v] && !remat[v])
			w.sp[v].slot = ir_slot_new(ir, 8, 8);
	vec_reserve(&w.out, ir->insns.len + ir->insns.len / 4);
	for (size_t i = 0; i < ir->insns.len; i++) {
		struct ir_insn in = ir->insns.data[i];
		ir_reg tv[IR_MAX_ARGS + 1];
		int nt = touched(&w, &in, tv);
		/* runs this instruction does not continue end before it */
		for (int a = 0; a < w.nactive;) {
			bool cont = false;
			for (int k = 0; k < nt; k++)
				cont |= tv[k] == w.active[a];
			if (cont) {
				a++;
				continue;
			}
			emit_store(&w, w.active[a]);
			w.active[a] = w.active[--w.nactive];
		}
		/* The constant is rebuilt at each use instead. */
		ir_reg d = ir_insn_def(&in);
		if (d && remat[d] == i + 1)
			continue;
		for (int k = 0; k < nt; k++) {
			ir_reg v = tv[k];
			struct spilled *s = &w.sp[v];
			bool use = v != d;
			if (!use) {
				ir_reg u[IR_MAX_ARGS];
				int nu = ir_insn_uses(&in, u);
				for (int j = 0; j < nu; j++)
					use |= u[j] == v;
			}
			if (!s->t) {
				s->t = ir_reg_new(ir);
				grow(ra);
				ra->nospill[s->t] = true;
				w.active[w.nactive++] = v;
				if (use) {
					struct ir_insn ld = {
						.kind = IRK_LOAD, .size = 8,
						.flags = IRF_SLOT, .slot = s->slot };
					if (remat[v])
						ld = ir->insns.data[remat[v] - 1];
					ld.dst = s->t;
					vec_push(&w.out, ld);
				}
			} else if (s->dirty && ends_run(&in)) {
				ir_reg t = s->t;
				emit_store(&w, v);
				s->t = t;
			}
			replace(&in, v, s->t);
		}
		vec_push(&w.out, in);
		for (int k = 0; k < nt; k++)
			if (tv[k] == d)
				w.sp[d].dirty = true;
		if (ends_run(&in))
			while (w.nactive)
				emit_store(&w, w.active[--w.nactive]);
	}
	while (w.nactive)
		emit_store(&w, w.active[--w.nactive]);
	free(ir->insns.data);
	ir->insns.data = w.out.data;
	ir->insns.len = w.out.len;
	ir->insns.cap = w.out.cap;
	ir_relabel(ir);
	free(remat);
	free(w.sp);
}

int ir_regalloc(struct ir *ir, int8_t **preg_out)
{
	struct ra ra = { .ir = ir };
	int err = 0;
	*preg_out = NULL;
	for (int round = 0;; round++) {
		struct ir_cfg cfg;
		err = ir_cfg_build(ir, &cfg);
		while (!err && ir_dce(ir, &cfg) > 0) {
			ir_cfg_free(&cfg);
			err = ir_cfg_build(ir, &cfg);
		}
		if (err)
			break;
		grow(&ra);
		build_intervals(&ra, &cfg);
		ir_cfg_free(&cfg);
		int nspill = scan(&ra);
		if (nspill <= 0) {
			err = nspill;
			break;
		}
		if (round == 64) {
			err = ir_fail(ir, EINVAL, "register allocation does "
				      "not converge");
			break;
		}
		spill_all(&ra);
	}
	free(ra.iv);
	free(ra.nospill);
	free(ra.spill);
	if (err) {
		free(ra.preg);
		return err;
	}
	*preg_out = ra.preg;
	return 0;
}
