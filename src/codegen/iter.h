/* iter probes (iter.c). */
#ifndef SONDE_CODEGEN_ITER_H
#define SONDE_CODEGEN_ITER_H

#include "codegen/cg.h"

/* Whether base, whose field is read, is ctx in an iter probe
 * (cg_iter_checked then reads the field: a NULL pointer ends the
 * action). */
bool cg_iter_ctx_field(struct cg *g, const struct ast_expr *base);
struct val cg_iter_checked(struct cg *g, struct val v);
/* printf in an iter probe (bpf_seq_printf). */
struct val cg_iter_printf(struct cg *g, struct ast_expr *e);

#endif
