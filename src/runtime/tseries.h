/*
 * tseries() maps (bpftrace 0.26): each key holds one value per interval
 * bucket (the key's last u64, epoch % intervals), each CPU its own
 * { val, meta, epoch }. Merged and printed as 0.26 does: per bucket the
 * CPUs' values of its newest epoch, per key the intervals of the newest
 * num_intervals epochs of the whole map, as a text graph or JSON.
 */
#ifndef SONDE_TSERIES_H
#define SONDE_TSERIES_H

#include <stdbool.h>
#include <stdint.h>

struct out;
struct strbuf;
struct type;
struct mapdump_map;
struct mapdump_entries;

/* One interval: its start (ns of CLOCK_TAI, printed as wall-clock time
 * as 0.26 prints it) and its value, or none (present false). */
struct out_tpoint {
	uint64_t ns;
	int64_t v;
	bool present;
};

/* Merges ncpu per-CPU values (slot bytes apart) of vt into out, a
 * { val, meta, epoch } whose epoch is 0 when no CPU used the bucket. */
void tseries_merge(const struct type *vt, const uint8_t *buf, int ncpu,
		   uint32_t slot, uint8_t *out);
/* print(@m) of a tseries map whose merged entries are r. */
int tseries_print(struct out *o, const struct mapdump_map *m,
		  const struct mapdump_entries *r);
/* The graph of one key's intervals ("<no data>" without any). */
void tseries_text(struct strbuf *sb, const struct out_tpoint *p, uint32_t n,
		  bool is_signed);
/* [{"interval_start": "1970-01-01 00:00:00.500000000", "value": 9},...],
 * intervals without a value left out. */
void tseries_json(struct strbuf *sb, const struct out_tpoint *p, uint32_t n,
		  bool is_signed);

#endif
