/* The script's variables: where each lives (a register, or memory: a
 * slot or the scratch), made before the statements that use it. */
#ifndef SONDE_CODEGEN_VARS_H
#define SONDE_CODEGEN_VARS_H

#include "codegen/cg.h"

/* Whether a variable of type t lives in a register. */
bool cg_in_reg(const struct type *t);
struct cg_var *cg_find_var(struct cg *g, int32_t id);
/* Storage for the variables b declares (zeroed), b a nested block... */
void cg_declare_vars(struct cg *g, const struct ast_block *b);
/* ...or a probe's own body (what it assigns first needs no zeroing), and
 * its predicate's. */
void cg_declare_probe_vars(struct cg *g, const struct ast_probe *p);
/* The value variable v holds. */
struct val cg_var_val(struct cg *g, const struct cg_var *v);

#endif
