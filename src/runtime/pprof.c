/* Stack maps -> a pprof profile (see pprof.h); the protobuf side is
 * pprof_enc.c, symbols come from kallsyms/kimage (kernel) and usyms and
 * srcline (user). */
#define _GNU_SOURCE
#include "runtime/pprof.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel/elfsym.h"
#include "kernel/kallsyms.h"
#include "kernel/kimage.h"
#include "kernel/srcline.h"
#include "model/compiled.h"
#include "model/types.h"
#include "probes/provider.h"
#include "runtime/loader.h"
#include "runtime/mapdump.h"
#include "runtime/output.h"
#include "runtime/pprof_enc.h"
#include "runtime/stacks.h"
#include "runtime/usyms.h"
#include "runtime/value_fmt.h"
#include "util/demangle.h"
#include "util/intern.h"
#include "util/strbuf.h"
#include "util/vec.h"
#include "util/xalloc.h"

/* Inlined frames kept per address (the rest are dropped). */
#define MAX_INLINE 16

bool pprof_can_write(const struct type *key, const struct type *value)
{
	static const enum type_kind stacks[] = { TY_KSTACK, TY_USTACK,
						 TY_NONE };
	return key && value &&
	       (value->kind == TY_COUNT || value->kind == TY_SUM) &&
	       type_holds(key, stacks);
}

bool pprof_has_maps(const struct compiled *c)
{
	for (uint32_t i = 0; i < c->nmaps; i++)
		if (c->maps[i].is_user &&
		    pprof_can_write(c->maps[i].key, c->maps[i].value))
			return true;
	return false;
}

/* ---- which maps, and what their columns are ---- */

struct pmap {
	uint32_t idx;         /* in compiled.maps */
	const struct cmap *m;
	uint64_t period_ns;   /* every writer samples CPU at this; 0: not */
	bool cleared;         /* the script clears or zeroes it */
};

/* Whether program p refers to map idx. */
static bool prog_uses(const struct cprog *p, uint32_t idx)
{
	for (uint32_t i = 0; i < p->code.nrelocs; i++)
		if (p->code.relocs[i].map_idx == idx)
			return true;
	return false;
}

/* The CPU time one sample of map idx stands for: when every attached
 * program using it is a profile probe, and all of one period. */
static uint64_t map_period(const struct compiled *c, uint32_t idx)
{
	uint64_t period = 0;
	for (uint32_t i = 0; i < c->nprogs; i++) {
		const struct cprog *p = &c->progs[i];
		if (p->is_begin || p->is_end || p->is_signal || p->is_bench ||
		    p->is_test ||
		    !prog_uses(p, idx))
			continue;
		for (uint32_t k = 0; k < p->ntargets; k++) {
			const struct probe_target *t = &p->targets[k];
			if (!t->prov || strcmp(t->prov->name, "profile") ||
			    !t->u.timer.period)
				return 0;
			uint64_t ns = t->u.timer.freq ?
					      1000000000ull / t->u.timer.period :
					      t->u.timer.period;
			if (period && ns != period)
				return 0;
			period = ns;
		}
	}
	return period;
}

typedef VEC(struct pmap) pmap_vec;

static void find_maps(const struct compiled *c, pmap_vec *out)
{
	for (uint32_t i = 0; i < c->nmaps; i++) {
		const struct cmap *m = &c->maps[i];
		if (!m->is_user || !pprof_can_write(m->key, m->value))
			continue;
		struct pmap pm = { i, m, 0, false };
		if (m->value->kind == TY_COUNT)
			pm.period_ns = map_period(c, i);
		for (uint32_t e = 0; e < c->nevents; e++)
			if ((c->events[e].kind == EV_CLEAR ||
			     c->events[e].kind == EV_ZERO) &&
			    c->events[e].map == (int32_t)i)
				pm.cleared = true;
		vec_push(out, pm);
	}
}

/* "@" -> samples (or sum), "@x" -> x */
static void type_name(struct strbuf *sb, const struct pmap *pm,
		      const char *suffix)
{
	const char *n = pm->m->name + (pm->m->name[0] == '@');
	if (*n)
		sb_printf(sb, "%s%s%s", n, *suffix ? "_" : "", suffix);
	else
		sb_append(sb, *suffix ? suffix :
			      pm->m->value->kind == TY_COUNT ? "samples" : "sum");
}

