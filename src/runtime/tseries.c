#include "tseries.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/maplayout.h"
#include "model/types.h"
#include "runtime/mapdump.h"
#include "runtime/output.h"
#include "runtime/stdsort.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

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

/* a < b in the values' sign */
static bool less(bool sgn, uint64_t a, uint64_t b)
{
	return sgn ? (int64_t)a < (int64_t)b : a < b;
}

/* 0.26's reduce_tseries_value: the CPUs that wrote the newest epoch, in
 * CPU order, combined by the aggregation (the last value: the one written
 * last, by its timestamp in meta); avg divides at the end. */
void tseries_merge(const struct type *vt, const uint8_t *buf, int ncpu,
		   uint32_t slot, uint8_t *out)
{
	bool sgn = vt->is_signed;
	uint64_t latest = 0;
	for (int c = 0; c < ncpu; c++) {
		uint64_t e = u64_at(buf + (size_t)c * slot + 16);
		if (e > latest)
			latest = e;
	}
	memset(out, 0, 24);
	if (!latest)
		return;
	bool first = true;
	uint64_t val = 0, meta = 0;
	for (int c = 0; c < ncpu; c++) {
		const uint8_t *p = buf + (size_t)c * slot;
		if (u64_at(p + 16) != latest)
			continue;
		uint64_t v = u64_at(p), mt = u64_at(p + 8);
		if (first) {
			val = v;
			meta = mt;
			first = false;
			continue;
		}
		switch (vt->lstep) {
		case TSERIES_LAST:
			if (less(sgn, meta, mt)) {
				val = v;
				meta = mt;
			}
			break;
		case TSERIES_AVG:
			val += v;
			meta += mt;
			break;
		case TSERIES_MIN:
			if (less(sgn, v, val))
				val = v;
			break;
		case TSERIES_MAX:
			if (less(sgn, val, v))
				val = v;
			break;
		default:
			val += v;
			break;
		}
	}
	if (vt->lstep == TSERIES_AVG && meta)
		val = sgn ? (uint64_t)((int64_t)val / (int64_t)meta) : val / meta;
	put_u64(out, val);
	put_u64(out + 8, meta);
	put_u64(out + 16, latest);
}

/* One key's buckets: (epoch, value) pairs, the first of an epoch kept
 * (0.26 keeps them in a std::map filled with emplace). */
struct group {
	const uint8_t *key;
	uint64_t *epochs;
	int64_t *vals;
	uint32_t n;
	uint64_t latest;
	size_t order; /* in key-byte order */
};

static bool by_latest(const void *a, const void *b, void *ctx)
{
	const struct group *x = a, *y = b;
	if (x->latest != y->latest)
		return x->latest < y->latest;
	return x->order < y->order;
}

static bool by_key(const void *a, const void *b, void *ctx)
{
	size_t len = *(const size_t *)ctx;
	return memcmp(a, b, len) < 0;
}

