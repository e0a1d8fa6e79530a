#include "hist.h"

#include <inttypes.h>
#include <stdbool.h>

#include "runtime/value_fmt.h"
#include "util/strbuf.h"

#define BAR_WIDTH 52

/* bpftrace scans the counts as C++ int (types_format.cpp's indices()),
 * so a count is "non-zero" after truncation to int. */
static int as_int(uint64_t v)
{
	return (int)(uint32_t)v;
}

/* First and last bucket with a positive count; false when there is none. */
static bool bucket_range(const uint64_t *counts, uint32_t n, uint32_t *lo,
			 uint32_t *hi)
{
	bool any = false;
	for (uint32_t i = 0; i < n; i++) {
		if (as_int(counts[i]) > 0) {
			if (!any)
				*lo = i;
			*hi = i;
			any = true;
		}
	}
	return any;
}

/* 2^power * mult with bpftrace's K/M/G/T/P/E suffixes (mult: 2^k plus
 * the bucket's place among the 2^k of its power, hist_index_label()). */
static void log2_label(struct strbuf *sb, int power, uint64_t mult)
{
	static const char suffix[] = "\0KMGTPE";
	int s = power / 10;
	sb_printf(sb, "%" PRIu64, ((uint64_t)1 << (power - 10 * s)) * mult);
	if (s)
		sb_putc(sb, suffix[s]);
}

/* The upper edge of log2 bucket i > 2 << k: 2^power * mult. */
static void log2k_edge(uint32_t i, uint32_t k, int *power, uint64_t *mult)
{
	uint32_t n = 1u << k;
	*power = (int)(i >> k) - 1;
	*mult = n + (i & (n - 1));
}

/* Exact multiples of 1M or 1K get a suffix (an lhist's labels when its
 * step is a multiple of 1K, and sonde's heatmap axis). */
static void linear_label(struct strbuf *sb, int64_t v)
{
	if (v != 0 && v % (1 << 20) == 0)
		sb_printf(sb, "%" PRId64 "M", v / (1 << 20));
	else if (v != 0 && v % 1024 == 0)
		sb_printf(sb, "%" PRId64 "K", v / 1024);
	else
		sb_printf(sb, "%" PRId64, v);
}

/*
 * The upper edge of bucket i, as bpftrace 0.26 labels buckets
 * (types_format.cpp): bucket i holds [edge(i - 1), edge(i)), bucket 0
 * (..., edge(0)). An edge is an integer, or a symbolic one ("4", "1K":
 * log2 edges past [1], lhist edges when the step is a multiple of 1K),
 * which never reads as a single value; an lhist's last bucket has none.
 */
struct edge {
	int64_t v;
	bool sym, none;
};

static uint32_t linear_nb(const struct hist_scale *s)
{
	return (uint32_t)((s->max - s->min) / s->step);
}

static struct edge edge_of(const struct hist_scale *s, uint32_t i)
{
	struct edge e = { 0, false, false };
	if (s->linear) {
		e.v = s->min + (int64_t)i * s->step;
		e.none = i > linear_nb(s);
		e.sym = s->step % 1024 == 0;
	} else if (i <= (2u << s->bits)) {
		e.v = i;
	} else {
		int power;
		uint64_t mult;
		log2k_edge(i, s->bits, &power, &mult);
		e.v = (int64_t)(((uint64_t)1 << power) * mult);
		e.sym = true;
	}
	return e;
}

static void put_edge(struct strbuf *sb, const struct hist_scale *s,
		     uint32_t i, struct edge e)
{
	if (!e.sym)
		sb_printf(sb, "%" PRId64, e.v);
	else if (s->linear)
		linear_label(sb, e.v);
	else {
		int power;
		uint64_t mult;
		log2k_edge(i, s->bits, &power, &mult);
		log2_label(sb, power, mult);
	}
}

/* "(..., 0)", "[0]" (a bucket of one integer), "[2, 4)", "[10, ...)". */
static void header(struct strbuf *sb, const struct hist_scale *s, uint32_t i)
{
	struct edge hi = edge_of(s, i);
	if (i == 0) {
		sb_append(sb, "(..., ");
		put_edge(sb, s, 0, hi);
		sb_putc(sb, ')');
		return;
	}
	struct edge lo = edge_of(s, i - 1);
	sb_putc(sb, '[');
	put_edge(sb, s, i - 1, lo);
	if (hi.none) {
		sb_append(sb, ", ...)");
	} else if (!lo.sym && !hi.sym && lo.v + 1 == hi.v) {
		sb_putc(sb, ']');
	} else {
		sb_append(sb, ", ");
		put_edge(sb, s, i, hi);
		sb_putc(sb, ')');
	}
}

/* Bucket slots that can hold counts: an lhist's nb + 2. */
static uint32_t clamp_slots(const struct hist_scale *s, uint32_t n)
{
	if (s->linear && n > linear_nb(s) + 2)
		return linear_nb(s) + 2;
	return n;
}

/* bpftrace 0.26's TextEmitter<Histogram>: the counts divided by div, the
 * bar scaled to the largest divided count. */
