/*
 * libFuzzer target: arbitrary bytes -> lexer -> parser. Any crash, sanitizer
 * report, leak or hang is a bug; diagnostics are expected and discarded.
 * Build and run: make fuzz (see tests/fuzz/fuzz.mk).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lang/parser.h"
#include "util/arena.h"
#include "util/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		if (!devnull)
			abort();
	}
	if (size > UINT32_MAX)
		return 0;

	/* libFuzzer's buffer holds exactly size bytes and no terminating NUL,
	 * so ASan catches any read past file.len. */
	struct src_file file = {
		.name = "fuzz.bt",
		.text = (const char *)data,
		.len = (uint32_t)size,
	};
	struct diag d;
	diag_init(&d, devnull);
	struct arena a;
	arena_init(&a);
	struct ast_program *prog = parse_program(&a, &d, &file);
	if (!prog)
		abort(); /* parse_program promises never to return NULL */
	arena_release(&a);
	return 0;
}
