/*
 * libFuzzer target: a tracefs event format file (events/CAT/NAME/format)
 * -> kernel/tracefs.c's parser (tracefs_parse_format), then the types
 * sema gives tracepoint arguments from it: the args record
 * (tracefs_args_type), each field's type, kernel and user pointers
 * alike (tracefs_field_type), and each field found by its name. Any
 * crash, sanitizer report, leak or hang is a bug.
 * Seeds: real format files of this machine (fuzz.mk copies them from
 * tracefs) and tests/fuzz/seeds/fuzz_tracefs_format/.
 * Build and run: make fuzz (see tests/fuzz/fuzz.mk).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/tracefs.h"
#include "model/types.h"
#include "util/arena.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The file as sysfs_slurp reads it: NUL-terminated, and cut at a
	 * NUL inside. */
	char *text = malloc(size + 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	struct arena a;
	arena_init(&a);
	struct tracefs_format fmt;
	if (tracefs_parse_format(&a, text, &fmt) == 0) {
		if (!fmt.name || (fmt.nfields && !fmt.fields))
			abort();
		fmt.category = "fuzz"; /* as tracefs_format() sets it */
		tracefs_args_type(&a, &fmt);
		for (uint32_t i = 0; i < fmt.nfields; i++) {
			const struct tracefs_field *f = &fmt.fields[i];
			if (!f->name || !f->ctype)
				abort();
			tracefs_field_type(&a, f, false);
			tracefs_field_type(&a, f, true);
			/* the first field of that name */
			const struct tracefs_field *g =
				tracefs_find_field(&fmt, f->name);
			if (!g || g > f || strcmp(g->name, f->name))
				abort();
		}
	}
	arena_release(&a);
	free(text);
	return 0;
}
