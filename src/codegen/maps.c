/*
 * Maps: their declaration (layout per model/maplayout.h), key building,
 * reads, writes and the per-CPU aggregations (count, sum, min, max, avg,
 * stats, hist, lhist), which update in place without atomics because each
 * CPU owns its slot.
 */
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "codegen/bigstr.h"
#include "codegen/emit.h"
#include "codegen/emitters.h"
#include "codegen/maps.h"
#include "codegen/program.h"
#include "codegen/stackids.h"
#include "codegen/stacks.h"
#include "codegen/values.h"
#include "codegen/vars.h"
#include "codegen/walk.h"
#include "kernel/btf.h"
#include "kernel/features.h"
#include "model/limits.h"
#include "model/maplayout.h"
#include "util/arena.h"

/* Key-less aggregations live in per-CPU arrays (laid out as maplayout.h
 * says, so that they print as the hash bpftrace uses would): the lookup is
 * inlined by the verifier and never misses, so there is no insert path.
 * delete() must drop the value on every CPU, which a program can do only
 * to a hash. */
static bool keyless_array(const struct sema_map *sm)
{
	if (sm->key || sm->deleted || !type_is_aggregation(sm->value) ||
	    sm->value->kind == TY_TSERIES || sm->decl_type || sm->read_shared)
		return false;
	return sm->value->kind != TY_LHIST || maplayout_nbuckets(sm->value) > 0;
}

/* Whether user map m may live in a shared host (cmap.shared): key-less,
 * a plain value (aggregations are per-CPU arrays), no stacks (their
 * frames are read through the map's own entries). */
static bool shareable(const struct cmap *m)
{
	static const enum type_kind stacks[] = { TY_KSTACK, TY_USTACK,
						 TY_NONE };
	return !m->key && m->type == BPF_MAP_TYPE_HASH && !m->declared &&
	       !type_is_aggregation(m->value) && !type_holds(m->value, stacks);
}

/* Key-less plain maps of one value size share one hash (".keyless"),
 * each at its own key, when there are two or more of them. */
static void share_keyless(struct cg *g)
{
	size_t nuser = g->maps.len;
	for (size_t i = 0; i < nuser; i++) {
		struct cmap *m = &g->maps.data[i];
		if (!shareable(m) || m->shared)
			continue;
		uint32_t n = 0;
		for (size_t j = i; j < nuser; j++)
			n += shareable(&g->maps.data[j]) &&
			     g->maps.data[j].value_size == m->value_size;
		if (n < 2)
			continue;
		struct cmap h;
		memset(&h, 0, sizeof(h));
		h.name = ".keyless";
		h.type = BPF_MAP_TYPE_HASH;
		h.key_size = 8;
		h.value_size = m->value_size;
		h.max_entries = n;
		uint32_t host = (uint32_t)g->maps.len;
		uint64_t k = 0;
		for (size_t j = i; j < nuser; j++) {
			struct cmap *o = &g->maps.data[j];
			if (!shareable(o) || o->value_size != m->value_size)
				continue;
			o->shared = true;
			o->host = host;
			o->slot_key = k++;
		}
		vec_push(&g->maps, h);
	}
}

/* The key count of map mi (sema's counted: len() where the map cannot
 * be iterated): its u64 in the one .len array of all user maps, which
 * user space maps into memory to take off what clear() deletes
 * (runtime/mapdump.c). */
static void len_counter(struct cg *g, int32_t mi)
{
	if (!g->lens) {
		g->lens = cg_add_map(g, ".len", BPF_MAP_TYPE_ARRAY, 4,
				     8 * (g->sr->nmaps + 1), 1);
		g->maps.data[g->lens].flags = BPF_F_MMAPABLE;
	}
	struct cmap *m = &g->maps.data[mi];
	m->len_counter = g->lens;
	m->len_off = 8 * (uint32_t)mi; /* user maps come first */
}

/* Adds delta to map mi's key count, if it keeps one. */
static void count_keys(struct cg *g, const struct cmap *m, int32_t delta)
{
	if (m->len_counter)
		cg_counter_add(g, m->len_counter, m->len_off,
			       ir_const(g->ir, delta));
}

void cg_maps_declare(struct cg *g)
{
	const struct sema_result *sr = g->sr;
	g->user_maps = arena_alloc(g->arena, sizeof(int32_t) * (sr->nmaps + 1));
	/* Room for every map codegen may add (.events, .lost, .scratch and a
	 * .full counter per user map): cmap pointers held while a key is
	 * built in the scratch or a counter is added stay valid. */
	vec_reserve(&g->maps, 3 * (size_t)sr->nmaps + 3);
	for (uint32_t i = 0; i < sr->nmaps; i++) {
		const struct sema_map *sm = &sr->maps[i];
		struct cmap m;
		memset(&m, 0, sizeof(m));
		m.name = sm->name;
		m.is_user = true;
		m.key = sm->key;
		m.value = sm->value;
		m.key_names = sm->key_names;
		m.nkey_names = sm->nkey_names;
		m.percpu = type_is_aggregation(sm->value) && !sm->read_shared;
		m.type = m.percpu ? BPF_MAP_TYPE_PERCPU_HASH : BPF_MAP_TYPE_HASH;
		m.key_size = maplayout_key_size(sm->key, sm->value);
		m.value_size = maplayout_value_size(sm->value);
		m.max_entries = limits.map_keys_max;
		if (sm->decl_type) {
			/* let @m = TYPE(N) */
			m.type = (enum bpf_map_type)sm->decl_type;
			m.max_entries = sm->decl_max;
			m.declared = true;
		}
		if (keyless_array(sm)) {
			/* Indexed by the u32 at the start of the key slot: 0,
			 * or the low half of the u64 bucket (little endian). */
			m.type = BPF_MAP_TYPE_PERCPU_ARRAY;
			m.key_size = 4;
			m.value_size = maplayout_array_value_size(sm->value);
			m.max_entries = maplayout_array_entries(sm->value);
		}
		g->user_maps[i] = (int32_t)g->maps.len;
		vec_push(&g->maps, m);
	}
	share_keyless(g);
	for (uint32_t i = 0; i < sr->nmaps; i++)
		if (sr->maps[i].counted)
			len_counter(g, g->user_maps[i]);
}

