/*
 * Stack-keyed maps as one pprof profile (profile.proto, gzipped), the
 * format of go tool pprof, Parca, Pyroscope and Grafana: at exit
 * (--pprof FILE) and over HTTP (/debug/pprof/profile, runtime/metrics.h).
 *
 * A map goes in when its key holds a kstack or ustack and its value is a
 * count() or sum(). In the profile:
 *   sample types  per map: (NAME, count) for count(), where NAME is the
 *                 map's name without '@' ("samples" for @); for sum(),
 *                 (NAME, UNIT) with the unit the map's name says (@ns,
 *                 @usecs, @bytes, or a name ending _ns, _us, ...:
 *                 nanoseconds, microseconds, bytes...), else "count".
 *                 A count() map that only profile probes of one period
 *                 update also gets (NAME_cpu, nanoseconds) = count x
 *                 period ("cpu" for @), and the profile's period is that
 *                 period in cpu nanoseconds: the shape of Go's CPU
 *                 profiles, which profilers know.
 *   samples       one per map entry: its locations (the kernel stack's
 *                 frames leaf first, then the user stack's), its value in
 *                 its map's columns (0 in the others), and the key's other
 *                 parts as labels named as the script writes them
 *                 (@[comm, pid] -> comm, pid): integers as numbers, the
 *                 rest as text.
 *   locations     the address, with its mapping and its function(s): the
 *                 symbol (demangled; the mangled name as system name),
 *                 and where the file has DWARF, the source file and line
 *                 and the functions inlined there, innermost first.
 *   mappings      each file of a process (its range, file offset and GNU
 *                 build id, so that a symbolising server can do it again),
 *                 [vdso], and the kernel as perf names it:
 *                 [kernel.kallsyms] and [MODULE] (kernel/kimage.h).
 *   time          time_nanos is when the probes were attached (or the
 *                 scrape began), duration_nanos how long it ran.
 *   comments      what each map is, and updates lost to a full map.
 */
#ifndef SONDE_PPROF_H
#define SONDE_PPROF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct compiled;
struct out_resolver;
struct stacks;
struct strbuf;
struct type;

/* What profiles are made of: a loaded program, its maps and symbols. */
struct pprof_src {
	const struct compiled *c;
	const int *map_fds;             /* per compiled map */
	struct stacks *st;              /* user frames */
	const struct out_resolver *res; /* key parts' text (probe, ksym) */
};

/* Whether a map with this key and value goes in a profile. */
bool pprof_can_write(const struct type *key, const struct type *value);
/* Whether any map of c does. */
bool pprof_has_maps(const struct compiled *c);

/* The profiled maps' entries at one moment. */
struct pprof_snap;
/* Reads them. Returns NULL and *err (-errno) when a map cannot be read. */
struct pprof_snap *pprof_snap_take(const struct pprof_src *s, int *err);
void pprof_snap_free(struct pprof_snap *snap);

/*
 * The profile of what now holds beyond before (NULL: all of it), gzipped
 * into gz. Maps the script clears or zeroes cannot be told apart from a
 * reset: with a before, they are left out (said in a comment). Returns 0,
 * or -errno.
 */
int pprof_profile(const struct pprof_src *s, const struct pprof_snap *now,
		  const struct pprof_snap *before, int64_t time_ns,
		  int64_t duration_ns, struct strbuf *gz);

/* A window for /debug/pprof/profile: begun when a scrape asks, ended N
 * seconds later with the profile of what the maps gained meanwhile. */
struct pprof_window;
struct pprof_window *pprof_window_begin(const struct pprof_src *s,
					int *err);
int pprof_window_end(const struct pprof_src *s, struct pprof_window *w,
		     struct strbuf *gz);
void pprof_window_free(struct pprof_window *w);

/* --pprof FILE at exit: the whole run's profile. Messages go to err.
 * Returns 0 or -errno. */
int pprof_write_file(const struct pprof_src *s, const char *path,
		     int64_t time_ns, int64_t duration_ns, FILE *err);

#endif
