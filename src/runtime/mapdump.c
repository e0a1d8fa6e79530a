#include "mapdump.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "model/compiled.h"
#include "model/maplayout.h"
#include "model/stackids.h"
#include "model/types.h"
#include "runtime/hist.h"
#include "runtime/output.h"
#include "runtime/stackids.h"
#include "runtime/stdsort.h"
#include "runtime/tseries.h"
#include "runtime/value_fmt.h"
#include "util/xalloc.h"

static bool is_hist(const struct type *v)
{
	return v->kind == TY_HIST || v->kind == TY_LHIST;
}

void mapdump_entries_free(struct mapdump_entries *r)
{
	free(r->keys);
	free(r->vals);
}

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static void put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* count/sum/hist add up (sum's hit word too); min/max look only at CPUs
 * that set a value; avg/stats add sums and counts. */
static void merge(const struct type *vt, const uint8_t *buf, int ncpu,
		  uint32_t slot, uint8_t *out, uint32_t vsize)
{
	if (vt->kind == TY_TSERIES) {
		tseries_merge(vt, buf, ncpu, slot, out);
		return;
	}
	memcpy(out, buf, vsize);
	if (ncpu == 1)
		return;
	switch (vt->kind) {
	case TY_COUNT: case TY_SUM: case TY_HIST: case TY_LHIST:
		for (uint32_t w = 0; w + 8 <= vsize; w += 8) {
			uint64_t s = 0;
			for (int c = 0; c < ncpu; c++)
				s += u64_at(buf + (size_t)c * slot + w);
			put_u64(out + w, s);
		}
		break;
	case TY_AVG: case TY_STATS: {
		uint64_t sum = 0, count = 0;
		for (int c = 0; c < ncpu; c++) {
			sum += u64_at(buf + (size_t)c * slot);
			count += u64_at(buf + (size_t)c * slot + 8);
		}
		put_u64(out, sum);
		put_u64(out + 8, count);
		break;
	}
	case TY_MIN: case TY_MAX: {
		bool set = false;
		uint64_t best = 0;
		/* unsigned ones compare above 2^63 as themselves */
		uint64_t flip = vt->is_signed ? (uint64_t)1 << 63 : 0;
		for (int c = 0; c < ncpu; c++) {
			const uint8_t *p = buf + (size_t)c * slot;
			uint64_t v = u64_at(p);
			if (!u64_at(p + 8))
				continue;
			if (!set || (vt->kind == TY_MIN ? (v ^ flip) < (best ^ flip) :
						       (v ^ flip) > (best ^ flip)))
				best = v;
			set = true;
		}
		put_u64(out, best);
		put_u64(out + 8, set);
		break;
	}
	default:
		break; /* plain values are not per-CPU: CPU 0's copy */
	}
}

static int num_cpus(const struct mapdump_map *m)
{
	return m->percpu ? libbpf_num_possible_cpus() : 1;
}

static bool is_array_fd(int fd)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return false;
	return info.type == BPF_MAP_TYPE_ARRAY ||
	       info.type == BPF_MAP_TYPE_PERCPU_ARRAY;
}

/* A key-less aggregation in a per-CPU array (see mapdump.h). Object
 * mode's arrays hold plain values and are read as any map. */
static bool is_agg_array(const struct mapdump_map *m)
{
	return !m->key && type_is_aggregation(m->value) && is_array_fd(m->fd);
}

static uint32_t value_size(const struct mapdump_map *m, bool agg_array)
{
	return agg_array ? maplayout_array_value_size(m->value) :
			   maplayout_value_size(m->value);
}

/* A key's bytes as the map holds them: with stack ids in place of the
 * stacks where the keys are so stored (runtime/stackids.h). */
static uint32_t stored_key_size(const struct mapdump_map *m)
{
	return m->ids_prog ? stackids_key_size(m->key, m->value) :
			     maplayout_key_size(m->key, m->value);
}

struct mapdump_map mapdump_map_of(const struct compiled *c, const int *fds,
				  uint32_t i)
{
	const struct cmap *m = &c->maps[i];
	return (struct mapdump_map){
		.name = m->name, .fd = fds[i], .key = m->key,
		.value = m->value, .percpu = m->percpu, .shared = m->shared,
		.slot_key = m->slot_key, .ids_prog = m->stack_ids ? c : NULL,
		.ids_fds = m->stack_ids ? fds : NULL,
		.len_fd = m->len_counter ? fds[m->len_counter] : 0,
		.len_off = m->len_off,
	};
}

