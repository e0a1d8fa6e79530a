/*
 * The front end, as one ordered list of passes (frontend.c), in the
 * image of backend/compile.c: parse -> imports -> the config block ->
 * bpftrace macros -> #include and C macros -> probe expansion (with
 * --probe-filter) -> sema -> named options -> codegen -> the program
 * limit. Running, listing (-l with a program), --emit-elf and the fuzz
 * targets all call it; none keeps its own copy.
 */
#ifndef SONDE_DRIVER_FRONTEND_H
#define SONDE_DRIVER_FRONTEND_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "driver/cli.h"
#include "lang/ast.h"
#include "lang/sema.h"
#include "model/compiled.h"
#include "runtime/child.h"
#include "util/arena.h"
#include "util/diag.h"

/* Everything one compile (and its run) owns, released in reverse order
 * by job_release(). */
struct job {
	char *owned_text;      /* the script read from a file */
	struct arena arena;
	struct child child;    /* -c's command, paused until attached */
	bool have_child;
	struct compiled compiled;
	bool have_compiled;
	FILE *out;             /* -o FILE */
	/* --emit-elf: cpid and the start time compiled in are stand-ins
	 * (emitelf.c), and the probes are kept for the object */
	bool stand_ins;
	int64_t stand_in_cpid;
	uint64_t stand_in_start;
	struct ast_program *prog;
	struct sema_probe *probes;
	/* the machine sema asks for kernel facts (cgroup ids, symbols);
	 * NULL: this one, sema_kernel_host (a test passes its own) */
	const struct sema_kernel *kernel;
	/* how far frontend_run got: FE_STOP_SEMA once sema (and the named
	 * options) accepted the program, FE_STOP_CODE once codegen made its
	 * code; -1 before that. A fuzz target tells a program sema refused
	 * from one codegen refused by it. */
	int reached;
};

/* Where the front end stops: after the last pass that -l needs (parse
 * and imports), after sema (types known: what a fuzz target of the front
 * end wants), or at the end (code for every program). */
enum fe_stop { FE_STOP_IMPORTS, FE_STOP_SEMA, FE_STOP_CODE };

/* Runs the passes on file up to stop. Returns 0, or 1 after errors
 * (reported through diag or on stderr). --dump ast stops it early with 0
 * once printed. */
int frontend_run(struct job *j, const struct options *o,
		 const struct src_file *file, struct diag *diag,
		 enum fe_stop stop);

/* -l with a program: what each of its attach points matches here, in
 * the program's order, as bpftrace 0.26 lists a program. */
int frontend_list(const struct options *o, const struct src_file *file);

void job_release(struct job *j);

/* CLOCK_MONOTONIC in ns: the start time codegen compiles in. */
uint64_t frontend_now_ns(void);

#endif
