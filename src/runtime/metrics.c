/* Maps as Prometheus text exposition (see metrics.h for what becomes
 * what). Reading goes through mapdump, bucket bounds through hist. */
#include "runtime/metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/compiled.h"
#include "model/types.h"
#include "runtime/flamegraph.h"
#include "runtime/hist.h"
#include "runtime/loader.h"
#include "runtime/mapdump.h"
#include "runtime/output.h"
#include "runtime/pprof.h"
#include "runtime/value_fmt.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* A label name for one key part, from what its type is. */
static const char *label_base(const struct type *t)
{
	switch (t->kind) {
	case TY_PROBE: return "probe";
	case TY_KSYM: return "ksym";
	case TY_USYM: return "usym";
	case TY_KSTACK: return "kstack";
	case TY_USTACK: return "ustack";
	case TY_INET: return "inet";
	case TY_USERNAME: return "user";
	case TY_CGROUP_PATH: return "cgroup";
	default: return "key";
	}
}

/* The key's parts: types, offsets and label names. */
struct key_parts {
	uint32_t n;
	const struct type **types;
	uint32_t *offs;
	char **names;
};

static void key_parts_init(struct key_parts *k, const struct type *key)
{
	memset(k, 0, sizeof(*k));
	if (!key)
		return;
	bool tuple = key->kind == TY_TUPLE;
	k->n = tuple ? key->nfields : 1;
	k->types = xcalloc(k->n, sizeof(*k->types));
	k->offs = xcalloc(k->n, sizeof(*k->offs));
	k->names = xcalloc(k->n, sizeof(*k->names));
	for (uint32_t i = 0; i < k->n; i++) {
		k->types[i] = tuple ? key->fields[i].type : key;
		k->offs[i] = tuple ? key->fields[i].offset : 0;
	}
	for (uint32_t i = 0; i < k->n; i++) {
		const char *b = label_base(k->types[i]);
		uint32_t same = 0;
		for (uint32_t j = 0; j < k->n; j++)
			same += !strcmp(label_base(k->types[j]), b);
		struct strbuf sb = STRBUF_INIT;
		if (same > 1)
			sb_printf(&sb, "%s%u", b, i + 1);
		else
			sb_append(&sb, b);
		k->names[i] = xstrdup(sb_str(&sb));
		sb_free(&sb);
	}
}

static void key_parts_free(struct key_parts *k)
{
	for (uint32_t i = 0; i < k->n; i++)
		free(k->names[i]);
	free(k->names);
	free(k->offs);
	free(k->types);
}

/* A label value: \ " and newline escaped, as the format requires. */
static void label_value(struct strbuf *sb, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' || s[i] == '"')
			sb_putc(sb, '\\');
		if (s[i] == '\n')
			sb_append(sb, "\\n");
		else
			sb_putc(sb, s[i]);
	}
}

/* `name{k="v",...,extra}` (no braces when there is nothing to put). */
static void series(struct strbuf *sb, const char *name, const char *suffix,
		   const struct key_parts *k, const uint8_t *key,
		   const char *extra, const struct out_resolver *res)
{
	sb_append(sb, name);
	sb_append(sb, suffix);
	if (!k->n && !extra)
		return;
	sb_putc(sb, '{');
	struct vfmt f = { .res = res, .stack_indent = VFMT_KEY_INDENT,
			  .compact = true };
	struct strbuf v = STRBUF_INIT;
	for (uint32_t i = 0; i < k->n && key; i++) {
		const struct type *t = k->types[i];
		sb_reset(&v);
		if (t->kind == TY_KSTACK || t->kind == TY_USTACK)
			flamegraph_fold_stack(&v, res, t, key + k->offs[i]);
		else
			vfmt_value(&v, &f, t, key + k->offs[i]);
		sb_printf(sb, "%s%s=\"", i ? "," : "", k->names[i]);
		label_value(sb, sb_str(&v), v.len);
		sb_putc(sb, '"');
	}
	if (extra)
		sb_printf(sb, "%s%s", k->n && key ? "," : "", extra);
	sb_putc(sb, '}');
	sb_free(&v);
}

static void family_name(struct strbuf *sb, const char *map)
{
	sb_append(sb, "sonde");
	if (map[1]) {
		sb_putc(sb, '_');
		sb_append(sb, map + 1);
	}
}