/* Room for the one entry of a key-less map, zeroed. */
static void one_entry(struct mapdump_entries *r)
{
	r->cap = 1;
	r->keys = xcalloc(1, r->ksize);
	r->vals = xcalloc(1, r->vsize);
}

/* Entry 0 of a count/sum/min/max/avg/stats array: present once some CPU
 * wrote it (a count above 0, else the second word, merged) or zero()
 * marked it (entry 1). */
static int read_value_array(const struct mapdump_map *m,
			    struct mapdump_entries *r, uint8_t *buf, int ncpu,
			    uint32_t slot)
{
	uint32_t k = 0;
	int err = bpf_map_lookup_elem(m->fd, &k, buf);
	if (err)
		return err;
	one_entry(r);
	merge(m->value, buf, ncpu, slot, r->vals, r->vsize);
	bool live = u64_at(r->vals + (m->value->kind == TY_COUNT ? 0 : 8));
	k = 1;
	if (!live && !(err = bpf_map_lookup_elem(m->fd, &k, buf)))
		live = u64_at(buf);
	if (err) {
		mapdump_entries_free(r);
		memset(r, 0, sizeof(*r));
		return err;
	}
	r->n = live;
	return 0;
}

/* Adds one entry (its per-CPU values merged) at r->n; r->n is not
 * advanced, the caller decides whether the entry counts. */
static void append(struct mapdump_entries *r, const struct mapdump_map *m,
		   const uint8_t *key, const uint8_t *buf, int ncpu,
		   uint32_t slot)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->keys = xreallocarray(r->keys, r->cap, r->ksize);
		r->vals = xreallocarray(r->vals, r->cap,
					r->vsize ? r->vsize : 1);
	}
	memcpy(r->keys + r->n * r->ksize, key, r->ksize);
	merge(m->value, buf, ncpu, slot, r->vals + r->n * r->vsize, r->vsize);
}

static int read_stored(const struct mapdump_map *m,
		       struct mapdump_entries *r);

/* A hash read with BPF_MAP_LOOKUP_BATCH: a syscall per 1024 entries
 * instead of two per entry. -EINVAL/-ENOTSUP when the kernel or map type
 * cannot (nothing read then). */
static int read_batch(const struct mapdump_map *m, struct mapdump_entries *r,
		      int ncpu, uint32_t slot)
{
	uint32_t chunk = 1024;
	size_t vstride = (size_t)ncpu * slot;
	/* the batch tokens are a bucket index for hashes; room for a key */
	uint8_t *in = xcalloc(2, r->ksize + 8), *out = in + r->ksize + 8;
	uint8_t *kb = xmalloc((size_t)chunk * r->ksize);
	uint8_t *vb = xmalloc(chunk * (vstride ? vstride : 1));
	bool first = true;
	int err;
	for (;;) {
		uint32_t count = chunk;
		err = bpf_map_lookup_batch(m->fd, first ? NULL : in, out, kb,
					   vb, &count, NULL);
		if (err && err != -ENOENT)
			break;
		for (uint32_t i = 0; i < count; i++) {
			append(r, m, kb + (size_t)i * r->ksize,
			       vb + i * vstride, ncpu, slot);
			r->n++;
		}
		if (err == -ENOENT) {
			err = 0;
			break;
		}
		memcpy(in, out, r->ksize + 8);
		first = false;
	}
	free(vb);
	free(kb);
	free(in);
	return err;
}

/* Reads m as mapdump_read, batched where the kernel can. */
static int read_fast(const struct mapdump_map *m, struct mapdump_entries *r)
{
	if (m->shared || is_array_fd(m->fd))
		return read_stored(m, r);
	memset(r, 0, sizeof(*r));
	r->ksize = stored_key_size(m);
	r->vsize = maplayout_value_size(m->value);
	int ncpu = num_cpus(m);
	if (ncpu < 0)
		return ncpu;
	uint32_t slot = m->percpu ? maplayout_percpu_stride(r->vsize) : r->vsize;
	int err = read_batch(m, r, ncpu, slot);
	if (err) {
		mapdump_entries_free(r);
		return read_stored(m, r); /* no batch ops: key by key */
	}
	return 0;
}

/* The keys read as stored made whole (stack ids back to stacks). */
static int whole_keys(const struct mapdump_map *m, struct mapdump_entries *r,
		      int err)
{
	if (err || !m->ids_prog)
		return err;
	return stackids_expand_entries(m, r);
}

