/*
 * for loops, as bpftrace 0.26 compiles them: the body is a callback
 * function, called by bpf_loop (a range) or bpf_for_each_map_elem (a
 * map), so the verifier checks it once whatever the number of
 * iterations. The variables of outer scopes the body uses (sema lists
 * them) travel in a context struct on the caller's stack: integers are
 * copied in and out of it at the callback's entry and exits, other values
 * are used in place through the pointer. The context also carries the
 * probe's context pointer and a flag set by `return`, which ends the
 * probe once the loop is done.
 *
 * The integers come into the callback through bpf_probe_read_kernel, so
 * the verifier holds them as unknown values: kernels since 6.7 check a
 * callback as a loop until its states repeat, and exact values (a
 * counter compared with a constant) would never repeat.
 */
#include <bpf/libbpf.h>
#include <string.h>

#include "codegen/bigstr.h"
#include "codegen/emit.h"
#include "codegen/loops.h"
#include "codegen/maps.h"
#include "codegen/stacks.h"
#include "codegen/values.h"
#include "codegen/vars.h"
#include "codegen/walk.h"
#include "kernel/features.h"
#include "kernel/krelease.h"
#include "util/arena.h"

/* Offsets in the context struct. */
#define CTX_RETURNED 0
#define CTX_PROBE_CTX 8
#define CTX_START 16
#define CTX_COUNT 24
#define CTX_FIRST 32

/* Without bpf_loop: the most iterations of a range counted at run time
 * (the verifier follows this many, whatever the count), and the most of
 * a range of literals, past which the verifier's 1,000,000 instructions
 * cannot follow it even at 3 instructions an iteration. */
#define RANGE_CEILING 1024
#define RANGE_FOLLOWED_MAX 333333

struct capture {
	struct cg_var *v;
	uint32_t off;
};

static uint32_t round8(uint32_t n)
{
	return (n + 7) & ~7u;
}

/* Copies size bytes from ptr+from (any readable pointer the verifier
 * knows the bounds of) to m+to. */
static void copy_in(struct cg *g, struct cg_mem m, uint32_t to, ir_reg ptr,
		    uint32_t from, uint32_t size)
{
	ir_reg t = ir_reg_new(g->ir);
	for (uint32_t i = 0, n; i < size; i += n) {
		n = cg_piece(size - i, to + i, from + i);
		ir_load(g->ir, (int)n, t, ptr, (int16_t)(from + i));
		cg_store_reg(g, (int)n, m, to + i, t);
	}
}

/* The value of a per-CPU aggregation at key (in the loop variable's
 * slot): the CPUs' values merged as the map's printing merges them. */
static void percpu_value(struct cg *g, int32_t mi, const struct type *agg,
			 ir_reg keyp, struct cg_mem dst, uint32_t off)
{
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu < 1)
		ncpu = 1;
	ir_reg sum = ir_const(g->ir, 0), cnt = ir_const(g->ir, 0);
	ir_reg best = ir_const(g->ir, 0), seen = ir_const(g->ir, 0);
	ir_reg mp = ir_reg_new(g->ir);
	for (int c = 0; c < ncpu; c++) {
		ir_ld_map(g->ir, mp, (uint32_t)mi);
		ir_reg p = cg_call(g, BPF_FUNC_map_lookup_percpu_elem, 3, mp,
				   keyp, ir_const(g->ir, c));
		ir_jlist none = ir_jmpi(g->ir, BPF_JEQ, p, 0, IR_NOLABEL);
		ir_reg x = ir_reg_new(g->ir);
		ir_load(g->ir, 8, x, p, 0);
		switch (agg->kind) {
		case TY_MIN:
		case TY_MAX: {
			ir_reg set = ir_reg_new(g->ir);
			ir_load(g->ir, 8, set, p, 8);
			ir_jlist unset = ir_jmpi(g->ir, BPF_JEQ, set, 0,
						 IR_NOLABEL);
			ir_jlist take = ir_jmpi(g->ir, BPF_JEQ, seen, 0,
						IR_NOLABEL);
			bool sg = agg->is_signed;
			ir_jlist keep = ir_jmp(g->ir, agg->kind == TY_MIN ?
					       (sg ? BPF_JSGE : BPF_JGE) :
					       (sg ? BPF_JSLE : BPF_JLE),
					       x, best, IR_NOLABEL);
			ir_jlist_patch_here(g->ir, take);
			ir_mov(g->ir, best, x);
			ir_movi(g->ir, seen, 1);
			ir_jlist_patch_here(g->ir, keep);
			ir_jlist_patch_here(g->ir, unset);
			break;
		}
		case TY_AVG: {
			ir_reg n = ir_reg_new(g->ir);
			ir_load(g->ir, 8, n, p, 8);
			ir_alu(g->ir, BPF_ADD, sum, x);
			ir_alu(g->ir, BPF_ADD, cnt, n);
			break;
		}
		default: /* count, sum */
			ir_alu(g->ir, BPF_ADD, sum, x);
			break;
		}
		ir_jlist_patch_here(g->ir, none);
	}
	ir_reg r = sum;
	if (agg->kind == TY_MIN || agg->kind == TY_MAX) {
		r = best;
	} else if (agg->kind == TY_AVG) {
		r = ir_copy(g->ir, sum);
		if (agg->is_signed)
			ir_sdiv(g->ir, r, cnt);
		else
			ir_alu(g->ir, BPF_DIV, r, cnt);
	}
	cg_store_reg(g, 8, dst, off, r);
}

