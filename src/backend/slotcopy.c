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
 */
#include "backend/ir_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

struct run {
	size_t first, last; /* the first load and the last store */
	ir_slot src, dst;
	int64_t delta;      /* dst offset - src offset */
	int64_t lo, hi;     /* source bytes copied */
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
	return k > i && r->src != r->dst;
}

static bool in_run(const struct run *r, size_t i)
{
	return i >= r->first && i <= r->last;
}

/* The run's temporaries carry the copied bytes and nothing else. */
static bool private_temps(const struct ir *ir, const struct run *r,
			  bool *temp)
{
	bool ok = true;
	for (size_t i = r->first; i <= r->last; i += 2)
		temp[ir->insns.data[i].dst] = true;
	for (size_t i = 0; i < ir->insns.len && ok; i++) {
		if (in_run(r, i))
			continue;
		const struct ir_insn *in = &ir->insns.data[i];
		ir_reg u[IR_MAX_ARGS];
		int nu = ir_insn_uses(in, u);
		for (int k = 0; k < nu; k++)
			ok &= !temp[u[k]];
		ok &= !temp[ir_insn_def(in)];
	}
	for (size_t i = r->first; i <= r->last; i += 2)
		temp[ir->insns.data[i].dst] = false;
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

static bool touched_between(const struct ir *ir, const struct run *r,
			    const int32_t *ptr, int64_t from, int64_t to,
			    ir_slot s, int64_t lo, int64_t hi,
			    bool writes_only)
{
	for (int64_t i = from; i <= to; i++)
		if (!in_run(r, (size_t)i) &&
		    touches(&ir->insns.data[i], ptr, s, lo, hi, writes_only))
			return true;
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
static bool fits(const struct ir *ir, const int32_t *ptr, ir_slot moved,
		 ir_slot into, int64_t at)
{
	const struct ir_slotinfo *m = &ir->slots.data[moved];
	const struct ir_slotinfo *t = &ir->slots.data[into];
	if (at < 0 || at + m->size > t->size)
		return false;
	bool via_ptr = false;
	for (size_t i = 0; i < ir->insns.len; i++) {
		const struct ir_insn *in = &ir->insns.data[i];
		if (!is_access(in))
			continue;
		if (in->flags & IRF_SLOT) {
			if (in->slot == moved &&
			    ((at + in->off) % in->size || t->align < in->size))
				return false;
		} else if (ptr[in->base] == (int32_t)moved) {
			via_ptr = true;
		}
	}
	return !via_ptr || (at % m->align == 0 && t->align >= m->align);
}

/* S can move into D at delta. */
static bool forward_ok(const struct ir *ir, const struct run *r,
		       const int32_t *ptr, const struct ir_span *spans)
{
	const struct ir_span *s = &spans[r->src];
	uint32_t size = ir->slots.data[r->src].size;
	return r->lo == 0 && r->hi == size &&
	       fits(ir, ptr, r->src, r->dst, r->delta) &&
	       s->last <= (int64_t)r->last &&
	       !touched_between(ir, r, ptr, s->first, s->last, r->dst,
				r->delta, r->delta + size, false);
}

/* D can move into S at -delta: neither is written while D lives, so
 * they hold the same bytes. */
static bool backward_ok(const struct ir *ir, const struct run *r,
			const int32_t *ptr, const struct ir_span *spans)
{
	const struct ir_span *d = &spans[r->dst];
	uint32_t size = ir->slots.data[r->dst].size;
	int64_t after = (int64_t)r->last + 1;
	return r->lo + r->delta == 0 && r->hi + r->delta == size &&
	       fits(ir, ptr, r->dst, r->src, r->lo) &&
	       d->first >= (int64_t)r->first &&
	       !touched_between(ir, r, ptr, after, d->last, r->src, r->lo,
				r->hi, true) &&
	       !touched_between(ir, r, ptr, after, d->last, r->dst, 0, size,
				true);
}

/* Every access to slot from becomes one to slot to, shift bytes in. */
static void rename_slot(struct ir *ir, ir_slot from, ir_slot to,
			int64_t shift)
{
	for (size_t i = 0; i < ir->insns.len; i++) {
		struct ir_insn *in = &ir->insns.data[i];
		if (((in->flags & IRF_SLOT) || in->kind == IRK_SLOTADDR) &&
		    in->slot == from) {
			in->slot = to;
			in->off += (int32_t)shift;
		}
	}
}

/* Removes the run: now a copy of bytes onto themselves. */
static void drop_run(struct ir *ir, const struct run *r)
{
	bool *keep = xmalloc(ir->insns.len + 1);
	memset(keep, 1, ir->insns.len + 1);
	memset(keep + r->first, 0, r->last - r->first + 1);
	ir_compact(ir, keep);
	free(keep);
}

/* One coalescing, if any applies. */
static bool coalesce_one(struct ir *ir, int32_t *ptr, struct ir_span *spans,
			 bool *temp)
{
	ir_slot_pointers(ir, ptr);
	if (!ir_slot_spans(ir, ptr, spans))
		return false;
	for (size_t i = 0; i < ir->insns.len; i++) {
		struct run r;
		if (!find_run(ir, i, &r) || !private_temps(ir, &r, temp))
			continue;
		if (forward_ok(ir, &r, ptr, spans))
			rename_slot(ir, r.src, r.dst, r.delta);
		else if (backward_ok(ir, &r, ptr, spans))
			rename_slot(ir, r.dst, r.src, -r.delta);
		else
			continue;
		drop_run(ir, &r);
		return true;
	}
	return false;
}

int ir_coalesce_slots(struct ir *ir)
{
	if (!ir->slots.len)
		return 0;
	int32_t *ptr = xmalloc(sizeof(*ptr) * (ir->nregs + 1));
	struct ir_span *spans = xmalloc(sizeof(*spans) * ir->slots.len);
	bool *temp = xcalloc(ir->nregs + 1, sizeof(*temp)); /* IR_NOREG too */
	int n = 0;
	while (coalesce_one(ir, ptr, spans, temp))
		n++;
	free(ptr);
	free(spans);
	free(temp);
	return n;
}
