/*
 * Inside object mode: the printing half (obj_print.c), used by object.c.
 *
 * Records (ring buffer and perf buffer samples) are printed with the first
 * of these types that fits the record (its size is at most the record's,
 * and less than 8 bytes short, since perf pads samples):
 *   1. the value type the map's definition declares: __type(value, T);
 *   2. the struct named "event";
 *   3. the first struct (in BTF order) whose name contains "event".
 * A record no type fits is printed as hex bytes.
 *
 * Maps (hash, array, LRU, and their per-CPU kinds; not the internal
 * .rodata/.data/.bss maps, libbpf's __bpf_* maps, nor ring/perf
 * buffers) are printed at exit as
 * "@NAME[key]: value", decoded by their BTF key and value types. Per-CPU
 * values are summed member by member (integers; other members come from
 * CPU 0). Single-entry arrays print key-less, "@NAME: value". Two shapes
 * print as log2 histograms, both holding counts by bpftrace's bucket
 * index (hist_log2_index() in runtime/hist.h: 0 for negatives, 1 for 0,
 * 2 + floor(log2 v) above):
 *   - slots: the value is an array of 32 to 64 integer counters, either the
 *     whole value when the map's name contains "hist" or "slot", or a
 *     struct member whose name contains "hist" or "slot"; one histogram per
 *     key;
 *   - keyed: the value is an 8-byte counter and the key is an 8-byte
 *     integer bucket index (map name containing "hist"), or a struct whose
 *     last member is an 8-byte "slot" or "bucket" after the other members,
 *     which form the printed key. This is exactly bpftrace's own layout, so
 *     runtime/mapdump prints it.
 */
#ifndef SONDE_OBJ_IMPL_H
#define SONDE_OBJ_IMPL_H

#include <stddef.h>
#include <stdint.h>

struct arena;
struct bpf_map;
struct bpf_object;
struct out;
struct type;

/* The type to print records of a ring/perf buffer map with, or NULL. */
const struct type *obj_record_type(struct arena *a, struct bpf_object *obj,
				   const struct bpf_map *map);
/* One record: typed when t fits size, else hex. */
void obj_print_record(struct out *o, const struct type *t, const void *data,
		      size_t size);
/* The two newlines, then every printable map of a loaded object, in name
 * order. Returns 0 or the first -errno. */
int obj_print_maps(struct out *o, struct arena *a, struct bpf_object *obj);

#endif