int tseries_print(struct out *o, const struct mapdump_map *m,
		  const struct mapdump_entries *r)
{
	const struct type *vt = m->value;
	size_t plen = m->key ? m->key->size : 0;
	uint64_t interval = (uint64_t)vt->lmin, nint = (uint64_t)vt->lmax;
	/* entries in key-byte order of their key part (a stable sort keeps
	 * the kernel's order within a key) */
	const uint8_t **keys = xmalloc((r->n ? r->n : 1) * sizeof(*keys));
	for (size_t i = 0; i < r->n; i++)
		keys[i] = r->keys + i * r->ksize;
	stdsort_stable((void **)keys, r->n, by_key, &plen);
	struct group *gs = xcalloc(r->n ? r->n : 1, sizeof(*gs));
	uint64_t *epochs = xcalloc(r->n ? r->n : 1, sizeof(*epochs));
	int64_t *vals = xcalloc(r->n ? r->n : 1, sizeof(*vals));
	size_t ng = 0;
	for (size_t i = 0; i < r->n; i++) {
		const uint8_t *k = keys[i];
		const uint8_t *v = r->vals + (size_t)(k - r->keys) / r->ksize *
						       r->vsize;
		if (!ng || memcmp(gs[ng - 1].key, k, plen)) {
			gs[ng].key = k;
			gs[ng].epochs = epochs + i;
			gs[ng].vals = vals + i;
			gs[ng].order = ng;
			ng++;
		}
		struct group *g = &gs[ng - 1];
		uint64_t e = u64_at(v + 16);
		bool dup = false;
		for (uint32_t j = 0; j < g->n; j++)
			dup |= g->epochs[j] == e;
		if (dup)
			continue;
		g->epochs[g->n] = e;
		g->vals[g->n] = (int64_t)u64_at(v);
		g->n++;
		if (e > g->latest)
			g->latest = e;
	}
	struct group **order = xmalloc((ng ? ng : 1) * sizeof(*order));
	for (size_t i = 0; i < ng; i++)
		order[i] = &gs[i];
	stdsort_stable((void **)order, ng, by_latest, NULL);
	uint64_t last = ng ? order[ng - 1]->latest : UINT64_MAX;
	uint64_t first = last - nint + 1;
	struct out_entry *ents = xcalloc(ng ? ng : 1, sizeof(*ents));
	struct out_tpoint *pts = xcalloc((ng ? ng : 1) * (size_t)nint,
					 sizeof(*pts));
	for (size_t i = 0; i < ng; i++) {
		struct group *g = order[i];
		struct out_tpoint *p = pts + i * nint;
		uint64_t from = last;
		for (uint32_t j = 0; j < g->n; j++)
			if (g->epochs[j] >= first && g->epochs[j] < from)
				from = g->epochs[j];
		uint32_t np = 0;
		for (uint64_t e = first; first <= last && e <= last; e++) {
			if (e >= from) {
				p[np].ns = e * interval;
				for (uint32_t j = 0; j < g->n; j++)
					if (g->epochs[j] == e) {
						p[np].v = g->vals[j];
						p[np].present = true;
					}
				np++;
			}
			if (e == last)
				break;
		}
		ents[i].key = m->key ? g->key : NULL;
		ents[i].points = p;
		ents[i].npoints = np;
	}
	/* a key-less map prints its one series */
	struct out_map om = {
		.name = m->name, .key = m->key, .value = vt,
		.entries = ents, .n = m->key || !ng ? ng : 1,
	};
	out_map(o, &om);
	free(pts);
	free(ents);
	free(order);
	free(vals);
	free(epochs);
	free(gs);
	free(keys);
	return 0;
}

enum unit { U_S = 0, U_MS = 3, U_US = 6, U_NS = 9 };

/* A value as 0.26 prints its int64 or uint64 */
static void put_val(struct strbuf *sb, int64_t v, bool sgn)
{
	if (sgn)
		sb_printf(sb, "%" PRId64, v);
	else
		sb_printf(sb, "%" PRIu64, (uint64_t)v);
}

static void pad_to(struct strbuf *sb, size_t start, size_t width)
{
	while (sb->len - start < width)
		sb_putc(sb, ' ');
}

/* setw(21) left min, setw(32) right max */
static void min_max_line(struct strbuf *sb, int64_t mn, int64_t mx, bool sgn)
{
	size_t at = sb->len;
	put_val(sb, mn, sgn);
	pad_to(sb, at, 21);
	struct strbuf t = STRBUF_INIT;
	put_val(&t, mx, sgn);
	for (size_t i = t.len; i < 32; i++)
		sb_putc(sb, ' ');
	sb_append(sb, sb_str(&t));
	sb_free(&t);
	sb_putc(sb, '\n');
}

static bool lt(int64_t a, int64_t b, bool sgn)
{
	return sgn ? a < b : (uint64_t)a < (uint64_t)b;
}

