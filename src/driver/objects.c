/*
 * --object FILE: a clang-built BPF object run through libbpf (obj_run),
 * or an object --emit-elf wrote, its compiled program rebuilt and run as
 * the script would be.
 */
#include "driver/objects.h"

#include <errno.h>
#include <string.h>

#include "driver/frontend.h"
#include "model/serial.h"
#include "object/emitted.h"
#include "object/object.h"
#include "runtime/run.h"

static int start_child(void *ctx)
{
	int err = child_start(ctx);
	if (err < 0)
		fprintf(stderr, "sonde: cannot start the command: %s\n",
			strerror(-err));
	return err;
}

/* --object: run a clang-built BPF object instead of a program. */
int objects_run_clang(const struct options *o)
{
	struct child child;
	memset(&child, 0, sizeof(child));
	struct obj_opts oo = {
		.path = o->object,
		.progs = o->obj_progs, .nprogs = o->nobj_progs,
		.sets = o->obj_sets, .nsets = o->nobj_sets,
		.perf_event = o->perf_event, .format = o->format,
		.verbose = o->verbose, .stop_pid = (pid_t)o->pid,
		.out_name = o->out_path,
	};
	if (o->out_path && !(oo.out = fopen(o->out_path, "w"))) {
		fprintf(stderr, "sonde: cannot write %s: %s\n", o->out_path,
			strerror(errno));
		return 1;
	}
	if (o->cmd) {
		int err = child_spawn_cmd(&child, o->cmd);
		if (err < 0) {
			fprintf(stderr, "sonde: cannot run '%s': %s\n", o->cmd,
				strerror(-err));
			if (oo.out)
				fclose(oo.out);
			return 1;
		}
		oo.stop_pid = child.pid;
		oo.stop_pid_is_child = true;
		oo.ready = start_child;
		oo.ready_ctx = &child;
	}
	int rc = obj_run(&oo) < 0 ? 1 : 0;
	if (o->cmd)
		child_release(&child);
	if (oo.out)
		fclose(oo.out);
	return rc;
}

/* --object FILE for an object --emit-elf wrote: its compiled program
 * rebuilt, its probes resolved here, then run as the script would. */
int objects_run_emitted(const struct options *o)
{
	if (o->nobj_progs || o->nobj_sets || o->perf_event || o->nparams ||
	    o->warnings || o->prog_text || o->nincludes || o->nincdirs) {
		fputs("sonde: an object --emit-elf wrote was compiled whole: "
		      "--prog, --set, --perf-event, -e, -k, -I, --include and "
		      "positional parameters are given to --emit-elf instead\n",
		      stderr);
		return 1;
	}
	struct job r;
	memset(&r, 0, sizeof(r));
	arena_init(&r.arena);
	struct serial_object so;
	int rc = 1;
	if (emitted_open(&r.arena, o->object, &so, stderr) < 0)
		goto out;
	if (so.uses_cpid && !o->cmd) {
		fprintf(stderr, "sonde: %s was emitted with -c: run it with -c "
			"CMD\n", o->object);
		goto out;
	}
	if (o->cmd) {
		int err = child_spawn_cmd(&r.child, o->cmd);
		if (err < 0) {
			fprintf(stderr, "sonde: cannot run '%s': %s\n", o->cmd,
				strerror(-err));
			goto out;
		}
		r.have_child = true;
	}
	struct emitted_env env = { (int)o->pid, r.have_child ? r.child.pid : 0,
				   o->cmd, frontend_now_ns() };
	if (emitted_resolve(&r.arena, &so, &env, stderr) < 0)
		goto out;
	if (o->out_path && !(r.out = fopen(o->out_path, "w"))) {
		fprintf(stderr, "sonde: cannot write %s: %s\n", o->out_path,
			strerror(errno));
		goto out;
	}
	struct run_opts ropts = {
		.format = o->format, .out = r.out, .out_name = o->out_path,
		.err = stderr,
		.console = stdout, .verbose = o->verbose,
		.unsafe = o->unsafe, .quiet = o->quiet,
		.child = r.have_child ? &r.child : NULL,
		.pid = (pid_t)o->pid, .verify_only = o->verify,
		.buffering = o->buffering,
		.folded = o->folded, .flamegraph = o->flamegraph,
		.pprof = o->pprof,
		.no_warnings = o->no_warnings, .dry_run = o->dry_run,
		.bench = o->mode == MODE_BENCH,
		.test = o->mode == MODE_TEST,
	};
	rc = run_program(&so.c, &ropts);
	if (rc < 0)
		rc = 1;
out:
	job_release(&r); /* so's code lives in the arena */
	return rc;
}

