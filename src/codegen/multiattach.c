/*
 * Many targets of one provider in one program, attached at once (32 or
 * more, or every target of a probe from wildcards, as bpftrace 0.26
 * attaches a wildcard's uprobes with one link): the
 * provider's attach_multi makes one kernel link for all of them (for
 * uprobes, a uprobe_multi link: 2,000 uprobes detach in one grace period
 * instead of 100 s of one each), and the program learns which target fired
 * from its attach cookie: the target's index in the names of `probe` in
 * its low 32 bits and, when the body reads `func`, its function's index in
 * the high 32. Only where one program serves them all: a body that reads
 * nothing typed per target (args, a PIE's uaddr), no kernel stack (which
 * starts in the link's handler, not the perf event's), and `func` only
 * where every target names its function.
 */
#include "codegen/emit.h"
#include "codegen/multiattach.h"
#include "codegen/stacks.h"
#include "codegen/program.h"
#include "lang/builtins.h"
#include "util/arena.h"

bool cg_probe_uses_any(const struct ast_probe *p, const int *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ast_probe_uses_builtin(p, ids[i]))
			return true;
	return false;
}

static bool uses_func(const struct ast_probe *p)
{
	static const int ids[] = { BI_FUNC };
	return cg_probe_uses_any(p, ids, 1);
}

/* Whether every target of sp came from a wildcard: bpftrace 0.26 attaches
 * a wildcard's uprobes with one uprobe_multi link however few match. */
static bool all_wild(const struct sema_probe *sp)
{
	for (uint32_t k = 0; k < sp->ntargets; k++)
		if (!sp->targets[k].wild)
			return false;
	return sp->ntargets > 0;
}

bool cg_multi_plan(const struct ast_probe *p, const struct sema_probe *sp)
{
	/* ... and the probe's name as a string, which each program holds */
	static const int ids[] = { BI_ARGS, BI_KSTACK_VAR, BI_KSTACK, BI_UADDR,
				   BI_PROBE_NAME };
	if ((sp->ntargets < CG_MULTI_MIN && !all_wild(sp)) ||
	    !sp->targets[0].prov->attach_multi ||
	    !sp->targets[0].prov->multi_ok ||
	    cg_probe_uses_any(p, ids, sizeof(ids) / sizeof(*ids)))
		return false;
	if (uses_func(p))
		for (uint32_t k = 0; k < sp->ntargets; k++)
			if (sp->targets[k].layout != CTXL_PT_REGS ||
			    !sp->targets[k].func)
				return false;
	static const int ustack[] = { BI_USTACK_VAR, BI_USTACK };
	if (cg_probe_uses_any(p, ustack, 2) &&
	    !cg_ucaller_agree(sp->targets, sp->ntargets))
		return false;
	return sp->targets[0].prov->multi_ok(sp->targets, sp->ntargets);
}

void cg_multi_prologue(struct cg *g, const struct ast_probe *p)
{
	ir_reg cookie = cg_call(g, BPF_FUNC_get_attach_cookie, 1,
				ir_ctx(g->ir));
	if (!uses_func(p)) {
		g->probe_reg = cookie;
		return;
	}
	g->func_reg = ir_copy(g->ir, cookie);
	ir_alui(g->ir, BPF_RSH, g->func_reg, 32);
	g->probe_reg = ir_reg_new(g->ir);
	ir_alu32(g->ir, BPF_MOV, g->probe_reg, cookie); /* the low half */
}

const uint64_t *cg_multi_cookies(struct cg *g, const struct ast_probe *p,
				 const struct sema_probe *sp)
{
	bool func = uses_func(p);
	uint64_t *c = arena_alloc(g->arena, sp->ntargets * sizeof(*c));
	for (uint32_t k = 0; k < sp->ntargets; k++) {
		c[k] = cg_name_index(g, probe_target_label(&sp->targets[k]));
		if (func)
			c[k] |= (uint64_t)cg_name_index(g, sp->targets[k].func)
				<< 32;
	}
	return c;
}
