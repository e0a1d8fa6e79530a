/*
 * Slot copy coalescing. Codegen often builds a value in one stack slot and
 * then copies it whole into another: a string literal into a ternary's
 * result, that result into a map key, a tuple into a variable, a variable
 * into a map value. Where the two can be one, the copy goes away:
 *
 *  - forward: the source S dies at the copy, and no other instruction
 *    touches the destination bytes during S's lifetime. S then lives in
 *    those bytes of D from the start, and the copy would move them onto
 *    themselves.
 *  - backward: the destination D is born at the copy (which fills all of
 *    it), and nothing writes the source bytes while D lives. D's readers
 *    then read the source bytes directly.
 *
 * A copy is a run of `t = *(S + a); *(D + a + delta) = t` pairs covering
 * consecutive bytes, with each t used nowhere else (codegen's copy_slot,
 * one or several: a tuple is copied field by field).
 * Lifetimes are frame.c's spans, so loops are accounted for; a register
 * that points into a slot touches all of it. Every access stays aligned
 * to its size, as the verifier requires on the stack (fits()).
 *
 * The work goes in rounds, each linear in the program: the spans and, for
 * each slot, the instructions that touch it are found once, and every
 * copy is judged against them in program order. A coalescing changes its
 * two slots (one goes, the other grows), so a later copy whose judgement
 * would read what changed waits for the next round; copies into one
 * value from sources that live apart (a printf record filled from many
 * strings) are all done in one round.
 */
#include "backend/ir_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Rounds are an optimisation's: past this many, copies stay (chains of
 * copies halve each round, so real programs need a few). */
#define MAX_ROUNDS 32

struct run {
	size_t first, last; /* the first load and the last store */
	ir_slot src, dst;
	int64_t delta;      /* dst offset - src offset */
	int64_t lo, hi;     /* source bytes copied */
};

/* What one round knows of the program. */
struct round {
	struct ir *ir;
	int32_t *ptr;           /* by vreg: ir_slot_pointers() */
	struct ir_span *spans;  /* by slot */
	uint32_t *tstart, *tlist; /* by slot: the insns touching it, sorted */
	uint32_t *nocc;         /* by vreg: its uses and definitions */
	uint32_t *incount;      /* by vreg: scratch of private_temps() */
	/* by slot, this round: gone (renamed away), or grown by the
	 * lifetime [glo, ghi] of the slot renamed into it */
	bool *gone;
	int64_t *glo, *ghi;
	int32_t *rename_to;     /* by slot: -1, or the slot it becomes */
	int64_t *shift;
	bool *drop;             /* by insn: part of a copy that went */
};

static bool is_slot_access(const struct ir_insn *in, int kind)
{
	return in->kind == kind && (in->flags & (IRF_SLOT | IRF_K)) == IRF_SLOT;
}

/* The copy run starting at insn i, if one does. */
static bool find_run(const struct ir *ir, size_t i, struct run *r)
{
	size_t n = ir->insns.len, k = i;
	while (k + 1 < n) {
		const struct ir_insn *ld = &ir->insns.data[k];
		const struct ir_insn *st = &ir->insns.data[k + 1];
		if (!is_slot_access(ld, IRK_LOAD) ||
		    !is_slot_access(st, IRK_STORE) || st->src != ld->dst ||
		    st->size != ld->size)
			break;
		int64_t delta = (int64_t)st->off - ld->off;
		if (k == i) {
			*r = (struct run){ .first = i, .src = ld->slot,
					   .dst = st->slot, .delta = delta,
					   .lo = ld->off, .hi = ld->off };
		} else if (ld->slot != r->src || st->slot != r->dst ||
			   delta != r->delta || ld->off != r->hi) {
			break;
		}
		r->hi = ld->off + ld->size;
		r->last = k + 1;
		k += 2;
	}
	return k > i;
}

static bool in_run(const struct run *r, size_t i)
{
	return i >= r->first && i <= r->last;
}

/* The run's temporaries carry the copied bytes and nothing else: all
 * their occurrences are in the run. */
static bool private_temps(struct round *rd, const struct run *r)
{
	const struct ir_insn *d = rd->ir->insns.data;
	bool ok = true;
	for (size_t i = r->first; i <= r->last; i += 2)
		rd->incount[d[i].dst] += 2; /* its load and its store */
	for (size_t i = r->first; i <= r->last; i += 2)
		ok &= rd->incount[d[i].dst] == rd->nocc[d[i].dst];
	for (size_t i = r->first; i <= r->last; i += 2)
		rd->incount[d[i].dst] = 0;
	return ok;
}

