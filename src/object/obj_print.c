/* Printing an object's records and maps by their BTF (rules: obj_impl.h). */
#define _GNU_SOURCE /* qsort_r */
#include "object/obj_impl.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/btf.h"
#include "model/types.h"
#include "runtime/hist.h"
#include "runtime/mapdump.h"
#include "runtime/output.h"
#include "runtime/value_fmt.h"
#include "util/arena.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const struct type hist_type = { .kind = TY_HIST, .size = 8, .align = 8 };

static bool name_has(const char *s, const char *a, const char *b)
{
	return s && (strstr(s, a) || strstr(s, b));
}

/* The type id the .maps definition of map declares with __type(value, T),
 * or 0. Ring buffers keep no value type of their own, so this is the only
 * place it survives. */
static uint32_t declared_value_id(const struct btf *b, const char *map)
{
	int32_t sec = btf__find_by_name_kind(b, ".maps", BTF_KIND_DATASEC);
	if (sec <= 0)
		return 0;
	const struct btf_type *ds = btf__type_by_id(b, (uint32_t)sec);
	const struct btf_var_secinfo *vsi = btf_var_secinfos(ds);
	for (uint16_t i = 0; i < btf_vlen(ds); i++, vsi++) {
		const struct btf_type *var = btf__type_by_id(b, vsi->type);
		if (!var || strcmp(btf__name_by_offset(b, var->name_off), map))
			continue;
		int def = btf__resolve_type(b, var->type);
		const struct btf_type *st = def > 0 ? btf__type_by_id(b, def) : NULL;
		if (!st || !btf_is_struct(st))
			return 0;
		const struct btf_member *m = btf_members(st);
		for (uint16_t j = 0; j < btf_vlen(st); j++, m++) {
			if (strcmp(btf__name_by_offset(b, m->name_off), "value"))
				continue;
			const struct btf_type *p = btf__type_by_id(b, m->type);
			return p && btf_is_ptr(p) ? p->type : 0;
		}
		return 0;
	}
	return 0;
}

/* "event", else the first struct whose name contains "event". */
static uint32_t event_struct_id(const struct btf *b)
{
	int32_t id = btf__find_by_name_kind(b, "event", BTF_KIND_STRUCT);
	if (id > 0)
		return (uint32_t)id;
	uint32_t n = btf__type_cnt(b);
	for (uint32_t i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(b, i);
		if (btf_is_struct(t) &&
		    strstr(btf__name_by_offset(b, t->name_off), "event"))
			return i;
	}
	return 0;
}

const struct type *obj_record_type(struct arena *a, struct bpf_object *obj,
				   const struct bpf_map *map)
{
	const struct btf *b = bpf_object__btf(obj);
	if (!b)
		return NULL;
	uint32_t id = declared_value_id(b, bpf_map__name(map));
	if (!id)
		id = event_struct_id(b);
	if (!id)
		return NULL;
	const struct type *t = kbtf_type_of(a, b, id);
	return t->kind == TY_NONE || !t->size ? NULL : t;
}

void obj_print_record(struct out *o, const struct type *t, const void *data,
		      size_t size)
{
	if (t && t->size <= size && size - t->size < 8) {
		out_value(o, t, data);
		return;
	}
	struct strbuf sb = STRBUF_INIT;
	const uint8_t *p = data;
	for (size_t i = 0; i < size; i++)
		sb_printf(&sb, i ? " %02x" : "%02x", p[i]);
	sb_putc(&sb, '\n');
	out_printf(o, sb_str(&sb), sb.len);
	sb_free(&sb);
}

/* The BTF type of a key or value, or (no BTF, or a size that disagrees)
 * an unsigned integer or a byte array of its size. */
static const struct type *type_or_bytes(struct arena *a, const struct btf *b,
					uint32_t id, uint32_t size)
{
	if (b && id) {
		const struct type *t = kbtf_type_of(a, b, id);
		if (t->kind != TY_NONE && t->size == size)
			return t;
	}
	if (size == 1 || size == 2 || size == 4 || size == 8)
		return type_int((int)size, false);
	struct type *t = type_new(a, TY_ARRAY, size);
	t->elem = &type_u8;
	t->count = size;
	t->align = 1;
	return t;
}

