/*
 * Branch relaxation: a jump farther than RELAX_REACH instructions goes
 * through an island, an unconditional jump placed within its reach that
 * jumps on to the target (and through the next island, when that is far
 * too). A BPF jump's offset is 16 bits, and the long unconditional jump
 * (gotol, 32 bits) only exists from Linux 6.6 on, so islands are the way
 * that works on every kernel sonde runs on. Programs this long come from
 * unrolled loops and big printfs (fuzz_verify: 100 unrolled printfs of
 * long strings, a jump spanning 34,392 instructions).
 *
 * An island sits between two instructions. Where the one before it falls
 * through, the island starts with a jump over itself; where it does not
 * (an exit, an unconditional jump), there is no such jump, as the
 * verifier refuses an instruction nothing reaches.
 */
#include "backend/ir_impl.h"

#include <errno.h>
#include <stdlib.h>

#include "util/xalloc.h"

/* Half of what the offset holds: the kernel lengthens the program after
 * sonde placed its jumps (helpers it inlines, such as per-CPU array
 * lookups), and a jump it cannot patch fails the load ("cannot be
 * patched due to 16-bit range"). */
#define RELAX_REACH 16383
/* A jump already sent to an island is not moved again: another island
 * would leave the first one unreached, which the verifier refuses. The
 * islands later passes insert in between may stretch it this far. */
#define RELAX_ISLAND_REACH 30000
#define RELAX_MAX_PASSES 64

struct island {
	size_t at;        /* inserted before item `at` */
	uint32_t pc;      /* the pc of item `at` in this pass */
	int32_t target;   /* the label it jumps to */
	int32_t label;    /* its own label */
};

typedef VEC(struct island) island_vec;

static bool falls_through(const struct mi *m)
{
	if (m->kind != MI_INSN || BPF_CLASS(m->ins.code) != BPF_JMP)
		return true;
	return BPF_OP(m->ins.code) != BPF_JA && BPF_OP(m->ins.code) != BPF_EXIT;
}

static int by_place(const void *a, const void *b)
{
	const struct island *x = a, *y = b;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return (x->label > y->label) - (x->label < y->label);
}

/* The island for a jump from pc `from` to label `target` at pc `to`:
 * one planned in this pass within reach, or a new one at the farthest
 * place toward the target that the jump reaches. */
static int32_t island_for(struct mi_list *ml, const uint32_t *pc,
			  size_t nitems, uint32_t from, int32_t target,
			  uint32_t to, island_vec *isl)
{
	bool fwd = to > from;
	for (size_t k = 0; k < isl->len; k++) {
		const struct island *s = &isl->data[k];
		/* the planned place, and past it what may be inserted there */
		if (s->target == target &&
		    (fwd ? s->pc > from && s->pc - from <= RELAX_REACH - 64 :
			   s->pc <= from && from - s->pc <= RELAX_REACH - 64))
			return s->label;
	}
	/* items are whole instructions (an ld_imm64 is one item): any
	 * boundary will do; the margin leaves room for the islands this
	 * pass inserts in between */
	size_t at = 0;
	if (fwd) {
		for (size_t i = 0; i <= nitems; i++)
			if (pc[i] > from && pc[i] - from <= RELAX_REACH - 64)
				at = i;
	} else {
		for (size_t i = nitems + 1; i-- > 0;)
			if (pc[i] <= from && from - pc[i] <= RELAX_REACH - 64)
				at = i;
	}
	struct island s = { at, pc[at], target, (int32_t)ml->nlabels++ };
	vec_push(isl, s);
	return s.label;
}

/* One pass: islands for the jumps out of reach. Returns how many jumps
 * it moved onto islands. Labels from first_island on are islands'. */
static size_t relax_pass(struct mi_list *ml, uint32_t first_island)
{
	size_t n = ml->v.len;
	uint32_t *pc = xmalloc((n + 1) * sizeof(*pc));
	int64_t *label_pc = xmalloc((ml->nlabels + 1) * sizeof(*label_pc));
	uint32_t p = 0;
	for (size_t i = 0; i < n; i++) {
		const struct mi *m = &ml->v.data[i];
		pc[i] = p;
		if (m->kind == MI_LABEL)
			label_pc[m->label] = p;
		else
			p += m->kind == MI_LDIMM ? 2 : 1;
	}
	pc[n] = p;
	island_vec isl = { 0 };
	size_t moved = 0;
	for (size_t i = 0; i < n; i++) {
		struct mi *m = &ml->v.data[i];
		if (m->kind != MI_INSN || m->label < 0)
			continue;
		int64_t off = label_pc[m->label] - (int64_t)pc[i] - 1;
		int64_t reach = (uint32_t)m->label >= first_island ?
				RELAX_ISLAND_REACH : RELAX_REACH;
		if (off >= -reach && off <= reach)
			continue;
		m->label = island_for(ml, pc, n, pc[i], m->label,
				      (uint32_t)label_pc[m->label], &isl);
		moved++;
	}
	free(label_pc);
	free(pc);
	if (!moved) {
		vec_free(&isl);
		return 0;
	}
	qsort(isl.data, isl.len, sizeof(*isl.data), by_place);
	VEC(struct mi) out = { 0 };
	size_t k = 0;
	for (size_t i = 0; i <= n; i++) {
		size_t first = k;
		while (k < isl.len && isl.data[k].at == i)
			k++;
		if (k > first) {
			if (i > 0 && falls_through(&ml->v.data[i - 1])) {
				struct mi skip = { .kind = MI_INSN, .label = -1 };
				skip.ins.code = BPF_JMP | BPF_JA;
				skip.ins.off = (int16_t)(k - first);
				vec_push(&out, skip);
			}
			for (size_t j = first; j < k; j++) {
				struct mi def = { .kind = MI_LABEL,
						  .label = isl.data[j].label };
				struct mi ja = { .kind = MI_INSN,
						 .label = isl.data[j].target };
				ja.ins.code = BPF_JMP | BPF_JA;
				vec_push(&out, def);
				vec_push(&out, ja);
			}
		}
		if (i < n)
			vec_push(&out, ml->v.data[i]);
	}
	vec_free(&isl);
	vec_free(&ml->v);
	ml->v.data = out.data;
	ml->v.len = out.len;
	ml->v.cap = out.cap;
	return moved;
}

int ir_relax_jumps(struct ir *ir, struct mi_list *ml)
{
	uint32_t first_island = ml->nlabels;
	for (int pass = 0; pass < RELAX_MAX_PASSES; pass++)
		if (!relax_pass(ml, first_island))
			return 0;
	return ir_fail(ir, E2BIG, "cannot place the program's jumps: "
		       "islands for its far jumps did not settle in %d passes",
		       RELAX_MAX_PASSES);
}
