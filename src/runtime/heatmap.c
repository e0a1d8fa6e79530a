/* Heatmaps of hist()/lhist() prints: terminal rows and an SVG at exit
 * (see heatmap.h). Bucket names and edges come from hist.c. */
#include "runtime/heatmap.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model/types.h"
#include "runtime/flamegraph.h"
#include "runtime/hist.h"
#include "runtime/mapdump.h"
#include "runtime/output.h"
#include "runtime/value_fmt.h"
#include "util/strbuf.h"
#include "util/vec.h"
#include "util/xalloc.h"

#define NLEVELS 10
static const char shades[NLEVELS + 1] = " .:-=+*#%@";

/* A map drawn in the terminal: its columns and shade unit so far. */
struct term_map {
	const char *name;
	uint32_t lo, hi; /* columns: bucket indexes lo..hi */
	bool shown;      /* header printed */
	uint64_t unit;   /* counts per step of the lowest shade */
};

/* One row of the SVG: a print of one key of one map. */
struct svg_row {
	uint32_t series;
	char time[16];
	uint64_t *counts;
};

/* A map and key of the SVG, and its scale. */
struct svg_series {
	char *title; /* "@lat[dd]" */
	struct hist_scale sc;
	uint32_t nb;
};

struct heatmap {
	struct heatmap_opts o;
	const struct out_ops *inner;
	bool color;
	VEC(struct term_map) maps;
	VEC(struct svg_row) rows;
	VEC(struct svg_series) series;
};

static struct hist_scale scale_of(const struct type *vt)
{
	struct hist_scale s = { vt->kind == TY_LHIST, vt->lmin, vt->lmax,
				vt->lstep, vt->hbits };
	return s;
}

static bool is_hist(const struct type *t)
{
	return t->kind == TY_HIST || t->kind == TY_LHIST;
}

static void now_hms(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(buf, len, "%H:%M:%S", &tm);
}

/* Shade level of a count: 0 for 0, then one more per doubling of
 * ceil(count / unit), up to NLEVELS - 1. */
static int level(uint64_t c, uint64_t unit)
{
	if (!c)
		return 0;
	uint64_t q = (c + unit - 1) / unit;
	int l = 1;
	while (q > 1 && l < NLEVELS - 1) {
		q >>= 1;
		l++;
	}
	return l;
}

/* The counts level l stands for: [from, to] (to 0: no upper end). */
static void level_range(int l, uint64_t unit, uint64_t *from, uint64_t *to)
{
	if (l == 1) {
		*from = 1;
		*to = unit;
		return;
	}
	*from = unit * ((1ull << (l - 1)) - 1) + 1;
	*to = l == NLEVELS - 1 ? 0 : unit * ((1ull << l) - 1);
}

static int grey(int l)
{
	/* 232 (near black) .. 255 (near white); level 1 must still show on
	 * a black background */
	return 236 + (l - 1) * 19 / (NLEVELS - 2);
}

static void cell(struct strbuf *sb, const struct heatmap *h, int l,
		 uint32_t w)
{
	if (h->color && l) {
		sb_printf(sb, "\033[48;5;%dm", grey(l));
		for (uint32_t i = 0; i < w; i++)
			sb_putc(sb, ' ');
		sb_append(sb, "\033[0m");
		return;
	}
	for (uint32_t i = 0; i < w; i++)
		sb_putc(sb, shades[l]);
}

static uint32_t cell_width(const struct hist_scale *sc, uint32_t lo,
			   uint32_t hi)
{
	struct strbuf e = STRBUF_INIT;
	uint32_t w = 2;
	for (uint32_t b = lo; b <= hi; b++) {
		sb_reset(&e);
		hist_bucket_edge(&e, sc, b);
		if (e.len + 1 > w)
			w = (uint32_t)e.len + 1;
	}
	sb_free(&e);
	return w;
}

static void legend(struct strbuf *sb, const struct heatmap *h,
		   uint64_t unit)
{
	sb_append(sb, "shades:");
	for (int l = 0; l < NLEVELS; l++) {
		uint64_t from = 0, to = 0;
		sb_append(sb, "  ");
		if (h->color) {
			if (l)
				cell(sb, h, l, 2);
			else
				sb_append(sb, "[]");
		} else {
			sb_printf(sb, "'%c'", shades[l]);
		}
		if (!l) {
			sb_append(sb, " 0");
			continue;
		}
		level_range(l, unit, &from, &to);
		if (!to)
			sb_printf(sb, " %" PRIu64 "+", from);
		else if (from == to)
			sb_printf(sb, " %" PRIu64, from);
		else
			sb_printf(sb, " %" PRIu64 "-%" PRIu64, from, to);
	}
	sb_putc(sb, '\n');
}