static bool has_stack(const struct type *key)
{
	static const enum type_kind stacks[] = { TY_KSTACK, TY_USTACK,
						 TY_NONE };
	return key && type_holds(key, stacks);
}

static void header(struct strbuf *sb, const char *fam,
		   const struct metrics_map *mm, const char *type,
		   const char *note)
{
	const struct mapdump_map *m = mm->m;
	sb_printf(sb, "# HELP %s %s: %s of the script%s%s%s\n", fam, m->name,
		  mapdump_value_name(m->value), note,
		  has_stack(m->key) ? "; stacks as folded stacks, root first" :
				      "",
		  mm->cleared && type[0] == 'g' &&
				  (m->value->kind == TY_COUNT ||
				   m->value->kind == TY_SUM) ?
			  "; a gauge because the script clears it" :
			  "");
	sb_printf(sb, "# TYPE %s %s\n", fam, type);
}

static int render_hist(struct strbuf *sb, const char *fam,
		       const struct metrics_map *mm,
		       const struct out_resolver *res)
{
	const struct mapdump_map *m = mm->m;
	struct mapdump_hists h;
	int err = mapdump_read_hists(m, &h);
	if (err)
		return err;
	header(sb, fam, mm, "histogram",
	       "; le is the largest integer a bucket holds; no _sum: the map "
	       "keeps only bucket counts");
	struct hist_scale sc = { m->value->kind == TY_LHIST, m->value->lmin,
				 m->value->lmax, m->value->lstep,
				 m->value->hbits };
	struct key_parts k;
	key_parts_init(&k, m->key);
	struct strbuf le = STRBUF_INIT;
	for (size_t i = 0; i < h.n; i++) {
		const uint64_t *c = h.counts + i * h.nbuckets;
		uint64_t cum = 0;
		for (uint32_t b = 0; b < h.nbuckets; b++) {
			int64_t max;
			cum += c[b];
			if (!hist_bucket_max(&sc, b, &max))
				break;
			sb_reset(&le);
			sb_printf(&le, "le=\"%" PRId64 "\"", max);
			series(sb, fam, "_bucket", &k,
			       h.keys[i], sb_str(&le), res);
			sb_printf(sb, " %" PRIu64 "\n", cum);
		}
		uint64_t total = 0;
		for (uint32_t b = 0; b < h.nbuckets; b++)
			total += c[b];
		series(sb, fam, "_bucket", &k, h.keys[i], "le=\"+Inf\"", res);
		sb_printf(sb, " %" PRIu64 "\n", total);
		series(sb, fam, "_count", &k, h.keys[i], NULL, res);
		sb_printf(sb, " %" PRIu64 "\n", total);
	}
	sb_free(&le);
	key_parts_free(&k);
	mapdump_hists_free(&h);
	return 0;
}

/* The TYPE of a map that is not a histogram; NULL: not a number. */
static const char *plain_type(const struct metrics_map *mm)
{
	const struct type *vt = mm->m->value;
	switch (vt->kind) {
	case TY_COUNT:
		return mm->cleared ? "gauge" : "counter";
	case TY_SUM:
		return mm->cleared || vt->is_signed ? "gauge" : "counter";
	case TY_STATS:
		return "summary";
	case TY_AVG: case TY_MIN: case TY_MAX: case TY_INT:
		return "gauge";
	default:
		return NULL;
	}
}

static int render_plain(struct strbuf *sb, const char *fam,
			const struct metrics_map *mm,
			const struct out_resolver *res)
{
	const struct mapdump_map *m = mm->m;
	const struct type *vt = m->value;
	const char *type = plain_type(mm);
	if (!type) {
		sb_printf(sb, "# %s left out: its values are not numbers\n",
			  m->name);
		return 0;
	}
	struct mapdump_entries e;
	int err = mapdump_read_fast(m, &e);
	if (err)
		return err;
	header(sb, fam, mm, type,
	       vt->kind == TY_SUM && vt->is_signed ?
		       "; a gauge because its values are signed" :
		       "");
	struct key_parts k;
	key_parts_init(&k, m->key);
	for (size_t i = 0; i < e.n; i++) {
		const uint8_t *key = m->key ? e.keys + i * e.ksize : NULL;
		const uint8_t *v = e.vals + i * e.vsize;
		if (vt->kind == TY_STATS) {
			int64_t s;
			uint64_t c;
			memcpy(&s, v, 8);
			memcpy(&c, v + 8, 8);
			series(sb, fam, "_sum", &k, key, NULL, res);
			sb_printf(sb, " %" PRId64 "\n", s);
			series(sb, fam, "_count", &k, key, NULL, res);
			sb_printf(sb, " %" PRIu64 "\n", c);
			continue;
		}
		series(sb, fam, "", &k, key, NULL, res);
		sb_putc(sb, ' ');
		out_scalar(sb, vt, v, 0);
		sb_putc(sb, '\n');
	}
	key_parts_free(&k);
	mapdump_entries_free(&e);
	return 0;
}

