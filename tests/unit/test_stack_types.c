/*
 * The stacks' types as sema makes them (lang/sema_stack.c): dw_ustack's
 * and, under ustack_unwind = dwarf, ustack's have stack_dwarf (the DWARF
 * unwinder's, model/unwind.h), with the mode and limit written; kstack's
 * and plain ustack's do not. And what refuses a DWARF stack: no target
 * process for dw_ustack, unstable_dw_ustack = error, build_id mode.
 * bpftrace 0.26.1 (stdlib.md's dw_ustack, unstable_feature.cpp) is the
 * reference for the rules; its messages are the errors layer's.
 */
#define _GNU_SOURCE /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "driver/frontend.h"
#include "lang/builtins.h"
#include "model/limits.h"
#include "model/types.h"

#define MAX_STACKS 8

/* The stack expressions of a script, in the order the walk meets them. */
struct found {
	const struct type *t[MAX_STACKS];
	int id[MAX_STACKS];
	int n;
};

static void collect(struct ast_expr *e, void *ctx)
{
	struct found *f = ctx;
	if ((e->kind != E_BUILTIN && e->kind != E_CALL) || !e->type ||
	    (e->type->kind != TY_USTACK && e->type->kind != TY_KSTACK) ||
	    f->n == MAX_STACKS)
		return;
	f->id[f->n] = e->builtin;
	f->t[f->n++] = e->type;
}

/* The front end up to sema on prog (-p given when pid): 0 or 1, the
 * stacks it typed in *f, its messages in *errs (freed first). */
static int check(const char *prog, bool pid, struct found *f, char **errs)
{
	static struct job j; /* the types live in its arena until next time */
	static bool used;
	if (used)
		job_release(&j);
	used = true;
	struct options o;
	memset(&o, 0, sizeof(o));
	o.mode = MODE_CODEGEN;
	o.pid_set = pid;
	o.pid = pid ? 1 : 0;
	memset(&j, 0, sizeof(j));
	arena_init(&j.arena);
	j.kernel = &sema_kernel_none;
	size_t len;
	free(*errs);
	FILE *ef = open_memstream(errs, &len);
	struct diag d;
	diag_init(&d, ef);
	struct src_file file = { "stdin", prog, (uint32_t)strlen(prog) };
	int rc = frontend_run(&j, &o, &file, &d, FE_STOP_SEMA);
	fclose(ef);
	memset(f, 0, sizeof(*f));
	if (!rc)
		for (uint32_t i = 0; i < j.prog->nprobes; i++)
			ast_walk_probe(&j.prog->probes[i], collect, f);
	return rc;
}

static struct limits initial;
/* each test's stacks and messages */
static struct found f;
static char *errs;

/* A test starts from the settings the environment gave. */
static void fresh(void)
{
	limits = initial;
	free(errs);
	errs = NULL;
}

TEST(dw_ustack_is_dwarf)
{
	fresh();
	CHECK(check("config = { unstable_dw_ustack = enable } "
		    "profile:hz:99 { @a[dw_ustack] = count(); "
		    "@b[dw_ustack(perf, 7)] = count(); @c[dw_ustack(3)] = count(); "
		    "@d[ustack] = count(); @e[kstack] = count(); }",
		    true, &f, &errs) == 0);
	CHECK_STR(errs, "");
	CHECK(f.n == 5);
	if (f.n != 5)
		goto out;
	CHECK(f.id[0] == BI_DW_USTACK_VAR && f.t[0]->kind == TY_USTACK);
	CHECK(f.t[0]->stack_dwarf && f.t[0]->stack_mode == STACK_BPFTRACE &&
	      f.t[0]->stack_limit == 127);
	CHECK(f.id[1] == BI_DW_USTACK && f.t[1]->stack_dwarf);
	CHECK(f.t[1]->stack_mode == STACK_PERF && f.t[1]->stack_limit == 7);
	CHECK(f.t[2]->stack_dwarf && f.t[2]->stack_limit == 3);
	/* a DWARF stack is laid out as ustack's, and is another type */
	CHECK(f.t[0]->size == f.t[3]->size);
	CHECK(!f.t[3]->stack_dwarf && f.t[3]->kind == TY_USTACK);
	CHECK(!type_equal(f.t[0], f.t[3]));
	CHECK(!f.t[4]->stack_dwarf && f.t[4]->kind == TY_KSTACK);
out:;
}