static struct term_map *term_map(struct heatmap *h, const char *name)
{
	for (size_t i = 0; i < h->maps.len; i++)
		if (!strcmp(h->maps.data[i].name, name))
			return &h->maps.data[i];
	struct term_map t = { name, 0, 0, false, 1 };
	vec_push(&h->maps, t);
	return &h->maps.data[h->maps.len - 1];
}

/* The rows of one print in the terminal. */
static void term_rows(struct heatmap *h, struct out *o,
		      const struct out_map *m, const char *when)
{
	struct term_map *t = term_map(h, m->name);
	struct hist_scale sc = scale_of(m->value);
	uint32_t nb = hist_scale_nbuckets(&sc);
	bool any = false, widen = !t->shown, rescale = false;
	uint32_t lo = t->lo, hi = t->hi;
	uint64_t max = 0;
	for (size_t i = 0; i < m->n; i++)
		for (uint32_t b = 0; b < nb && b < m->entries[i].nbuckets;
		     b++) {
			uint64_t c = m->entries[i].buckets[b];
			if (!c)
				continue;
			if (!t->shown && !any)
				lo = hi = b;
			any = true;
			if (b < lo)
				lo = b;
			if (b > hi)
				hi = b;
			if (c > max)
				max = c;
		}
	if (!t->shown && !any && (m->key || m->n))
		return; /* nothing yet to lay columns out from */
	if (!t->shown && !any)
		lo = hi = sc.linear ? 1 : 2;
	widen = widen || lo < t->lo || hi > t->hi;
	while (max > t->unit * ((1ull << (NLEVELS - 1)) - 1) * 2) {
		t->unit *= 2;
		rescale = true;
	}
	t->lo = lo;
	t->hi = hi;
	uint32_t w = cell_width(&sc, lo, hi);
	struct strbuf sb = STRBUF_INIT;
	if (widen || rescale) {
		if (!t->shown)
			sb_printf(&sb, "%s: %s over time, a row per print; "
				       "columns: buckets by lower edge\n",
				  m->name, sc.linear ? "lhist()" : "hist()");
		if (!t->shown || rescale)
			legend(&sb, h, t->unit);
		sb_append(&sb, "time     |");
		struct strbuf e = STRBUF_INIT;
		for (uint32_t b = lo; b <= hi; b++) {
			sb_reset(&e);
			hist_bucket_edge(&e, &sc, b);
			sb_printf(&sb, "%-*s", (int)w, sb_str(&e));
		}
		sb_free(&e);
		sb_append(&sb, "| count\n");
		t->shown = true;
	}
	struct vfmt f = { .res = o->res, .stack_indent = VFMT_KEY_INDENT,
			  .compact = true };
	for (size_t i = 0; i < m->n || (i == 0 && !m->key); i++) {
		const struct out_entry *e = i < m->n ? &m->entries[i] : NULL;
		uint64_t total = 0;
		sb_printf(&sb, "%-8s |", when);
		for (uint32_t b = lo; b <= hi; b++) {
			uint64_t c = e && b < e->nbuckets ? e->buckets[b] : 0;
			total += c;
			cell(&sb, h, level(c, t->unit), w);
		}
		for (uint32_t b = 0; e && b < e->nbuckets; b++)
			if (b < lo || b > hi)
				total += e->buckets[b];
		sb_printf(&sb, "| %" PRIu64, total);
		if (e && m->key) {
			sb_putc(&sb, ' ');
			vfmt_key(&sb, &f, m->key, e->key);
		}
		sb_putc(&sb, '\n');
	}
	out_write(o, &sb);
	sb_free(&sb);
}

static uint32_t svg_series(struct heatmap *h, const char *title,
			   const struct hist_scale *sc)
{
	for (uint32_t i = 0; i < h->series.len; i++)
		if (!strcmp(h->series.data[i].title, title))
			return i;
	struct svg_series s = { xstrdup(title), *sc,
				hist_scale_nbuckets(sc) };
	vec_push(&h->series, s);
	return (uint32_t)h->series.len - 1;
}

