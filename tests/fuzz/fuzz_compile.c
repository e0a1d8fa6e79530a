/*
 * libFuzzer target: arbitrary bytes -> parse -> probes -> sema -> codegen
 * -> backend (register allocation, encoding), as `sonde --mode codegen` does.
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

#include "codegen/codegen.h"
#include "kernel/dwarf.h"
#include "lang/cmacro.h"
#include "lang/parser.h"
#include "lang/sema.h"
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
	if (limits_from_env(stderr) < 0)
		abort();
#ifdef FUZZ_VERIFY
	can_load = geteuid() == 0;
	if (!can_load)
		fputs("fuzz_verify: not root: programs are compiled, not "
		      "loaded\n", stderr);
	loader_libbpf_quiet(false, devnull);
#endif
	return 0;
}

/* Expands every attach point; false when one fails (an error). */
static bool expand(struct arena *a, struct diag *d,
		   const struct ast_program *prog, struct sema_probe *sp)
{
	struct probe_env env = { .arena = a, .diag = d, .no_attach = true };
	bool ok = true;
	for (uint32_t i = 0; i < prog->nprobes; i++) {
		const struct ast_probe *p = &prog->probes[i];
		if (probe_expand_probe(&env, p->attach, p->nattach,
				       &sp[i].targets, &sp[i].ntargets) < 0)
			ok = false;
	}
	return ok;
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

/* parse -> probes -> sema -> codegen with diagnostics to out. Returns 0
 * when sema refused the program or it compiled (then *c holds it, to be
 * freed), -1 when codegen or the backend refused what sema accepted. */
static int compile(const uint8_t *data, size_t size, FILE *out,
		   struct arena *a, struct compiled *c)
{
	struct src_file file = {
		.name = FUZZ_FILE,
		.text = (const char *)data,
		.len = (uint32_t)size,
	};
	struct diag d;
	diag_init(&d, out);
	/* Each input is a run of its own: casts see its uprobes' files only. */
	dwarf_forget_files();
	struct ast_program *prog = parse_program(a, &d, &file);
	if (!prog)
		abort(); /* parse_program promises never to return NULL */
	struct sema_probe *sp = arena_alloc(a, sizeof(*sp) *
						      (prog->nprobes + 1));
	struct sema_opts so = { NULL, 0, true, 0 };
	struct sema_result sr;
	if (d.nerrors || cmacro_expand(a, &d, prog) < 0 ||
	    !expand(a, &d, prog, sp) ||
	    sema_check(a, &d, prog, sp, &so, &sr) < 0 || d.nerrors)
		return 0;
	struct codegen_opts co = { 0 };
	int rc = codegen(a, &d, prog, sp, &sr, &co, c);
	return rc < 0 || d.nerrors ? -1 : 0;
}

/* Why the errors codegen printed in msg are not all located refusals of
 * a kernel limit (a stack over 512 bytes, more than 64 maps or 1M
 * instructions in a program), or NULL. Only the messages' own lines are read: each starts
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
	struct arena a;
	arena_init(&a);
	struct compiled c;
	memset(&c, 0, sizeof(c));
	char *msg = NULL;
	size_t msglen = 0;
	FILE *out = open_memstream(&msg, &msglen);
	if (!out)
		abort();
	int rc = compile(data, size, out, &a, &c);
	fclose(out);
	const char *why = rc < 0 ? bad_refusal(msg) : NULL;
	if (why) {
		fprintf(stderr, "fuzz_compile: %s:\n%s\nprogram:\n%.*s\n",
			why, msg, (int)size, (const char *)data);
		abort();
	}
	free(msg);
#ifdef FUZZ_VERIFY
	if (rc == 0 && can_load && c.nprogs)
		verify(&c, data, size);
#endif
	codegen_free(&c);
	arena_release(&a);
	return 0;
}