int32_t cg_map_index(struct cg *g, const struct ast_expr *map)
{
	return g->user_maps[map->aux];
}

const struct cmap *cg_map(struct cg *g, int32_t idx)
{
	return &g->maps.data[idx];
}

static ir_reg map_ref(struct cg *g, int32_t idx)
{
	const struct cmap *m = cg_map(g, idx);
	ir_reg r = ir_reg_new(g->ir);
	ir_ld_map(g->ir, r, m->shared ? m->host : (uint32_t)idx);
	return r;
}

/* The key of map access e in a new slot (in the scratch when it holds
 * big stacks); bucket (hist/lhist) goes last. */
static struct cg_mem build_key(struct cg *g, const struct cmap *m,
			       struct ast_expr *e, ir_reg bucket)
{
	/* Key-less: a u64 (0 or the bucket), also for u32-keyed arrays.
	 * (Built whole: a key stored with stack ids is made so after.) */
	uint32_t size = m->key ? maplayout_key_size(m->key, m->value) : 8;
	struct cg_mem k = m->key ? cg_value_mem(g, m->key, size) :
		cg_slot_mem(ir_slot_new(g->ir, size, 8));
	if (!m->key) {
		if (m->shared)
			cg_store_imm(g, 8, k, 0, (int32_t)m->slot_key);
		else if (bucket == IR_NOREG)
			cg_zero_mem(g, k, 0, 8);
	} else if (e->u.map.keys.n == 1) {
		cg_store_val(g, k, 0, m->key,
			     cg_expr(g, e->u.map.keys.items[0]));
	} else {
		cg_zero_gaps(g, k, 0, m->key, m->key->size);
		for (uint32_t i = 0; i < e->u.map.keys.n; i++)
			cg_store_val(g, k, m->key->fields[i].offset,
				     m->key->fields[i].type,
				     cg_expr(g, e->u.map.keys.items[i]));
	}
	if (bucket != IR_NOREG) {
		uint32_t off = maplayout_bucket_offset(m->key);
		if (m->key && off > m->key->size)
			cg_zero_mem(g, k, m->key->size, off - m->key->size);
		cg_store_reg(g, 8, k, off, bucket);
	}
	if (m->stack_ids)
		cg_stackids_key(g, m, k);
	return k;
}

static ir_reg lookup(struct cg *g, int32_t mi, struct cg_mem key)
{
	return cg_call(g, BPF_FUNC_map_lookup_elem, 2, map_ref(g, mi),
		       cg_mem_addr(g, key, 0));
}

static ir_reg update(struct cg *g, int32_t mi, struct cg_mem key,
		     struct cg_mem val, int flags)
{
	return cg_call(g, BPF_FUNC_map_update_elem, 4, map_ref(g, mi),
		       cg_mem_addr(g, key, 0), cg_mem_addr(g, val, 0),
		       ir_const(g->ir, flags));
}

/* The map's counter of inserts lost because it was full: its u64 in
 * the one .full array of all user maps (cmap.full_counter/full_off),
 * which the runtime reports at exit. */
static uint32_t full_counter(struct cg *g, int32_t mi)
{
	if (!g->full)
		g->full = cg_add_map(g, ".full", BPF_MAP_TYPE_ARRAY, 4,
				     8 * (g->sr->nmaps + 1), 1);
	struct cmap *m = &g->maps.data[mi];
	m->full_counter = g->full;
	m->full_off = 8 * (uint32_t)mi; /* user maps come first */
	return m->full_off;
}

/* A failed insert (the map is full) counted; n: 1 if IR_NOREG. */
static void count_full(struct cg *g, int32_t mi, ir_reg n)
{
	uint32_t off = full_counter(g, mi);
	cg_counter_add(g, g->full, off, n);
}

/* count(), sum(), min(), max() or avg() read as an integer, as bpftrace
 * 0.26 reads a "castable" map: every CPU's value combined (its
 * map_lookup_percpu_elem, one lookup per possible CPU). */