static void svg_record(struct heatmap *h, struct out *o,
		       const struct out_map *m, const char *when)
{
	struct hist_scale sc = scale_of(m->value);
	struct vfmt f = { .res = o->res, .stack_indent = VFMT_KEY_INDENT,
			  .compact = true };
	struct strbuf title = STRBUF_INIT;
	for (size_t i = 0; i < m->n || (i == 0 && !m->key); i++) {
		const struct out_entry *e = i < m->n ? &m->entries[i] : NULL;
		sb_reset(&title);
		sb_append(&title, m->name);
		if (e && m->key)
			vfmt_key(&title, &f, m->key, e->key);
		struct svg_row r;
		r.series = svg_series(h, sb_str(&title), &sc);
		uint32_t nb = h->series.data[r.series].nb;
		snprintf(r.time, sizeof(r.time), "%s", when);
		r.counts = xcalloc(nb ? nb : 1, sizeof(uint64_t));
		for (uint32_t b = 0; e && b < nb && b < e->nbuckets; b++)
			r.counts[b] = e->buckets[b];
		vec_push(&h->rows, r);
	}
	sb_free(&title);
}

static void hm_map(struct out *o, const struct out_map *m)
{
	struct heatmap *h = o->ctx;
	if (!is_hist(m->value)) {
		h->inner->map(o, m);
		return;
	}
	char when[16];
	now_hms(when, sizeof(when));
	if (h->o.svg)
		svg_record(h, o, m, when);
	if (h->o.term)
		term_rows(h, o, m, when);
	else
		h->inner->map(o, m);
}

/* Everything but map prints goes to the wrapped format. */
#define FORWARD(NAME, ...)                                                    \
	{                                                                     \
		struct heatmap *h = o->ctx;                                   \
		h->inner->NAME(o, __VA_ARGS__);                               \
	}
static void hm_attached(struct out *o, uint32_t n) FORWARD(attached_probes, n)
static void hm_printf(struct out *o, const char *s, size_t l) FORWARD(printf_, s, l)
static void hm_time(struct out *o, const char *s, size_t l) FORWARD(time, s, l)
static void hm_cat(struct out *o, const char *s, size_t l) FORWARD(cat, s, l)
static void hm_syscall(struct out *o, const char *s, size_t l) FORWARD(syscall, s, l)
static void hm_join(struct out *o, const char *s, size_t l) FORWARD(join, s, l)
static void hm_lost(struct out *o, uint64_t n) FORWARD(lost_events, n)
static void hm_located(struct out *o, bool error, const char *s, size_t l,
		       struct span at, const struct span *from,
		       uint32_t nfrom) FORWARD(located, error, s, l, at, from, nfrom)
static void hm_helper_error(struct out *o, const char *helper, int64_t ret,
			    struct span at) FORWARD(helper_error, helper, ret, at)
static void hm_runtime_error(struct out *o, const char *msg,
			     struct span at)
{
	struct heatmap *h = o->ctx;
	if (h->inner->runtime_error)
		h->inner->runtime_error(o, msg, at);
}
static void hm_value(struct out *o, const struct type *t, const void *d) FORWARD(value, t, d)
static void hm_end(struct out *o)
{
	struct heatmap *h = o->ctx;
	h->inner->end(o);
}

static const struct out_ops heatmap_ops = {
	.name = "heatmap",
	.attached_probes = hm_attached,
	.printf_ = hm_printf,
	.time = hm_time,
	.cat = hm_cat,
	.syscall = hm_syscall,
	.join = hm_join,
	.lost_events = hm_lost,
	.helper_error = hm_helper_error,
	.runtime_error = hm_runtime_error,
	.located = hm_located,
	.value = hm_value,
	.map = hm_map,
	.end = hm_end,
};

static bool want_color(const struct heatmap_opts *o, FILE *f)
{
	if (o->color >= 0)
		return o->color;
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
	if (nc && *nc)
		return false;
	if (!isatty(fileno(f)) || !term)
		return false;
	return strstr(term, "256color") || strstr(term, "direct");
}

