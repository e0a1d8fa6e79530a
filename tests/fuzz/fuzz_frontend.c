/*
 * libFuzzer target: arbitrary bytes -> the whole front end in the order
 * driver/frontend.c runs it for main: parse ($1.. positional parameters
 * given) -> imports -> the config block -> bpftrace macros -> #include
 * and C macros -> probe expansion (this machine's tracefs, BTF, symbols)
 * -> sema -> getopt()'s named options. Any crash, sanitizer report, leak
 * or hang is a bug; so is an internal error. Codegen is fuzz_compile's.
 *
 * The passes are driver/frontend.c's (frontend_run, up to sema and the
 * named options), as main runs them, with $1.. given and no --name
 * options (namedopt_check would say each unknown one on stderr).
 *
 * A config block writes the process-wide limits (model/limits.h): they
 * are restored before each input, so that one input's config cannot
 * change the next one's run. BPFTRACE_MAX_PROBES (16), read through
 * limits_from_env() as main.c reads it, keeps wildcards fast; the
 * environment wins over a config block, so an input cannot raise it.
 * Build and run: make fuzz (see tests/fuzz/fuzz.mk).
 */
#define _GNU_SOURCE /* memmem */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cli.h"
#include "driver/frontend.h"
#include "kernel/dwarf.h"
#include "lang/config.h"
#include "model/limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The script's name in diagnostics: its control byte cannot appear in a
 * quoted source line (diag prints it as '?'), so only a message's own
 * first line starts with it (see fuzz_compile.c's bad_refusal). */
#define FUZZ_FILE "fuzz\001.bt"

static struct limits initial_limits;
/* What a script's $1, $2 and $3 see, as if given after it. */
static char *params[] = { (char *)"1", (char *)"two", (char *)"-3" };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	setenv("BPFTRACE_MAX_PROBES", "16", 0);
	if (limits_from_env(stderr) < 0 || config_from_env(stderr) < 0)
		abort();
	initial_limits = limits;
	return 0;
}

static void front_end(const uint8_t *data, size_t size, FILE *out)
{
	struct src_file file = {
		.name = FUZZ_FILE,
		.text = (const char *)data,
		.len = (uint32_t)size,
	};
	/* --mode codegen: nothing will be attached */
	struct options o;
	memset(&o, 0, sizeof(o));
	o.mode = MODE_CODEGEN;
	o.params = params;
	o.nparams = 3;
	o.helper_check = 1;
	struct job j;
	memset(&j, 0, sizeof(j));
	arena_init(&j.arena);
	struct diag d;
	diag_init(&d, out);
	frontend_run(&j, &o, &file, &d, FE_STOP_SEMA);
	job_release(&j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > UINT32_MAX)
		return 0;
	limits = initial_limits;
	/* Each input is a run of its own: casts see its uprobes' files only. */
	dwarf_forget_files();
	char *msg = NULL;
	size_t msglen = 0;
	FILE *out = open_memstream(&msg, &msglen);
	if (!out)
		abort();
	front_end(data, size, out);
	fclose(out);
	/* A message line, never a quoted source line, reporting an
	 * internal error is sonde's bug, whatever the input. */
	static const char head[] = FUZZ_FILE ":";
	for (const char *l = msg; l && *l;) {
		const char *eol = strchrnul(l, '\n');
		const char *e = memmem(l, (size_t)(eol - l), ": ERROR: internal error",
				       23);
		if (!strncmp(l, head, sizeof(head) - 1) && e) {
			fprintf(stderr, "fuzz_frontend: %.*s\nprogram:\n%.*s\n",
				(int)(eol - l), l, (int)size,
				(const char *)data);
			abort();
		}
		l = *eol ? eol + 1 : eol;
	}
	free(msg);
	return 0;
}
