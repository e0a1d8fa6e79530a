/*
 * libFuzzer target: arbitrary bytes -> the front end as main runs it
 * (driver/frontend.c: parse, imports, config, macros, C, probes, sema,
 * codegen) -> backend (register allocation, encoding), as `sonde --mode
 * codegen` does.
 * Any crash, sanitizer report, leak or hang is a bug; so is an internal
 * error, or a codegen or backend error on a program sema accepted that
 * is not one of the located refusals of a kernel limit (a stack over 512
 * bytes, a string literal bigger than the stack, more than 64 maps or 1M
 * instructions in a program): the target aborts on one.
 *
 * fuzz_verify.c includes this file with FUZZ_VERIFY set: it also loads
 * what codegen emits through the kernel's verifier (maps created,
 * BPF_PROG_LOAD, nothing attached; root only) and aborts on any
 * rejection but the located refusals of a loop the verifier cannot follow
 * (the loader names the loop and the limit).
 *
 * Probe expansion reads this machine's tracefs, BTF and symbols, so the
 * programs are typed as they would be here. Attach points that would
 * expand to thousands of targets (wildcards) are what a user can write
 * too; BPFTRACE_MAX_PROBES is set low to keep each input fast.
 * Build and run: make fuzz (see tests/fuzz/fuzz.mk).
 */
#define _GNU_SOURCE /* memmem, strchrnul */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/frontend.h"
#include "kernel/dwarf.h"
#include "lang/config.h"
#include "model/compiled.h"
#include "model/limits.h"
#include "probes/provider.h"
#include "util/arena.h"
#include "util/diag.h"
#ifdef FUZZ_VERIFY
#include "runtime/loader.h"
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The script's name in diagnostics; see bad_refusal. */
#define FUZZ_FILE "fuzz\001.bt"

static FILE *devnull;
static struct limits initial_limits;
#ifdef FUZZ_VERIFY
static bool can_load;
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	/* Each input expands its probes: keep a wildcard's cost bounded.
	 * The limit is read through limits_from_env(), as main.c reads it
	 * (set alone, the variable was never read: the limit stayed 512). */
	setenv("BPFTRACE_MAX_PROBES", "16", 0);
	if (limits_from_env(stderr) < 0 || config_from_env(stderr) < 0)
		abort();
	initial_limits = limits;
#ifdef FUZZ_VERIFY
	can_load = geteuid() == 0;
	if (!can_load)
		fputs("fuzz_verify: not root: programs are compiled, not "
		      "loaded\n", stderr);
	loader_libbpf_quiet(false, devnull);
#endif
	return 0;
}

#ifdef FUZZ_VERIFY
/* Loads c through the verifier; aborts on a rejection. */
static void verify(const struct compiled *c, const uint8_t *data,
		   size_t size)
{
	char *msg = NULL;
	size_t msglen = 0;
	FILE *err = open_memstream(&msg, &msglen);
	if (!err)
		abort();
	struct loader l;
	struct loader_opts lo = { .err = err, .verbose = false };
	/* libFuzzer's SIGALRM (its -timeout check) must not land in the
	 * verifier: the kernel then returns ENOSPC for the truncated log in
	 * place of EAGAIN, libbpf does not retry, and the loader's logging
	 * second load of a refused while loop misses why the first failed.
	 * The alarm is held until the load is over, then checked. */
	sigset_t alarm, old;
	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alarm, &old);
	int rc = loader_load(&l, c, &lo);
	loader_close(&l);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	fclose(err);
	/* A loop the verifier cannot follow is refused by name: sema cannot
	 * know every loop's length; nor how many branches the verifier
	 * keeps pending (unrolls nested into 10,000 conditions). A program type this kernel refuses
	 * (fentry here) and map creation failing for lack of memory are the
	 * machine's, not the program's. */
	if (rc < 0 && !strstr(msg, "the while loop at") &&
	    !strstr(msg, "the kernel's verifier gave up") &&
	    !strstr(msg, "the kernel refuses") &&
	    !strstr(msg, "cannot create map")) {
		fprintf(stderr, "fuzz_verify: a type-checked program was "
				"rejected: %s\nprogram:\n%.*s\n",
			msg, (int)size, (const char *)data);
		abort();
	}
	free(msg);
}
#endif