int mapdump_read_fast(const struct mapdump_map *m, struct mapdump_entries *r)
{
	int err = whole_keys(m, r, read_fast(m, r));
	/* a key-less count() not yet hit is a counter at 0 */
	if (!err && !m->key && m->value->kind == TY_COUNT && !r->n) {
		mapdump_entries_free(r);
		one_entry(r);
		r->n = 1;
	}
	return err;
}

/* A shared key-less map (m->shared): its one key of the host, if set. */
static int read_shared(const struct mapdump_map *m, struct mapdump_entries *r)
{
	one_entry(r);
	uint64_t k = m->slot_key;
	int err = bpf_map_lookup_elem(m->fd, &k, r->vals);
	if (err == -ENOENT || (err && errno == ENOENT)) {
		memset(r->vals, 0, r->vsize);
		return 0;
	}
	if (err) {
		mapdump_entries_free(r);
		memset(r, 0, sizeof(*r));
		return err;
	}
	r->n = 1;
	return 0;
}

/* Every entry, its key as the map holds it. */
static int read_stored(const struct mapdump_map *m, struct mapdump_entries *r)
{
	memset(r, 0, sizeof(*r));
	if (m->shared) {
		r->ksize = stored_key_size(m);
		r->vsize = value_size(m, false);
		return read_shared(m, r);
	}
	bool agg_array = is_agg_array(m);
	r->ksize = stored_key_size(m);
	r->vsize = value_size(m, agg_array);
	int ncpu = num_cpus(m);
	if (ncpu < 0)
		return ncpu;
	uint32_t slot = m->percpu ? maplayout_percpu_stride(r->vsize) : r->vsize;
	uint8_t *buf = xcalloc((size_t)ncpu, slot ? slot : 1);
	if (agg_array && !is_hist(m->value)) {
		int err = read_value_array(m, r, buf, ncpu, slot);
		free(buf);
		return err;
	}
	uint8_t *prev = xcalloc(2, r->ksize), *key = prev + r->ksize;
	bool first = true, hist_array = agg_array && is_hist(m->value);
	int err;
	while ((err = bpf_map_get_next_key(m->fd, first ? NULL : prev, key)) ==
	       0) {
		first = false;
		memcpy(prev, key, r->ksize);
		err = bpf_map_lookup_elem(m->fd, key, buf);
		if (err == -ENOENT)
			continue; /* deleted under us */
		if (err)
			break;
		append(r, m, key, buf, ncpu, slot);
		/* Array-backed histograms hold every bucket: a zero one was
		 * never hit, and a hash map would not hold it. The slot past
		 * the last bucket is set by zero(): it keeps the (all-zero)
		 * histogram printed, as the zeroed keys of a hash would. */
		if (!hist_array || u64_at(r->vals + r->n * r->vsize))
			r->n++;
	}
	free(buf);
	free(prev);
	if (err != -ENOENT) {
		mapdump_entries_free(r);
		return err;
	}
	return 0;
}

int mapdump_read(const struct mapdump_map *m, struct mapdump_entries *r)
{
	return whole_keys(m, r, read_stored(m, r));
}

/* A printable entry and the number it is ranked by. */
struct item {
	struct out_entry e;
	uint64_t rank;
};

static bool by_rank_signed(const void *a, const void *b, void *ctx)
{
	return (int64_t)((const struct item *)a)->rank <
	       (int64_t)((const struct item *)b)->rank;
}

static bool by_rank_unsigned(const void *a, const void *b, void *ctx)
{
	return ((const struct item *)a)->rank < ((const struct item *)b)->rank;
}

/* Key bytes, as bpftrace's std::map<std::vector<uint8_t>, ...>. */
static bool by_key_bytes(const void *a, const void *b, void *ctx)
{
	size_t len = *(const size_t *)ctx;
	return memcmp(((const struct item *)a)->e.key,
		      ((const struct item *)b)->e.key, len) < 0;
}

/* One key argument: ints as signed (bpftrace 0.26's sort_by_key reads
 * them as int64/int32/...), strings with strncmp; other kinds are left in
 * place. */
static int cmp_arg(const struct type *t, const uint8_t *a, const uint8_t *b)
{
	if (t->kind == TY_INT || t->kind == TY_BOOL) {
		int64_t x = (int64_t)vfmt_load_int(a, t->size, true);
		int64_t y = (int64_t)vfmt_load_int(b, t->size, true);
		return x < y ? -1 : x > y;
	}
	if (t->kind == TY_STRING)
		return strncmp((const char *)a, (const char *)b, t->size);
	return 0;
}

