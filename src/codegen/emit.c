/* The emitters' base (emit.h). */
#include <stdarg.h>

#include "codegen/emit.h"
#include "codegen/program.h"
#include "util/diag.h"

void cg_error(struct cg *g, struct span sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(g->diag, sp, fmt, ap);
	va_end(ap);
	g->failed = true;
}

/* The verifier calls these map helpers' map operations directly, and
 * before 6.5 those return an int: -ENOENT arrives as 0xfffffffe, upper
 * half zero, unless sign-extended (6.1 lost every failed delete and every
 * insert into a full map). */
static bool int_result(int fn)
{
	switch (fn) {
	case BPF_FUNC_map_update_elem:
	case BPF_FUNC_map_delete_elem:
	case BPF_FUNC_map_push_elem:
	case BPF_FUNC_map_pop_elem:
	case BPF_FUNC_map_peek_elem:
		return true;
	}
	return false;
}

ir_reg cg_call(struct cg *g, int fn, int nargs, ...)
{
	ir_reg args[IR_MAX_ARGS];
	va_list ap;
	va_start(ap, nargs);
	for (int i = 0; i < nargs; i++)
		args[i] = va_arg(ap, ir_reg);
	va_end(ap);
	ir_reg d = ir_reg_new(g->ir);
	ir_call(g->ir, d, fn, args, nargs);
	if (int_result(fn)) {
		ir_alui(g->ir, BPF_LSH, d, 32);
		ir_alui(g->ir, BPF_ARSH, d, 32);
	}
	cg_helper_check(g, fn, d, false);
	return d;
}

static ir_reg slot_addr(struct cg *g, ir_slot s, uint32_t off)
{
	ir_reg r = ir_reg_new(g->ir);
	ir_slot_addr(g->ir, r, s, off);
	return r;
}

uint32_t cg_piece(uint32_t left, uint32_t a, uint32_t b)
{
	uint32_t n = 8;
	while (n > left || a % n || b % n)
		n /= 2;
	return n;
}

struct cg_mem cg_slot_mem(ir_slot s)
{
	struct cg_mem m = { s, IR_NOREG };
	return m;
}

void cg_store_reg(struct cg *g, int size, struct cg_mem m, uint32_t off,
		  ir_reg r)
{
	if (m.ptr != IR_NOREG)
		ir_store(g->ir, size, m.ptr, (int16_t)off, r);
	else
		ir_store_slot(g->ir, size, m.slot, off, r);
}

void cg_store_imm(struct cg *g, int size, struct cg_mem m, uint32_t off,
		   int32_t imm)
{
	if (m.ptr != IR_NOREG)
		ir_storei(g->ir, size, m.ptr, (int16_t)off, imm);
	else
		ir_storei_slot(g->ir, size, m.slot, off, imm);
}

ir_reg cg_mem_addr(struct cg *g, struct cg_mem m, uint32_t off)
{
	if (m.ptr == IR_NOREG)
		return slot_addr(g, m.slot, off);
	ir_reg r = ir_copy(g->ir, m.ptr);
	if (off)
		ir_alui(g->ir, BPF_ADD, r, (int32_t)off);
	return r;
}

void cg_zero_mem(struct cg *g, struct cg_mem dst, uint32_t off, uint32_t size)
{
	for (uint32_t i = 0, n; i < size; i += n) {
		n = cg_piece(size - i, off + i, 0);
		cg_store_imm(g, (int)n, dst, off + i, 0);
	}
}

void cg_zero(struct cg *g, ir_slot dst, uint32_t off, uint32_t size)
{
	cg_zero_mem(g, cg_slot_mem(dst), off, size);
}

void cg_zero_gaps(struct cg *g, struct cg_mem dst, uint32_t off,
		  const struct type *t, uint32_t size)
{
	uint32_t at = 0;
	for (uint32_t i = 0; i < t->nfields; i++) {
		const struct type_field *f = &t->fields[i];
		if (f->offset > at)
			cg_zero_mem(g, dst, off + at, f->offset - at);
		if (f->offset + f->type->size > at)
			at = f->offset + f->type->size;
	}
	if (size > at)
		cg_zero_mem(g, dst, off + at, size - at);
}