static bool points_into(const struct ir_insn *in, const int32_t *ptr,
			ir_slot s)
{
	ir_reg u[IR_MAX_ARGS];
	int nu = ir_insn_uses(in, u);
	for (int k = 0; k < nu; k++)
		if (ptr[u[k]] == (int32_t)s)
			return true;
	ir_reg d = ir_insn_def(in);
	return d != IR_NOREG && ptr[d] == (int32_t)s;
}

/* Helpers that only read the memory their pointer arguments point to. */
static bool reads_only(const struct ir_insn *call)
{
	if (call->flags & IRF_KFUNC)
		return false;
	switch (call->imm) {
	case BPF_FUNC_map_lookup_elem:
	case BPF_FUNC_map_update_elem:
	case BPF_FUNC_map_delete_elem:
	case BPF_FUNC_ringbuf_output:
	case BPF_FUNC_perf_event_output:
		return true;
	}
	return false;
}

/* Whether in may touch bytes [lo, hi) of slot s, or with writes_only, may
 * write them. Through a register, any byte of s may be touched. */
static bool touches(const struct ir_insn *in, const int32_t *ptr, ir_slot s,
		    int64_t lo, int64_t hi, bool writes_only)
{
	if ((in->flags & IRF_SLOT) && in->slot == s &&
	    in->off < hi && lo < (int64_t)in->off + in->size &&
	    !(writes_only && in->kind == IRK_LOAD))
		return true;
	if (in->kind == IRK_SLOTADDR && in->slot == s && !writes_only)
		return true;
	if (!points_into(in, ptr, s))
		return false;
	if (!writes_only)
		return true;
	switch (in->kind) {
	case IRK_LOAD:     /* a read through the pointer */
	case IRK_ALU:      /* pointer copies and arithmetic: their uses are */
	case IRK_SLOTADDR: /* checked where they happen */
	case IRK_JMP:
		return false;
	case IRK_CALL:
		return !reads_only(in);
	default:           /* stores through it, or of it (an escape) */
		return true;
	}
}

/* Among the instructions touching slot s (its list), those in [from,
 * to] outside the run. */
static bool touched_between(const struct round *rd, const struct run *r,
			    int64_t from, int64_t to, ir_slot s, int64_t lo,
			    int64_t hi, bool writes_only)
{
	uint32_t a = rd->tstart[s], b = rd->tstart[s + 1];
	while (a < b) { /* the first at or after from */
		uint32_t mid = a + (b - a) / 2;
		if ((int64_t)rd->tlist[mid] < from)
			a = mid + 1;
		else
			b = mid;
	}
	for (uint32_t k = a; k < rd->tstart[s + 1]; k++) {
		int64_t i = rd->tlist[k];
		if (i > to)
			break;
		if (!in_run(r, (size_t)i) &&
		    touches(&rd->ir->insns.data[i], rd->ptr, s, lo, hi,
			    writes_only))
			return true;
	}
	return false;
}

static bool is_access(const struct ir_insn *in)
{
	return in->kind == IRK_LOAD || in->kind == IRK_STORE ||
	       in->kind == IRK_XADD;
}

/*
 * Whether slot moved fits at byte at of slot into with every access still
 * aligned to its size, as the verifier requires on the stack: a slot
 * access must land on a multiple of its size in a slot that aligned, and
 * accesses through pointers keep the moved slot's own alignment.
 */
static bool fits(const struct round *rd, ir_slot moved, ir_slot into,
		 int64_t at)
{
	const struct ir *ir = rd->ir;
	const struct ir_slotinfo *m = &ir->slots.data[moved];
	const struct ir_slotinfo *t = &ir->slots.data[into];
	if (at < 0 || at + m->size > t->size)
		return false;
	bool via_ptr = false;
	for (uint32_t k = rd->tstart[moved]; k < rd->tstart[moved + 1]; k++) {
		const struct ir_insn *in = &ir->insns.data[rd->tlist[k]];
		if (!is_access(in))
			continue;
		if (in->flags & IRF_SLOT) {
			if (in->slot == moved &&
			    ((at + in->off) % in->size || t->align < in->size))
				return false;
		} else if (rd->ptr[in->base] == (int32_t)moved) {
			via_ptr = true;
		}
	}
	return !via_ptr || (at % m->align == 0 && t->align >= m->align);
}

