/*
 * The builtin registry's code generators (lang/builtins.def): the table
 * the walkers dispatch on. The emitters it names evaluate their arguments
 * through walk.h, never through this file.
 */
#include "codegen/emitters.h"
#include "codegen/registry.h"

static const cg_builtin_fn emitters[BI__COUNT] = {
#define BUILTIN_VAR(id, name, ty, cg) [BI_##id] = cg,
#define BUILTIN_VARN(id, name, ty, cg) [BI_##id] = cg,
#define BUILTIN_FN(id, name, min, max, ty, cg) [BI_##id] = cg,
#include "lang/builtins.def"
#undef BUILTIN_VAR
#undef BUILTIN_VARN
#undef BUILTIN_FN
};

bool codegen_builtin_has_emitter(int id)
{
	return id >= 0 && id < BI__COUNT && emitters[id];
}

struct val cg_builtin(struct cg *g, struct ast_expr *e,
		      struct ast_expr *target)
{
	return emitters[e->builtin](g, e, target);
}