/* The unit a sum() map's name says it adds up, pprof's names for them. */
static const char *sum_unit(const char *name)
{
	static const struct {
		const char *word, *unit;
	} units[] = {
		{ "ns", "nanoseconds" }, { "nsecs", "nanoseconds" },
		{ "nanoseconds", "nanoseconds" },
		{ "us", "microseconds" }, { "usecs", "microseconds" },
		{ "microseconds", "microseconds" },
		{ "ms", "milliseconds" }, { "msecs", "milliseconds" },
		{ "milliseconds", "milliseconds" },
		{ "s", "seconds" }, { "secs", "seconds" },
		{ "seconds", "seconds" },
		{ "bytes", "bytes" }, { "kb", "kilobytes" },
		{ "kbytes", "kilobytes" }, { "mb", "megabytes" },
	};
	const char *w = strrchr(name, '_');
	w = w ? w + 1 : name + (name[0] == '@');
	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++)
		if (!strcasecmp(w, units[i].word))
			return units[i].unit;
	return "count";
}

/* ---- snapshots ---- */

struct snap_map {
	uint32_t idx;
	struct mapdump_entries e;
	uint32_t *order; /* entries by key bytes, for lookups */
};

struct pprof_snap {
	struct snap_map *maps;
	size_t n;
};

static struct mapdump_map dump_map(const struct pprof_src *s, uint32_t i)
{
	return mapdump_map_of(s->c, s->map_fds, i);
}

/* qsort_r's context: the entries being ordered */
static int by_key(const void *a, const void *b, void *ctx)
{
	const struct mapdump_entries *e = ctx;
	return memcmp(e->keys + (size_t)*(const uint32_t *)a * e->ksize,
		      e->keys + (size_t)*(const uint32_t *)b * e->ksize,
		      e->ksize);
}

struct pprof_snap *pprof_snap_take(const struct pprof_src *s, int *err)
{
	pmap_vec pm = { 0 };
	find_maps(s->c, &pm);
	struct pprof_snap *snap = xcalloc(1, sizeof(*snap));
	snap->maps = xcalloc(pm.len + 1, sizeof(*snap->maps));
	*err = 0;
	for (size_t i = 0; i < pm.len && !*err; i++) {
		struct snap_map *sm = &snap->maps[snap->n];
		struct mapdump_map dm = dump_map(s, pm.data[i].idx);
		sm->idx = pm.data[i].idx;
		*err = mapdump_read_fast(&dm, &sm->e);
		if (*err)
			break;
		snap->n++;
		sm->order = xcalloc(sm->e.n + 1, sizeof(*sm->order));
		for (size_t k = 0; k < sm->e.n; k++)
			sm->order[k] = (uint32_t)k;
		qsort_r(sm->order, sm->e.n, sizeof(*sm->order), by_key,
			&sm->e);
	}
	vec_free(&pm);
	if (*err) {
		pprof_snap_free(snap);
		return NULL;
	}
	return snap;
}

void pprof_snap_free(struct pprof_snap *snap)
{
	if (!snap)
		return;
	for (size_t i = 0; i < snap->n; i++) {
		mapdump_entries_free(&snap->maps[i].e);
		free(snap->maps[i].order);
	}
	free(snap->maps);
	free(snap);
}

static const struct snap_map *snap_map(const struct pprof_snap *snap,
				       uint32_t idx)
{
	for (size_t i = 0; snap && i < snap->n; i++)
		if (snap->maps[i].idx == idx)
			return &snap->maps[i];
	return NULL;
}