/* S can move into D at delta. */
static bool forward_ok(const struct round *rd, const struct run *r)
{
	const struct ir_span *s = &rd->spans[r->src];
	uint32_t size = rd->ir->slots.data[r->src].size;
	return r->lo == 0 && r->hi == size && s->last <= (int64_t)r->last &&
	       fits(rd, r->src, r->dst, r->delta) &&
	       !touched_between(rd, r, s->first, s->last, r->dst, r->delta,
				r->delta + size, false);
}

/* D can move into S at -delta: neither is written while D lives, so
 * they hold the same bytes. */
static bool backward_ok(const struct round *rd, const struct run *r)
{
	const struct ir_span *d = &rd->spans[r->dst];
	uint32_t size = rd->ir->slots.data[r->dst].size;
	int64_t after = (int64_t)r->last + 1;
	return r->lo + r->delta == 0 && r->hi + r->delta == size &&
	       d->first >= (int64_t)r->first &&
	       fits(rd, r->dst, r->src, r->lo) &&
	       !touched_between(rd, r, after, d->last, r->src, r->lo, r->hi,
				true) &&
	       !touched_between(rd, r, after, d->last, r->dst, 0, size, true);
}

/* Each slot's touching instructions (directly, or through a register
 * pointing into it), in order. */
static void touch_lists(struct round *rd)
{
	const struct ir *ir = rd->ir;
	size_t ns = ir->slots.len;
	rd->tstart = xcalloc(ns + 2, sizeof(*rd->tstart));
	for (int pass = 0; pass < 2; pass++) {
		uint32_t *fill = pass ? xmalloc((ns + 1) * sizeof(*fill)) : NULL;
		if (pass) {
			for (size_t s = 0; s < ns; s++)
				rd->tstart[s + 1] += rd->tstart[s];
			memcpy(fill, rd->tstart, (ns + 1) * sizeof(*fill));
			rd->tlist = xmalloc((rd->tstart[ns] + 1) *
					    sizeof(*rd->tlist));
		}
		for (size_t i = 0; i < ir->insns.len; i++) {
			const struct ir_insn *in = &ir->insns.data[i];
			int32_t t[IR_MAX_ARGS + 2];
			int nt = 0;
			if ((in->flags & IRF_SLOT) || in->kind == IRK_SLOTADDR)
				t[nt++] = (int32_t)in->slot;
			ir_reg u[IR_MAX_ARGS + 1];
			int nu = ir_insn_uses(in, u);
			if (ir_insn_def(in))
				u[nu++] = ir_insn_def(in);
			for (int k = 0; k < nu; k++)
				if (rd->ptr[u[k]] >= 0)
					t[nt++] = rd->ptr[u[k]];
			for (int k = 0; k < nt; k++) {
				bool again = false;
				for (int j = 0; j < k; j++)
					again |= t[j] == t[k];
				if (again || (size_t)t[k] >= ns)
					continue;
				if (pass)
					rd->tlist[fill[t[k]]++] = (uint32_t)i;
				else
					rd->tstart[t[k] + 1]++;
			}
		}
		free(fill);
	}
}

static void count_occurrences(struct round *rd)
{
	const struct ir *ir = rd->ir;
	memset(rd->nocc, 0, (ir->nregs + 1) * sizeof(*rd->nocc));
	for (size_t i = 0; i < ir->insns.len; i++) {
		const struct ir_insn *in = &ir->insns.data[i];
		ir_reg u[IR_MAX_ARGS];
		int nu = ir_insn_uses(in, u);
		for (int k = 0; k < nu; k++)
			rd->nocc[u[k]]++;
		rd->nocc[ir_insn_def(in)]++;
	}
	rd->nocc[IR_NOREG] = 0;
}

static bool overlaps(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
	return a0 <= b1 && b0 <= a1;
}

