/*
 * The walkers, as the emitters see them: through the struct cg_walker
 * codegen() puts in g (cg.h), so that an emitter that evaluates its
 * arguments depends on no walker, and the walkers that dispatch to the
 * emitters (expr.c through registry.c, codegen.c) are not in a circle
 * with them.
 */
#ifndef SONDE_CODEGEN_WALK_H
#define SONDE_CODEGEN_WALK_H

#include "codegen/cg.h"
#include "codegen/values.h"

/* e's value. */
static inline struct val cg_expr(struct cg *g, struct ast_expr *e)
{
	return g->walk->expr(g, e);
}

/* e's value as an integer in a register. */
static inline ir_reg cg_int(struct cg *g, struct ast_expr *e)
{
	return cg_to_reg(g, cg_expr(g, e));
}

/* Jumps to the returned list when e is false (0); falls through if true. */
static inline ir_jlist cg_cond_false(struct cg *g, struct ast_expr *e)
{
	return g->walk->cond_false(g, e);
}

/* The statements of b, as those of a nested block. */
static inline void cg_block(struct cg *g, const struct ast_block *b)
{
	g->walk->block(g, b);
}

#endif
