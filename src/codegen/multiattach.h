/* One program for many targets, attached at once (multiattach.c). */
#ifndef SONDE_CODEGEN_MULTIATTACH_H
#define SONDE_CODEGEN_MULTIATTACH_H

#include "codegen/cg.h"

/* A probe with at least this many targets of a provider that attaches
 * many at once (or only targets of wildcards) is one program (see
 * multiattach.c). */
#define CG_MULTI_MIN 32

/* Whether probe p's targets sp are one program attached at once; its
 * start (g->probe_reg from the attach cookie); the cookies, one per
 * target. */
bool cg_multi_plan(const struct ast_probe *p, const struct sema_probe *sp);
void cg_multi_prologue(struct cg *g, const struct ast_probe *p);
const uint64_t *cg_multi_cookies(struct cg *g, const struct ast_probe *p,
				 const struct sema_probe *sp);
/* Whether probe p (body or predicate) uses any of builtins ids[0..n). */
bool cg_probe_uses_any(const struct ast_probe *p, const int *ids, size_t n);

#endif