int heatmap_start(struct heatmap **out, struct out *o,
		  const struct heatmap_opts *opts,
		  const struct mapdump_map *maps, size_t n, FILE *err)
{
	*out = NULL;
	size_t hists = 0;
	for (size_t i = 0; i < n; i++)
		hists += is_hist(maps[i].value);
	if (!hists) {
		const char *opt = opts->term ? "--heatmap" : "--heatmap-svg";
		if (!n) {
			fprintf(err, "sonde: %s draws hist() and lhist() maps, "
				     "and the script has no map\n", opt);
		} else {
			fprintf(err, "sonde: %s draws hist() and lhist() maps, "
				     "and the script has none (", opt);
			for (size_t i = 0; i < n; i++)
				fprintf(err, "%s%s is %s", i ? ", " : "",
					maps[i].name, mapdump_value_name(maps[i].value));
			fputs(")\n", err);
		}
		return -EINVAL;
	}
	struct heatmap *h = xcalloc(1, sizeof(*h));
	h->o = *opts;
	h->inner = o->ops;
	h->color = opts->term && want_color(opts, opts->tty ? opts->tty : o->f);
	o->ops = &heatmap_ops;
	o->ctx = h;
	*out = h;
	return 0;
}

static const char svg_head[] =
	"<?xml version=\"1.0\" standalone=\"no\"?>\n"
	"<svg version=\"1.1\" width=\"1000\" height=\"300\" "
	"viewBox=\"0 0 1000 300\" xmlns=\"http://www.w3.org/2000/svg\">\n"
	"<style type=\"text/css\">\n"
	"text { font-family: Verdana, sans-serif; font-size: 11px; "
	"fill: #000; }\n"
	"text.title { font-size: 15px; }\n"
	"rect.cell:hover { stroke: #000; stroke-width: 1; }\n"
	"</style>\n"
	"<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" "
	"fill=\"#ffffff\"/>\n"
	"<g id=\"maps\"></g>\n"
	"<text id=\"details\" x=\"10\" y=\"290\"> </text>\n"
	"<script type=\"text/ecmascript\"><![CDATA[\n";

/* data: [{ t: title, b: [bucket names lo..hi], x: [times],
 *          c: [[x, y, count], ...] }, ...]; y 0 is bucket lo. */
static const char svg_script[] =
	"var NS = 'http://www.w3.org/2000/svg', svg = document.documentElement;\n"
	"var g = document.getElementById('maps');\n"
	"var details = document.getElementById('details');\n"
	"var LEFT = 110, CH = 14, TOP = 30, y0 = 0, W = 1000, width = 520;\n"
	"function el(n, a, p) {\n"
	"  var e = document.createElementNS(NS, n);\n"
	"  for (var k in a) e.setAttribute(k, a[k]);\n"
	"  (p || g).appendChild(e); return e;\n"
	"}\n"
	"function text(x, y, s, a) {\n"
	"  var t = el('text', a || {}); t.setAttribute('x', x);\n"
	"  t.setAttribute('y', y); t.textContent = s; return t;\n"
	"}\n"
	"function shade(c, max) {\n"
	"  /* log scale: 1 is pale yellow, max is dark red */\n"
	"  var f = max > 1 ? Math.log(c) / Math.log(max) : 1;\n"
	"  return 'rgb(' + Math.round(255 - 80 * f) + ',' +\n"
	"    Math.round(235 - 215 * f) + ',' + Math.round(160 - 140 * f) + ')';\n"
	"}\n"
	"data.forEach(function (m) {\n"
	"  var nx = m.x.length, ny = m.b.length, max = 1;\n"
	"  m.c.forEach(function (c) { if (c[2] > max) max = c[2]; });\n"
	"  var cw = Math.max(2, Math.min(40, (W - LEFT - 20) / Math.max(nx, 1)));\n"
	"  var top = y0 + TOP;\n"
	"  width = Math.max(width, LEFT + nx * cw + 20);\n"
	"  text(10, y0 + 20, m.t + ': time \\u2192, buckets \\u2191, colour: '\n"
	"    + 'count (log scale, 1 to ' + max + ')', { 'class': 'title' });\n"
	"  for (var j = 0; j < ny; j++)\n"
	"    text(LEFT - 6, top + (ny - j) * CH - 3, m.b[j],\n"
	"      { 'text-anchor': 'end' });\n"
	"  el('rect', { x: LEFT, y: top, width: nx * cw, height: ny * CH,\n"
	"    fill: '#f4f4f4' });\n"
	"  var step = Math.max(1, Math.ceil(60 / cw));\n"
	"  for (var i = 0; i < nx; i += step)\n"
	"    text(LEFT + i * cw, top + ny * CH + 14, m.x[i]);\n"
	"  m.c.forEach(function (c) {\n"
	"    var r = el('rect', { 'class': 'cell', x: LEFT + c[0] * cw,\n"
	"      y: top + (ny - 1 - c[1]) * CH, width: cw, height: CH,\n"
	"      fill: shade(c[2], max) });\n"
	"    var label = m.x[c[0]] + '  ' + m.b[c[1]] + ': ' + c[2];\n"
	"    el('title', {}, r).textContent = label;\n"
	"    r.onmouseover = function () { details.textContent = m.t + '  ' + label; };\n"
	"  });\n"
	"  y0 = top + ny * CH + 30;\n"
	"});\n"
	"details.setAttribute('y', y0 + 10);\n"
	"svg.setAttribute('width', width);\n"
	"svg.setAttribute('height', y0 + 20);\n"
	"svg.setAttribute('viewBox', '0 0 ' + width + ' ' + (y0 + 20));\n";