TEST(ustack_unwind_dwarf)
{
	fresh();
	/* every ustack, and no target process needed; kstack unaffected */
	CHECK(check("config = { ustack_unwind = dwarf } profile:hz:99 { "
		    "@a[ustack] = count(); @b[ustack(raw, 5)] = count(); "
		    "@c[kstack] = count(); @d[kstack(perf, 2)] = count(); }",
		    false, &f, &errs) == 0);
	CHECK_STR(errs, "");
	CHECK(f.n == 4);
	if (f.n == 4) {
		CHECK(f.t[0]->stack_dwarf && f.t[0]->stack_limit == 127);
		CHECK(f.t[1]->stack_dwarf && f.t[1]->stack_mode == STACK_RAW &&
		      f.t[1]->stack_limit == 5);
		CHECK(!f.t[2]->stack_dwarf && !f.t[3]->stack_dwarf);
	}
	/* ... and fp, the default, none */
	fresh();
	CHECK(check("profile:hz:99 { @a[ustack] = count(); }", false, &f,
		    &errs) == 0);
	CHECK(f.n == 1 && !f.t[0]->stack_dwarf);
}

TEST(dw_ustack_needs_a_process)
{
	fresh();
	const char *prog = "config = { unstable_dw_ustack = enable } "
			   "profile:hz:99 { @[dw_ustack()] = count(); }";
	CHECK(check(prog, false, &f, &errs) == 1);
	CHECK_STR(errs, "stdin:1:60-71: ERROR: dw_ustack requires a target "
		  "process. Use -p, -c, or --dwarf-pid to specify one.\n"
		  "config = { unstable_dw_ustack = enable } profile:hz:99 { "
		  "@[dw_ustack()] = count(); }\n"
		  "                                                          "
		  " ~~~~~~~~~~~\n");
	/* --dwarf-pid names one */
	limits.dwarf_pid = 1;
	CHECK(check(prog, false, &f, &errs) == 0);
	CHECK(f.n == 1 && f.t[0]->stack_dwarf);
	/* ustack_unwind = dwarf loads every process's tables */
	fresh();
	limits.ustack_dwarf = UNWIND_DWARF;
	CHECK(check(prog, false, &f, &errs) == 0);
}

TEST(unstable_dw_ustack)
{
	fresh();
	/* the default, warn: once, with no place, however many uses */
	CHECK(check("profile:hz:99 { @a[dw_ustack] = count(); "
		    "@b[dw_ustack(4)] = count(); }", true, &f, &errs) == 0);
	CHECK_STR(errs, "WARNING: Script is using an unstable feature: "
		  "dw_ustack (DWARF stack unwinding). To prevent this warning "
		  "you must explicitly enable it in the config e.g. "
		  "unstable_dw_ustack=enable\n");
	/* false is error, as 0.26 reads it */
	fresh();
	CHECK(check("config = { unstable_dw_ustack = false } profile:hz:99 { "
		    "@[dw_ustack] = count(); }", true, &f, &errs) == 1);
	CHECK(errs && strstr(errs, ": ERROR: dw_ustack (DWARF stack "
			     "unwinding) feature is not enabled by default."));
	/* it gates dw_ustack, not ustack_unwind = dwarf */
	fresh();
	CHECK(check("config = { unstable_dw_ustack = error; ustack_unwind = "
		    "dwarf } profile:hz:99 { @[ustack] = count(); }", false,
		    &f, &errs) == 0);
	CHECK_STR(errs, "");
	CHECK(f.n == 1 && f.t[0]->stack_dwarf);
}

TEST(build_id_refused)
{
	fresh();
	CHECK(check("config = { ustack_unwind = dwarf } profile:hz:99 { "
		    "@[ustack(build_id)] = count(); }", false, &f,
		    &errs) == 1);
	CHECK(errs && strstr(errs, "ERROR: 'build_id' stack mode cannot be "
			     "used with ustack_unwind = dwarf\n"));
	/* and build_id stays a frame-pointer ustack's mode */
	fresh();
	CHECK(check("profile:hz:99 { @[ustack(build_id)] = count(); }", false,
		    &f, &errs) == 0);
	CHECK(f.n == 1 && f.t[0]->stack_mode == STACK_BUILD_ID &&
	      !f.t[0]->stack_dwarf);
}

int main(void)
{
	initial = limits;
#ifndef __x86_64__
	printf("skip dwarf_stacks: the DWARF unwinder is x86_64's\n");
	return 0;
#endif
	RUN(dw_ustack_is_dwarf);
	RUN(ustack_unwind_dwarf);
	RUN(dw_ustack_needs_a_process);
	RUN(unstable_dw_ustack);
	RUN(build_id_refused);
	fresh();
	return check_done();
}