/* Slot from becomes part of slot into: into grows by from's lifetime. */
static void merge(struct round *rd, ir_slot from, ir_slot into,
		  int64_t shift)
{
	const struct ir_span *f = &rd->spans[from];
	rd->gone[from] = true;
	rd->rename_to[from] = (int32_t)into;
	rd->shift[from] = shift;
	if (rd->glo[into] < 0 || f->first < rd->glo[into])
		rd->glo[into] = f->first;
	if (f->last > rd->ghi[into])
		rd->ghi[into] = f->last;
}

/* One round. Returns how many copies went (when some did, others may
 * have waited for the next round). */
static int one_round(struct round *rd)
{
	struct ir *ir = rd->ir;
	size_t ns = ir->slots.len, n = ir->insns.len;
	ir_slot_pointers(ir, rd->ptr);
	if (!ir_slot_spans(ir, rd->ptr, rd->spans))
		return 0;
	touch_lists(rd);
	count_occurrences(rd);
	for (size_t s = 0; s < ns; s++) {
		rd->gone[s] = false;
		rd->glo[s] = rd->ghi[s] = -1;
		rd->rename_to[s] = -1;
	}
	rd->drop = xcalloc(n + 1, sizeof(*rd->drop));
	int done = 0;
	for (size_t i = 0; i < n; i++) {
		struct run r;
		if (!find_run(ir, i, &r))
			continue;
		/* a shorter run inside this one copies part of a slot,
		 * which neither way takes */
		i = r.last;
		if (r.src == r.dst || !private_temps(rd, &r))
			continue;
		const struct ir_span *s = &rd->spans[r.src];
		/* judged on what this round knows, or left for the next */
		if (rd->gone[r.src] || rd->gone[r.dst] ||
		    rd->glo[r.src] >= 0)
			continue;
		bool dst_grown = rd->glo[r.dst] >= 0;
		if (dst_grown && overlaps(s->first, s->last, rd->glo[r.dst],
					  rd->ghi[r.dst]))
			continue;
		if (forward_ok(rd, &r)) {
			merge(rd, r.src, r.dst, r.delta);
		} else if (dst_grown) {
			/* a grown destination was touched before: it is
			 * not born at this copy */
			continue;
		} else if (backward_ok(rd, &r)) {
			merge(rd, r.dst, r.src, -r.delta);
		} else {
			continue;
		}
		memset(rd->drop + r.first, 1, r.last - r.first + 1);
		done++;
	}
	if (done) {
		bool *keep = xmalloc(n + 1);
		for (size_t i = 0; i < n; i++) {
			struct ir_insn *in = &ir->insns.data[i];
			keep[i] = !rd->drop[i];
			if (((in->flags & IRF_SLOT) || in->kind == IRK_SLOTADDR) &&
			    rd->rename_to[in->slot] >= 0) {
				in->off += (int32_t)rd->shift[in->slot];
				in->slot = (ir_slot)rd->rename_to[in->slot];
			}
		}
		ir_compact(ir, keep);
		free(keep);
	}
	free(rd->drop);
	free(rd->tstart);
	free(rd->tlist);
	rd->tstart = rd->tlist = NULL;
	return done;
}

int ir_coalesce_slots(struct ir *ir)
{
	size_t ns = ir->slots.len;
	if (!ns)
		return 0;
	struct round rd = { .ir = ir };
	rd.ptr = xmalloc(sizeof(*rd.ptr) * (ir->nregs + 1));
	rd.spans = xmalloc(sizeof(*rd.spans) * ns);
	rd.nocc = xmalloc(sizeof(*rd.nocc) * (ir->nregs + 1));
	rd.incount = xcalloc(ir->nregs + 1, sizeof(*rd.incount));
	rd.gone = xmalloc(sizeof(*rd.gone) * ns);
	rd.glo = xmalloc(sizeof(*rd.glo) * ns);
	rd.ghi = xmalloc(sizeof(*rd.ghi) * ns);
	rd.rename_to = xmalloc(sizeof(*rd.rename_to) * ns);
	rd.shift = xmalloc(sizeof(*rd.shift) * ns);
	int total = 0;
	for (int round = 0; round < MAX_ROUNDS; round++) {
		int done = one_round(&rd);
		total += done;
		if (!done)
			break;
	}
	free(rd.ptr);
	free(rd.spans);
	free(rd.nocc);
	free(rd.incount);
	free(rd.gone);
	free(rd.glo);
	free(rd.ghi);
	free(rd.rename_to);
	free(rd.shift);
	return total;
}
