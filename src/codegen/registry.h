/* The dispatch of builtins to their emitters (registry.c). */
#ifndef SONDE_CODEGEN_REGISTRY_H
#define SONDE_CODEGEN_REGISTRY_H

#include "codegen/cg.h"

/* The value of builtin variable or call e (e->builtin), by its emitter;
 * target: the map an aggregation is assigned to, else NULL. */
struct val cg_builtin(struct cg *g, struct ast_expr *e,
		      struct ast_expr *target);

#endif
