/*
 * Frame layout: gives every stack slot its offset from R10. Slots whose
 * lifetimes do not overlap share bytes, so a long program (many printf
 * records, keys and strings, one after the other) fits in BPF's 512-byte
 * stack as long as what is live at any one point does.
 *
 * A slot's lifetime is the span of instruction indices from its first to
 * its last touch: a load or store on it, or any use or definition of a
 * register that holds its address (SLOTADDR, and copies or offsets of such
 * a register). A span that overlaps a loop (a backward jump and its
 * target) grows to cover the whole loop, since a value may cross the back
 * edge. Reusing bytes cannot expose stale data: the program read only bytes
 * it had written within the slot's own span before (the verifier checked
 * that of the unshared layout, and the spans keep those writes in place).
 */
#include "backend/ir_impl.h"

#include <errno.h>
#include <stdlib.h>

#define NO_SLOT IR_PTR_NONE
#define MANY_SLOTS IR_PTR_MANY

static void touch(struct ir_span *sp, int64_t i)
{
	if (sp->first < 0 || i < sp->first)
		sp->first = i;
	if (i > sp->last)
		sp->last = i;
}

void ir_slot_pointers(const struct ir *ir, int32_t *ptr)
{
	for (uint32_t r = 0; r <= ir->nregs; r++)
		ptr[r] = NO_SLOT;
	for (int pass = 0; pass < 2; pass++) /* loops carry copies back */
		for (size_t i = 0; i < ir->insns.len; i++) {
			const struct ir_insn *in = &ir->insns.data[i];
			int32_t from = NO_SLOT;
			if (in->kind == IRK_SLOTADDR)
				from = (int32_t)in->slot;
			else if (in->kind == IRK_ALU && in->op == BPF_MOV &&
				 !(in->flags & IRF_K))
				from = ptr[in->src];
			if (from == NO_SLOT)
				continue;
			int32_t *d = &ptr[in->dst];
			if (*d == NO_SLOT)
				*d = from;
			else if (*d != from)
				*d = MANY_SLOTS;
		}
}

static void touch_reg(struct ir_span *spans, size_t nslots, const int32_t *ptr,
		      ir_reg r, int64_t i, bool *many)
{
	if (ptr[r] == MANY_SLOTS) {
		*many = true;
		return;
	}
	if (ptr[r] >= 0 && (size_t)ptr[r] < nslots)
		touch(&spans[ptr[r]], i);
}

bool ir_slot_spans(const struct ir *ir, const int32_t *ptr,
		   struct ir_span *spans)
{
	size_t n = ir->slots.len;
	bool many = false;
	for (size_t s = 0; s < n; s++)
		spans[s] = (struct ir_span){ -1, -1 };
	for (size_t i = 0; i < ir->insns.len; i++) {
		const struct ir_insn *in = &ir->insns.data[i];
		if ((in->flags & IRF_SLOT) || in->kind == IRK_SLOTADDR)
			touch(&spans[in->slot], (int64_t)i);
		ir_reg uses[IR_MAX_ARGS + 2];
		int nu = ir_insn_uses(in, uses);
		for (int k = 0; k < nu; k++)
			touch_reg(spans, n, ptr, uses[k], (int64_t)i, &many);
		ir_reg d = ir_insn_def(in);
		if (d != IR_NOREG)
			touch_reg(spans, n, ptr, d, (int64_t)i, &many);
	}
	/* A register that may point into several slots defeats the
	 * analysis: share nothing. */
	if (many)
		for (size_t s = 0; s < n; s++)
			spans[s] = (struct ir_span){ 0, (int64_t)ir->insns.len };

	bool changed = true;
	while (changed) {
		changed = false;
		for (size_t i = 0; i < ir->insns.len; i++) {
			const struct ir_insn *in = &ir->insns.data[i];
			if ((in->kind != IRK_JMP && in->kind != IRK_JA) ||
			    in->label < 0)
				continue;
			int64_t head = ir->label_pos.data[in->label];
			if (head < 0 || head > (int64_t)i)
				continue;
			for (size_t s = 0; s < n; s++) {
				struct ir_span *sp = &spans[s];
				if (sp->first < 0 || sp->last < head ||
				    sp->first > (int64_t)i)
					continue;
				if (sp->first > head || sp->last < (int64_t)i) {
					touch(sp, head);
					touch(sp, (int64_t)i);
					changed = true;
				}
			}
		}
	}
	return !many;
}