static struct val percpu_read(struct cg *g, struct ast_expr *e, int32_t mi,
			      struct cg_mem key)
{
	const struct type *vt = cg_map(g, mi)->value;
	enum type_kind k = vt->kind;
	int n = libbpf_num_possible_cpus();
	if (n < 1)
		n = 1;
	ir_reg acc = ir_reg_new(g->ir), cnt = ir_reg_new(g->ir);
	ir_reg x = ir_reg_new(g->ir), y = ir_reg_new(g->ir);
	ir_movi(g->ir, acc, 0);
	ir_movi(g->ir, cnt, 0); /* avg: the count; min/max: one is set */
	bool sg = vt->is_signed;
	for (int cpu = 0; cpu < n; cpu++) {
		ir_reg p = cg_call(g, BPF_FUNC_map_lookup_percpu_elem, 3,
				   map_ref(g, mi), cg_mem_addr(g, key, 0),
				   ir_const(g->ir, cpu));
		ir_jlist skip = ir_jmpi(g->ir, BPF_JEQ, p, 0, IR_NOLABEL);
		ir_load(g->ir, 8, x, p, 0);
		if (k == TY_COUNT || k == TY_SUM) {
			ir_alu(g->ir, BPF_ADD, acc, x);
		} else if (k == TY_AVG) {
			ir_load(g->ir, 8, y, p, 8);
			ir_alu(g->ir, BPF_ADD, acc, x);
			ir_alu(g->ir, BPF_ADD, cnt, y);
		} else { /* min, max: this CPU's value if set and better */
			ir_load(g->ir, 8, y, p, 8);
			ir_jlist_concat(g->ir, &skip, ir_jmpi(g->ir, BPF_JEQ, y, 0,
							     IR_NOLABEL));
			ir_jlist first = ir_jmpi(g->ir, BPF_JEQ, cnt, 0,
						 IR_NOLABEL);
			/* compared in the argument's sign, as stored */
			int worse = k == TY_MIN ? (sg ? BPF_JSGE : BPF_JGE) :
						  (sg ? BPF_JSLE : BPF_JLE);
			ir_jlist_concat(g->ir, &skip, ir_jmp(g->ir, worse, x, acc,
							    IR_NOLABEL));
			ir_jlist_patch_here(g->ir, first);
			ir_mov(g->ir, acc, x);
			ir_movi(g->ir, cnt, 1);
		}
		ir_jlist_patch_here(g->ir, skip);
	}
	if (k == TY_AVG) {
		ir_jlist none = ir_jmpi(g->ir, BPF_JEQ, cnt, 0, IR_NOLABEL);
		if (sg)
			ir_sdiv(g->ir, acc, cnt);
		else
			ir_alu(g->ir, BPF_DIV, acc, cnt);
		ir_jlist_patch_here(g->ir, none);
	}
	return (struct val){ .kind = V_REG, .type = e->type, .reg = acc };
}

/* A count, sum or avg kept in one value for all CPUs (sema's
 * read_shared) read as an integer: 0 for a missing key, as percpu_read. */
static struct val shared_read(struct cg *g, struct ast_expr *e, int32_t mi,
			      struct cg_mem key)
{
	const struct type *vt = cg_map(g, mi)->value;
	ir_reg acc = ir_const(g->ir, 0), cnt = ir_reg_new(g->ir);
	ir_reg p = lookup(g, mi, key);
	ir_jlist none = ir_jmpi(g->ir, BPF_JEQ, p, 0, IR_NOLABEL);
	ir_load(g->ir, 8, acc, p, 0);
	if (vt->kind == TY_AVG) {
		ir_load(g->ir, 8, cnt, p, 8);
		ir_jlist_concat(g->ir, &none, ir_jmpi(g->ir, BPF_JEQ, cnt, 0,
						     IR_NOLABEL));
		if (vt->is_signed)
			ir_sdiv(g->ir, acc, cnt);
		else
			ir_alu(g->ir, BPF_DIV, acc, cnt);
	}
	ir_jlist_patch_here(g->ir, none);
	return (struct val){ .kind = V_REG, .type = e->type, .reg = acc };
}

struct val cg_map_read(struct cg *g, struct ast_expr *e)
{
	int32_t mi = cg_map_index(g, e);
	const struct cmap *m = cg_map(g, mi);
	const struct type *vt = m->value;
	struct cg_mem key = build_key(g, m, e, IR_NOREG);
	if (vt->kind >= TY_COUNT && vt->kind <= TY_AVG && e->type &&
	    e->type->kind == TY_INT)
		return m->percpu ? percpu_read(g, e, mi, key) :
				   shared_read(g, e, mi, key);
	ir_reg p = lookup(g, mi, key);
	/* a missing key reads as 0: -kk says so, as bpftrace does */
	g->at = e;
	cg_helper_check(g, BPF_FUNC_map_lookup_elem, p, true);
	if (vt->kind == TY_INT || vt->kind == TY_PTR || vt->kind == TY_BOOL) {
		ir_reg r = ir_reg_new(g->ir);
		ir_movi(g->ir, r, 0);
		ir_jlist missing = ir_jmpi(g->ir, BPF_JEQ, p, 0, IR_NOLABEL);
		ir_load(g->ir, (int)vt->size, r, p, 0);
		ir_jlist_patch_here(g->ir, missing);
		struct val v = { .kind = V_REG, .type = vt, .reg = r };
		return v;
	}
	if (cg_in_scratch(vt)) {
		/* Too big to copy to the stack: read where it is stored
		 * (cg_store_val), and a missing key (NULL) reads as zeros. */
		struct val v = { .kind = V_ADDR, .type = vt, .reg = p,
				 .own = true };
		return v;
	}
	ir_slot s = ir_slot_new(g->ir, vt->size, 8);
	cg_zero(g, s, 0, vt->size);
	ir_jlist missing = ir_jmpi(g->ir, BPF_JEQ, p, 0, IR_NOLABEL);
	ir_reg t = ir_reg_new(g->ir);
	for (uint32_t i = 0, n; i < vt->size; i += n) {
		n = cg_piece(vt->size - i, i, 0);
		ir_load(g->ir, (int)n, t, p, (int16_t)i);
		ir_store_slot(g->ir, (int)n, s, i, t);
	}
	ir_jlist_patch_here(g->ir, missing);
	struct val v = { .kind = V_MEM, .type = vt, .slot = s };
	return v;
}

/* acc += the position of n's highest set bit (n > 0; n is used up), by
 * a 6-step binary search. */
static void add_top_bit(struct cg *g, ir_reg n, ir_reg acc)
{
	for (int i = 5; i >= 0; i--) {
		int shift = 1 << i;
		int64_t limit = (int64_t)1 << shift;
		/* Jump immediates are 32 bits: only 2^32 needs a register. */
		ir_jlist small = limit <= INT32_MAX ?
			ir_jmpi(g->ir, BPF_JLT, n, (int32_t)limit, IR_NOLABEL) :
			ir_jmp(g->ir, BPF_JLT, n, ir_const(g->ir, limit),
			       IR_NOLABEL);
		ir_alui(g->ir, BPF_RSH, n, shift);
		ir_alui(g->ir, BPF_ADD, acc, shift);
		ir_jlist_patch_here(g->ir, small);
	}
}

