/* Every emitter lang/builtins.def names (in builtins.c, bytes.c,
 * calls.c, context.c, maps.c, pt_regs.c, stacks.c, stdlib.c): declared
 * for registry.c's table, and for each file that defines some, so that
 * the compiler checks them against the hook's type (cg_builtin_fn). */
#ifndef SONDE_CODEGEN_EMITTERS_H
#define SONDE_CODEGEN_EMITTERS_H

#include "codegen/cg.h"
#include "lang/builtins.h"

#define BUILTIN_VAR(id, name, ty, emit) \
	struct val emit(struct cg *, struct ast_expr *, struct ast_expr *);
#define BUILTIN_VARN BUILTIN_VAR
#define BUILTIN_FN(id, name, min, max, ty, emit) \
	BUILTIN_VAR(id, name, ty, emit)
#include "lang/builtins.def"
#undef BUILTIN_VAR
#undef BUILTIN_VARN
#undef BUILTIN_FN

#endif