/* The loop variable of a map loop: (key, value) copied from the
 * element the helper gives. */
static void map_element(struct cg *g, struct ast_stmt *s, ir_reg keyp,
			ir_reg valp, struct cg_mem dst)
{
	const struct type *t = s->u.for_.var->type;
	const struct type_field *kf = &t->fields[0], *vf = &t->fields[1];
	int32_t mi = cg_map_index(g, s->u.for_.map);
	const struct cmap *m = cg_map(g, mi);
	if (cg_big_str(t)) {
		/* a long string: no copy unrolled over its bytes */
		cg_zero_big(g, dst, 0, t->size);
		cg_call(g, BPF_FUNC_probe_read_kernel, 3,
			cg_mem_addr(g, dst, kf->offset),
			ir_const(g->ir, kf->type->size), keyp);
		if (!type_is_aggregation(m->value) &&
		    m->value->kind != TY_AVG) {
			cg_call(g, BPF_FUNC_probe_read_kernel, 3,
				cg_mem_addr(g, dst, vf->offset),
				ir_const(g->ir, vf->type->size), valp);
			return;
		}
	} else {
		cg_zero_mem(g, dst, 0, t->size);
		copy_in(g, dst, kf->offset, keyp, 0, kf->type->size);
	}
	if (type_is_aggregation(m->value) && m->percpu) {
		ir_reg k = cg_mem_addr(g, dst, kf->offset);
		percpu_value(g, mi, m->value, k, dst, vf->offset);
		return;
	}
	if (m->value->kind == TY_AVG) { /* one value for all CPUs (sema's
					 * read_shared): {sum, count} */
		ir_reg sum = ir_reg_new(g->ir), cnt = ir_reg_new(g->ir);
		ir_load(g->ir, 8, sum, valp, 0);
		ir_load(g->ir, 8, cnt, valp, 8);
		ir_jlist none = ir_jmpi(g->ir, BPF_JEQ, cnt, 0, IR_NOLABEL);
		if (m->value->is_signed)
			ir_sdiv(g->ir, sum, cnt);
		else
			ir_alu(g->ir, BPF_DIV, sum, cnt);
		ir_jlist_patch_here(g->ir, none);
		cg_store_reg(g, 8, dst, vf->offset, sum);
		return;
	}
	copy_in(g, dst, vf->offset, valp, 0, vf->type->size);
}

