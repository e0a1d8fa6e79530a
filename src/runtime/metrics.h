/*
 * --metrics ADDR:PORT: the script's maps as Prometheus metrics, in the
 * text exposition format (version 0.0.4), served at /metrics; and the
 * stack maps as pprof profiles of the last N seconds at
 * /debug/pprof/profile?seconds=N (runtime/pprof_http.h).
 *
 * Maps are read when a scrape asks (nothing is added to the per-event
 * path). The server runs in the run's event loop: its epoll fd is one
 * more fd of the loop, and metrics_serve() answers what is pending. No
 * thread, so no lock: a scrape delays the loop by the time it takes to
 * read the maps (a few ms for 10,000 keys; bench/metrics.sh).
 *
 * What each map becomes (metrics_render):
 *   family      sonde_<name> ("@" alone: sonde), with # HELP and # TYPE;
 *               counters end in _total, as Prometheus' conventions want
 *   key         labels: "key" for a one-part key, else one per tuple
 *               element named by its type (key, probe, ksym, usym,
 *               kstack, ustack, inet, user, cgroup), numbered when two
 *               share a name; stacks become folded stacks ("f;g;h",
 *               root first), symbolised as the text output does
 *   count()     counter; a gauge when the script clears or zeroes it
 *   sum()       counter when unsigned and never cleared, else a gauge
 *   avg/min/max gauge (avg truncated as the text output prints it)
 *   stats()     summary with only _sum and _count
 *   hist/lhist  histogram: cumulative le buckets (le is the largest
 *               integer a bucket holds: "[4, 8)" is le="7"), +Inf and
 *               _count. No _sum: the map keeps only bucket counts, and a
 *               made-up sum would be a wrong answer.
 *   integers    (@x = 5) gauge
 *   others      left out, with a comment saying why
 */
#ifndef SONDE_METRICS_H
#define SONDE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct mapdump_map;
struct out_resolver;
struct strbuf;

/* One map to serve. cleared: the script calls clear() or zero() on it. */
struct metrics_map {
	const struct mapdump_map *m;
	bool cleared;
};

/* Appends the exposition text of every map. Returns 0 or the first
 * -errno of reading a map (the other maps are still rendered). */
int metrics_render(struct strbuf *sb, const struct metrics_map *maps,
		   size_t n, const struct out_resolver *res);

/* The server: listens on addr ("PORT" = 127.0.0.1:PORT, "ADDR:PORT",
 * "[V6ADDR]:PORT"; port 0 takes a free one). What it serves is rendered
 * by render(ctx, sb) at each scrape. */
typedef int (*metrics_render_fn)(void *ctx, struct strbuf *sb);
struct metrics_server;

/* Returns 0 and *s, or -errno after one sentence to err: a bad address,
 * a port in use, an address this host does not have. On success prints
 * "sonde: metrics at http://ADDR:PORT/metrics" to err unless quiet
 * (always for port 0). */
int metrics_listen(struct metrics_server **s, const char *addr,
		   metrics_render_fn render, void *ctx, bool quiet, FILE *err);
/* Profiles over HTTP (/debug/pprof/profile?seconds=N, runtime/pprof_http.c):
 * begin() starts a window (NULL: cannot, with *status 404 or 500 and
 * *why); end() writes the profile of what came since into gz (0 or
 * -errno); drop() forgets a window never ended. */
struct metrics_profiler {
	void *(*begin)(void *ctx, unsigned *status, const char **why);
	int (*end)(void *ctx, void *window, struct strbuf *gz);
	void (*drop)(void *ctx, void *window);
	void *ctx;
};
/* Serves p's profiles too (p must outlive s). Returns 0 or -errno. */
int metrics_serve_profiles(struct metrics_server *s,
			   const struct metrics_profiler *p);

/* The fd the event loop polls for readability. */
int metrics_poll_fd(const struct metrics_server *s);
/* Answers pending connections and requests without blocking. */
void metrics_serve(struct metrics_server *s);
void metrics_close(struct metrics_server *s);
/* Whether this sonde was built with libmicrohttpd. */
bool metrics_available(void);

/* A run's metrics: its maps and the server, set up by metrics_start()
 * from the compiled program and its loaded maps. */
struct compiled;
struct loader;
struct pprof_src;
struct metrics {
	struct metrics_server *srv;
	struct mapdump_map *maps;
	struct metrics_map *mm;
	size_t n;
	const struct out_resolver *res;
	const struct pprof_src *ps;    /* the stack maps' profiles */
	struct metrics_profiler prof;
};
/* Returns 0 or -errno (reported on err, see metrics_listen). ps: what
 * /debug/pprof/profile profiles (it must outlive m). */
int metrics_start(struct metrics *m, const struct compiled *c,
		  const struct loader *l, const struct out_resolver *res,
		  const struct pprof_src *ps, const char *addr, bool quiet,
		  FILE *err);
/* Stops serving and frees; safe on a zeroed struct. */
void metrics_stop(struct metrics *m);

#endif