static void render_text(struct strbuf *sb, const struct hist_scale *s,
			const uint64_t *counts, uint32_t n, uint64_t div)
{
	uint32_t lo = 0, hi = 0;
	n = clamp_slots(s, n);
	if (!bucket_range(counts, n, &lo, &hi))
		return;
	if (div == 0)
		div = 1;
	uint64_t max_value = 0;
	for (uint32_t i = lo; i <= hi; i++)
		if (counts[i] / div > max_value)
			max_value = counts[i] / div;
	struct strbuf h = STRBUF_INIT;
	for (uint32_t i = lo; i <= hi; i++) {
		sb_reset(&h);
		header(&h, s, i);
		uint64_t c = counts[i] / div;
		/* float arithmetic, as bpftrace: count / (float)max * 52 */
		int bar = max_value ? (int)((float)c / (float)max_value *
					    BAR_WIDTH) : 0;
		sb_printf(sb, "%-16s%8" PRIu64 " |", sb_str(&h), c);
		for (int j = 0; j < BAR_WIDTH; j++)
			sb_putc(sb, j < bar ? '@' : ' ');
		sb_append(sb, "|\n");
	}
	sb_free(&h);
}

void hist_text_log2(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		    uint64_t div)
{
	hist_text_log2k(sb, counts, n, 0, div);
}

void hist_text_log2k(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		     uint32_t bits, uint64_t div)
{
	struct hist_scale s = { false, 0, 0, 0, bits };
	render_text(sb, &s, counts, n, div);
}

void hist_text_linear(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		      int64_t min, int64_t max, int64_t step, uint64_t div)
{
	struct hist_scale s = { true, min, max, step, 0 };
	render_text(sb, &s, counts, n, div);
}

/* bpftrace 0.26's JsonEmitter<Histogram>: "min" is the lower edge (none
 * for bucket 0), "max" one less than the upper edge (none for an lhist's
 * last bucket), buckets joined by "," without a space. */
static void render_json(struct strbuf *sb, const struct hist_scale *s,
			const uint64_t *counts, uint32_t n, uint64_t div)
{
	uint32_t lo = 0, hi = 0;
	n = clamp_slots(s, n);
	if (div == 0)
		div = 1;
	sb_putc(sb, '[');
	if (bucket_range(counts, n, &lo, &hi)) {
		for (uint32_t i = lo; i <= hi; i++) {
			struct edge e = edge_of(s, i);
			if (i > lo)
				sb_putc(sb, ',');
			sb_putc(sb, '{');
			if (i > 0) {
				sb_append(sb, "\"min\": ");
				vfmt_json_int(sb, (uint64_t)edge_of(s, i - 1).v,
					      true);
				sb_append(sb, ", ");
			}
			if (!e.none) {
				/* 2^63's "8E" holds up to INT64_MAX */
				sb_append(sb, "\"max\": ");
				vfmt_json_int(sb, (uint64_t)e.v - 1, true);
				sb_append(sb, ", ");
			}
			sb_append(sb, "\"count\": ");
			vfmt_json_int(sb, counts[i] / div, false);
			sb_putc(sb, '}');
		}
	}
	sb_putc(sb, ']');
}

void hist_json_log2(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		    uint64_t div)
{
	hist_json_log2k(sb, counts, n, 0, div);
}

void hist_json_log2k(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		     uint32_t bits, uint64_t div)
{
	struct hist_scale s = { false, 0, 0, 0, bits };
	render_json(sb, &s, counts, n, div);
}

void hist_json_linear(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		      int64_t min, int64_t max, int64_t step, uint64_t div)
{
	struct hist_scale s = { true, min, max, step, 0 };
	render_json(sb, &s, counts, n, div);
}

uint32_t hist_scale_nbuckets(const struct hist_scale *s)
{
	if (!s->linear)
		return hist_log2k_nbuckets(s->bits);
	if (s->step <= 0 || s->max < s->min)
		return 0;
	return hist_linear_nbuckets(s->min, s->max, s->step);
}

void hist_bucket_name(struct strbuf *sb, const struct hist_scale *s,
		      uint32_t i)
{
	header(sb, s, i);
}

void hist_bucket_edge(struct strbuf *sb, const struct hist_scale *s,
		      uint32_t i)
{
	if (s->linear) {
		if (i == 0) {
			sb_putc(sb, '<');
			linear_label(sb, s->min);
		} else if (i == linear_nb(s) + 1) {
			linear_label(sb, s->min + (int64_t)linear_nb(s) *
						     s->step);
			sb_putc(sb, '+');
		} else {
			linear_label(sb, (int64_t)(i - 1) * s->step + s->min);
		}
	} else if (i == 0) {
		sb_append(sb, "<0");
	} else {
		/* the lower edge: the upper one of the bucket below */
		put_edge(sb, s, i - 1, edge_of(s, i - 1));
	}
}

bool hist_bucket_max(const struct hist_scale *s, uint32_t i, int64_t *max)
{
	if (s->linear) {
		if (i > linear_nb(s))
			return false;
		*max = (int64_t)i * s->step + s->min - 1;
		return true;
	}
	if (i == 0)
		*max = -1;
	else if (i + 1 >= hist_log2k_nbuckets(s->bits))
		*max = INT64_MAX; /* [4E, 8E): every int64 from 2^62 up */
	else
		*max = edge_of(s, i).v - 1;
	return true;
}