static bool overlap(const struct ir_span *a, const struct ir_span *b)
{
	return a->first <= b->last && b->first <= a->last;
}

/* The slot to name when the frame is too deep: the biggest of those live
 * with the deepest-placed one (peak), preferring one whose origin is
 * known. */
static int32_t culprit(const struct ir *ir, const struct ir_span *spans,
		       size_t peak)
{
	int32_t best = -1;
	for (size_t j = 0; j < ir->slots.len; j++) {
		const struct ir_slotinfo *c = &ir->slots.data[j];
		if (spans[j].first < 0 || !overlap(&spans[peak], &spans[j]))
			continue;
		if (best >= 0) {
			const struct ir_slotinfo *b = &ir->slots.data[best];
			if ((b->origin != NULL) > (c->origin != NULL) ||
			    ((b->origin != NULL) == (c->origin != NULL) &&
			     b->size >= c->size))
				continue;
		}
		best = (int32_t)j;
	}
	return best;
}

int ir_frame_layout(struct ir *ir, uint32_t *stack_size)
{
	size_t n = ir->slots.len;
	if (!n) {
		*stack_size = 0;
		return 0;
	}
	struct ir_span *spans = malloc(sizeof(*spans) * n);
	int32_t *ptr = malloc(sizeof(*ptr) * (ir->nregs + 1));
	size_t *order = malloc(sizeof(*order) * n);
	uint32_t *lo = malloc(sizeof(*lo) * n); /* bytes [lo, lo+size) below
						   R10, counted upwards */
	bool *placed = calloc(n, sizeof(*placed));
	if (!spans || !ptr || !order || !lo || !placed) {
		free(spans);
		free(ptr);
		free(order);
		free(lo);
		free(placed);
		return ir_fail(ir, ENOMEM, "out of memory");
	}
	ir_slot_pointers(ir, ptr);
	ir_slot_spans(ir, ptr, spans);
	free(ptr);

	/* Strictest alignment first (ir_slot_new allows 8, 4, 2, 1): first
	 * fit then packs them with little padding. */
	size_t k = 0;
	for (uint32_t align = 8; align; align /= 2)
		for (size_t s = 0; s < n; s++)
			if (ir->slots.data[s].align == align)
				order[k++] = s;

	uint64_t top = 0;
	size_t peak = 0;
	for (size_t oi = 0; oi < n; oi++) {
		size_t s = order[oi];
		struct ir_slotinfo *sl = &ir->slots.data[s];
		uint32_t align = sl->align;
		if (spans[s].first < 0) { /* never used: no bytes */
			sl->fp_off = -(int32_t)align;
			continue;
		}
		/* The slot takes the bytes [end - size, end) below R10, with
		 * end aligned so that R10 - end is: the lowest such end that
		 * no placed slot of an overlapping span occupies. */
		uint64_t end = (sl->size + align - 1) / align * align;
		bool moved = true;
		while (moved) {
			moved = false;
			for (size_t j = 0; j < n; j++) {
				if (!placed[j] || !overlap(&spans[s], &spans[j]))
					continue;
				uint64_t jlo = lo[j];
				uint64_t jhi = jlo + ir->slots.data[j].size;
				if (end - sl->size < jhi && jlo < end) {
					end = (jhi + sl->size + align - 1) /
					      align * align;
					moved = true;
				}
			}
		}
		lo[s] = (uint32_t)(end - sl->size);
		placed[s] = true;
		if (end > top) {
			top = end;
			peak = s;
		}
		sl->fp_off = end <= IR_STACK_MAX ? -(int32_t)end : 0;
	}
	if (top > IR_STACK_MAX)
		ir->culprit = culprit(ir, spans, peak);
	free(spans);
	free(order);
	free(lo);
	free(placed);
	top = (top + 7) & ~7ull;
	if (top > IR_STACK_MAX)
		return ir_fail(ir, E2BIG, "program needs %llu bytes of stack, "
			       "more than the %d that BPF allows",
			       (unsigned long long)top, IR_STACK_MAX);
	*stack_size = (uint32_t)top;
	return 0;
}