/* The front end as main runs it (driver/frontend.c: parse, imports,
 * config, macros, C, probes, sema, codegen and the backend), with
 * diagnostics to out. Returns 0 when the program was refused before
 * codegen (sema's job) or compiled (then j->compiled holds it), -1 when
 * codegen or the backend refused what sema accepted. */
static int compile(const uint8_t *data, size_t size, FILE *out,
		   struct job *j)
{
	struct src_file file = {
		.name = FUZZ_FILE,
		.text = (const char *)data,
		.len = (uint32_t)size,
	};
	/* --mode codegen (nothing attached), --unsafe: every builtin */
	struct options o;
	memset(&o, 0, sizeof(o));
	o.mode = MODE_CODEGEN;
	o.unsafe = true;
	o.helper_check = 1;
	struct diag d;
	diag_init(&d, out);
	/* Each input is a run of its own: casts see its uprobes' files
	 * only, and its config block's settings are its own. */
	dwarf_forget_files();
	limits = initial_limits;
	frontend_run(j, &o, &file, &d, FE_STOP_CODE);
	return j->reached == FE_STOP_SEMA ? -1 : 0;
}

/* Why the errors codegen printed in msg are not all located refusals of
 * a kernel limit (a stack over 512 bytes, more than 64 maps or 1M
 * instructions in a program, long strings past the 32 KiB of a per-CPU
 * value, keys over 512 bytes where hash maps take none), or NULL. Only the messages' own lines are read: each starts
 * with FUZZ_FILE, whose control byte the source lines they quote cannot
 * hold (diag prints it as '?'), so a program's text cannot pass for a
 * message. (It did: a string literal holding "internal error", a phrase
 * libFuzzer had picked up from this very check, quoted under a stack
 * refusal.) */
#define HAS(text, len, lit) memmem(text, len, lit, sizeof(lit) - 1)
#define STARTS(text, lit) (strncmp(text, lit, sizeof(lit) - 1) == 0)

static const char *bad_refusal(const char *msg)
{
	static const char head[] = FUZZ_FILE ":", sep[] = ": ERROR: ";
	uint32_t nerrors = 0;
	for (const char *line = msg; *line;) {
		const char *eol = strchrnul(line, '\n');
		const char *text = strncmp(line, head, sizeof(head) - 1) ? NULL :
				   strstr(line, sep);
		if (text && text < eol) {
			text += sizeof(sep) - 1;
			size_t len = (size_t)(eol - text);
			nerrors++;
			if (STARTS(text, "internal error"))
				return "an internal error";
			/* a program past the kernel's instruction count */
			if (STARTS(text, "cannot compile this probe") &&
			    !HAS(text, len, "the kernel loads"))
				return "a backend error on a program sema accepted";
			if (!HAS(text, len, "bytes of stack, more than the 512") &&
			    !HAS(text, len, "more than the 64 the kernel allows") &&
			    !HAS(text, len, "a per-CPU value may have") &&
			    !HAS(text, len, "no hash map keys over 512 bytes") &&
			    !HAS(text, len, "the kernel loads") &&
			    !STARTS(text, "String is too long (over 512 bytes"))
				return "a codegen error on a program sema accepted";
		}
		line = *eol ? eol + 1 : eol;
	}
	return nerrors ? NULL : "a codegen error on a program sema accepted";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > UINT32_MAX)
		return 0;
	struct job j;
	memset(&j, 0, sizeof(j));
	arena_init(&j.arena);
	char *msg = NULL;
	size_t msglen = 0;
	FILE *out = open_memstream(&msg, &msglen);
	if (!out)
		abort();
	int rc = compile(data, size, out, &j);
	fclose(out);
	const char *why = rc < 0 ? bad_refusal(msg) : NULL;
	if (why) {
		fprintf(stderr, "fuzz_compile: %s:\n%s\nprogram:\n%.*s\n",
			why, msg, (int)size, (const char *)data);
		abort();
	}
	free(msg);
#ifdef FUZZ_VERIFY
	if (rc == 0 && can_load && j.reached == FE_STOP_CODE &&
	    j.compiled.nprogs)
		verify(&j.compiled, data, size);
#endif
	job_release(&j);
	return 0;
}