/* Pointer to this CPU's value of key index of a per-CPU array
 * (NULL-checked by the caller). */
static ir_reg percpu_entry(struct cg *g, int32_t map, uint32_t index)
{
	ir_slot key = ir_slot_new(g->ir, 4, 4);
	ir_storei_slot(g->ir, 4, key, 0, (int32_t)index);
	ir_reg m = ir_reg_new(g->ir), kp = ir_reg_new(g->ir);
	ir_ld_map(g->ir, m, (uint32_t)map);
	ir_slot_addr(g->ir, kp, key, 0);
	return cg_call(g, BPF_FUNC_map_lookup_elem, 2, m, kp);
}

/* A shared counter, bumped atomically through a direct value pointer: 3
 * instructions on the (rare) failure path instead of a lookup, and
 * contention only while losing. */
/* n: IR_NOREG adds 1 */
static void counter_add(struct cg *g, int32_t map, uint32_t off, ir_reg n)
{
	ir_reg p = ir_reg_new(g->ir);
	ir_ld_map_value(g->ir, p, (uint32_t)map, off);
	ir_atomic_add(g->ir, 8, p, 0, n == IR_NOREG ? ir_const(g->ir, 1) : n);
}

void cg_counter_add(struct cg *g, int32_t map, uint32_t off, ir_reg n)
{
	counter_add(g, map, off, n);
}

void cg_counter_inc(struct cg *g, int32_t map)
{
	counter_add(g, map, 0, IR_NOREG);
}

/* Each program has its own entry: a program can interrupt another on the
 * same CPU (a perf event during a raw tracepoint), never itself. Regions
 * are handed out in order and freed when the statement ends (gen_stmt), so
 * the value is as big as the most one statement needs. */
struct cg_mem cg_scratch(struct cg *g, uint32_t size)
{
	static const char *const names[CG_SCRATCH_MAPS] = {
		".scratch", ".scratch1", ".scratch2", ".scratch3" };
	const uint32_t max = CG_SCRATCH_VALUE_MAX;
	size = (size + 7) & ~7u;
	uint32_t k = g->scratch_used / max, off = g->scratch_used % max;
	if (off + size > max) { /* a region lies within one array */
		k++;
		off = 0;
	}
	if (k >= CG_SCRATCH_MAPS || size > max) {
		/* said at the end, unless an error that causes it (a
		 * literal too long) is said first */
		if (!g->scratch_over && g->at) {
			g->scratch_over = true;
			g->scratch_over_at = g->at->span;
			g->scratch_over_size = size > max ? size : 0;
		}
		k = 0;
		off = 0;
	}
	if (g->scratch[k] < 0)
		g->scratch[k] = cg_add_map(g, names[k],
					   BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 1);
	if (g->scratch_index < 0)
		g->scratch_index = (int32_t)g->scratch_progs++;
	g->scratch_used = k * max + off + size;
	if (off + size > g->scratch_size[k])
		g->scratch_size[k] = off + size;
	ir_reg p = percpu_entry(g, g->scratch[k], (uint32_t)g->scratch_index);
	/* Never NULL (the entry exists), but the verifier wants a check. */
	ir_jlist_concat(g->ir, &g->bail,
			ir_jmpi(g->ir, BPF_JEQ, p, 0, IR_NOLABEL));
	if (off)
		ir_alui(g->ir, BPF_ADD, p, (int32_t)off);
	struct cg_mem m = { 0, p };
	return m;
}

/* bpf_ringbuf_output(rb, data, size, 0); on failure lost[0] += 1. */
void cg_send_record(struct cg *g, ir_reg data, uint32_t size)
{
	int32_t rb = cg_ringbuf(g);
	ir_reg map = ir_reg_new(g->ir);
	ir_ld_map(g->ir, map, (uint32_t)rb);
	ir_reg r = cg_call(g, BPF_FUNC_ringbuf_output, 4, map, data,
			   ir_const(g->ir, size), ir_const(g->ir, 0));
	ir_jlist ok = ir_jmpi(g->ir, BPF_JEQ, r, 0, IR_NOLABEL);
	cg_counter_inc(g, g->lost);
	ir_jlist_patch_here(g->ir, ok);
}