/* The value of key in sm, 0 when absent. */
static int64_t snap_value(const struct snap_map *sm, const uint8_t *key)
{
	size_t lo = 0, hi = sm->e.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t k = sm->order[mid];
		int c = memcmp(sm->e.keys + (size_t)k * sm->e.ksize, key,
			       sm->e.ksize);
		if (!c) {
			int64_t v;
			memcpy(&v, sm->e.vals + (size_t)k * sm->e.vsize, 8);
			return v;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* ---- frames ---- */

struct builder {
	const struct pprof_src *s;
	struct pprof_enc *enc;
	struct usyms *u;
	struct intern locs;      /* (pid, addr, leaf) -> loc_ids index */
	VEC(uint64_t) loc_ids;
	VEC(uint64_t) stack;     /* the sample being built, leaf first */
	struct {                 /* the last user mapping made */
		const char *path;
		uint64_t start, end, pgoff, id;
	} last;
	uint64_t main_mapping;   /* the first program's, else library's */
	bool main_is_program;
	uint64_t unknown_loc;    /* "[unknown]", made on first use; 0: not */
	uint64_t truncated_loc;  /* VFMT_TRUNCATED, the same way */
};

/* A location of no address that only names a function (name), made once
 * into *slot. */
static uint64_t function(struct builder *b, const char *sym,
			 const char *file, int64_t decl_line);
static uint64_t named_location(struct builder *b, uint64_t *slot,
			       const char *name)
{
	if (!*slot) {
		struct pprof_line l = { function(b, name, NULL, 0), 0 };
		*slot = pprof_enc_location(b->enc, 0, 0, &l, 1);
	}
	return *slot;
}

/* Whether path names a program rather than a library or an image. */
static bool is_program(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return path[0] == '/' && !strstr(base, ".so");
}

static uint64_t kernel_location(struct builder *b, uint64_t addr)
{
	uint64_t mapping = 0;
	const struct kimage *ki = kimage_of(addr);
	if (ki) {
		struct pprof_mapping m = { ki->start, ki->end, 0, ki->name,
					   ki->build_id[0] ? ki->build_id :
							     NULL,
					   true, false, false, false };
		mapping = pprof_enc_mapping(b->enc, &m);
	}
	const struct ksym *ks = ksyms_load() == 0 ?
					ksyms_lookup(addr, NULL) :
					NULL;
	if (!ks)
		return pprof_enc_location(b->enc, mapping, addr, NULL, 0);
	struct pprof_line line = {
		pprof_enc_function(b->enc, ks->name, ks->name, NULL, 0), 0
	};
	return pprof_enc_location(b->enc, mapping, addr, &line, 1);
}

/* The function of a symbol: its name for people, and as the file has it. */
static uint64_t function(struct builder *b, const char *sym,
			 const char *file, int64_t decl_line)
{
	char *dm = demangle_for_output(sym);
	uint64_t id = pprof_enc_function(b->enc, dm ? dm : sym, sym, file,
					 decl_line);
	free(dm);
	return id;
}

static uint64_t user_location(struct builder *b, int32_t pid, uint64_t addr,
			      bool leaf)
{
	struct usyms_frame f;
	usyms_frame(b->u, pid, addr, &f);
	uint64_t mapping = 0;
	bool lines = f.elf && srcline_available(f.elf->path);
	if (f.path && f.path == b->last.path && f.start == b->last.start &&
	    f.end == b->last.end && f.pgoff == b->last.pgoff) {
		mapping = b->last.id; /* the frame before's mapping */
	} else if (f.path && strcmp(f.path, "[perf-map]")) {
		struct strbuf bid = STRBUF_INIT;
		if (f.elf)
			sb_hex(&bid, f.elf->build_id, f.elf->build_id_len);
		struct pprof_mapping m = { f.start, f.end, f.pgoff, f.path,
					   bid.len ? bid.buf : NULL,
					   f.elf && f.elf->nsyms, lines,
					   lines, lines };
		mapping = pprof_enc_mapping(b->enc, &m);
		sb_free(&bid);
		b->last.path = f.path;
		b->last.start = f.start;
		b->last.end = f.end;
		b->last.pgoff = f.pgoff;
		b->last.id = mapping;
		if (!b->main_is_program) {
			if (is_program(f.path) || !b->main_mapping)
				b->main_mapping = mapping;
			b->main_is_program = is_program(f.path);
		}
	}
	struct srcline sl[MAX_INLINE];
	/* a return address is after its call: its line is the call's */
	int n = lines ? srcline_frames(f.elf->path,
				       leaf ? f.vaddr : f.vaddr - 1, sl,
				       MAX_INLINE) :
			0;
	struct pprof_line pl[MAX_INLINE];
	for (int i = 0; i < n; i++) {
		/* the function the address is in is named by its symbol,
		 * as sonde's other outputs name it */
		const char *name = i == n - 1 && f.sym ? f.sym : sl[i].func;
		pl[i].function = name ? function(b, name, sl[i].file,
						 sl[i].decl_line) :
					0;
		pl[i].line = sl[i].line;
		if (!name) { /* DWARF without a name: keep the address */
			n = 0;
			break;
		}
	}
	if (!n && f.sym) {
		pl[0].function = function(b, f.sym, NULL, 0);
		pl[0].line = 0;
		n = 1;
	}
	return pprof_enc_location(b->enc, mapping, addr, pl, (uint32_t)n);
}

/* A frame's location, made once per (pid, address, leaf) of a profile:
 * symbolising is the costly part of a profile of many stacks. */
static uint64_t location(struct builder *b, int32_t pid, uint64_t addr,
			 bool leaf)
{
	uint64_t key[3] = { (uint64_t)(int64_t)pid, addr, leaf && pid >= 0 };
	bool fresh;
	uint64_t slot = intern(&b->locs, key, sizeof(key), b->loc_ids.len,
			       &fresh);
	if (!fresh)
		return b->loc_ids.data[slot];
	uint64_t id = pid < 0 ? kernel_location(b, addr) :
				user_location(b, pid, addr, leaf);
	vec_push(&b->loc_ids, id);
	return id;
}

/* A build_id-mode frame: an offset in the file with that build id, which
 * only a symbolising server (by build id) can name. */
static uint64_t build_id_location(struct builder *b, struct stack_frame fr)
{
	struct strbuf bid = STRBUF_INIT;
	sb_hex(&bid, fr.build_id, 20);
	struct pprof_mapping m = { 0, UINT64_MAX, 0, NULL, bid.buf,
				   false, false, false, false };
	uint64_t mapping = pprof_enc_mapping(b->enc, &m);
	sb_free(&bid);
	return pprof_enc_location(b->enc, mapping, fr.ip, NULL, 0);
}

/* Appends the frames of the stack at data (of type t), leaf first. */
static void add_stack(struct builder *b, const struct type *t,
		      const uint8_t *data)
{
	bool user = t->kind == TY_USTACK;
	int32_t pid = -1;
	uint64_t word = 0; /* the pid, and the unwinder's flags */
	if (user) {
		memcpy(&word, data + 8, 8);
		pid = (int32_t)word;
	}
	const uint8_t *ips;
	uint32_t n = type_stack_frames(t, data, &ips);
	bool truncated = false;
	if (user)
		n = vfmt_user_frames(b->s->res, word, t, ips, n, &truncated);
	for (uint32_t i = 0; i < n; i++) {
		struct stack_frame fr = type_stack_frame(t, ips, i);
		uint64_t id = fr.build_id ? build_id_location(b, fr) :
					    location(b, pid, fr.ip, i == 0);
		vec_push(&b->stack, id);
	}
	if (truncated) /* the root is unknown */
		vec_push(&b->stack, named_location(b, &b->truncated_loc,
						   VFMT_TRUNCATED));
}

/* ---- the key: stacks and labels ---- */

struct key_part {
	const struct type *t;
	uint32_t off;
	const char *label; /* NULL: a stack */
};

typedef VEC(struct key_part) part_vec;

static void key_parts(const struct cmap *m, part_vec *out)
{
	const struct type *key = m->key;
	bool tuple = key->kind == TY_TUPLE;
	uint32_t n = tuple ? key->nfields : 1, others = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct type *t = tuple ? key->fields[i].type : key;
		others += t->kind != TY_KSTACK && t->kind != TY_USTACK;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct key_part p = { tuple ? key->fields[i].type : key,
				      tuple ? key->fields[i].offset : 0,
				      NULL };
		if (p.t->kind != TY_KSTACK && p.t->kind != TY_USTACK) {
			if (m->key_names && i < m->nkey_names &&
			    m->key_names[i][0])
				p.label = m->key_names[i];
			else if (others == 1)
				p.label = "key";
			else
				p.label = NULL; /* numbered below */
			if (!p.label) {
				struct strbuf sb = STRBUF_INIT;
				sb_printf(&sb, "key%u", i + 1);
				p.label = sb.buf; /* freed with the parts */
			} else {
				p.label = xstrdup(p.label);
			}
		}
		vec_push(out, p);
	}
}

static void key_parts_free(part_vec *parts)
{
	for (size_t i = 0; i < parts->len; i++)
		free((char *)parts->data[i].label);
	vec_free(parts);
}

/* The one frame of a sample whose stacks have none (a capture that
 * failed: the map counts it, so the profile's total must too; pprof's
 * tools leave a sample of no location out), as perf names such frames. */
static uint64_t unknown_location(struct builder *b)
{
	return named_location(b, &b->unknown_loc, "[unknown]");
}

/* One entry as a sample: kernel stacks first (they are on top of the
 * user ones), then user stacks, each leaf first; the rest as labels. */
static void add_sample(struct builder *b, const part_vec *parts,
		       const uint8_t *key, const int64_t *values)
{
	b->stack.len = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < parts->len; i++) {
			const struct type *t = parts->data[i].t;
			if (t->kind == (pass ? TY_USTACK : TY_KSTACK))
				add_stack(b, t, key + parts->data[i].off);
		}
	if (!b->stack.len)
		vec_push(&b->stack, unknown_location(b));
	struct pprof_label labels[16];
	struct strbuf text[16];
	uint32_t nl = 0;
	struct vfmt f = { .res = b->s->res, .stack_indent = VFMT_KEY_INDENT,
			  .compact = true };
	for (size_t i = 0; i < parts->len && nl < 16; i++) {
		const struct key_part *p = &parts->data[i];
		if (!p->label)
			continue;
		struct pprof_label *l = &labels[nl];
		memset(l, 0, sizeof(*l));
		l->key = p->label;
		text[nl] = (struct strbuf)STRBUF_INIT;
		if (p->t->kind == TY_INT) {
			l->is_num = true;
			l->num = (int64_t)vfmt_load_int(key + p->off,
							p->t->size,
							p->t->is_signed);
		} else {
			vfmt_value(&text[nl], &f, p->t, key + p->off);
			l->str = sb_str(&text[nl]);
		}
		nl++;
	}
	pprof_enc_sample(b->enc, b->stack.data, (uint32_t)b->stack.len, values,
			 labels, nl);
	for (uint32_t i = 0; i < nl; i++)
		sb_free(&text[i]);
}