static void svg_write(const struct heatmap *h, FILE *f)
{
	fputs(svg_head, f);
	fputs("var data = [\n", f);
	struct strbuf sb = STRBUF_INIT;
	for (uint32_t s = 0; s < h->series.len; s++) {
		const struct svg_series *se = &h->series.data[s];
		uint32_t lo = UINT32_MAX, hi = 0, nx = 0;
		for (size_t r = 0; r < h->rows.len; r++) {
			const struct svg_row *row = &h->rows.data[r];
			if (row->series != s)
				continue;
			for (uint32_t b = 0; b < se->nb; b++)
				if (row->counts[b]) {
					if (b < lo)
						lo = b;
					if (b > hi)
						hi = b;
				}
		}
		if (lo == UINT32_MAX)
			lo = hi = se->sc.linear ? 1 : 2;
		fprintf(f, "{ t: ");
		flamegraph_js_string(f, se->title);
		fputs(", b: [", f);
		for (uint32_t b = lo; b <= hi; b++) {
			sb_reset(&sb);
			hist_bucket_name(&sb, &se->sc, b);
			if (b > lo)
				fputs(", ", f);
			flamegraph_js_string(f, sb_str(&sb));
		}
		fputs("], x: [", f);
		for (size_t r = 0; r < h->rows.len; r++)
			if (h->rows.data[r].series == s) {
				fputs(nx++ ? ", " : "", f);
				flamegraph_js_string(f, h->rows.data[r].time);
			}
		fputs("], c: [", f);
		nx = 0;
		bool first = true;
		for (size_t r = 0; r < h->rows.len; r++) {
			const struct svg_row *row = &h->rows.data[r];
			if (row->series != s)
				continue;
			for (uint32_t b = lo; b <= hi; b++)
				if (row->counts[b]) {
					fprintf(f, "%s[%u, %u, %" PRIu64 "]",
						first ? "" : ", ", nx, b - lo,
						row->counts[b]);
					first = false;
				}
			nx++;
		}
		fprintf(f, "] }%s\n", s + 1 < h->series.len ? "," : "");
	}
	sb_free(&sb);
	fputs("];\n", f);
	fputs(svg_script, f);
	fputs("]]></script>\n</svg>\n", f);
}

int heatmap_finish(struct heatmap *h, FILE *err)
{
	if (!h || !h->o.svg)
		return 0;
	FILE *f = fopen(h->o.svg, "w");
	if (!f) {
		int e = -errno;
		fprintf(err, "sonde: cannot write %s: %s\n", h->o.svg,
			strerror(-e));
		return e;
	}
	svg_write(h, f);
	if (fclose(f)) {
		int e = -errno;
		fprintf(err, "sonde: cannot write %s: %s\n", h->o.svg,
			strerror(-e));
		return e;
	}
	return 0;
}

void heatmap_free(struct heatmap *h, struct out *o)
{
	if (!h)
		return;
	if (o->ctx == h) {
		o->ops = h->inner;
		o->ctx = NULL;
	}
	for (size_t i = 0; i < h->rows.len; i++)
		free(h->rows.data[i].counts);
	for (size_t i = 0; i < h->series.len; i++)
		free(h->series.data[i].title);
	vec_free(&h->rows);
	vec_free(&h->series);
	vec_free(&h->maps);
	free(h);
}
