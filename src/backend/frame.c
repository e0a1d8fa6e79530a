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
 *
 * The cost grows with the program, not with its square: loops are merged
 * into disjoint regions once, and each slot is placed against the slots
 * whose spans overlap its own, found by a sweep. When the slots live at
 * one point already need more than BPF's stack, no layout can fit and
 * none is tried.
 */
#include "backend/ir_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"
#include "util/xalloc.h"

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

static int cmp_span(const void *a, const void *b)
{
	const struct ir_span *x = a, *y = b;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* The loops ([target, backward jump]) merged into disjoint regions,
 * sorted: a span that overlaps a loop covers it, and so every loop that
 * loop overlaps; nothing else grows it. */
static size_t loop_regions(const struct ir *ir, struct ir_span **out)
{
	VEC(struct ir_span) r = { 0 };
	for (size_t i = 0; i < ir->insns.len; i++) {
		const struct ir_insn *in = &ir->insns.data[i];
		if ((in->kind != IRK_JMP && in->kind != IRK_JA) ||
		    in->label < 0)
			continue;
		int64_t head = ir->label_pos.data[in->label];
		if (head >= 0 && head <= (int64_t)i)
			vec_push(&r, ((struct ir_span){ head, (int64_t)i }));
	}
	if (r.len)
		qsort(r.data, r.len, sizeof(*r.data), cmp_span);
	size_t n = 0;
	for (size_t k = 0; k < r.len; k++) {
		if (n && r.data[k].first <= r.data[n - 1].last) {
			if (r.data[k].last > r.data[n - 1].last)
				r.data[n - 1].last = r.data[k].last;
		} else {
			r.data[n++] = r.data[k];
		}
	}
	*out = r.data;
	return n;
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
	if (many) {
		for (size_t s = 0; s < n; s++)
			spans[s] = (struct ir_span){ 0, (int64_t)ir->insns.len };
		return false;
	}
	struct ir_span *loops;
	size_t nloops = loop_regions(ir, &loops);
	for (size_t s = 0; nloops && s < n; s++) {
		struct ir_span *sp = &spans[s];
		if (sp->first < 0)
			continue;
		/* the first region that ends at or after the span starts */
		size_t lo = 0, hi = nloops;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (loops[mid].last < sp->first)
				lo = mid + 1;
			else
				hi = mid;
		}
		int64_t last = sp->last;
		for (size_t k = lo; k < nloops && loops[k].first <= last; k++) {
			touch(sp, loops[k].first);
			touch(sp, loops[k].last);
		}
	}
	free(loops);
	return true;
}

static bool overlap(const struct ir_span *a, const struct ir_span *b)
{
	return a->first <= b->last && b->first <= a->last;
}

/* The slot to name when the frame is too deep: the biggest of those live
 * with slot peak, preferring one whose origin is known. */
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The slots ever touched, by span start (ties: by number). */
static size_t by_start(const struct ir *ir, const struct ir_span *spans,
		       uint32_t *order)
{
	size_t n = ir->slots.len, k = 0;
	uint64_t *key = xmalloc((n + 1) * sizeof(*key));
	for (size_t s = 0; s < n; s++)
		if (spans[s].first >= 0)
			key[k++] = (uint64_t)spans[s].first << 32 | s;
	qsort(key, k, sizeof(*key), cmp_u64);
	for (size_t i = 0; i < k; i++)
		order[i] = (uint32_t)key[i];
	free(key);
	return k;
}

/* The slots live at the sweep's point: a min-heap by span end. */
struct live {
	uint32_t *heap;
	size_t n;
	const struct ir_span *spans;
};

static bool ends_before(const struct live *l, size_t a, size_t b)
{
	return l->spans[l->heap[a]].last < l->spans[l->heap[b]].last;
}

static void swap_at(struct live *l, size_t a, size_t b)
{
	uint32_t t = l->heap[a];
	l->heap[a] = l->heap[b];
	l->heap[b] = t;
}

