/*
 * The builtin registry (lang/builtins.def): ids, names and arity of every
 * builtin variable and function. Sema looks a name up once and stores the
 * id on the node; codegen dispatches on the id.
 */
#ifndef SONDE_BUILTINS_H
#define SONDE_BUILTINS_H

#include <stdbool.h>
#include <stdint.h>

#define BUILTIN_VARIADIC 255

enum builtin_id {
#define BUILTIN_VAR(id, name, ty, cg) BI_##id,
#define BUILTIN_VARN(id, name, ty, cg) BI_##id,
#define BUILTIN_FN(id, name, min, max, ty, cg) BI_##id,
#include "lang/builtins.def"
#undef BUILTIN_VAR
#undef BUILTIN_VARN
#undef BUILTIN_FN
	BI__COUNT,
	BI_NONE = -1,
};

enum builtin_kind {
	BUILTIN_KIND_VAR,
	BUILTIN_KIND_VARN, /* name is a prefix followed by a number */
	BUILTIN_KIND_FN,
};

struct builtin_info {
	const char *name;
	enum builtin_kind kind;
	uint8_t min_args, max_args; /* functions */
};

extern const struct builtin_info builtin_info[BI__COUNT];

/* The variable name names ("pid", "arg3": *n = 3), or BI_NONE. */
enum builtin_id builtin_var_lookup(const char *name, uint32_t *n);
/* The function name names, or BI_NONE. */
enum builtin_id builtin_fn_lookup(const char *name);

#endif