/* The helpers whose failures bpftrace 0.26 reports, by its names
 * (libbpf's bpf_func_name less "bpf_"); NULL: not checked. Not map
 * updates or deletes: 0.26's delete() says whether the key was there, and
 * inserts into a full map are counted and said once at exit
 * (cmap.full_counter). Not get_current_comm either, which cannot fail on
 * the 16 bytes of stack it is always given: checking it would cost every
 * program that reads comm a branch and a record, for nothing. */
static const char *checked_helper(int fn)
{
	switch (fn) {
	case BPF_FUNC_probe_read: return "probe_read";
	case BPF_FUNC_probe_read_str: return "probe_read_str";
	case BPF_FUNC_probe_read_kernel: return "probe_read_kernel";
	case BPF_FUNC_probe_read_kernel_str: return "probe_read_kernel_str";
	case BPF_FUNC_probe_read_user: return "probe_read_user";
	case BPF_FUNC_probe_read_user_str: return "probe_read_user_str";
	case BPF_FUNC_map_lookup_elem: return "map_lookup_elem";
	case BPF_FUNC_get_stackid: return "get_stackid";
	case BPF_FUNC_send_signal: return "send_signal";
	case BPF_FUNC_d_path: return "d_path";
	default: return NULL;
	}
}

/* A failed read gives zeros and a missing key reads as 0, which a
 * script can test for itself: only -k (level 2) reports them. */
static bool fails_to_zero(int fn)
{
	switch (fn) {
	case BPF_FUNC_probe_read:
	case BPF_FUNC_probe_read_str:
	case BPF_FUNC_probe_read_kernel:
	case BPF_FUNC_probe_read_kernel_str:
	case BPF_FUNC_probe_read_user:
	case BPF_FUNC_probe_read_user_str:
	case BPF_FUNC_map_lookup_elem:
		return true;
	default:
		return false;
	}
}

void cg_helper_check(struct cg *g, int fn, ir_reg ret, bool zero_fails)
{
	int level = g->opts->helper_check;
	const char *name = checked_helper(fn);
	if (!level || !name || !g->at ||
	    (level == 1 && fails_to_zero(fn)) ||
	    (fn == BPF_FUNC_map_lookup_elem && !zero_fails))
		return;
	ir_jlist ok = zero_fails ?
			      ir_jmpi(g->ir, BPF_JNE, ret, 0, IR_NOLABEL) :
			      ir_jmpi(g->ir, BPF_JSGE, ret, 0, IR_NOLABEL);
	static const struct type *const s64[] = { &type_s64 };
	static const uint32_t at0[] = { 0 };
	struct cevent ev = { .kind = EV_HELPER_ERROR, .text = name,
			     .args = (const struct type **)s64,
			     .offsets = at0, .nargs = 1, .size = 8,
			     .map = -1, .at = g->at->span };
	uint32_t id = cg_add_event(g, &ev);
	struct cg_mem rec = cg_slot_mem(ir_slot_new(g->ir, 16, 8));
	cg_store_imm(g, 8, rec, 0, (int32_t)id);
	if (zero_fails)
		cg_store_imm(g, 8, rec, 8, 0);
	else
		cg_store_reg(g, 8, rec, 8, ret);
	cg_send_record(g, cg_mem_addr(g, rec, 0), 16);
	ir_jlist_patch_here(g->ir, ok);
}

void cg_runtime_error(struct cg *g, const char *msg, struct span at)
{
	struct cevent ev = { .kind = EV_RUNTIME_ERROR, .text = msg,
			     .map = -1, .at = at };
	uint32_t id = cg_add_event(g, &ev);
	struct cg_mem rec = cg_slot_mem(ir_slot_new(g->ir, 8, 8));
	cg_store_imm(g, 8, rec, 0, (int32_t)id);
	cg_send_record(g, cg_mem_addr(g, rec, 0), 8);
}

void cg_end_probe(struct cg *g)
{
	if (g->fn) /* in a for body: the probe ends after the loop */
		ir_jlist_concat(g->ir, &g->fn->returns,
				ir_ja(g->ir, IR_NOLABEL));
	else
		ir_exiti(g->ir, 0);
}
