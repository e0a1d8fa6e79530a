/*
 * Reading BPF maps back and printing them, as bpftrace 0.26 does, for maps
 * laid out as model/maplayout.h says.
 *
 * Layout of a map (what codegen must build, model/maplayout.h computes):
 *   key    = [key type's bytes][pad to 8][u64 bucket]   hist and lhist
 *          = [key type's bytes]                          others
 *          = [u64 0]                                     key-less (@x = ...)
 *            A key-less hist key is just the u64 bucket (hist.h says how
 *            the bucket index is computed). A TUPLE key type is a multi-key
 *            @m[a, b]; bpftrace 0.17 allows no other use of tuple keys.
 *   value  = the value type's layout (lang/types.h); COUNT, SUM, MIN, MAX,
 *            AVG, STATS, HIST and LHIST maps are per-CPU (one value per
 *            possible CPU, each slot rounded up to 8 bytes), merged here.
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
 * Everything here works on hashes and arrays alike.
 */
#ifndef SONDE_MAPDUMP_H
#define SONDE_MAPDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct compiled;
struct out;
struct type;

struct mapdump_map {
	const char *name;          /* "@", "@name" */
	int fd;
	const struct type *key;    /* NULL: key-less */
	const struct type *value;  /* COUNT ... LHIST, or a plain value type */
	bool percpu;
	/* Key-less, kept at key slot_key of a shared hash (cmap.shared):
	 * that key is its one entry. */
	bool shared;
	uint64_t slot_key;
	/* Keys holding stacks stored as ids (cmap.stack_ids): the program
	 * and its map fds, whose stack tables give the stacks back
	 * (runtime/stackids.h); NULL: keys are stored whole. */
	const struct compiled *ids_prog;
	const int *ids_fds;
	/* Its key count, where the program keeps one (cmap.len_counter):
	 * the fd of that mmapable array and the u64's offset; fd 0: none. */
	int len_fd;
	uint32_t len_off;
};

/* Map i of program c, whose maps' fds are fds, as mapdump reads it. */
struct mapdump_map mapdump_map_of(const struct compiled *c, const int *fds,
				  uint32_t i);

/* What a map's values are, for messages: "count()", ... "hist()",
 * "lhist()", or "a value" for plain values. */
const char *mapdump_value_name(const struct type *value);

/*
 * print(@m, top, div): reads all entries, merges per-CPU values, sorts and
 * prints through o. top (0: all) keeps the last top entries after sorting;
 * div (0: none) divides the printed values (a stats()'s average). Returns
 * 0 or -errno.
 */
int mapdump_print(struct out *o, const struct mapdump_map *m, uint32_t top,
		  uint32_t div);
/* The same for the print statement, which shows a key-less map with no
 * value (never assigned, deleted or cleared) as its type's zero, as
 * bpftrace's development branch does ("@: 0"; not a hist, lhist or
 * tseries, which print empty). */
int mapdump_print_stmt(struct out *o, const struct mapdump_map *m,
		       uint32_t top, uint32_t div);

/* Every entry of a map, values merged across CPUs: n keys of ksize bytes
 * at keys, their values of vsize bytes at vals. */
struct mapdump_entries {
	uint32_t ksize, vsize;
	size_t n, cap;
	uint8_t *keys, *vals;
};
int mapdump_read(const struct mapdump_map *m, struct mapdump_entries *e);
/* The same in whatever order the kernel's batch lookup gives (a syscall
 * per 1024 entries of a hash, not two per entry); for readers that do not
 * print in bpftrace's order (metrics). */
int mapdump_read_fast(const struct mapdump_map *m, struct mapdump_entries *e);
void mapdump_entries_free(struct mapdump_entries *e);

/* A hist/lhist map read and grouped by key, in key-byte order: n keys
 * (the key type's bytes; NULL when key-less), each with nbuckets counts
 * at counts + i * nbuckets. */
struct mapdump_hists {
	size_t n;
	uint32_t nbuckets;
	const uint8_t **keys;
	uint64_t *counts;
	struct mapdump_entries e; /* holds the key bytes */
};
int mapdump_read_hists(const struct mapdump_map *m, struct mapdump_hists *h);
void mapdump_hists_free(struct mapdump_hists *h);

/* clear(@m): deletes every entry (arrays are zeroed instead). */
int mapdump_clear(const struct mapdump_map *m);
/* zero(@m): sets every existing entry's value to zero on every CPU. */
int mapdump_zero(const struct mapdump_map *m);

/*
 * At exit: the two newlines 0.17 always prints, then every map, in order of
 * name (strcmp, as bpftrace's std::map of names). Empty maps are included:
 * the text format shows them as blank lines, JSON skips them.
 */
int mapdump_print_exit(struct out *o, const struct mapdump_map *maps,
		       size_t n);
/* Every map in order of name, as on SIGUSR1 (no leading newlines). */
int mapdump_print_all(struct out *o, const struct mapdump_map *maps,
		      size_t n);

#endif
