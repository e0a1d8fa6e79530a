/*
 * How user maps are laid out in BPF: the contract between codegen, which
 * builds keys and values, and the runtime and object mode, which read them
 * back (runtime/mapdump.h).
 *
 * Layout of a map (what codegen must build):
 *   key    = [key type's bytes][pad to 8][u64 bucket]   hist and lhist
 *          = [key type's bytes]                          others
 *          = [u64 0]                                     key-less (@x = ...)
 *            A key-less hist key is just the u64 bucket (the index
 *            functions below say how it is computed). A TUPLE key type is a multi-key
 *            @m[a, b]; bpftrace 0.17 allows no other use of tuple keys.
 *   value  = the value type's layout (model/types.h); COUNT, SUM, MIN, MAX,
 *            AVG, STATS, HIST and LHIST maps are per-CPU (one value per
 *            possible CPU, each slot rounded up to 8 bytes), merged when
 *            read.
 * Key-less aggregations may instead live in per-CPU arrays, where every
 * entry exists from the start (maplayout_array_entries):
 *  - hist()/lhist(): one entry per bucket (the key's u32 index), plus a
 *    marker entry that zero() sets so the emptied histogram still prints;
 *  - count/sum/min/max/avg/stats: entry 0 holds the value, entry 1 is
 *    zero()'s marker. A written entry is told from one never written (which
 *    prints nothing, as a hash without the key in bpftrace 0.26) by a count
 *    above 0, or the value's second word: min/max's "set", avg/stats's
 *    count, and for sum a "hit" word the program sets on every update
 *    (maplayout_array_value_size).
 */
#ifndef SONDE_MAPLAYOUT_H
#define SONDE_MAPLAYOUT_H

#include <stdbool.h>
#include <stdint.h>

struct type;

/* Byte sizes of the BPF map's key and of one CPU's value slot. */
uint32_t maplayout_key_size(const struct type *key, const struct type *value);
uint32_t maplayout_value_size(const struct type *value);
/* The same for a key-less aggregation kept in a per-CPU array, and the
 * number of entries that array has. */
uint32_t maplayout_array_value_size(const struct type *value);
uint32_t maplayout_array_entries(const struct type *value);
/* The bytes one CPU's value takes in a per-CPU map's lookup buffer. */
uint32_t maplayout_percpu_stride(uint32_t value_size);
/* Bucket slots of a hist/lhist value type (0 for a bad lhist). */
uint32_t maplayout_nbuckets(const struct type *vt);
/* Offset of the u64 bucket in a hist/lhist key. */
uint32_t maplayout_bucket_offset(const struct type *key);

/* Histogram bucket indexes. The two index functions below are the
 * reference definitions: codegen computes exactly these in BPF and the
 * front end folds constants with them. */

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

/* hist(v, k): 2^k buckets per power of 2 (bpftrace 0.26's log2 with k):
 *   index 0             v < 0
 *   index 1 + v         0 <= v < 2^k          one value each
 *   index 1 + (l-k+1)<<k | x   v >= 2^k, l the position of v's highest
 *                       set bit, x the k bits after it
 * k == 0 is hist_log2_index. The highest index (v = INT64_MAX) is
 * (64 - k) << k. */
static inline uint64_t hist_log2k_index(int64_t v, uint32_t k)
{
	if (v < 0)
		return 0;
	uint64_t n = (uint64_t)v, mask = (1ULL << k) - 1;
	if (n <= mask)
		return n + 1;
	uint64_t l = 0;
	for (int i = 5; i >= 0; i--) {
		uint64_t shift = (uint64_t)(n >= (1ULL << (1 << i))) << i;
		n >>= shift;
		l += shift;
	}
	l -= k;
	return ((l + 1) << k) + (((uint64_t)v >> l) & mask) + 1;
}

static inline uint32_t hist_log2k_nbuckets(uint32_t k)
{
	return ((64 - k) << k) + 1;
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

#endif