int metrics_render(struct strbuf *sb, const struct metrics_map *maps,
		   size_t n, const struct out_resolver *res)
{
	int first = 0;
	struct strbuf fam = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		const struct type *vt = maps[i].m->value;
		sb_reset(&fam);
		family_name(&fam, maps[i].m->name);
		const char *type = plain_type(&maps[i]);
		if (type && !strcmp(type, "counter"))
			sb_append(&fam, "_total"); /* the convention */
		int err = vt->kind == TY_HIST || vt->kind == TY_LHIST ?
				  render_hist(sb, sb_str(&fam), &maps[i], res) :
				  render_plain(sb, sb_str(&fam), &maps[i], res);
		if (err) {
			sb_printf(sb, "# %s left out: cannot read it: %s\n",
				  maps[i].m->name, strerror(-err));
			if (!first)
				first = err;
		}
	}
	sb_free(&fam);
	return first;
}

static int render_run(void *ctx, struct strbuf *sb)
{
	struct metrics *m = ctx;
	return metrics_render(sb, m->mm, m->n, m->res);
}

/* /debug/pprof/profile's windows (runtime/pprof.h) */
static void *profile_begin(void *ctx, unsigned *status, const char **why)
{
	struct metrics *m = ctx;
	if (!pprof_has_maps(m->ps->c)) {
		*status = 404;
		*why = "the script has no map keyed by kstack or ustack with "
		       "count() or sum() values to profile";
		return NULL;
	}
	int err;
	struct pprof_window *w = pprof_window_begin(m->ps, &err);
	if (!w) {
		*status = 500;
		*why = "cannot read the stack maps";
	}
	return w;
}

static int profile_end(void *ctx, void *w, struct strbuf *gz)
{
	struct metrics *m = ctx;
	return pprof_window_end(m->ps, w, gz);
}

static void profile_drop(void *ctx, void *w)
{
	pprof_window_free(w);
}

int metrics_start(struct metrics *m, const struct compiled *c,
		  const struct loader *l, const struct out_resolver *res,
		  const struct pprof_src *ps, const char *addr, bool quiet,
		  FILE *err)
{
	memset(m, 0, sizeof(*m));
	m->res = res;
	m->ps = ps;
	m->prof = (struct metrics_profiler){ profile_begin, profile_end,
					     profile_drop, m };
	m->maps = loader_user_maps(l, &m->n);
	if (!m->maps)
		return -ENOMEM;
	m->mm = xcalloc(m->n ? m->n : 1, sizeof(*m->mm));
	for (size_t i = 0; i < m->n; i++)
		m->mm[i].m = &m->maps[i];
	/* clear() and zero() run in user space: their records name the
	 * map (by compiled index; user maps keep their order). */
	for (uint32_t e = 0; e < c->nevents; e++) {
		const struct cevent *ev = &c->events[e];
		if ((ev->kind != EV_CLEAR && ev->kind != EV_ZERO) ||
		    ev->map < 0 || (uint32_t)ev->map >= c->nmaps)
			continue;
		for (size_t i = 0; i < m->n; i++)
			if (!strcmp(m->maps[i].name, c->maps[ev->map].name))
				m->mm[i].cleared = true;
	}
	int rc = metrics_listen(&m->srv, addr, render_run, m, quiet, err);
	if (!rc)
		rc = metrics_serve_profiles(m->srv, &m->prof);
	return rc;
}

void metrics_stop(struct metrics *m)
{
	metrics_close(m->srv);
	free(m->mm);
	free(m->maps);
	memset(m, 0, sizeof(*m));
}