/* Compiles the body as a callback; returns its function index or -1. */
static int32_t gen_callback(struct cg *g, struct ast_stmt *s,
			    const struct capture *caps, uint32_t ncaps,
			    uint32_t probe_off, uint32_t func_off)
{
	bool range = !s->u.for_.map;
	struct ir *outer = g->ir;
	size_t nvars = g->vars.len, nloops = g->loops.len;
	struct cg_fn *outer_fn = g->fn;
	ir_jlist outer_bail = g->bail;
	ir_reg outer_probe = g->probe_reg, outer_func = g->func_reg;
	uint32_t outer_scratch = g->scratch_used;
	struct cg_fn fn = { IR_NOJUMP };
	struct ir *cb = ir_new();
	g->ir = cb;
	g->fn = &fn;
	g->bail = IR_NOJUMP;

	/* bpf_loop: (index, ctx); bpf_for_each_map_elem: (map, key,
	 * value, ctx) */
	ir_reg a1 = ir_arg(cb, 1), keyp = IR_NOREG, valp = IR_NOREG, ctxp;
	if (range) {
		ctxp = ir_arg(cb, 2);
	} else {
		keyp = ir_arg(cb, 2);
		valp = ir_arg(cb, 3);
		ctxp = ir_arg(cb, 4);
	}
	ir_reg pctx = ir_reg_new(cb);
	ir_load(cb, 8, pctx, ctxp, CTX_PROBE_CTX);
	ir_set_ctx(cb, pctx);
	uint32_t nints = 0;
	for (uint32_t i = 0; i < ncaps; i++)
		nints += caps[i].v->reg != IR_NOREG;
	ir_slot ints = 0;
	if (nints) {
		ints = ir_slot_new(cb, 8 * nints, 8);
		ir_reg src = ir_copy(cb, ctxp);
		ir_alui(cb, BPF_ADD, src, CTX_FIRST);
		cg_call(g, BPF_FUNC_probe_read_kernel, 3,
			cg_mem_addr(g, cg_slot_mem(ints), 0),
			ir_const(cb, 8 * nints), src);
	}
	for (uint32_t i = 0; i < ncaps; i++) {
		struct cg_var v = *caps[i].v;
		if (v.reg != IR_NOREG) {
			v.reg = ir_reg_new(cb);
			ir_load_slot(cb, 8, v.reg, ints, caps[i].off - CTX_FIRST);
		} else {
			v.mem.slot = 0;
			v.mem.ptr = ir_copy(cb, ctxp);
			ir_alui(cb, BPF_ADD, v.mem.ptr, (int32_t)caps[i].off);
		}
		vec_push(&g->vars, v);
	}
	if (probe_off) {
		g->probe_reg = ir_reg_new(cb);
		ir_load(cb, 8, g->probe_reg, ctxp, (int16_t)probe_off);
	}
	if (func_off) {
		g->func_reg = ir_reg_new(cb);
		ir_load(cb, 8, g->func_reg, ctxp, (int16_t)func_off);
	}
	struct ast_expr *lv = s->u.for_.var;
	struct cg_var loopvar = { lv->u.name, lv->aux, lv->type, IR_NOREG,
				  { 0, IR_NOREG } };
	ir_jlist past_end = IR_NOJUMP;
	if (range) {
		/* the index is below the count (bpf_loop never passes more),
		 * but the verifier learns it only from a test: a constant
		 * range then bounds the loop variable */
		ir_reg count = ir_reg_new(cb);
		ir_load(cb, 8, count, ctxp, CTX_COUNT);
		past_end = ir_jmp(cb, BPF_JGE, a1, count, IR_NOLABEL);
		loopvar.reg = ir_reg_new(cb);
		ir_load(cb, 8, loopvar.reg, ctxp, CTX_START);
		ir_alu(cb, BPF_ADD, loopvar.reg, a1);
	} else {
		/* a key holding a stack is too big for the stack */
		ir_set_origin(cb, lv);
		loopvar.mem = cg_value_mem(g, lv->type, lv->type->size);
		ir_set_origin(cb, NULL);
		map_element(g, s, keyp, valp, loopvar.mem);
	}
	vec_push(&g->vars, loopvar);
	cg_declare_vars(g, &s->u.for_.body);
	struct cg_loop l = { IR_NOLABEL, IR_NOJUMP, IR_NOJUMP };
	vec_push(&g->loops, l);
	cg_block(g, &s->u.for_.body);
	struct cg_loop done = g->loops.data[g->loops.len - 1];

	/* continue (and the body's end): 0, the next element; break: 1,
	 * stop; return: 1 and the flag */
	ir_reg r = ir_reg_new(cb);
	ir_jlist_patch_here(cb, done.conts);
	ir_movi(cb, r, 0);
	ir_jlist out = ir_ja(cb, IR_NOLABEL);
	ir_jlist_patch_here(cb, done.breaks);
	ir_jlist_patch_here(cb, past_end);
	ir_movi(cb, r, 1);
	ir_jlist_concat(cb, &out, ir_ja(cb, IR_NOLABEL));
	ir_jlist_concat(cb, &fn.returns, g->bail);
	ir_jlist_patch_here(cb, fn.returns);
	ir_storei(cb, 8, ctxp, CTX_RETURNED, 1);
	ir_movi(cb, r, 1);
	ir_jlist_patch_here(cb, out);
	for (uint32_t i = 0; i < ncaps; i++) {
		const struct cg_var *v = &g->vars.data[nvars + i];
		if (v->reg != IR_NOREG)
			ir_store(cb, 8, ctxp, (int16_t)caps[i].off, v->reg);
	}
	ir_exit(cb, r);

	g->ir = outer;
	g->fn = outer_fn;
	g->bail = outer_bail;
	g->probe_reg = outer_probe;
	g->func_reg = outer_func;
	g->vars.len = nvars;
	g->loops.len = nloops;
	g->scratch_used = outer_scratch;
	int32_t id = -1;
	struct bpf_code code;
	if (g->failed) {
		/* said already */
	} else if (ir_compile(cb, &code) < 0) {
		cg_error(g, s->span, "cannot compile the body of this for "
			 "loop: %s", ir_error(cb));
	} else {
		id = (int32_t)g->fns.len;
		vec_push(&g->fns, code);
	}
	ir_free(cb);
	return id;
}