/* log2 bucket as runtime/hist.h defines it (a 6-step binary search). */
static ir_reg log2_bucket(struct cg *g, ir_reg x)
{
	ir_reg b = ir_reg_new(g->ir);
	ir_movi(g->ir, b, 0);
	ir_jlist done = ir_jmpi(g->ir, BPF_JSLT, x, 0, IR_NOLABEL);
	ir_movi(g->ir, b, 1);
	ir_jlist_concat(g->ir, &done, ir_jmpi(g->ir, BPF_JEQ, x, 0,
					      IR_NOLABEL));
	ir_reg n = ir_copy(g->ir, x);
	ir_movi(g->ir, b, 2);
	add_top_bit(g, n, b);
	ir_jlist_patch_here(g->ir, done);
	return b;
}

/* hist(x, k)'s bucket for k > 0, maplayout.h's hist_log2k_index. */
static ir_reg log2k_bucket(struct cg *g, ir_reg x, uint32_t k)
{
	int32_t mask = (1 << k) - 1;
	ir_reg b = ir_reg_new(g->ir);
	ir_movi(g->ir, b, 0);
	ir_jlist done = ir_jmpi(g->ir, BPF_JSLT, x, 0, IR_NOLABEL);
	ir_mov(g->ir, b, x);
	ir_alui(g->ir, BPF_ADD, b, 1);
	ir_jlist_concat(g->ir, &done, ir_jmpi(g->ir, BPF_JLE, x, mask,
					      IR_NOLABEL));
	/* l: the position of the highest set bit, as log2_bucket finds it */
	ir_reg n = ir_copy(g->ir, x), l = ir_const(g->ir, 0);
	add_top_bit(g, n, l);
	ir_alui(g->ir, BPF_SUB, l, (int32_t)k);
	/* the k bits after the highest one */
	ir_reg t = ir_copy(g->ir, x);
	ir_alu(g->ir, BPF_RSH, t, l);
	ir_alui(g->ir, BPF_AND, t, mask);
	ir_mov(g->ir, b, l);
	ir_alui(g->ir, BPF_ADD, b, 1);
	ir_alui(g->ir, BPF_LSH, b, (int32_t)k);
	ir_alu(g->ir, BPF_ADD, b, t);
	ir_alui(g->ir, BPF_ADD, b, 1);
	ir_jlist_patch_here(g->ir, done);
	return b;
}

static ir_reg linear_bucket(struct cg *g, ir_reg x, const struct type *t)
{
	ir_reg b = ir_reg_new(g->ir);
	ir_movi(g->ir, b, 0);
	ir_jlist done = ir_jmp(g->ir, BPF_JSLT, x, ir_const(g->ir, t->lmin),
			       IR_NOLABEL);
	ir_movi(g->ir, b, 1 + (t->lmax - t->lmin) / t->lstep);
	ir_jlist_concat(g->ir, &done,
			ir_jmp(g->ir, BPF_JSGT, x, ir_const(g->ir, t->lmax),
			       IR_NOLABEL));
	ir_mov(g->ir, b, x);
	ir_alu(g->ir, BPF_SUB, b, ir_const(g->ir, t->lmin));
	ir_alu(g->ir, BPF_DIV, b, ir_const(g->ir, t->lstep));
	ir_alui(g->ir, BPF_ADD, b, 1);
	ir_jlist_patch_here(g->ir, done);
	return b;
}

/* Folds x into the aggregation value at p (a pointer into map m). */
static void agg_modify(struct cg *g, const struct cmap *m, ir_reg p,
		       ir_reg x)
{
	const struct type *vt = m->value;
	ir_reg t = ir_reg_new(g->ir);
	switch (vt->kind) {
	case TY_COUNT:
	case TY_HIST:
	case TY_LHIST:
		ir_load(g->ir, 8, t, p, 0);
		ir_alui(g->ir, BPF_ADD, t, 1);
		ir_store(g->ir, 8, p, 0, t);
		return;
	case TY_SUM:
		ir_load(g->ir, 8, t, p, 0);
		ir_alu(g->ir, BPF_ADD, t, x);
		ir_store(g->ir, 8, p, 0, t);
		if (m->value_size > 8)
			ir_storei(g->ir, 8, p, 8, 1); /* an array's hit word */
		return;
	case TY_AVG:
	case TY_STATS:
		ir_load(g->ir, 8, t, p, 0);
		ir_alu(g->ir, BPF_ADD, t, x);
		ir_store(g->ir, 8, p, 0, t);
		ir_load(g->ir, 8, t, p, 8);
		ir_alui(g->ir, BPF_ADD, t, 1);
		ir_store(g->ir, 8, p, 8, t);
		return;
	case TY_MIN:
	case TY_MAX: {
		ir_load(g->ir, 8, t, p, 8);
		ir_jlist unset = ir_jmpi(g->ir, BPF_JEQ, t, 0, IR_NOLABEL);
		ir_load(g->ir, 8, t, p, 0);
		bool sg = vt->is_signed;
		ir_jlist keep = ir_jmp(g->ir, vt->kind == TY_MIN ?
				       (sg ? BPF_JSGE : BPF_JGE) :
				       (sg ? BPF_JSLE : BPF_JLE),
				       x, t, IR_NOLABEL);
		ir_jlist_patch_here(g->ir, unset);
		ir_store(g->ir, 8, p, 0, x);
		ir_storei(g->ir, 8, p, 8, 1);
		ir_jlist_patch_here(g->ir, keep);
		return;
	}
	default:
		return;
	}
}