/* bpftrace's sort_by_key: stable sorts by the last argument, then the one
 * before, ...: the same as a stable sort on all arguments in order. */
static bool by_key_args(const void *a, const void *b, void *ctx)
{
	const struct type *k = ctx;
	const uint8_t *x = ((const struct item *)a)->e.key;
	const uint8_t *y = ((const struct item *)b)->e.key;
	if (k->kind != TY_TUPLE)
		return cmp_arg(k, x, y) < 0;
	for (uint32_t i = 0; i < k->nfields; i++) {
		uint32_t off = k->fields[i].offset;
		int c = cmp_arg(k->fields[i].type, x + off, y + off);
		if (c)
			return c < 0;
	}
	return false;
}

const char *mapdump_value_name(const struct type *v)
{
	switch (v->kind) {
	case TY_COUNT: return "count()";
	case TY_SUM: return "sum()";
	case TY_AVG: return "avg()";
	case TY_MIN: return "min()";
	case TY_MAX: return "max()";
	case TY_STATS: return "stats()";
	case TY_HIST: return "hist()";
	case TY_LHIST: return "lhist()";
	case TY_TSERIES: return "tseries()";
	default: return "a value";
	}
}

/* Hist entries grouped by key prefix, in key-byte order. Each group's
 * buckets are allocated in *bufs (one block). */
static size_t group_hist(const struct mapdump_map *m, const struct mapdump_entries *r,
			 struct item *items, uint64_t **bufs)
{
	size_t plen = m->key ? m->key->size : 0;
	uint32_t boff = maplayout_bucket_offset(m->key);
	uint32_t nb = maplayout_nbuckets(m->value);
	struct item **order = xmalloc((r->n ? r->n : 1) * sizeof(*order));
	for (size_t i = 0; i < r->n; i++) {
		items[i].e.key = r->keys + i * r->ksize;
		items[i].rank = u64_at(r->vals + i * r->vsize);
		order[i] = &items[i];
	}
	stdsort_stable((void **)order, r->n, by_key_bytes, &plen);
	*bufs = xcalloc((r->n ? r->n : 1) * (nb ? nb : 1), sizeof(uint64_t));
	struct item *groups = xmalloc((r->n ? r->n : 1) * sizeof(*groups));
	size_t ng = 0;
	for (size_t i = 0; i < r->n; i++) {
		const uint8_t *k = order[i]->e.key;
		if (!ng || memcmp(groups[ng - 1].e.key, k, plen)) {
			groups[ng].e.key = k;
			groups[ng].e.value = NULL;
			groups[ng].e.buckets = *bufs + ng * nb;
			groups[ng].e.nbuckets = nb;
			groups[ng].rank = 0;
			ng++;
		}
		struct item *g = &groups[ng - 1];
		uint64_t b = u64_at(k + boff);
		if (b < nb) {
			(*bufs)[(size_t)(g - groups) * nb + b] += order[i]->rank;
			g->rank += order[i]->rank; /* total count */
		}
	}
	memcpy(items, groups, ng * sizeof(*items));
	free(groups);
	free(order);
	return ng;
}

