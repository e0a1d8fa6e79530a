/*
 * libFuzzer target: the command line (driver/cli.c), as main() parses
 * it. The input is argv: words separated by NUL bytes (at most 64; the
 * first word is the first option, argv[0] is "sonde"). Any crash,
 * sanitizer report, leak or hang is a bug, and so is a parse that says
 * "run" without saying what: a run needs -e, a script, -t or --object,
 * unless it only lists (-l, --tools, --settings) or prints --info. --help and
 * --version print to /dev/null here.
 * Seeds: tests/fuzz/seeds/fuzz_cli/ (command lines of the README, the
 * man page's examples and the test layers).
 * Build and run: make fuzz (see tests/fuzz/fuzz.mk).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cli.h"

#define MAX_WORDS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	/* the words, each NUL-terminated, in one copy of the input */
	char *copy = malloc(size + 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	copy[size] = '\0';
	char *argv[MAX_WORDS + 2];
	int argc = 0;
	argv[argc++] = (char *)"sonde";
	for (size_t i = 0; i <= size && argc <= MAX_WORDS;) {
		argv[argc++] = copy + i;
		i += strlen(copy + i) + 1;
	}
	argv[argc] = NULL;

	struct options o;
	memset(&o, 0, sizeof(o));
	enum cli_result r = cli_parse(argc, argv, &o, devnull, devnull);
	if (r == CLI_RUN && !o.info && !o.list && !o.list_tools &&
	    !o.list_settings &&
	    !o.prog_text && !o.prog_path && !o.object) {
		fprintf(stderr, "cli_parse said run, with nothing to run\n");
		abort();
	}
	if (r == CLI_RUN && o.nparams + o.nnamed > argc) {
		fprintf(stderr, "more parameters than words\n");
		abort();
	}
	cli_free(&o);
	free(copy);
	return 0;
}