/* The value an aggregation starts from when its key is new. */
static void agg_init(struct cg *g, const struct type *vt, ir_slot s,
		     ir_reg x)
{
	switch (vt->kind) {
	case TY_COUNT:
	case TY_HIST:
	case TY_LHIST:
		ir_storei_slot(g->ir, 8, s, 0, 1);
		return;
	case TY_SUM:
		ir_store_slot(g->ir, 8, s, 0, x);
		return;
	default: /* min, max: {x, set}; avg, stats: {x, 1} */
		ir_store_slot(g->ir, 8, s, 0, x);
		ir_storei_slot(g->ir, 8, s, 8, 1);
		return;
	}
}

/* val stored at key of map mi, which counts its keys (cmap.len_counter):
 * with BPF_NOEXIST first, so that of CPUs making the key at once only
 * the one that made it counts it; one that finds it there (-EEXIST)
 * stores with flags again (a failure of BPF_ANY is a full map, of
 * BPF_EXIST a key deleted meanwhile). What a full map refuses is
 * counted. done: jumps from paths that store nothing, to the end. */
static void insert_counted(struct cg *g, int32_t mi, struct cg_mem key,
			   struct cg_mem val, int again, ir_jlist done)
{
	ir_reg n = update(g, mi, key, val, BPF_NOEXIST);
	ir_jlist made = ir_jmpi(g->ir, BPF_JEQ, n, 0, IR_NOLABEL);
	ir_jlist full = ir_jmpi(g->ir, BPF_JNE, n, -EEXIST, IR_NOLABEL);
	ir_reg r = update(g, mi, key, val, again);
	ir_jlist_concat(g->ir, &done, again == BPF_EXIST ?
			ir_ja(g->ir, IR_NOLABEL) :
			ir_jmpi(g->ir, BPF_JEQ, r, 0, IR_NOLABEL));
	ir_jlist_patch_here(g->ir, full);
	count_full(g, mi, IR_NOREG);
	ir_jlist_concat(g->ir, &done, ir_ja(g->ir, IR_NOLABEL));
	ir_jlist_patch_here(g->ir, made);
	count_keys(g, cg_map(g, mi), 1);
	ir_jlist_patch_here(g->ir, done);
}

/* The first value of a key, init, stored; what a full map refuses is
 * counted. done: the jumps of the paths that need no store. */
static struct val store_new(struct cg *g, int32_t mi, struct cg_mem key,
			    ir_slot init, ir_jlist done)
{
	const struct cmap *m = cg_map(g, mi);
	if (m->len_counter) {
		/* one that finds it made since its lookup (-EEXIST) stores
		 * its own slot (BPF_ANY on a per-CPU hash) */
		insert_counted(g, mi, key, cg_slot_mem(init), BPF_ANY, done);
		return cg_no_val();
	}
	ir_reg r = update(g, mi, key, cg_slot_mem(init), BPF_ANY);
	ir_jlist_concat(g->ir, &done, ir_jmpi(g->ir, BPF_JEQ, r, 0,
					      IR_NOLABEL));
	count_full(g, mi, IR_NOREG);
	ir_jlist_patch_here(g->ir, done);
	return cg_no_val();
}


/* count(), sum(x) or avg(x) into a value all CPUs share (sema's
 * read_shared): added to atomically. A new key is made zero first with
 * BPF_NOEXIST, so that of two CPUs making it at once neither overwrites
 * the other's count (-EEXIST: the other made it), then looked up again
 * and added to. What a full map refuses is counted. */
static struct val shared_aggregate(struct cg *g, int32_t mi,
				   struct cg_mem key, ir_reg x)
{
	const struct cmap *m = cg_map(g, mi);
	enum type_kind k = m->value->kind;
	ir_reg p = lookup(g, mi, key);
	ir_jlist found = ir_jmpi(g->ir, BPF_JNE, p, 0, IR_NOLABEL);
	ir_slot zero = ir_slot_new(g->ir, m->value_size, 8);
	cg_zero_mem(g, cg_slot_mem(zero), 0, m->value_size);
	ir_reg r = update(g, mi, key, cg_slot_mem(zero), BPF_NOEXIST);
	ir_jlist made = ir_jmpi(g->ir, BPF_JEQ, r, 0, IR_NOLABEL);
	ir_jlist there = ir_jmpi(g->ir, BPF_JEQ, r, -EEXIST, IR_NOLABEL);
	count_full(g, mi, IR_NOREG);
	ir_jlist done = ir_ja(g->ir, IR_NOLABEL);
	ir_jlist_patch_here(g->ir, made);
	count_keys(g, m, 1);
	ir_jlist_patch_here(g->ir, there);
	ir_mov(g->ir, p, lookup(g, mi, key));
	ir_jlist_concat(g->ir, &done, ir_jmpi(g->ir, BPF_JEQ, p, 0,
					     IR_NOLABEL));
	ir_jlist_patch_here(g->ir, found);
	ir_reg one = ir_const(g->ir, 1);
	ir_atomic_add(g->ir, 8, p, 0, k == TY_COUNT ? one : x);
	if (k == TY_AVG)
		ir_atomic_add(g->ir, 8, p, 8, one);
	ir_jlist_patch_here(g->ir, done);
	return cg_no_val();
}