/* The value of e when it is an integer literal, negated or not, as the
 * 64-bit two's complement the range's count is computed in. */
static bool literal(const struct ast_expr *e, int64_t *v)
{
	if (e->kind == E_UNARY && e->u.unary.op == OP_NEG &&
	    literal(e->u.unary.operand, v)) {
		*v = (int64_t)(0 - (uint64_t)*v);
		return true;
	}
	if (e->kind != E_INT)
		return false;
	*v = (int64_t)e->u.num.value;
	return true;
}

/* for ($i : a..b) on a kernel without bpf_loop: the body inline in a
 * loop that the verifier follows iteration by iteration (bounded loops,
 * Linux 5.3), so it must see the loop end. A counter k runs from 0 and is
 * compared with a constant: the count when the range is made of literals
 * (the verifier then follows exactly that many iterations), else
 * RANGE_CEILING, which a count computed at run time may not pass: such a
 * range runs no iteration and warns rather than run a part of itself.
 * The test is at the bottom and its fall-through leaves the loop, so the
 * verifier follows the way out before the next iteration and keeps no
 * state of it pending (8192 is its limit).
 * Body variables are declared (zeroed) at each iteration's start, as a
 * callback declares them at each call. */
static void range_inline(struct cg *g, struct ast_stmt *s)
{
	struct ast_expr *a = s->u.for_.start, *b = s->u.for_.end;
	int64_t first, last;
	bool known = literal(a, &first) && literal(b, &last);
	int64_t count = known ? (int64_t)((uint64_t)last - (uint64_t)first) : 0;
	if (known && count <= 0)
		return; /* an empty or reversed range runs nothing */
	if (known && count > RANGE_FOLLOWED_MAX) {
		char why[160];
		krelease_needs(why, sizeof(why), "bpf_loop", FEAT_BPF_LOOP);
		cg_error(g, s->span, "this for loop runs %lld times, more than "
			 "the verifier can follow one by one: a range this long "
			 "needs %s", (long long)count, why);
		return;
	}
	if (!g->first_loop)
		g->first_loop = s;
	ir_reg start = ir_copy(g->ir, cg_int(g, a));
	ir_reg n = ir_copy(g->ir, cg_int(g, b));
	ir_alu(g->ir, BPF_SUB, n, start);
	ir_jlist done = IR_NOJUMP;
	if (!known) {
		done = ir_jmpi(g->ir, BPF_JSLE, n, 0, IR_NOLABEL);
		ir_jlist fits = ir_jmpi(g->ir, BPF_JLE, n, RANGE_CEILING,
					IR_NOLABEL);
		char why[160];
		krelease_needs(why, sizeof(why), "bpf_loop", FEAT_BPF_LOOP);
		cg_runtime_error(g, arena_printf(g->arena, "this range has "
				 "more than %d elements, the most a for loop "
				 "runs without bpf_loop: it ran none (a longer "
				 "range needs %s)", RANGE_CEILING, why), s->span);
		ir_jlist_concat(g->ir, &done, ir_ja(g->ir, IR_NOLABEL));
		ir_jlist_patch_here(g->ir, fits);
	}
	/* the first iteration runs untested (the count is above 0): the
	 * edge that closes the loop is then the jump back to the body, and
	 * 5.10's verifier takes a loop only when that edge is a jump (not
	 * the fall-through into the test) */
	ir_reg k = ir_const(g->ir, 0);
	ir_label body = ir_label_here(g->ir);
	size_t nvars = g->vars.len, nloops = g->loops.len;
	struct ast_expr *lv = s->u.for_.var;
	struct cg_var loopvar = { lv->u.name, lv->aux, lv->type,
				  ir_copy(g->ir, start), { 0, IR_NOREG } };
	ir_alu(g->ir, BPF_ADD, loopvar.reg, k);
	vec_push(&g->vars, loopvar);
	cg_declare_vars(g, &s->u.for_.body);
	struct cg_loop l = { IR_NOLABEL, IR_NOJUMP, IR_NOJUMP };
	vec_push(&g->loops, l);
	cg_block(g, &s->u.for_.body);
	l = g->loops.data[g->loops.len - 1];
	g->vars.len = nvars;
	g->loops.len = nloops;
	ir_jlist_patch_here(g->ir, l.conts);
	ir_alui(g->ir, BPF_ADD, k, 1);
	ir_jlist_concat(g->ir, &done, ir_jmpi(g->ir, BPF_JGE, k, known ?
					      (int32_t)count : RANGE_CEILING,
					      IR_NOLABEL));
	/* n (its bounds) against k (a constant to the verifier): the
	 * kernels before 6.x judge a comparison of two registers only so */
	if (known)
		ir_ja(g->ir, body);
	else
		ir_jmp(g->ir, BPF_JGT, n, k, body);
	ir_jlist_patch_here(g->ir, done);
	ir_jlist_patch_here(g->ir, l.breaks);
}