/* ---- the profile ---- */

/* The sample type columns of pm, from column col: how many. */
static uint32_t declare_columns(struct pprof_enc *enc, const struct pmap *pm)
{
	struct strbuf name = STRBUF_INIT;
	type_name(&name, pm, "");
	bool count = pm->m->value->kind == TY_COUNT;
	pprof_enc_sample_type(enc, sb_str(&name),
			      count ? "count" : sum_unit(pm->m->name));
	uint32_t n = 1;
	if (pm->period_ns) {
		sb_reset(&name);
		type_name(&name, pm, "cpu");
		pprof_enc_sample_type(enc, sb_str(&name), "nanoseconds");
		n++;
	}
	sb_free(&name);
	return n;
}

static void describe(struct pprof_enc *enc, const struct pprof_src *s,
		     const struct pmap *pm, bool left_out)
{
	struct strbuf sb = STRBUF_INIT;
	sb_printf(&sb, "%s: %s of the script", pm->m->name,
		  mapdump_value_name(pm->m->value));
	if (pm->period_ns)
		sb_printf(&sb, ", sampled every %" PRIu64 " ns of CPU time",
			  pm->period_ns);
	if (left_out)
		sb_append(&sb, "; left out: the script clears it, so what "
			       "it gained in the window is not known");
	pprof_enc_comment(enc, sb_str(&sb));
	if (pm->m->full_counter > 0) {
		uint64_t lost = loader_counter_read_at(
			s->map_fds[pm->m->full_counter], pm->m->full_off);
		if (lost) {
			sb_reset(&sb);
			sb_printf(&sb, "%s: %" PRIu64 " updates lost: the map "
				  "is full (%u entries)", pm->m->name, lost,
				  pm->m->max_entries);
			pprof_enc_comment(enc, sb_str(&sb));
		}
	}
	sb_free(&sb);
}

