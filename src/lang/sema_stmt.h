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
void sema_check_cond(struct sema *s, struct ast_expr *c);
const struct type *sema_check_block_expr(struct sema *s, struct ast_expr *e);

#endif
