/* The expression walker (expr.c): codegen() puts the first two in g's
 * struct cg_walker, through which everyone else calls them (walk.h). */
#ifndef SONDE_CODEGEN_EXPR_H
#define SONDE_CODEGEN_EXPR_H

#include "codegen/cg.h"

struct val cg_walk_expr(struct cg *g, struct ast_expr *e);
ir_jlist cg_walk_cond_false(struct cg *g, struct ast_expr *e);
/* target op= value, evaluated as the integer target op value. */
struct val cg_compound(struct cg *g, struct ast_expr *target, enum ast_op op,
		       struct ast_expr *value);

#endif
