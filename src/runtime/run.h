/*
 * One run of a compiled program: load, attach, BEGIN, the poll loop, and
 * the exit sequence (detach, END, drain, maps, lost events, close).
 *
 * What main passes in (the command line it needs):
 *   -f FORMAT      format: "text" (default) or "json"
 *   -o FILE        out: where program output goes (stdout by default)
 *   -v             verbose: libbpf messages, verifier logs
 *   --unsafe       unsafe: system() may run commands
 *   -q             quiet: no "Attached N probes"
 *   -c CMD         child: spawned (child_spawn_cmd) before compiling, so
 *                  codegen knows cpid; started after BEGIN; the run stops
 *                  when it exits
 *   -p PID         pid: the run stops when that process exits
 *   --folded FILE, --flamegraph FILE
 *                  folded, flamegraph: stack-keyed maps written at exit
 *                  (runtime/flamegraph.h)
 *   --pprof FILE   pprof: stack-keyed maps as a pprof profile at exit
 *                  (runtime/pprof.h)
 *   --heatmap, --heatmap-svg FILE
 *                  heatmap, heatmap_svg: hist prints as heatmap rows
 *                  (runtime/heatmap.h)
 *   --metrics ADDR:PORT
 *                  metrics: maps served to Prometheus (runtime/metrics.h)
 */
#ifndef SONDE_RUN_H
#define SONDE_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct compiled;
struct child;

struct run_opts {
	const char *format;  /* NULL: "text" */
	FILE *out;           /* NULL: stdout */
	const char *out_name; /* out's path, for a failed write's message */
	FILE *console;       /* the two newlines before the exit maps (stdout
				with -o FILE); NULL: out */
	FILE *err;           /* NULL: stderr */
	bool verbose, unsafe, quiet;
	bool no_warnings;    /* --no-warnings: no -k/-kk warning lines */
	struct child *child; /* -c, already spawned; NULL: none */
	pid_t pid;           /* -p; 0: none */
	/* -B: none (unbuffered), line, full (flushed only when full and at
	 * exit); the default flushes once per ring-buffer batch. */
	enum { RUN_BUF_BATCH, RUN_BUF_NONE, RUN_BUF_LINE, RUN_BUF_FULL }
		buffering;
	bool verify_only;    /* --verify: load (the verifier checks every
				program), report, attach nothing */
	bool dry_run;        /* --dry-run: load and attach, then stop,
				printing nothing (bpftrace 0.26's) */
	const char *folded;     /* --folded: stack maps as folded stacks */
	const char *flamegraph; /* --flamegraph: ... as an SVG flame graph */
	const char *pprof;      /* --pprof: ... as a pprof profile */
	bool heatmap;            /* --heatmap */
	const char *heatmap_svg; /* --heatmap-svg */
	const char *metrics;     /* --metrics ADDR:PORT; NULL: none */
	bool bench;          /* --bench: run the bench: probes (and begin,
				end), attach nothing else */
	bool test;           /* --test: likewise the test: probes; a failed
				one makes run_program return 1 */
	bool usdt_file_activation; /* --usdt-file-activation: USDT
				      semaphores in every process of the
				      file (helper h14's USDT work uses it) */
};

/*
 * Runs until exit(), Ctrl-C, SIGTERM, SIGHUP (unless ignored, as nohup
 * does), or the end of the -c child or -p process. Everything it creates is released before it returns, also on
 * errors (reported to opts->err). Returns -errno, or the exit status:
 * 1 when a --test test failed, else exit(CODE)'s code (0 without one).
 */
int run_program(const struct compiled *c, const struct run_opts *opts);

#endif
