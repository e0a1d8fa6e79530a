#include "hist.h"

#include <inttypes.h>
#include <stdbool.h>

#include "util/strbuf.h"

#define BAR_WIDTH 52

struct linear {
	int64_t min, max, step;
	uint32_t nb; /* in-range buckets */
};

/* bpftrace 0.17 scans the counts as C++ int, so do the same: a count is
 * "non-zero" and compared for the maximum after truncation to int. */
static int as_int(uint64_t v)
{
	return (int)(uint32_t)v;
}

/* First and last bucket with a positive count; false when there is none. */
static bool bucket_range(const uint64_t *counts, uint32_t n, uint32_t *lo,
			 uint32_t *hi, int *max_value)
{
	bool any = false;
	*max_value = 0;
	for (uint32_t i = 0; i < n; i++) {
		int v = as_int(counts[i]);
		if (v > 0) {
			if (!any)
				*lo = i;
			*hi = i;
			any = true;
		}
		if (v > *max_value)
			*max_value = v;
	}
	return any;
}

/* 2^power with bpftrace's K/M/G/T/P/E suffixes. */
static void log2_label(struct strbuf *sb, int power)
{
	static const char suffix[] = "\0KMGTPE";
	int s = power / 10;
	sb_printf(sb, "%" PRIu64, (uint64_t)1 << (power - 10 * s));
	if (s)
		sb_putc(sb, suffix[s]);
}

/* Exact multiples of 1M or 1K get a suffix, as in bpftrace 0.17. */
static void linear_label(struct strbuf *sb, int64_t v)
{
	if (v != 0 && v % (1 << 20) == 0)
		sb_printf(sb, "%" PRId64 "M", v / (1 << 20));
	else if (v != 0 && v % 1024 == 0)
		sb_printf(sb, "%" PRId64 "K", v / 1024);
	else
		sb_printf(sb, "%" PRId64, v);
}

static void log2_header(struct strbuf *sb, uint32_t i, const void *ctx)
{
	if (i == 0) {
		sb_append(sb, "(..., 0)");
	} else if (i == 1) {
		sb_append(sb, "[0]");
	} else if (i == 2) {
		sb_append(sb, "[1]");
	} else {
		sb_putc(sb, '[');
		log2_label(sb, (int)i - 2);
		sb_append(sb, ", ");
		log2_label(sb, (int)i - 1);
		sb_putc(sb, ')');
	}
}

static void linear_header(struct strbuf *sb, uint32_t i, const void *ctx)
{
	const struct linear *l = ctx;
	if (i == 0) {
		sb_append(sb, "(..., ");
		linear_label(sb, l->min);
		sb_putc(sb, ')');
	} else if (i == l->nb + 1) {
		sb_putc(sb, '[');
		linear_label(sb, l->max);
		sb_append(sb, ", ...)");
	} else {
		sb_putc(sb, '[');
		linear_label(sb, (int64_t)(i - 1) * l->step + l->min);
		sb_append(sb, ", ");
		linear_label(sb, (int64_t)i * l->step + l->min);
		sb_putc(sb, ')');
	}
}

static void render_text(struct strbuf *sb, const uint64_t *counts, uint32_t n,
			uint64_t div,
			void (*header)(struct strbuf *, uint32_t, const void *),
			const void *ctx)
{
	uint32_t lo = 0, hi = 0;
	int max_value;
	if (!bucket_range(counts, n, &lo, &hi, &max_value))
		return;
	if (div == 0)
		div = 1;
	struct strbuf h = STRBUF_INIT;
	for (uint32_t i = lo; i <= hi; i++) {
		sb_reset(&h);
		header(&h, i, ctx);
		/* float arithmetic, as bpftrace: count / (float)max * 52 */
		int bar = (int)((float)counts[i] / (float)max_value * BAR_WIDTH);
		sb_printf(sb, "%-16s%8" PRIu64 " |", sb_str(&h), counts[i] / div);
		for (int j = 0; j < BAR_WIDTH; j++)
			sb_putc(sb, j < bar ? '@' : ' ');
		sb_append(sb, "|\n");
	}
	sb_free(&h);
}

void hist_text_log2(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		    uint64_t div)
{
	render_text(sb, counts, n, div, log2_header, NULL);
}

static struct linear linear_of(int64_t min, int64_t max, int64_t step)
{
	struct linear l = { min, max, step, (uint32_t)((max - min) / step) };
	return l;
}

