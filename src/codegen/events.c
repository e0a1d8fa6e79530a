/*
 * Ring-buffer records: printf, print, exit and friends. A record is built
 * on the stack (header, then the arguments laid out as a tuple) and sent
 * with one bpf_ringbuf_output(); a failed send bumps the per-CPU lost
 * counter that the runtime reports at exit.
 */
#include <string.h>

#include "codegen/cg.h"
#include "model/limits.h"
#include "util/arena.h"

int32_t cg_add_map(struct cg *g, const char *name, enum bpf_map_type t,
		   uint32_t ks, uint32_t vs, uint32_t n)
{
	struct cmap m;
	memset(&m, 0, sizeof(m));
	m.name = name;
	m.type = t;
	m.key_size = ks;
	m.value_size = vs;
	m.max_entries = n;
	vec_push(&g->maps, m);
	return (int32_t)g->maps.len - 1;
}

int32_t cg_ringbuf(struct cg *g)
{
	if (g->ringbuf < 0) {
		g->ringbuf = cg_add_map(g, ".events", BPF_MAP_TYPE_RINGBUF, 0, 0,
				     limits_ringbuf_bytes());
		g->lost = cg_add_counter(g, ".lost");
	}
	return g->ringbuf;
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

int32_t cg_add_counter(struct cg *g, const char *name)
{
	return cg_add_map(g, name, BPF_MAP_TYPE_ARRAY, 4, 8, 1);
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
	if (g->scratch < 0)
		g->scratch = cg_add_map(g, ".scratch",
					BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 1);
	if (g->scratch_index < 0)
		g->scratch_index = (int32_t)g->scratch_progs++;
	uint32_t off = g->scratch_used;
	g->scratch_used += (size + 7) & ~7u;
	if (g->scratch_used > g->scratch_size)
		g->scratch_size = g->scratch_used;
	ir_reg p = percpu_entry(g, g->scratch, (uint32_t)g->scratch_index);
	/* Never NULL (the entry exists), but the verifier wants a check. */
	ir_jlist_concat(g->ir, &g->bail,
			ir_jmpi(g->ir, BPF_JEQ, p, 0, IR_NOLABEL));
	if (off)
		ir_alui(g->ir, BPF_ADD, p, (int32_t)off);
	struct cg_mem m = { 0, p };
	return m;
}

/* bpf_ringbuf_output(rb, data, size, 0); on failure lost[0] += 1. */
static void send_from(struct cg *g, ir_reg data, uint32_t size)
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

static uint32_t add_event(struct cg *g, const struct cevent *ev)
{
	vec_push(&g->events, *ev);
	return (uint32_t)g->events.len - 1;
}

/* exit()'s record carries the lost counter as exit() read it: what is
 * lost after it would go unprinted anyway (as in bpftrace, the records
 * after exit() are dropped), so only the losses before it are reported. */
void cg_exit_event(struct cg *g, ir_reg code)
{
	struct cevent ev;
	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_EXIT;
	ev.map = -1;
	/* the lost counter, then exit(CODE)'s code (plain exit() sends no
	 * code: status 0) */
	ev.size = code == IR_NOREG ? 8 : 16;
	uint32_t id = add_event(g, &ev);
	cg_ringbuf(g); /* makes g->lost */
	struct cg_mem rec = cg_slot_mem(ir_slot_new(g->ir, 8 + ev.size, 8));
	cg_mem_storei(g, 8, rec, 0, (int32_t)id);
	ir_reg p = ir_reg_new(g->ir), lost = ir_reg_new(g->ir);
	ir_ld_map_value(g->ir, p, (uint32_t)g->lost, 0);
	ir_load(g->ir, 8, lost, p, 0);
	cg_mem_store(g, 8, rec, 8, lost);
	if (code != IR_NOREG)
		cg_mem_store(g, 8, rec, 16, code);
	send_from(g, cg_mem_addr(g, rec, 0), 8 + ev.size);
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
	uint32_t id = add_event(g, &ev);
	struct cg_mem rec = cg_slot_mem(ir_slot_new(g->ir, 16, 8));
	cg_mem_storei(g, 8, rec, 0, (int32_t)id);
	if (zero_fails)
		cg_mem_storei(g, 8, rec, 8, 0);
	else
		cg_mem_store(g, 8, rec, 8, ret);
	send_from(g, cg_mem_addr(g, rec, 0), 16);
	ir_jlist_patch_here(g->ir, ok);
}

void cg_runtime_error(struct cg *g, const char *msg, struct span at)
{
	struct cevent ev = { .kind = EV_RUNTIME_ERROR, .text = msg,
			     .map = -1, .at = at };
	uint32_t id = add_event(g, &ev);
	struct cg_mem rec = cg_slot_mem(ir_slot_new(g->ir, 8, 8));
	cg_mem_storei(g, 8, rec, 0, (int32_t)id);
	send_from(g, cg_mem_addr(g, rec, 0), 8);
}

void cg_event(struct cg *g, enum event_kind kind, struct ast_expr **args,
	      uint32_t nargs, struct cevent *proto)
{
	const struct type **types = arena_alloc(g->arena,
						sizeof(*types) * (nargs + 1));
	for (uint32_t i = 0; i < nargs; i++)
		types[i] = args[i]->type;
	const struct type *layout = type_tuple(g->arena, types, nargs);
	uint32_t *offsets = arena_alloc(g->arena,
					sizeof(*offsets) * (nargs + 1));
	for (uint32_t i = 0; i < nargs; i++)
		offsets[i] = layout->fields[i].offset;

	struct cevent ev = *proto;
	ev.kind = kind;
	ev.args = types;
	ev.offsets = offsets;
	ev.nargs = nargs;
	ev.size = layout->size;
	uint32_t id = add_event(g, &ev);

	uint32_t size = 8 + ((layout->size + 7) & ~7u);
	struct cg_mem rec = cg_stack_in_scratch(layout) ?
				    cg_scratch(g, size) :
				    cg_slot_mem(ir_slot_new(g->ir, size, 8));
	/* struct event_hdr {id, pad = 0} as one u64 store (little endian;
	 * the imm is sign-extended and id < 2^31). */
	cg_mem_storei(g, 8, rec, 0, (int32_t)id);
	/* Padding between fields reaches user space: zero it; the fields
	 * themselves are stored whole below. */
	cg_zero_gaps(g, rec, 8, layout, size - 8);
	for (uint32_t i = 0; i < nargs; i++)
		cg_store_mem(g, rec, 8 + offsets[i], types[i],
			     cg_expr(g, args[i]));
	send_from(g, cg_mem_addr(g, rec, 0), size);
}

/* join(argv [, sep]): up to JOIN_ARGS strings of JOIN_LEN bytes, too big
 * for the stack, so the record is built in the scratch. */
#define JOIN_ARGS 16
#define JOIN_LEN 64

void cg_join(struct cg *g, struct ast_expr *e)
{
	struct ast_expr *argv = e->u.call.args.items[0];
	/* argv's space is that of the strings it points to */
	int read = cg_read_fn(g, argv->type, false);
	int read_str = cg_read_fn(g, argv->type, true);
	struct type *arr = type_new(g->arena, TY_ARRAY, JOIN_ARGS * JOIN_LEN);
	arr->elem = type_string(g->arena, JOIN_LEN);
	arr->count = JOIN_ARGS;
	arr->align = 1;
	const struct type **types = arena_alloc(g->arena, sizeof(*types));
	uint32_t *offsets = arena_alloc(g->arena, sizeof(*offsets));
	types[0] = arr;
	struct cevent ev;
	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_JOIN;
	ev.args = types;
	ev.offsets = offsets;
	ev.nargs = 1;
	ev.size = arr->size;
	ev.map = -1;
	if (e->u.call.args.n == 2) {
		struct ast_expr *sep = e->u.call.args.items[1];
		ev.text = arena_strndup(g->arena, sep->u.str.bytes,
					sep->u.str.len);
	}
	uint32_t id = add_event(g, &ev);
	uint32_t size = 8 + arr->size;
	ir_reg base = cg_int(g, argv);
	ir_reg p = cg_scratch(g, size).ptr;
	ir_storei(g->ir, 8, p, 0, (int32_t)id); /* event_hdr, as above */
	ir_slot ptr = ir_slot_new(g->ir, 8, 8);
	ir_jlist last = IR_NOJUMP;
	for (uint32_t i = 0; i < JOIN_ARGS; i++) {
		ir_reg src = ir_copy(g->ir, base);
		ir_alui(g->ir, BPF_ADD, src, (int32_t)(8 * i));
		ir_reg pa = ir_reg_new(g->ir);
		ir_slot_addr(g->ir, pa, ptr, 0);
		ir_storei_slot(g->ir, 8, ptr, 0, 0);
		cg_call(g, read, 3, pa, ir_const(g->ir, 8), src);
		ir_reg q = ir_reg_new(g->ir);
		ir_load_slot(g->ir, 8, q, ptr, 0);
		int16_t off = (int16_t)(8 + i * JOIN_LEN);
		ir_storei(g->ir, 1, p, off, 0);
		ir_jlist_concat(g->ir, &last,
				ir_jmpi(g->ir, BPF_JEQ, q, 0, IR_NOLABEL));
		ir_reg dst = ir_copy(g->ir, p);
		ir_alui(g->ir, BPF_ADD, dst, off);
		cg_call(g, read_str, 3, dst, ir_const(g->ir, JOIN_LEN), q);
	}
	ir_jlist_patch_here(g->ir, last);
	send_from(g, p, size);
}