/* @map = count(), sum(x) ...: the aggregation's update of map. */
struct val cg_bi_aggregate(struct cg *g, struct ast_expr *call,
			   struct ast_expr *map)
{
	int32_t mi = cg_map_index(g, map);
	const struct cmap *m = cg_map(g, mi);
	const struct type *vt = m->value;
	ir_reg x = IR_NOREG, bucket = IR_NOREG;
	if (call->u.call.args.n)
		x = cg_int(g, call->u.call.args.items[0]);
	if (vt->kind == TY_HIST)
		bucket = vt->hbits ? log2k_bucket(g, x, vt->hbits) :
				     log2_bucket(g, x);
	else if (vt->kind == TY_LHIST)
		bucket = linear_bucket(g, x, vt);
	struct cg_mem key = build_key(g, m, map, bucket);
	if (!m->percpu)
		return shared_aggregate(g, mi, key, x);
	ir_reg p = lookup(g, mi, key);
	ir_jlist fresh = ir_jmpi(g->ir, BPF_JEQ, p, 0, IR_NOLABEL);
	agg_modify(g, m, p, x);
	if (m->type == BPF_MAP_TYPE_PERCPU_ARRAY) {
		/* Every index exists: NULL only for an out-of-range one. */
		ir_jlist_patch_here(g->ir, fresh);
		return cg_no_val();
	}
	ir_jlist done = ir_ja(g->ir, IR_NOLABEL);
	ir_jlist_patch_here(g->ir, fresh);
	ir_slot init = ir_slot_new(g->ir, m->value_size, 8);
	agg_init(g, vt, init, x);
	/* BPF_ANY on a per-CPU hash writes this CPU's slot only, and a new
	 * element has every other CPU's slot zeroed: if another CPU created
	 * the key since our lookup, its count is kept and ours is stored
	 * beside it, so there is no need to look up again. It fails only
	 * when the key is new and the map is full: counted. */
	return store_new(g, mi, key, init, done);
}

/* CLOCK_TAI - CLOCK_BOOTTIME now, in ns: what a kernel without
 * bpf_ktime_get_tai_ns (before 6.1) adds to its boot clock so that
 * tseries' intervals start where they would on CLOCK_TAI (a wall-clock
 * second, say). Read once, at compile time: a clock step after that
 * shifts the printed times by the step, as it would not on 6.1. */
static int64_t tai_minus_boot(void)
{
	struct timespec tai, boot;
	clock_gettime(CLOCK_TAI, &tai);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	return (int64_t)(tai.tv_sec - boot.tv_sec) * 1000000000 +
	       (tai.tv_nsec - boot.tv_nsec);
}

/* The clock tseries() reads: CLOCK_TAI (bpftrace 0.26's sw_tai; before
 * Linux 6.1 the boot clock plus the offset to it), or with
 * BPFTRACE_DUMMY_TS_MAP=@m the value of key-less map @m, as 0.26 reads
 * it for its tests (a script steps time through @m). */
static ir_reg tseries_now(struct cg *g)
{
	const char *dummy = getenv("BPFTRACE_DUMMY_TS_MAP");
	for (uint32_t i = 0; dummy && i < g->sr->nmaps; i++) {
		const struct sema_map *sm = &g->sr->maps[i];
		if (strcmp(sm->name, dummy) || sm->key ||
		    sm->value->kind != TY_INT)
			continue;
		struct ast_expr e;
		memset(&e, 0, sizeof(e));
		e.kind = E_MAP;
		e.u.map.name = sm->name;
		e.aux = (int32_t)i;
		e.type = sm->value;
		return cg_to_reg(g, cg_map_read(g, &e));
	}
	if (feat_has(FEAT_KTIME_TAI))
		return cg_call(g, BPF_FUNC_ktime_get_tai_ns, 0);
	ir_reg now = cg_call(g, BPF_FUNC_ktime_get_boot_ns, 0);
	ir_reg off = ir_const(g->ir, tai_minus_boot());
	ir_alu(g->ir, BPF_ADD, now, off);
	return now;
}

/* Folds x into the tseries value at p (in the map, or a new one on the
 * stack), as bpftrace 0.26's codegen does: an aggregating interval
 * starts over when its bucket last held another epoch. */
static void tseries_modify(struct cg *g, const struct type *vt, ir_reg p,
			   ir_reg x, ir_reg now, ir_reg epoch)
{
	ir_reg t = ir_reg_new(g->ir);
	if (vt->lstep != TSERIES_LAST) {
		ir_load(g->ir, 8, t, p, 16);
		ir_jlist same = ir_jmp(g->ir, BPF_JEQ, t, epoch, IR_NOLABEL);
		ir_storei(g->ir, 8, p, 0, 0);
		ir_storei(g->ir, 8, p, 8, 0);
		ir_jlist_patch_here(g->ir, same);
	}
	switch (vt->lstep) {
	case TSERIES_AVG:
		ir_load(g->ir, 8, t, p, 8);
		ir_alui(g->ir, BPF_ADD, t, 1);
		ir_store(g->ir, 8, p, 8, t);
		/* fall through */
	case TSERIES_SUM:
		ir_load(g->ir, 8, t, p, 0);
		ir_alu(g->ir, BPF_ADD, t, x);
		ir_store(g->ir, 8, p, 0, t);
		break;
	case TSERIES_MIN:
	case TSERIES_MAX: {
		bool max = vt->lstep == TSERIES_MAX;
		int keep_if = vt->is_signed ? (max ? BPF_JSLE : BPF_JSGE) :
					      (max ? BPF_JLE : BPF_JGE);
		ir_load(g->ir, 8, t, p, 8);
		ir_jlist unset = ir_jmpi(g->ir, BPF_JEQ, t, 0, IR_NOLABEL);
		ir_load(g->ir, 8, t, p, 0);
		ir_jlist keep = ir_jmp(g->ir, keep_if, x, t, IR_NOLABEL);
		ir_jlist_patch_here(g->ir, unset);
		ir_store(g->ir, 8, p, 0, x);
		ir_jlist_patch_here(g->ir, keep);
		ir_storei(g->ir, 8, p, 8, 1);
		break;
	}
	default: /* the last value, and when (the newest wins a merge) */
		ir_store(g->ir, 8, p, 0, x);
		ir_store(g->ir, 8, p, 8, now);
		break;
	}
	ir_store(g->ir, 8, p, 16, epoch);
}

