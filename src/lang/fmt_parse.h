/*
 * Parsing and type checking of printf-style formats, at compile time. Sema
 * parses each format once and keeps the result on the call's AST node;
 * codegen hands it to the runtime in the event description.
 */
#ifndef SONDE_FMT_PARSE_H
#define SONDE_FMT_PARSE_H

#include <stdint.h>

#include "model/fmt.h"

struct arena;
struct type;

/* Parses fmt[0..len) (escapes already decoded). Never fails: text that is
 * not a conversion is literal. Everything lives in the arena, so use one
 * that outlives the run if the runtime keeps the result. */
const struct fmt *fmt_parse(struct arena *a, const char *fmt, size_t len);

/* fmt_error.arg when the format string itself is at fault. */
#define FMT_AT_FORMAT (-1)

struct fmt_error {
	const char *msg; /* "printf: %d specifier expects ...", arena-owned */
	int arg;         /* offending argument index, or FMT_AT_FORMAT */
};

/*
 * Checks n argument types against the format. Returns 0, or -EINVAL with
 * *err filled for the first problem, worded as bpftrace 0.26 words it
 * (fn, "printf", "system" or "cat", is not part of it):
 *   "not enough arguments for format string (1 supplied, 2 expected)"
 *     (arg: FMT_AT_FORMAT)
 *   "too many arguments for format string (2 supplied, 1 expected)"
 *     (arg: the first surplus argument)
 *   "unsupported format specifier for type 'string[16]': d"
 *   "unsupported format specifier: f" (floats and %n)
 *   "unable to print none type for specifier: d"
 */
int fmt_check(struct arena *a, const struct fmt *f, const char *fn,
	      const struct type *const *args, uint32_t n,
	      struct fmt_error *err);

#endif
