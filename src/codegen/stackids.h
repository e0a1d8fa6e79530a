/*
 * Map keys holding stacks on kernels whose hash keys stop at 512 bytes
 * (stackids.c; the layout is model/stackids.h's). Elsewhere nothing here
 * runs: keys hold their stacks whole.
 */
#ifndef SONDE_CODEGEN_STACKIDS_H
#define SONDE_CODEGEN_STACKIDS_H

#include "codegen/cg.h"

struct ast_program;

/* After the user maps are declared and located: marks those whose keys
 * must hold stack ids on this kernel (cmap.stack_ids), makes their stack
 * tables, and refuses, located, what such a map cannot do. */
void cg_stackids_plan(struct cg *g, struct ast_program *prog);
/* Key k of map m (stack_ids), built whole in the scratch, turned in place
 * into the stored key: each stack's id instead of its bytes, the stack
 * put in its table when new. */
void cg_stackids_key(struct cg *g, const struct cmap *m, struct cg_mem k);

#endif