/* distance(a, b) = a - b as 0.26 computes it */
static int64_t dist(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

void tseries_text(struct strbuf *sb, const struct out_tpoint *p, uint32_t n,
		  bool sgn)
{
	const int width = 53;
	if (!n) {
		sb_append(sb, "<no data>");
		return;
	}
	int64_t mn = p[0].v, mx = p[0].v;
	for (uint32_t i = 0; i < n; i++) {
		if (!p[i].present)
			continue;
		if (lt(p[i].v, mn, sgn))
			mn = p[i].v;
		if (lt(mx, p[i].v, sgn))
			mx = p[i].v;
	}
	if (mn == mx) {
		if (sgn ? mn > INT64_MIN : (uint64_t)mn > 0)
			mn--;
		if (sgn ? mx < INT64_MAX : (uint64_t)mx < UINT64_MAX)
			mx++;
	}
	uint64_t iv = (p[n - 1].ns - p[0].ns) / (n > 1 ? n - 1 : 1);
	enum unit u = iv >= 1000000000ULL ? U_S : iv >= 1000000 ? U_MS :
		      iv >= 1000 ? U_US : U_NS;
	static const char *const names[] = { [U_MS] = "ms", [U_US] = "us",
					     [U_NS] = "ns" };
	size_t tsize = 8 + (u != U_S ? 1 + (size_t)u : 0);
	size_t at = sb->len;
	pad_to(sb, at, tsize + 1);
	min_max_line(sb, mn, mx, sgn);
	at = sb->len;
	sb_append(sb, "hh:mm:ss");
	if (u != U_S)
		sb_printf(sb, ".%s", names[u]);
	pad_to(sb, at, tsize + 1);
	sb_putc(sb, '|');
	for (int i = 0; i < width - 2; i++)
		sb_putc(sb, '_');
	sb_append(sb, "|\n");
	int zero = 0;
	if (dist(mn, 0) < 0 && dist(0, mx) < 0)
		zero = (int)((float)width * (float)dist(mn, 0) /
			     (float)dist(mn, mx));
	for (uint32_t i = 0; i < n; i++) {
		time_t t = (time_t)(p[i].ns / 1000000000ULL);
		uint64_t ns = p[i].ns % 1000000000ULL;
		struct tm tm;
		char buf[64];
		localtime_r(&t, &tm);
		strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
		sb_append(sb, buf);
		if (u == U_NS)
			sb_printf(sb, ".%09" PRIu64, ns);
		else if (u == U_US)
			sb_printf(sb, ".%06" PRIu64, ns / 1000);
		else if (u == U_MS)
			sb_printf(sb, ".%03" PRIu64, ns / 1000000);
		sb_putc(sb, ' ');
		char line[53];
		memset(line, ' ', sizeof(line));
		line[0] = '|';
		line[width - 1] = '|';
		if (zero > 0)
			line[zero] = '.';
		if (p[i].present) {
			int off = width / 2;
			if (mn != mx)
				off = (int)((float)(width - 1) *
					    (float)dist(p[i].v, mn) /
					    (float)dist(mx, mn));
			if (off < 0)
				off = 0;
			if (off > width - 1)
				off = width - 1;
			line[off] = '*';
			sb_appendn(sb, line, sizeof(line));
			sb_putc(sb, ' ');
			put_val(sb, p[i].v, sgn);
		} else {
			sb_appendn(sb, line, sizeof(line));
			sb_append(sb, " -");
		}
		sb_putc(sb, '\n');
	}
	for (size_t i = 0; i < tsize + 1; i++)
		sb_putc(sb, ' ');
	sb_putc(sb, 'v');
	for (int i = 0; i < width - 2; i++)
		sb_putc(sb, '_');
	sb_append(sb, "v\n");
	at = sb->len;
	pad_to(sb, at, tsize + 1);
	min_max_line(sb, mn, mx, sgn);
}

void tseries_json(struct strbuf *sb, const struct out_tpoint *p, uint32_t n,
		  bool sgn)
{
	bool first = true;
	sb_putc(sb, '[');
	for (uint32_t i = 0; i < n; i++) {
		if (!p[i].present)
			continue;
		if (!first)
			sb_putc(sb, ',');
		first = false;
		time_t t = (time_t)(p[i].ns / 1000000000ULL);
		struct tm tm;
		char buf[64];
		gmtime_r(&t, &tm);
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
		sb_printf(sb, "{\"interval_start\":\"%s.%09" PRIu64
			  "\",\"value\":", buf, (uint64_t)(p[i].ns % 1000000000ULL));
		put_val(sb, p[i].v, sgn);
		sb_putc(sb, '}');
	}
	sb_putc(sb, ']');
}