static void live_push(struct live *l, uint32_t s)
{
	size_t i = l->n++;
	l->heap[i] = s;
	while (i && ends_before(l, i, (i - 1) / 2)) {
		swap_at(l, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static uint32_t live_pop(struct live *l)
{
	uint32_t top = l->heap[0];
	l->heap[0] = l->heap[--l->n];
	for (size_t i = 0;;) {
		size_t c = 2 * i + 1;
		if (c >= l->n)
			break;
		if (c + 1 < l->n && ends_before(l, c + 1, c))
			c++;
		if (!ends_before(l, c, i))
			break;
		swap_at(l, i, c);
		i = c;
	}
	return top;
}

struct edge {
	uint32_t a, b;
};

/*
 * Sweeps the spans by start: the most bytes live at once (*pressure) and
 * the slot that started it (*peak). While that stays within BPF's stack,
 * the pairs of overlapping slots go into *edges (the slots live at once
 * are then at most 512, so there are at most 512 per slot).
 */
static void sweep(const struct ir *ir, const struct ir_span *spans,
		  const uint32_t *order, size_t k, uint64_t *pressure,
		  uint32_t *peak, struct edge **edges, size_t *nedges)
{
	struct live l = { xmalloc((k + 1) * sizeof(*l.heap)), 0, spans };
	VEC(struct edge) e = { 0 };
	uint64_t bytes = 0;
	*pressure = 0;
	*peak = 0;
	for (size_t i = 0; i < k; i++) {
		uint32_t s = order[i];
		while (l.n && spans[l.heap[0]].last < spans[s].first)
			bytes -= ir->slots.data[live_pop(&l)].size;
		if (*pressure <= IR_STACK_MAX)
			for (size_t j = 0; j < l.n; j++)
				vec_push(&e, ((struct edge){ l.heap[j], s }));
		live_push(&l, s);
		bytes += ir->slots.data[s].size;
		if (bytes > *pressure) {
			*pressure = bytes;
			*peak = s;
		}
	}
	free(l.heap);
	*edges = e.data;
	*nedges = e.len;
}

/* Each slot's overlapping slots: adj[start[s] .. start[s + 1]). */
static void adjacency(size_t n, const struct edge *e, size_t ne,
		      uint32_t **start_out, uint32_t **adj_out)
{
	uint32_t *start = xcalloc(n + 2, sizeof(*start));
	for (size_t i = 0; i < ne; i++) {
		start[e[i].a + 1]++;
		start[e[i].b + 1]++;
	}
	for (size_t s = 0; s < n; s++)
		start[s + 1] += start[s];
	uint32_t *fill = xmalloc((n + 1) * sizeof(*fill));
	memcpy(fill, start, (n + 1) * sizeof(*fill));
	uint32_t *adj = xmalloc((2 * ne + 1) * sizeof(*adj));
	for (size_t i = 0; i < ne; i++) {
		adj[fill[e[i].a]++] = e[i].b;
		adj[fill[e[i].b]++] = e[i].a;
	}
	free(fill);
	*start_out = start;
	*adj_out = adj;
}

int ir_frame_layout(struct ir *ir, uint32_t *stack_size)
{
	size_t n = ir->slots.len;
	if (!n) {
		*stack_size = 0;
		return 0;
	}
	struct ir_span *spans = xmalloc(sizeof(*spans) * n);
	int32_t *ptr = xmalloc(sizeof(*ptr) * (ir->nregs + 1));
	ir_slot_pointers(ir, ptr);
	ir_slot_spans(ir, ptr, spans);
	free(ptr);

	uint32_t *order = xmalloc(sizeof(*order) * n);
	size_t k = by_start(ir, spans, order);
	uint64_t pressure;
	uint32_t peak;
	struct edge *edges;
	size_t nedges;
	sweep(ir, spans, order, k, &pressure, &peak, &edges, &nedges);
	if (pressure > IR_STACK_MAX) {
		/* no layout can fit: none is tried */
		ir->culprit = culprit(ir, spans, peak);
		free(edges);
		free(order);
		free(spans);
		return ir_fail(ir, E2BIG, "program needs at least %llu bytes "
			       "of stack, more than the %d that BPF allows",
			       (unsigned long long)pressure, IR_STACK_MAX);
	}
	uint32_t *start, *adj;
	adjacency(n, edges, nedges, &start, &adj);
	free(edges);

	/* Strictest alignment first (ir_slot_new allows 8, 4, 2, 1): first
	 * fit then packs them with little padding. */
	k = 0;
	for (uint32_t align = 8; align; align /= 2)
		for (size_t s = 0; s < n; s++)
			if (ir->slots.data[s].align == align)
				order[k++] = (uint32_t)s;

	uint32_t *lo = xmalloc(sizeof(*lo) * n); /* bytes [lo, lo+size)
						    below R10, counted up */
	bool *placed = xcalloc(n, sizeof(*placed));
	uint64_t top = 0;
	size_t deepest = 0;
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
			for (uint32_t q = start[s]; q < start[s + 1]; q++) {
				uint32_t j = adj[q];
				if (!placed[j])
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
			deepest = s;
		}
		sl->fp_off = end <= IR_STACK_MAX ? -(int32_t)end : 0;
	}
	if (top > IR_STACK_MAX)
		ir->culprit = culprit(ir, spans, deepest);
	free(spans);
	free(order);
	free(lo);
	free(placed);
	free(start);
	free(adj);
	top = (top + 7) & ~7ull;
	if (top > IR_STACK_MAX)
		return ir_fail(ir, E2BIG, "program needs %llu bytes of stack, "
			       "more than the %d that BPF allows",
			       (unsigned long long)top, IR_STACK_MAX);
	*stack_size = (uint32_t)top;
	return 0;
}