/* @m = tseries(v, interval, n[, agg]): the bucket of the current
 * interval (epoch = now / interval, bucket = epoch % n) updated in this
 * CPU's slot; the runtime merges the CPUs' slots of the newest epoch. */
struct val cg_bi_tseries(struct cg *g, struct ast_expr *call,
			 struct ast_expr *map)
{
	int32_t mi = cg_map_index(g, map);
	const struct cmap *m = cg_map(g, mi);
	const struct type *vt = m->value;
	ir_reg now = tseries_now(g);
	ir_reg epoch = ir_copy(g->ir, now);
	ir_alu(g->ir, BPF_DIV, epoch, ir_const(g->ir, vt->lmin));
	ir_reg bucket = ir_copy(g->ir, epoch);
	ir_alu(g->ir, BPF_MOD, bucket, ir_const(g->ir, vt->lmax));
	ir_reg x = cg_int(g, call->u.call.args.items[0]);
	struct cg_mem key = build_key(g, m, map, bucket);
	ir_reg p = lookup(g, mi, key);
	ir_jlist fresh = ir_jmpi(g->ir, BPF_JEQ, p, 0, IR_NOLABEL);
	tseries_modify(g, vt, p, x, now, epoch);
	ir_jlist done = ir_ja(g->ir, IR_NOLABEL);
	ir_jlist_patch_here(g->ir, fresh);
	ir_slot init = ir_slot_new(g->ir, 24, 8);
	cg_zero(g, init, 0, 24);
	ir_reg ip = ir_reg_new(g->ir);
	ir_slot_addr(g->ir, ip, init, 0);
	tseries_modify(g, vt, ip, x, now, epoch);
	return store_new(g, mi, key, init, done);
}

void cg_map_store(struct cg *g, struct ast_expr *map, struct val v)
{
	int32_t mi = cg_map_index(g, map);
	const struct cmap *m = cg_map(g, mi);
	struct cg_mem key = build_key(g, m, map, IR_NOREG);
	struct cg_mem val = cg_value_mem(g, m->value, m->value_size);
	cg_store_val(g, val, 0, m->value, v);
	if (m->len_counter) {
		/* an existing key replaced (BPF_EXIST: if another CPU deleted
		 * it meanwhile, as if it did so after) */
		insert_counted(g, mi, key, val, BPF_EXIST, IR_NOJUMP);
		return;
	}
	ir_reg r = update(g, mi, key, val, BPF_ANY);
	/* An array, or a key-less map's one entry, is never full. */
	if (m->type == BPF_MAP_TYPE_PERCPU_ARRAY ||
	    m->type == BPF_MAP_TYPE_ARRAY || !m->key)
		return;
	/* A new key in a full hash map fails: counted, as for the
	 * aggregations, and reported at exit. */
	if (g->loops.len) {
		/* In a while loop a branch would leave the verifier a state
		 * to explore per iteration (8193 is its limit): add the sign
		 * bit of the helper's result (1 on failure) instead. */
		ir_reg failed = ir_copy(g->ir, r);
		ir_alui(g->ir, BPF_RSH, failed, 63);
		count_full(g, mi, failed);
		return;
	}
	ir_jlist done = ir_jmpi(g->ir, BPF_JEQ, r, 0, IR_NOLABEL);
	count_full(g, mi, IR_NOREG);
	ir_jlist_patch_here(g->ir, done);
}

ir_reg cg_map_incdec(struct cg *g, struct ast_expr *map, int delta, bool post)
{
	ir_reg old = cg_to_reg(g, cg_map_read(g, map));
	ir_reg nv = ir_copy(g->ir, old);
	ir_alui(g->ir, BPF_ADD, nv, delta);
	struct val v = { .kind = V_REG, .type = map->type, .reg = nv };
	cg_map_store(g, map, v);
	return post ? old : nv;
}

/* delete(@m, k), delete(@m), delete(@m[k]): 1 if the key was there. */
struct val cg_bi_delete(struct cg *g, struct ast_expr *call,
			struct ast_expr *tg)
{
	struct ast_expr *map = call->u.call.map_key ? call->u.call.map_key :
						      call->u.call.args.items[0];
	int32_t mi = cg_map_index(g, map);
	const struct cmap *m = cg_map(g, mi);
	/* sema refuses it for a histogram (TY_HIST/TY_LHIST) */
	struct cg_mem key = build_key(g, m, map, IR_NOREG);
	g->at = call; /* a failure is the call's, not its key's */
	ir_reg r = cg_call(g, BPF_FUNC_map_delete_elem, 2, map_ref(g, mi),
			   cg_mem_addr(g, key, 0));
	if (m->len_counter) { /* a key that was there is one fewer */
		ir_jlist gone = ir_jmpi(g->ir, BPF_JNE, r, 0, IR_NOLABEL);
		count_keys(g, m, -1);
		ir_jlist_patch_here(g->ir, gone);
	}
	/* 0 or -errno: the sign bit, flipped, without a branch (a value
	 * nobody reads costs nothing: it is dead code) */
	ir_alui(g->ir, BPF_RSH, r, 63);
	ir_alui(g->ir, BPF_XOR, r, 1);
	struct val v = { .kind = V_REG, .type = call->type, .reg = r };
	return v;
}