/* Prints entries r of map m (and frees them). */
static int print_entries(struct out *o, const struct mapdump_map *m,
			 struct mapdump_entries r, uint32_t top, uint32_t div)
{
	int err;
	const struct type *vt = m->value;
	if (vt->kind == TY_TSERIES) {
		err = tseries_print(o, m, &r);
		mapdump_entries_free(&r);
		return err;
	}
	struct item *items = xmalloc((r.n ? r.n : 1) * sizeof(*items));
	uint64_t *bufs = NULL;
	size_t n = r.n;
	stdsort_less less = NULL;
	if (is_hist(vt)) {
		n = group_hist(m, &r, items, &bufs);
		less = by_rank_signed;
	} else {
		for (size_t i = 0; i < n; i++) {
			memset(&items[i], 0, sizeof(items[i]));
			items[i].e.key = r.keys + i * r.ksize;
			items[i].e.value = r.vals + i * r.vsize;
		}
	}
	struct item **order = xmalloc((n ? n : 1) * sizeof(*order));
	for (size_t i = 0; i < n; i++)
		order[i] = &items[i];
	size_t klen = m->key ? m->key->size : 0;
	switch (vt->kind) {
	case TY_AVG:
	case TY_STATS:
		/* in key-byte order first, then by average */
		stdsort_stable((void **)order, n, by_key_bytes, &klen);
		for (size_t i = 0; i < n; i++)
			order[i]->rank = vfmt_average(vt, order[i]->e.value, 0);
		less = vt->is_signed ? by_rank_signed : by_rank_unsigned;
		break;
	case TY_COUNT:
	case TY_SUM:
	case TY_MIN:
	case TY_MAX:
	case TY_PTR:
	case TY_BOOL:
	case TY_INT: {
		/* bpftrace 0.26 ranks min() and max() as unsigned */
		bool sgn = vt->kind != TY_COUNT && vt->kind != TY_MIN &&
			   vt->kind != TY_MAX && vt->is_signed;
		uint32_t size = vt->kind == TY_INT || vt->kind == TY_BOOL ?
			vt->size : 8;
		for (size_t i = 0; i < n; i++)
			order[i]->rank = vfmt_load_int(order[i]->e.value, size,
						       sgn);
		less = sgn ? by_rank_signed : by_rank_unsigned;
		break;
	}
	default:
		if (!is_hist(vt) && m->key)
			stdsort_stable((void **)order, n, by_key_args,
				       (void *)m->key);
		break;
	}
	if (less)
		stdsort_sort((void **)order, n, less, NULL);
	size_t skip = top && n > top ? n - top : 0;
	struct out_entry *entries = xmalloc((n ? n : 1) * sizeof(*entries));
	for (size_t i = skip; i < n; i++) {
		entries[i - skip] = order[i]->e;
		if (!m->key)
			entries[i - skip].key = NULL;
	}
	struct out_map om = {
		.name = m->name, .key = m->key, .value = vt,
		.entries = entries, .n = n - skip, .div = div,
	};
	out_map(o, &om);
	free(entries);
	free(order);
	free(bufs);
	free(items);
	mapdump_entries_free(&r);
	return 0;
}

int mapdump_print(struct out *o, const struct mapdump_map *m, uint32_t top,
		  uint32_t div)
{
	struct mapdump_entries r;
	int err = mapdump_read(m, &r);
	return err ? err : print_entries(o, m, r, top, div);
}

int mapdump_print_stmt(struct out *o, const struct mapdump_map *m,
		       uint32_t top, uint32_t div)
{
	struct mapdump_entries r;
	int err = mapdump_read(m, &r);
	if (err)
		return err;
	const struct type *vt = m->value;
	if (!r.n && !m->key && !is_hist(vt) && vt->kind != TY_TSERIES) {
		/* its one value, all zero bytes (the entries' own buffers:
		 * mapdump_entries_free frees them) */
		free(r.keys);
		free(r.vals);
		r.keys = xcalloc(1, r.ksize ? r.ksize : 1);
		r.vals = xcalloc(1, r.vsize ? r.vsize : 1);
		r.n = r.cap = 1;
	}
	return print_entries(o, m, r, top, div);
}

int mapdump_read_hists(const struct mapdump_map *m, struct mapdump_hists *h)
{
	memset(h, 0, sizeof(*h));
	if (!is_hist(m->value))
		return -EINVAL;
	int err = mapdump_read_fast(m, &h->e);
	if (err)
		return err;
	struct item *items = xmalloc((h->e.n ? h->e.n : 1) * sizeof(*items));
	h->n = group_hist(m, &h->e, items, &h->counts);
	h->nbuckets = maplayout_nbuckets(m->value);
	h->keys = xmalloc((h->n ? h->n : 1) * sizeof(*h->keys));
	for (size_t i = 0; i < h->n; i++)
		h->keys[i] = m->key ? items[i].e.key : NULL;
	free(items);
	return 0;
}

void mapdump_hists_free(struct mapdump_hists *h)
{
	free(h->keys);
	free(h->counts);
	mapdump_entries_free(&h->e);
}

/* Collects all keys (a snapshot, so that updates cannot disturb the walk). */
static int all_keys(int fd, uint32_t ksize, uint8_t **keys, size_t *n)
{
	size_t cap = 0;
	uint8_t *prev = NULL;
	int err;
	*keys = NULL;
	*n = 0;
	for (;;) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			*keys = xreallocarray(*keys, cap, ksize);
		}
		prev = *n ? *keys + (*n - 1) * ksize : NULL;
		err = bpf_map_get_next_key(fd, prev, *keys + *n * ksize);
		if (err)
			break;
		(*n)++;
	}
	if (err == -ENOENT)
		return 0;
	free(*keys);
	*keys = NULL;
	return err;
}