void cg_for(struct cg *g, struct ast_stmt *s)
{
	bool range = !s->u.for_.map;
	if (range && !feat_has(FEAT_BPF_LOOP)) {
		range_inline(g, s);
		return;
	}
	uint32_t ncaps = s->u.for_.ncaptures;
	struct capture *caps = arena_alloc(g->arena,
					   sizeof(*caps) * (ncaps + 1));
	uint32_t off = CTX_FIRST;
	for (uint32_t i = 0; i < ncaps; i++) {
		struct cg_var *v = cg_find_var(g, s->u.for_.captures[i]);
		if (!v) {
			cg_error(g, s->span, "internal error: a variable of "
				 "this for loop has no storage");
			return;
		}
		caps[i].v = v;
	}
	/* the integers first, side by side: one read brings them in */
	for (int ints = 1; ints >= 0; ints--) {
		for (uint32_t i = 0; i < ncaps; i++) {
			struct cg_var *v = caps[i].v;
			if ((v->reg != IR_NOREG) != ints)
				continue;
			caps[i].off = off;
			off += ints ? 8 : round8(v->type->size);
		}
	}
	uint32_t probe_off = 0, func_off = 0;
	if (g->probe_reg != IR_NOREG) {
		probe_off = off;
		off += 8;
	}
	if (g->func_reg != IR_NOREG) {
		func_off = off;
		off += 8;
	}
	if (off > 32767) {
		cg_error(g, s->span, "the variables this for loop uses are "
			 "too big to pass to its body");
		return;
	}
	ir_set_origin(g->ir, s->u.for_.var);
	ir_slot cs = ir_slot_new(g->ir, off, 8);
	ir_set_origin(g->ir, NULL);
	struct cg_mem cm = cg_slot_mem(cs);
	ir_storei_slot(g->ir, 8, cs, CTX_RETURNED, 0);
	ir_store_slot(g->ir, 8, cs, CTX_PROBE_CTX, ir_ctx(g->ir));
	ir_reg n = IR_NOREG;
	if (range) {
		ir_reg start = ir_copy(g->ir, cg_int(g, s->u.for_.start));
		n = ir_copy(g->ir, cg_int(g, s->u.for_.end));
		ir_alu(g->ir, BPF_SUB, n, start);
		ir_store_slot(g->ir, 8, cs, CTX_START, start);
		ir_store_slot(g->ir, 8, cs, CTX_COUNT, n);
	} else {
		ir_storei_slot(g->ir, 8, cs, CTX_START, 0);
		ir_storei_slot(g->ir, 8, cs, CTX_COUNT, 0);
	}
	for (uint32_t i = 0; i < ncaps; i++) {
		struct cg_var *v = caps[i].v;
		if (v->reg != IR_NOREG) {
			ir_store_slot(g->ir, 8, cs, caps[i].off, v->reg);
			continue;
		}
		uint32_t size = v->type->size;
		cg_store_val(g, cm, caps[i].off, v->type, cg_var_val(g, v));
		if (round8(size) > size)
			cg_zero(g, cs, caps[i].off + size, round8(size) - size);
	}
	if (probe_off)
		ir_store_slot(g->ir, 8, cs, probe_off, g->probe_reg);
	if (func_off)
		ir_store_slot(g->ir, 8, cs, func_off, g->func_reg);

	int32_t fid = gen_callback(g, s, caps, ncaps, probe_off, func_off);
	if (fid < 0)
		return;
	/* The function's address is loaded only where the helper is called:
	 * a callback the verifier never reaches (a constant empty range)
	 * is dead code it removes, and a load of its address left behind
	 * would be a kernel "verifier bug". */
	ir_reg fp = ir_reg_new(g->ir);
	ir_reg ctxa = cg_mem_addr(g, cm, 0);
	if (range) {
		/* an empty or reversed range runs nothing */
		ir_jlist skip = ir_jmpi(g->ir, BPF_JSLE, n, 0, IR_NOLABEL);
		ir_ld_func(g->ir, fp, (uint32_t)fid);
		cg_call(g, BPF_FUNC_loop, 4, n, fp, ctxa, ir_const(g->ir, 0));
		ir_jlist_patch_here(g->ir, skip);
	} else {
		ir_ld_func(g->ir, fp, (uint32_t)fid);
		ir_reg mp = ir_reg_new(g->ir);
		ir_ld_map(g->ir, mp,
			  (uint32_t)cg_map_index(g, s->u.for_.map));
		cg_call(g, BPF_FUNC_for_each_map_elem, 4, mp, fp, ctxa,
			ir_const(g->ir, 0));
	}
	for (uint32_t i = 0; i < ncaps; i++) {
		struct cg_var *v = caps[i].v;
		if (v->reg != IR_NOREG) {
			ir_load_slot(g->ir, 8, v->reg, cs, caps[i].off);
			continue;
		}
		struct val x = { .kind = V_MEM, .type = v->type, .slot = cs,
				 .off = caps[i].off };
		cg_store_val(g, v->mem, 0, v->type, x);
	}
	ir_reg f = ir_reg_new(g->ir);
	ir_load_slot(g->ir, 8, f, cs, CTX_RETURNED);
	if (g->fn) {
		ir_jlist_concat(g->ir, &g->fn->returns,
				ir_jmpi(g->ir, BPF_JNE, f, 0, IR_NOLABEL));
	} else {
		ir_jlist go_on = ir_jmpi(g->ir, BPF_JEQ, f, 0, IR_NOLABEL);
		ir_exiti(g->ir, 0);
		ir_jlist_patch_here(g->ir, go_on);
	}
}
