/* The builtin registry's names and arity. See builtins.def. */
#include "builtins.h"

#include <stdlib.h>
#include <string.h>

const struct builtin_info builtin_info[BI__COUNT] = {
#define BUILTIN_VAR(id, nm, ty, cg) \
	[BI_##id] = { .name = nm, .kind = BUILTIN_KIND_VAR },
#define BUILTIN_VARN(id, nm, ty, cg) \
	[BI_##id] = { .name = nm, .kind = BUILTIN_KIND_VARN },
#define BUILTIN_FN(id, nm, min, max, ty, cg) \
	[BI_##id] = { .name = nm, .kind = BUILTIN_KIND_FN, \
		      .min_args = min, .max_args = max },
#include "lang/builtins.def"
#undef BUILTIN_VAR
#undef BUILTIN_VARN
#undef BUILTIN_FN
};

/* A number as a numbered variable's suffix: digits, no leading zero but
 * "0" itself, small enough to index arguments. */
static bool var_number(const char *s, uint32_t *n)
{
	if (*s < '0' || *s > '9' || (s[0] == '0' && s[1]) || strlen(s) > 4)
		return false;
	for (const char *p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	*n = (uint32_t)atoi(s);
	return true;
}

enum builtin_id builtin_var_lookup(const char *name, uint32_t *n)
{
	*n = 0;
	for (int i = 0; i < BI__COUNT; i++) {
		const struct builtin_info *b = &builtin_info[i];
		if (b->kind == BUILTIN_KIND_VAR && !strcmp(b->name, name))
			return (enum builtin_id)i;
		size_t len = strlen(b->name);
		if (b->kind == BUILTIN_KIND_VARN &&
		    !strncmp(b->name, name, len) && var_number(name + len, n))
			return (enum builtin_id)i;
	}
	return BI_NONE;
}

enum builtin_id builtin_fn_lookup(const char *name)
{
	for (int i = 0; i < BI__COUNT; i++)
		if (builtin_info[i].kind == BUILTIN_KIND_FN &&
		    !strcmp(builtin_info[i].name, name))
			return (enum builtin_id)i;
	return BI_NONE;
}
