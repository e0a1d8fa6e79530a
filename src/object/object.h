/*
 * Object mode: run a clang-built BPF object (FILE.bpf.o) through libbpf's
 * bpf_object API, so CO-RE, global data and BTF-defined maps just work.
 *
 *   open  -> --set rewrites .rodata/.data variables -> feature checks of
 *   the selected programs -> load -> attach each by its section name ->
 *   drain ring/perf buffers -> at exit print every map -> detach, close.
 *
 * Printing rules (records, maps, histograms) are documented in obj_impl.h.
 */
#ifndef SONDE_OBJECT_H
#define SONDE_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct obj_opts {
	const char *path;            /* the BPF object file */
	const char *const *progs;    /* --prog NAME (repeatable); none: all */
	size_t nprogs;
	const char *const *sets;     /* --set VAR=VALUE (repeatable) */
	size_t nsets;
	const char *perf_event;      /* --perf-event NAME:FREQ for SEC("perf_event")
				      * programs; NULL: "cpu-clock:99" */
	const char *format;          /* -f: "text" (NULL) or "json" */
	FILE *out;                   /* -o: records and maps; NULL: stdout */
	const char *out_name;        /* -o's path, for a failed write */
	FILE *err;                   /* error messages; NULL: stderr */
	bool verbose;                /* -v: libbpf's messages too */
	/* -c / -p: stop when this process exits (0: run until SIGINT or
	 * SIGTERM). A child (-c) is reaped with waitpid; its status is not
	 * otherwise used. */
	pid_t stop_pid;
	bool stop_pid_is_child;
	/* Called once everything is attached, before draining starts: this
	 * is where -c lets its (already forked, waiting) child exec. A
	 * non-zero (-errno) return stops the run with that error. */
	int (*ready)(void *ctx);
	void *ready_ctx;
};

/* Runs the object to completion. Returns 0, or -errno after printing one
 * clear error to opts->err. Everything is detached and closed on return;
 * SIGINT/SIGTERM handlers are installed only for the duration. */
int obj_run(const struct obj_opts *opts);

#endif
