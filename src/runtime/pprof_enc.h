/*
 * Building a pprof profile (profile.proto) and writing it as pprof's
 * readers want it: protobuf, gzip-compressed. The tables a profile holds
 * (strings, mappings, functions, locations) are interned here, so callers
 * add frames as they meet them and get back ids; the protobuf message is
 * made (with libprotobuf-c) only in pprof_enc_finish.
 *
 * Ids are what profile.proto says: string indexes (0 is ""), and nonzero
 * ids for mappings, functions and locations (0: none).
 */
#ifndef SONDE_PPROF_ENC_H
#define SONDE_PPROF_ENC_H

#include <stdbool.h>
#include <stdint.h>

struct strbuf;
struct pprof_enc;

struct pprof_enc *pprof_enc_new(void);
void pprof_enc_free(struct pprof_enc *p);

/* The index of s in the string table (added if new; NULL is ""). */
int64_t pprof_enc_str(struct pprof_enc *p, const char *s);

/* Every sample has one value per sample type, in the order declared. */
void pprof_enc_sample_type(struct pprof_enc *p, const char *type,
			   const char *unit);
uint32_t pprof_enc_nsample_types(const struct pprof_enc *p);
void pprof_enc_period(struct pprof_enc *p, const char *type,
		      const char *unit, int64_t period);
/* Wall-clock start (ns since the epoch) and length of the profile. */
void pprof_enc_time(struct pprof_enc *p, int64_t time_ns,
		    int64_t duration_ns);
/* A line of free text that pprof shows (-comments, the web UI). */
void pprof_enc_comment(struct pprof_enc *p, const char *text);

struct pprof_mapping {
	uint64_t start, limit, offset; /* memory range; file offset of start */
	const char *file;              /* path, "[vdso]", "[kernel.kallsyms]" */
	const char *build_id;          /* hex, or NULL */
	bool functions, filenames, lines, inlines; /* what is symbolised */
};
uint64_t pprof_enc_mapping(struct pprof_enc *p, const struct pprof_mapping *m);
/* The main binary's mapping, written first as profile.proto wants (pprof
 * names the profile after it); 0 or never called: the first added. */
void pprof_enc_main_mapping(struct pprof_enc *p, uint64_t mapping);

uint64_t pprof_enc_function(struct pprof_enc *p, const char *name,
			    const char *system_name, const char *file,
			    int64_t start_line);

/* One frame of a location: the innermost first (inlined callees), the
 * function the address is really in last. line 0: unknown. */
struct pprof_line {
	uint64_t function;
	int64_t line;
};
uint64_t pprof_enc_location(struct pprof_enc *p, uint64_t mapping,
			    uint64_t addr, const struct pprof_line *lines,
			    uint32_t nlines);

/* key = str, or key = num (with num_unit, may be NULL) when is_num. */
struct pprof_label {
	const char *key;
	const char *str;
	int64_t num;
	const char *num_unit;
	bool is_num;
};
/* locs leaf first; values: one per sample type. */
void pprof_enc_sample(struct pprof_enc *p, const uint64_t *locs,
		      uint32_t nlocs, const int64_t *values,
		      const struct pprof_label *labels, uint32_t nlabels);
uint64_t pprof_enc_nsamples(const struct pprof_enc *p);

/* Packs the profile and gzips it into out (replacing what it held).
 * Returns 0 or -errno. */
int pprof_enc_finish(struct pprof_enc *p, struct strbuf *out);

#endif
