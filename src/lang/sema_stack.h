/*
 * Typing rules of the stacks (sema_stack.c): kstack, ustack and
 * dw_ustack, as builtin variables and as calls with a mode and a limit.
 */
#ifndef SONDE_SEMA_STACK_H
#define SONDE_SEMA_STACK_H

#include "lang/ast.h"

struct sema;

/* kstack(mode, limit), ustack(...), dw_ustack(...): any argument
 * optional. */
const struct type *sema_ty_stack(struct sema *s, struct ast_expr *e,
				 struct ast_expr *target);
/* kstack, ustack, dw_ustack as variables: the default mode, 127 frames. */
const struct type *sema_ty_stack_var(struct sema *s, struct ast_expr *e,
				     struct ast_expr *target);

#endif
