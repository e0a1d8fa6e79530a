/*
 * Histogram buckets and their rendering, as bpftrace 0.26 prints them.
 *
 * A hist/lhist map stores one u64 count per (key, bucket index); the bucket
 * index is the last u64 of the map key. model/maplayout.h defines the
 * layout and the bucket index functions.
 */
#ifndef SONDE_HIST_H
#define SONDE_HIST_H

#include <stdbool.h>
#include <stdint.h>

#include "model/maplayout.h"

struct strbuf;

/* Text rendering: one line per bucket from the first to the last non-zero
 * one, "<label:16><count/div:8> |<bar:52>|\n"; the bar is scaled to the
 * largest divided count. A bucket of one integer is "[5]". Nothing when
 * all counts are zero. */
void hist_text_log2(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		    uint64_t div);
/* hist(n, k): 2^k buckets per power of 2. */
void hist_text_log2k(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		     uint32_t bits, uint64_t div);
void hist_json_log2k(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		     uint32_t bits, uint64_t div);
void hist_text_linear(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		      int64_t min, int64_t max, int64_t step, uint64_t div);

/* JSON rendering: [{"min": a, "max": b, "count": c},...] over the same
 * bucket range ("[]" when all are zero), counts divided by div. */
void hist_json_log2(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		    uint64_t div);
void hist_json_linear(struct strbuf *sb, const uint64_t *counts, uint32_t n,
		      int64_t min, int64_t max, int64_t step, uint64_t div);

/* The buckets of one hist (log2) or lhist, described for the renderers
 * that draw buckets as columns or series (heatmap.c, metrics.c). */
struct hist_scale {
	bool linear;
	int64_t min, max, step; /* lhist */
	uint32_t bits; /* hist(n, k)'s k */
};
/* Number of bucket slots (as maplayout_nbuckets). */
uint32_t hist_scale_nbuckets(const struct hist_scale *s);
/* Bucket i as the text format names it: "[1M, 2M)", "(..., 0)", "[5]". */
void hist_bucket_name(struct strbuf *sb, const struct hist_scale *s,
		      uint32_t i);
/* Bucket i's lower edge, short: "1M", "0", "<0"; an lhist's last "100+". */
void hist_bucket_edge(struct strbuf *sb, const struct hist_scale *s,
		      uint32_t i);
/* The largest integer bucket i holds (values are integers, so a bucket
 * [1, 2) holds at most 1); false for the last, unbounded bucket. */
bool hist_bucket_max(const struct hist_scale *s, uint32_t i, int64_t *max);

#endif