/* has_key(@m, k): whether the lookup finds the key (no value is read). */
struct val cg_bi_has_key(struct cg *g, struct ast_expr *call,
			 struct ast_expr *tg)
{
	struct ast_expr *map = call->u.call.map_key;
	int32_t mi = cg_map_index(g, map);
	const struct cmap *m = cg_map(g, mi);
	struct cg_mem key = build_key(g, m, map, IR_NOREG);
	ir_reg p = lookup(g, mi, key);
	ir_reg r = ir_const(g->ir, 0);
	ir_jlist missing = ir_jmpi(g->ir, BPF_JEQ, p, 0, IR_NOLABEL);
	ir_movi(g->ir, r, 1);
	ir_jlist_patch_here(g->ir, missing);
	struct val v = { .kind = V_REG, .type = call->type, .reg = r };
	return v;
}

/* find(@m, key, $v): 1 and the value stored in $v when the key is
 * there (read where the lookup points, with no second lookup), else 0
 * and $v as it was. */
struct val cg_bi_find(struct cg *g, struct ast_expr *call,
		      struct ast_expr *tg)
{
	struct ast_expr *map = call->u.call.map_key;
	struct cg_var *var = cg_find_var(g, call->u.call.args.items[2]->aux);
	int32_t mi = cg_map_index(g, map);
	const struct cmap *m = cg_map(g, mi);
	const struct type *vt = m->value;
	struct cg_mem key = build_key(g, m, map, IR_NOREG);
	ir_reg p = lookup(g, mi, key);
	ir_reg r = ir_const(g->ir, 0);
	ir_jlist missing = ir_jmpi(g->ir, BPF_JEQ, p, 0, IR_NOLABEL);
	struct val x = { .kind = V_ADDR, .type = vt, .reg = p, .own = true,
			 .direct = true };
	if (vt->kind == TY_INT || vt->kind == TY_PTR || vt->kind == TY_BOOL) {
		ir_reg t = ir_reg_new(g->ir);
		ir_load(g->ir, (int)vt->size, t, p, 0);
		cg_extend(g, t, vt->size, vt->kind == TY_INT && vt->is_signed);
		x = (struct val){ .kind = V_REG, .type = vt, .reg = t };
	}
	if (var->reg != IR_NOREG)
		ir_mov(g->ir, var->reg, cg_to_reg(g, x));
	else
		cg_store_val(g, var->mem, 0, var->type, x);
	ir_movi(g->ir, r, 1);
	ir_jlist_patch_here(g->ir, missing);
	return (struct val){ .kind = V_REG, .type = call->type, .reg = r };
}

/* len(@m): the kernel's count of the map's elements (sema checked that
 * the kfunc exists); len(stack): the stack's frame count, its first u64. */
struct val cg_bi_len(struct cg *g, struct ast_expr *call,
		     struct ast_expr *tg)
{
	struct ast_expr *a = call->u.call.args.items[0];
	if (a->kind != E_MAP) {
		const struct type *t = a->type;
		struct cg_mem mem = cg_value_mem(g, t, t->size);
		cg_store_val(g, mem, 0, t, cg_expr(g, a));
		ir_reg r = ir_reg_new(g->ir);
		if (mem.ptr != IR_NOREG)
			ir_load(g->ir, 8, r, mem.ptr, 0);
		else
			ir_load_slot(g->ir, 8, r, mem.slot, 0);
		struct val v = { .kind = V_REG, .type = call->type, .reg = r };
		return v;
	}
	int32_t mi = cg_map_index(g, a);
	const struct cmap *m = cg_map(g, mi);
	int32_t id = kbtf_kfunc_id("bpf_map_sum_elem_count");
	ir_reg r;
	if (m->len_counter) { /* the program's own count (sema's counted) */
		ir_reg p = ir_reg_new(g->ir);
		r = ir_reg_new(g->ir);
		ir_ld_map_value(g->ir, p, (uint32_t)m->len_counter, m->len_off);
		ir_load(g->ir, 8, r, p, 0);
	} else if (id > 0) {
		ir_reg args[1] = { map_ref(g, cg_map_index(g, a)) };
		r = ir_reg_new(g->ir);
		ir_kfunc_call(g->ir, r, id, args, 1);
	} else {
		r = cg_count_elems(g, call, cg_map_index(g, a));
	}
	struct val v = { .kind = V_REG, .type = call->type, .reg = r };
	return v;
}

ir_reg cg_count_elems(struct cg *g, struct ast_expr *e, int32_t mi)
{
	/* the callback: return 0, go on */
	struct ir *cb = ir_new();
	ir_reg z = ir_reg_new(cb);
	ir_movi(cb, z, 0);
	ir_exit(cb, z);
	struct bpf_code code;
	ir_reg r = ir_reg_new(g->ir);
	ir_movi(g->ir, r, 0);
	if (ir_compile(cb, &code) < 0) {
		cg_error(g, e->span, "cannot compile len()'s count of the map: "
			 "%s", ir_error(cb));
		ir_free(cb);
		return r;
	}
	ir_free(cb);
	uint32_t fid = (uint32_t)g->fns.len;
	vec_push(&g->fns, code);
	/* the helper wants a context on the stack, which the callback never
	 * reads */
	ir_slot cs = ir_slot_new(g->ir, 8, 8);
	ir_storei_slot(g->ir, 8, cs, 0, 0);
	ir_reg fp = ir_reg_new(g->ir), mp = ir_reg_new(g->ir);
	ir_ld_func(g->ir, fp, fid);
	ir_ld_map(g->ir, mp, (uint32_t)mi);
	ir_reg n = cg_call(g, BPF_FUNC_for_each_map_elem, 4, mp, fp,
			   cg_mem_addr(g, cg_slot_mem(cs), 0),
			   ir_const(g->ir, 0));
	ir_mov(g->ir, r, n);
	return r;
}
