/*
 * Many targets of one provider in one program, attached at once: the
 * provider's attach_multi makes one kernel link for all of them (for
 * uprobes, a uprobe_multi link: 2,000 uprobes detach in one grace period
 * instead of 100 s of one each), and the program learns which target fired
 * from its attach cookie, which holds the target's index in the names of
 * `probe`. Only where one program serves them all: a body that reads
 * nothing typed per target (args, func, a PIE's uaddr) and no kernel stack
 * (which starts in the link's handler, not the perf event's).
 */
#include "codegen/cg.h"
#include "lang/builtins.h"
#include "util/arena.h"

bool cg_probe_uses_any(const struct ast_probe *p, const int *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ast_probe_uses_builtin(p, ids[i]))
			return true;
	return false;
}

bool cg_multi_plan(const struct ast_probe *p, const struct sema_probe *sp)
{
	static const int ids[] = { BI_ARGS, BI_FUNC, BI_KSTACK_VAR, BI_KSTACK,
				   BI_UADDR };
	if (sp->ntargets < CG_MULTI_MIN || !sp->targets[0].prov->attach_multi ||
	    !sp->targets[0].prov->multi_ok ||
	    cg_probe_uses_any(p, ids, sizeof(ids) / sizeof(*ids)))
		return false;
	return sp->targets[0].prov->multi_ok(sp->targets, sp->ntargets);
}

void cg_multi_prologue(struct cg *g)
{
	g->probe_reg = cg_call(g, BPF_FUNC_get_attach_cookie, 1, ir_ctx(g->ir));
}

const uint64_t *cg_multi_cookies(struct cg *g, const struct sema_probe *sp)
{
	uint64_t *c = arena_alloc(g->arena, sp->ntargets * sizeof(*c));
	for (uint32_t k = 0; k < sp->ntargets; k++)
		c[k] = cg_name_index(g, sp->targets[k].name);
	return c;
}
