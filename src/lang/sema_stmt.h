/*
 * Statements (sema_stmt.c).
 */
#ifndef SONDE_SEMA_STMT_H
#define SONDE_SEMA_STMT_H

#include "lang/ast.h"

struct sema;

void sema_check_stmt(struct sema *s, struct ast_stmt *st);
/* A block, its own scope. */
void sema_check_block(struct sema *s, struct ast_block *b);
/* A condition (if, while, a probe's predicate). */
/* A condition c, whose misuse is reported at at (a predicate's is
 * located at its '/.../', as 0.26 locates it). */
void sema_check_cond(struct sema *s, struct ast_expr *c, struct span at);
const struct type *sema_check_block_expr(struct sema *s, struct ast_expr *e);

#endif
