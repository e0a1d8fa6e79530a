/* What pt_regs probes read beyond the argument registers (pt_regs.c). */
#ifndef SONDE_CODEGEN_PT_REGS_H
#define SONDE_CODEGEN_PT_REGS_H

#include "codegen/cg.h"

/* USDT argument idx (e names it in errors), and sargN read from the
 * stack. */
struct val cg_usdt_arg(struct cg *g, struct ast_expr *e, uint32_t idx);
struct val cg_stack_arg(struct cg *g, struct ast_expr *e, uint32_t idx);

#endif