static int zero_all(const struct mapdump_map *m)
{
	if (m->shared) {
		uint8_t *zero = xcalloc(1, value_size(m, false) + 1);
		uint64_t k = m->slot_key;
		int err = bpf_map_update_elem(m->fd, &k, zero, BPF_EXIST);
		free(zero);
		return err == -ENOENT ? 0 : err;
	}
	uint32_t ksize = stored_key_size(m);
	uint32_t vsize = value_size(m, is_agg_array(m));
	int ncpu = num_cpus(m);
	if (ncpu < 0)
		return ncpu;
	uint8_t *keys;
	size_t n;
	int err = all_keys(m->fd, ksize, &keys, &n);
	if (err)
		return err;
	size_t slot = m->percpu ? maplayout_percpu_stride(vsize) : vsize;
	uint8_t *zero = xcalloc((size_t)ncpu, slot ? slot : 1);
	for (size_t i = 0; i < n && !err; i++) {
		err = bpf_map_update_elem(m->fd, keys + i * ksize, zero,
					  BPF_EXIST);
		if (err == -ENOENT)
			err = 0; /* deleted meanwhile: already "zero" */
	}
	free(zero);
	free(keys);
	return err;
}

/* The marker entry of an aggregation array (the last one): CPU 0's first
 * word set. */
static int array_mark(const struct mapdump_map *m)
{
	int ncpu = num_cpus(m);
	if (ncpu < 0)
		return ncpu;
	uint32_t slot = maplayout_percpu_stride(maplayout_array_value_size(m->value));
	uint8_t *v = xcalloc((size_t)ncpu, slot);
	uint32_t idx = maplayout_array_entries(m->value) - 1;
	put_u64(v, 1);
	int err = bpf_map_update_elem(m->fd, &idx, v, BPF_EXIST);
	free(v);
	return err;
}

int mapdump_zero(const struct mapdump_map *m)
{
	if (!is_agg_array(m))
		return zero_all(m);
	/* A hash keeps its keys: the zeroed value still prints, unless the
	 * map held none. An array marks that instead. */
	struct mapdump_entries r;
	int err = mapdump_read(m, &r);
	if (err)
		return err;
	bool live = r.n > 0;
	mapdump_entries_free(&r);
	err = zero_all(m);
	if (!err && live)
		err = array_mark(m);
	return err;
}

/* Takes n deleted keys off the count the program keeps of m's keys
 * (mapdump_map.len_fd), atomically, as the program adds to it: through
 * the array mapped into memory. 0 or -errno. */
static int uncount_keys(const struct mapdump_map *m, uint64_t n)
{
	if (m->len_fd <= 0 || n == 0)
		return 0;
	size_t len = (size_t)m->len_off + 8;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       m->len_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	__atomic_fetch_sub((uint64_t *)((char *)p + m->len_off), n,
			   __ATOMIC_SEQ_CST);
	munmap(p, len);
	return 0;
}

int mapdump_clear(const struct mapdump_map *m)
{
	if (m->shared) {
		uint64_t k = m->slot_key;
		int err = bpf_map_delete_elem(m->fd, &k);
		return err == -ENOENT ? 0 : err;
	}
	if (is_array_fd(m->fd))
		return zero_all(m); /* array entries cannot be deleted */
	uint32_t ksize = stored_key_size(m);
	uint8_t *keys;
	size_t n;
	uint64_t deleted = 0;
	int err = all_keys(m->fd, ksize, &keys, &n);
	for (size_t i = 0; i < n && !err; i++) {
		err = bpf_map_delete_elem(m->fd, keys + i * ksize);
		deleted += err == 0;
		if (err == -ENOENT)
			err = 0;
	}
	free(keys);
	int cerr = uncount_keys(m, deleted);
	return err ? err : cerr;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct mapdump_map *const *)a)->name,
		      (*(const struct mapdump_map *const *)b)->name);
}

int mapdump_print_exit(struct out *o, const struct mapdump_map *maps, size_t n)
{
	out_exit_begin(o);
	return mapdump_print_all(o, maps, n);
}

int mapdump_print_all(struct out *o, const struct mapdump_map *maps, size_t n)
{
	const struct mapdump_map **order = xmalloc((n ? n : 1) *
						   sizeof(*order));
	int err = 0;
	for (size_t i = 0; i < n; i++)
		order[i] = &maps[i];
	qsort(order, n, sizeof(*order), by_name);
	for (size_t i = 0; i < n; i++) {
		int e = mapdump_print(o, order[i], 0, 0);
		if (e && !err)
			err = e;
	}
	free(order);
	return err;
}