void hist_text_linear(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		      int64_t min, int64_t max, int64_t step, uint64_t div)
{
	struct linear l = linear_of(min, max, step);
	if (n > l.nb + 2)
		n = l.nb + 2;
	render_text(sb, counts, n, div, linear_header, &l);
}

static void log2_bounds(struct strbuf *sb, uint32_t i, const void *ctx)
{
	if (i == 0)
		sb_append(sb, "\"max\": -1, ");
	else if (i == 1)
		sb_append(sb, "\"min\": 0, \"max\": 0, ");
	else if (i == 2)
		sb_append(sb, "\"min\": 1, \"max\": 1, ");
	else
		sb_printf(sb, "\"min\": %" PRIu64 ", \"max\": %" PRIu64 ", ",
			  (uint64_t)1 << (i - 2), ((uint64_t)1 << (i - 1)) - 1);
}

static void linear_bounds(struct strbuf *sb, uint32_t i, const void *ctx)
{
	const struct linear *l = ctx;
	if (i == 0)
		sb_printf(sb, "\"max\": %" PRId64 ", ", l->min - 1);
	else if (i == l->nb + 1)
		sb_printf(sb, "\"min\": %" PRId64 ", ", l->max);
	else
		sb_printf(sb, "\"min\": %" PRId64 ", \"max\": %" PRId64 ", ",
			  (int64_t)(i - 1) * l->step + l->min,
			  (int64_t)i * l->step + l->min - 1);
}

static void render_json(struct strbuf *sb, const uint64_t *counts, uint32_t n,
			void (*bounds)(struct strbuf *, uint32_t, const void *),
			const void *ctx)
{
	uint32_t lo = 0, hi = 0;
	int max_value;
	sb_putc(sb, '[');
	if (bucket_range(counts, n, &lo, &hi, &max_value)) {
		for (uint32_t i = lo; i <= hi; i++) {
			if (i > lo)
				sb_append(sb, ", ");
			sb_putc(sb, '{');
			bounds(sb, i, ctx);
			sb_printf(sb, "\"count\": %" PRIu64 "}", counts[i]);
		}
	}
	sb_putc(sb, ']');
}

void hist_json_log2(struct strbuf *sb, const uint64_t *counts, uint32_t n)
{
	render_json(sb, counts, n, log2_bounds, NULL);
}

void hist_json_linear(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		      int64_t min, int64_t max, int64_t step)
{
	struct linear l = linear_of(min, max, step);
	if (n > l.nb + 2)
		n = l.nb + 2;
	render_json(sb, counts, n, linear_bounds, &l);
}

uint32_t hist_scale_nbuckets(const struct hist_scale *s)
{
	if (!s->linear)
		return HIST_LOG2_NBUCKETS;
	if (s->step <= 0 || s->max < s->min)
		return 0;
	return hist_linear_nbuckets(s->min, s->max, s->step);
}

void hist_bucket_name(struct strbuf *sb, const struct hist_scale *s,
		      uint32_t i)
{
	if (s->linear) {
		struct linear l = linear_of(s->min, s->max, s->step);
		linear_header(sb, i, &l);
	} else {
		log2_header(sb, i, NULL);
	}
}

void hist_bucket_edge(struct strbuf *sb, const struct hist_scale *s,
		      uint32_t i)
{
	if (s->linear) {
		struct linear l = linear_of(s->min, s->max, s->step);
		if (i == 0) {
			sb_putc(sb, '<');
			linear_label(sb, l.min);
		} else if (i == l.nb + 1) {
			linear_label(sb, l.max);
			sb_putc(sb, '+');
		} else {
			linear_label(sb, (int64_t)(i - 1) * l.step + l.min);
		}
	} else if (i == 0) {
		sb_append(sb, "<0");
	} else if (i == 1) {
		sb_putc(sb, '0');
	} else {
		log2_label(sb, (int)i - 2);
	}
}

bool hist_bucket_max(const struct hist_scale *s, uint32_t i, int64_t *max)
{
	if (s->linear) {
		struct linear l = linear_of(s->min, s->max, s->step);
		if (i > l.nb)
			return false;
		*max = (int64_t)i * l.step + l.min - 1;
		return true;
	}
	if (i == 0)
		*max = -1;
	else if (i == 1)
		*max = 0;
	else if (i >= HIST_LOG2_MAX_INDEX)
		*max = INT64_MAX; /* [4E, 8E): every int64 from 2^62 up */
	else
		*max = (int64_t)(((uint64_t)1 << (i - 1)) - 1);
	return true;
}
