/*
 * The integer expression of a preprocessor #if / #elif, evaluated as C's
 * preprocessor does: integers (decimal, octal, hex, 'c', with u/l
 * suffixes), defined(NAME) / defined NAME, the unary, binary, logical and
 * ?: operators in C's precedence, and macros whose body is itself such an
 * expression; an identifier that names no macro is 0. What sonde cannot
 * follow (a function-like macro call, a macro with no body, a string) is
 * reported as unknown, and the caller reads every branch as before.
 */
#ifndef SONDE_CPP_EXPR_H
#define SONDE_CPP_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Looks up macro name[0..len): returns false when it is not defined;
 * else *body is its replacement text ("" when it has none) and
 * *function_like whether it takes arguments. */
typedef bool (*cpp_lookup_fn)(void *ctx, const char *name, size_t len,
			      const char **body, bool *function_like);

/* Evaluates expr. Returns 0 and sets *value, or -1 when unknown. */
int cpp_eval(const char *expr, cpp_lookup_fn lookup, void *ctx,
	     int64_t *value);

#endif