static void store_int(uint8_t *p, uint32_t size, uint64_t v)
{
	switch (size) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	case 8: memcpy(p, &v, 8); break;
	default: break;
	}
}

/* dst += src for every integer in a value of type t (per-CPU summing). */
static void add_into(const struct type *t, uint8_t *dst, const uint8_t *src)
{
	switch (t->kind) {
	case TY_INT:
		store_int(dst, t->size, vfmt_load_int(dst, t->size, false) +
					vfmt_load_int(src, t->size, false));
		break;
	case TY_ARRAY: {
		uint32_t es = t->elem ? t->elem->size : 0;
		for (uint32_t i = 0; es && i < t->count; i++)
			add_into(t->elem, dst + (size_t)i * es,
				 src + (size_t)i * es);
		break;
	}
	case TY_RECORD:
		if (t->is_union)
			break; /* which member to add is anyone's guess */
		for (uint32_t i = 0; i < t->nfields; i++)
			if (!t->fields[i].bit_size)
				add_into(t->fields[i].type,
					 dst + t->fields[i].offset,
					 src + t->fields[i].offset);
		break;
	default:
		break; /* strings, pointers: CPU 0's */
	}
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* Every entry of a map, per-CPU values summed. */
struct rows {
	uint32_t ks, vs;
	size_t n, cap;
	uint8_t *k, *v;
};

static int read_rows(const struct bpf_map *map, const struct type *vt,
		     bool percpu, bool skip_zero, struct rows *r)
{
	int fd = bpf_map__fd(map);
	int ncpu = percpu ? libbpf_num_possible_cpus() : 1;
	if (ncpu < 0)
		return ncpu;
	r->ks = bpf_map__key_size(map);
	r->vs = bpf_map__value_size(map);
	size_t slot = percpu ? (r->vs + 7) / 8 * 8 : r->vs;
	uint8_t *buf = xcalloc((size_t)ncpu, slot);
	uint8_t *prev = xcalloc(2, r->ks), *key = prev + r->ks;
	bool first = true;
	int err;
	while ((err = bpf_map_get_next_key(fd, first ? NULL : prev, key)) == 0) {
		first = false;
		memcpy(prev, key, r->ks);
		err = bpf_map_lookup_elem(fd, key, buf);
		if (err == -ENOENT)
			continue; /* deleted under us */
		if (err)
			break;
		for (int c = 1; c < ncpu; c++)
			add_into(vt, buf, buf + (size_t)c * slot);
		if (skip_zero && all_zero(buf, r->vs))
			continue;
		if (r->n == r->cap) {
			r->cap = r->cap ? r->cap * 2 : 64;
			r->k = xreallocarray(r->k, r->cap, r->ks);
			r->v = xreallocarray(r->v, r->cap, r->vs);
		}
		memcpy(r->k + r->n * r->ks, key, r->ks);
		memcpy(r->v + r->n * r->vs, buf, r->vs);
		r->n++;
	}
	free(prev);
	free(buf);
	return err == -ENOENT ? 0 : err;
}

/* How a map prints. */
struct shape {
	const struct type *key;   /* NULL: key-less */
	const struct type *value; /* printed as: the value's type, or hist_type */
	const struct type *raw;   /* the value's own (BTF) type */
	/* slots histograms: the counter array and its offset in the value */
	const struct type *slots;
	uint32_t slots_off;
	/* keyed histograms: printed by mapdump */
	bool keyed_hist;
};

static bool is_counter_array(const struct type *t)
{
	return t->kind == TY_ARRAY && t->count >= 32 && t->count <= 64 &&
	       t->elem && t->elem->kind == TY_INT;
}

static bool is_u64(const struct type *t)
{
	return t->kind == TY_INT && t->size == 8;
}

/* A keyed histogram's printed key: the key struct without its last
 * (slot) member; a lone member prints as itself. */
static bool keyed_hist_key(struct arena *a, const char *name,
			   const struct type *kt, const struct type **prefix)
{
	if (is_u64(kt) && name_has(name, "hist", "hist")) {
		*prefix = NULL;
		return true;
	}
	if (kt->kind != TY_RECORD || kt->is_union || !kt->nfields)
		return false;
	const struct type_field *last = &kt->fields[kt->nfields - 1];
	if (strcmp(last->name, "slot") && strcmp(last->name, "bucket"))
		return false;
	if (!is_u64(last->type) || last->bit_size || last->offset % 8 ||
	    last->offset + 8 != kt->size)
		return false;
	if (kt->nfields == 1) {
		*prefix = NULL;
	} else if (kt->nfields == 2 && kt->fields[0].offset == 0 &&
		   !kt->fields[0].bit_size &&
		   (kt->fields[0].type->size + 7) / 8 * 8 == last->offset) {
		*prefix = kt->fields[0].type;
	} else {
		struct type *p = type_new(a, TY_RECORD, last->offset);
		*p = *kt;
		p->size = last->offset;
		p->nfields--;
		*prefix = p;
	}
	return true;
}

static void find_shape(struct arena *a, const struct btf *b,
		       const struct bpf_map *map, struct shape *s)
{
	const char *name = bpf_map__name(map);
	const struct type *kt = type_or_bytes(a, b, bpf_map__btf_key_type_id(map),
					      bpf_map__key_size(map));
	const struct type *vt = type_or_bytes(a, b,
					      bpf_map__btf_value_type_id(map),
					      bpf_map__value_size(map));
	enum bpf_map_type mt = bpf_map__type(map);
	bool is_array = mt == BPF_MAP_TYPE_ARRAY ||
			mt == BPF_MAP_TYPE_PERCPU_ARRAY;
	memset(s, 0, sizeof(*s));
	s->key = is_array && bpf_map__max_entries(map) == 1 ? NULL : kt;
	s->value = s->raw = vt;
	if (is_counter_array(vt) && name_has(name, "hist", "slot")) {
		s->slots = vt;
	} else if (vt->kind == TY_RECORD) {
		for (uint32_t i = 0; i < vt->nfields; i++) {
			const struct type_field *f = &vt->fields[i];
			if (!f->bit_size && is_counter_array(f->type) &&
			    name_has(f->name, "hist", "slot")) {
				s->slots = f->type;
				s->slots_off = f->offset;
				break;
			}
		}
	}
	if (s->slots) {
		s->value = &hist_type;
	} else if (is_u64(vt) && !is_array &&
		   keyed_hist_key(a, name, kt, &s->key)) {
		s->keyed_hist = true;
		s->value = &hist_type;
	}
}

struct sort_ctx {
	const struct rows *r;
	const struct shape *s;
	const uint64_t *totals; /* slots histograms */
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_key(const struct sort_ctx *c, size_t a, size_t b)
{
	const struct type *kt = c->s->key;
	const uint8_t *ka = c->r->k + a * c->r->ks, *kb = c->r->k + b * c->r->ks;
	if (kt && kt->kind == TY_INT) {
		uint64_t x = vfmt_load_int(ka, kt->size, kt->is_signed);
		uint64_t y = vfmt_load_int(kb, kt->size, kt->is_signed);
		if (kt->is_signed)
			return (int64_t)x < (int64_t)y ? -1 : (int64_t)x > (int64_t)y;
		return cmp_u64(x, y);
	}
	return memcmp(ka, kb, c->r->ks);
}

/* As bpftrace: integer values and histograms (by total count) ascending,
 * anything else by key; ties by key. */
static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	const struct sort_ctx *c = ctx;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	const struct type *vt = c->s->value;
	int r = 0;
	if (c->totals) {
		r = cmp_u64(c->totals[a], c->totals[b]);
	} else if (vt->kind == TY_INT) {
		uint64_t x = vfmt_load_int(c->r->v + a * c->r->vs, vt->size,
					   vt->is_signed);
		uint64_t y = vfmt_load_int(c->r->v + b * c->r->vs, vt->size,
					   vt->is_signed);
		r = vt->is_signed ? ((int64_t)x < (int64_t)y ? -1
				     : (int64_t)x > (int64_t)y)
				  : cmp_u64(x, y);
	}
	return r ? r : cmp_key(c, a, b);
}

static int print_rows(struct out *o, const char *name,
		      const struct bpf_map *map, const struct shape *s)
{
	enum bpf_map_type mt = bpf_map__type(map);
	bool percpu = mt == BPF_MAP_TYPE_PERCPU_HASH ||
		      mt == BPF_MAP_TYPE_PERCPU_ARRAY ||
		      mt == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	bool is_array = mt == BPF_MAP_TYPE_ARRAY ||
			mt == BPF_MAP_TYPE_PERCPU_ARRAY;
	struct rows r = { 0 };
	/* Arrays hold every index: only the used (non-zero) ones print,
	 * except the one entry of a key-less array ("@c: 0" as bpftrace). */
	int err = read_rows(map, s->raw, percpu, is_array && s->key, &r);
	size_t *order = xmalloc((r.n ? r.n : 1) * sizeof(*order));
	uint64_t *totals = NULL, *buckets = NULL;
	struct out_entry *ents = xcalloc(r.n ? r.n : 1, sizeof(*ents));
	if (s->slots) {
		totals = xcalloc(r.n ? r.n : 1, sizeof(*totals));
		buckets = xcalloc((r.n ? r.n : 1) * HIST_LOG2_NBUCKETS,
				  sizeof(*buckets));
		uint32_t es = s->slots->elem->size;
		for (size_t i = 0; i < r.n; i++) {
			const uint8_t *p = r.v + i * r.vs + s->slots_off;
			uint64_t *bk = buckets + i * HIST_LOG2_NBUCKETS;
			for (uint32_t j = 0; j < s->slots->count; j++) {
				uint64_t c = vfmt_load_int(p + j * es, es, false);
				/* Past bpftrace's last bucket: the top one. */
				bk[j < HIST_LOG2_MAX_INDEX ? j
				   : HIST_LOG2_MAX_INDEX] += c;
				totals[i] += c;
			}
		}
	}
	for (size_t i = 0; i < r.n; i++)
		order[i] = i;
	struct sort_ctx c = { &r, s, totals };
	qsort_r(order, r.n, sizeof(*order), cmp_rows, &c);
	for (size_t i = 0; i < r.n; i++) {
		size_t j = order[i];
		ents[i].key = s->key ? r.k + j * r.ks : NULL;
		ents[i].value = r.v + j * r.vs;
		if (buckets) {
			ents[i].buckets = buckets + j * HIST_LOG2_NBUCKETS;
			ents[i].nbuckets = HIST_LOG2_NBUCKETS;
		}
	}
	struct out_map om = { .name = name, .key = s->key, .value = s->value,
			      .entries = ents, .n = r.n };
	if (!err)
		out_map(o, &om);
	free(ents);
	free(buckets);
	free(totals);
	free(order);
	free(r.k);
	free(r.v);
	return err;
}

static bool printable(const struct bpf_map *m)
{
	/* libbpf's own maps (USDT specs, ...) are not the object's data. */
	if (bpf_map__is_internal(m) || !strncmp(bpf_map__name(m), "__bpf_", 6))
		return false;
	switch (bpf_map__type(m)) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		return true;
	default:
		return false;
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(bpf_map__name(*(struct bpf_map *const *)a),
		      bpf_map__name(*(struct bpf_map *const *)b));
}

static int print_map(struct out *o, struct arena *a, const struct btf *b,
		     struct bpf_map *map)
{
	struct shape s;
	find_shape(a, b, map, &s);
	const char *name = arena_printf(a, "@%s", bpf_map__name(map));
	if (!s.keyed_hist)
		return print_rows(o, name, map, &s);
	enum bpf_map_type mt = bpf_map__type(map);
	struct mapdump_map md = {
		.name = name, .fd = bpf_map__fd(map), .key = s.key,
		.value = &hist_type,
		.percpu = mt == BPF_MAP_TYPE_PERCPU_HASH ||
			  mt == BPF_MAP_TYPE_LRU_PERCPU_HASH,
	};
	return mapdump_print(o, &md, 0, 0);
}

int obj_print_maps(struct out *o, struct arena *a, struct bpf_object *obj)
{
	size_t n = 0, cap = 8;
	struct bpf_map **maps = xmalloc(cap * sizeof(*maps)), *m;
	bpf_object__for_each_map(m, obj) {
		if (!printable(m))
			continue;
		if (n == cap)
			maps = xreallocarray(maps, cap *= 2, sizeof(*maps));
		maps[n++] = m;
	}
	qsort(maps, n, sizeof(*maps), by_name);
	out_exit_begin(o);
	int err = 0;
	for (size_t i = 0; i < n; i++) {
		int e = print_map(o, a, bpf_object__btf(obj), maps[i]);
		if (e && !err)
			err = e;
	}
	free(maps);
	return err;
}