int pprof_profile(const struct pprof_src *s, const struct pprof_snap *now,
		  const struct pprof_snap *before, int64_t time_ns,
		  int64_t duration_ns, struct strbuf *gz)
{
	pmap_vec pm = { 0 };
	find_maps(s->c, &pm);
	struct builder b = { .s = s, .enc = pprof_enc_new(),
			     .u = stacks_usyms(s->st) };
	/* the columns of each map, and whether it goes in */
	uint32_t *col = xcalloc(pm.len + 1, sizeof(*col));
	bool *in = xcalloc(pm.len + 1, sizeof(*in));
	uint32_t ncols = 0;
	uint64_t period = 0;
	bool one_period = true;
	for (size_t i = 0; i < pm.len; i++) {
		in[i] = !(before && pm.data[i].cleared) &&
			snap_map(now, pm.data[i].idx);
		describe(b.enc, s, &pm.data[i], !in[i]);
		if (!in[i])
			continue;
		col[i] = ncols;
		ncols += declare_columns(b.enc, &pm.data[i]);
		if (!pm.data[i].period_ns || (period &&
					      period != pm.data[i].period_ns))
			one_period = false;
		period = pm.data[i].period_ns;
	}
	if (one_period && period)
		pprof_enc_period(b.enc, "cpu", "nanoseconds", (int64_t)period);
	pprof_enc_time(b.enc, time_ns, duration_ns);
	int64_t *values = xcalloc(ncols + 1, sizeof(*values));
	uint64_t reset = 0;
	for (size_t i = 0; i < pm.len; i++) {
		if (!in[i])
			continue;
		const struct snap_map *sm = snap_map(now, pm.data[i].idx);
		const struct snap_map *bm = snap_map(before, pm.data[i].idx);
		part_vec parts = { 0 };
		key_parts(pm.data[i].m, &parts);
		for (size_t k = 0; k < sm->e.n; k++) {
			const uint8_t *key = sm->e.keys + k * sm->e.ksize;
			int64_t v;
			memcpy(&v, sm->e.vals + k * sm->e.vsize, 8);
			if (bm)
				v -= snap_value(bm, key);
			if (bm && v < 0 && pm.data[i].m->value->kind ==
						       TY_COUNT) {
				reset++; /* deleted and counted again */
				continue;
			}
			if (!v)
				continue;
			memset(values, 0, sizeof(*values) * ncols);
			values[col[i]] = v;
			if (pm.data[i].period_ns)
				values[col[i] + 1] =
					v * (int64_t)pm.data[i].period_ns;
			add_sample(&b, &parts, key, values);
		}
		key_parts_free(&parts);
	}
	if (reset) {
		struct strbuf sb = STRBUF_INIT;
		sb_printf(&sb, "%" PRIu64 " entries were deleted during the "
			  "window and are left out", reset);
		pprof_enc_comment(b.enc, sb_str(&sb));
		sb_free(&sb);
	}
	pprof_enc_main_mapping(b.enc, b.main_mapping);
	int err = pprof_enc_finish(b.enc, gz);
	free(values);
	free(in);
	free(col);
	vec_free(&pm);
	intern_free(&b.locs);
	vec_free(&b.loc_ids);
	vec_free(&b.stack);
	pprof_enc_free(b.enc);
	return err;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct pprof_window {
	struct pprof_snap *before;
	int64_t wall_ns;
	uint64_t mono_ns;
};

struct pprof_window *pprof_window_begin(const struct pprof_src *s, int *err)
{
	struct pprof_snap *snap = pprof_snap_take(s, err);
	if (!snap)
		return NULL;
	struct pprof_window *w = xcalloc(1, sizeof(*w));
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	w->wall_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	w->mono_ns = mono_ns();
	w->before = snap;
	return w;
}

int pprof_window_end(const struct pprof_src *s, struct pprof_window *w,
		     struct strbuf *gz)
{
	int err;
	struct pprof_snap *now = pprof_snap_take(s, &err);
	if (!now)
		return err;
	err = pprof_profile(s, now, w->before, w->wall_ns,
			    (int64_t)(mono_ns() - w->mono_ns), gz);
	pprof_snap_free(now);
	return err;
}

void pprof_window_free(struct pprof_window *w)
{
	if (!w)
		return;
	pprof_snap_free(w->before);
	free(w);
}

int pprof_write_file(const struct pprof_src *s, const char *path,
		     int64_t time_ns, int64_t duration_ns, FILE *err)
{
	int rc;
	struct pprof_snap *now = pprof_snap_take(s, &rc);
	if (!now) {
		fprintf(err, "sonde: cannot read a map for the pprof profile: "
			     "%s\n", strerror(-rc));
		return rc;
	}
	struct strbuf gz = STRBUF_INIT;
	rc = pprof_profile(s, now, NULL, time_ns, duration_ns, &gz);
	pprof_snap_free(now);
	FILE *f = rc ? NULL : fopen(path, "we");
	if (!rc && (!f || fwrite(gz.buf, 1, gz.len, f) != gz.len))
		rc = -errno;
	if (f && fclose(f) && !rc)
		rc = -errno;
	if (rc)
		fprintf(err, "sonde: cannot write %s: %s\n", path,
			strerror(-rc));
	sb_free(&gz);
	return rc;
}
