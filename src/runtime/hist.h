/*
 * Histogram buckets and their rendering, exactly as bpftrace 0.17.
 *
 * A hist/lhist map stores one u64 count per (key, bucket index); the bucket
 * index is the last u64 of the map key (see mapdump.h for the key layout).
 * The two index functions below are the reference definitions: codegen
 * computes exactly these in BPF and the front end folds constants with them.
 */
#ifndef SONDE_HIST_H
#define SONDE_HIST_H

#include <stdbool.h>
#include <stdint.h>

struct strbuf;

/* Log2 buckets:
 *   index 0       v < 0                  "(..., 0)"
 *   index 1       v == 0                 "[0]"
 *   index 2 + k   2^k <= v < 2^(k+1)     "[1]", "[2, 4)", ... "[1K, 2K)" ...
 * k comes from a 6-step binary search (shifts 32, 16, 8, 4, 2, 1), so every
 * positive int64 has its bucket, up to "[4E, 8E)" (index 64), as in newer
 * bpftrace. bpftrace 0.17 searched with 5 steps and put every v >= 2^31
 * into "[2G, 4G)", a bug sonde does not copy. */
#define HIST_LOG2_MAX_INDEX 64
/* Enough slots for any log2 index a map may hold. */
#define HIST_LOG2_NBUCKETS (HIST_LOG2_MAX_INDEX + 1)

static inline uint64_t hist_log2_index(int64_t v)
{
	if (v < 0)
		return 0;
	if (v == 0)
		return 1;
	uint64_t n = (uint64_t)v, k = 0;
	for (int i = 5; i >= 0; i--) {
		uint64_t shift = (uint64_t)(n >= (1ULL << (1 << i))) << i;
		n >>= shift;
		k += shift;
	}
	return 2 + k;
}

/* Linear buckets, with nb = (max - min) / step:
 *   index 0            v < min                    "(..., min)"
 *   index 1 .. nb      1 + (v - min) / step       "[lo, lo + step)"
 *   index nb + 1       v > max (and v == max)     "[max, ...)"
 * As in bpftrace 0.17, when step does not divide max - min the values in
 * [min + nb * step, max] also land in index nb + 1. */
static inline uint64_t hist_linear_index(int64_t v, int64_t min, int64_t max,
					 int64_t step)
{
	if (v < min)
		return 0;
	if (v > max)
		return 1 + (uint64_t)((max - min) / step);
	return 1 + (uint64_t)((v - min) / step);
}

/* Number of bucket slots of an lhist: nb + 2. */
static inline uint32_t hist_linear_nbuckets(int64_t min, int64_t max,
					    int64_t step)
{
	return (uint32_t)((max - min) / step) + 2;
}

/* Text rendering: one line per bucket from the first to the last non-zero
 * one, "<label:16><count/div:8> |<bar:52>|\n"; the bar is scaled to the
 * largest count (undivided). Nothing when all counts are zero. */
void hist_text_log2(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		    uint64_t div);
void hist_text_linear(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		      int64_t min, int64_t max, int64_t step, uint64_t div);

/* JSON rendering: [{"min": a, "max": b, "count": c}, ...] over the same
 * bucket range ("[]" when all are zero). Counts are not divided (0.17). */
void hist_json_log2(struct strbuf *sb, const uint64_t *counts, uint32_t n);
void hist_json_linear(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		      int64_t min, int64_t max, int64_t step);

/* The buckets of one hist (log2) or lhist, described for the renderers
 * that draw buckets as columns or series (heatmap.c, metrics.c). */
struct hist_scale {
	bool linear;
	int64_t min, max, step; /* lhist */
};
/* Number of bucket slots (as mapdump_nbuckets). */
uint32_t hist_scale_nbuckets(const struct hist_scale *s);
/* Bucket i as the text format names it: "[1M, 2M)", "(..., 0)". */
void hist_bucket_name(struct strbuf *sb, const struct hist_scale *s,
		      uint32_t i);
/* Bucket i's lower edge, short: "1M", "0", "<0"; an lhist's last "100+". */
void hist_bucket_edge(struct strbuf *sb, const struct hist_scale *s,
		      uint32_t i);
/* The largest integer bucket i holds (values are integers, so a bucket
 * [1, 2) holds at most 1); false for the last, unbounded bucket. */
bool hist_bucket_max(const struct hist_scale *s, uint32_t i, int64_t *max);

#endif
