/*
 * Code generation of the builtin registry (lang/builtins.def): the table
 * codegen dispatches on, and the builtin variables that read a helper or
 * a constant. Functions are emitted in calls.c, context reads in
 * context.c, stacks in stacks.c.
 */
#include "codegen/cg.h"

#include "util/arena.h"

static const cg_builtin_fn emitters[BI__COUNT] = {
#define BUILTIN_VAR(id, name, ty, cg) [BI_##id] = cg,
#define BUILTIN_VARN(id, name, ty, cg) [BI_##id] = cg,
#define BUILTIN_FN(id, name, min, max, ty, cg) [BI_##id] = cg,
#include "lang/builtins.def"
#undef BUILTIN_VAR
#undef BUILTIN_VARN
#undef BUILTIN_FN
};

bool codegen_builtin_has_emitter(int id)
{
	return id >= 0 && id < BI__COUNT && emitters[id];
}

struct val cg_builtin(struct cg *g, struct ast_expr *e,
		      struct ast_expr *target)
{
	return emitters[e->builtin](g, e, target);
}

static ir_reg pid_tgid(struct cg *g)
{
	return cg_call(g, BPF_FUNC_get_current_pid_tgid, 0);
}

struct val cg_bi_pid(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	ir_reg r = pid_tgid(g);
	ir_alui(g->ir, BPF_RSH, r, 32);
	return cg_reg_val(e->type, r);
}

struct val cg_bi_tid(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	ir_reg r = pid_tgid(g);
	ir_alu32(g->ir, BPF_MOV, r, r);
	return cg_reg_val(e->type, r);
}

/* uid, and username (a uid printed by name) */
struct val cg_bi_uid(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	ir_reg r = cg_call(g, BPF_FUNC_get_current_uid_gid, 0);
	ir_alu32(g->ir, BPF_MOV, r, r);
	return cg_reg_val(e->type, r);
}

struct val cg_bi_gid(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	ir_reg r = cg_call(g, BPF_FUNC_get_current_uid_gid, 0);
	ir_alui(g->ir, BPF_RSH, r, 32);
	return cg_reg_val(e->type, r);
}

struct val cg_bi_nsecs(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	return cg_reg_val(e->type, cg_call(g, BPF_FUNC_ktime_get_ns, 0));
}

struct val cg_bi_elapsed(struct cg *g, struct ast_expr *e,
			 struct ast_expr *tg)
{
	ir_reg r = cg_call(g, BPF_FUNC_ktime_get_ns, 0);
	ir_alu(g->ir, BPF_SUB, r, ir_const(g->ir,
					   (int64_t)g->opts->start_ns));
	return cg_reg_val(e->type, r);
}

struct val cg_bi_cpu(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	return cg_reg_val(e->type,
			  cg_call(g, BPF_FUNC_get_smp_processor_id, 0));
}

struct val cg_bi_numaid(struct cg *g, struct ast_expr *e,
			struct ast_expr *tg)
{
	return cg_reg_val(e->type, cg_call(g, BPF_FUNC_get_numa_node_id, 0));
}

struct val cg_bi_rand(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	return cg_reg_val(e->type, cg_call(g, BPF_FUNC_get_prandom_u32, 0));
}

struct val cg_bi_cgroup(struct cg *g, struct ast_expr *e,
			struct ast_expr *tg)
{
	return cg_reg_val(e->type,
			  cg_call(g, BPF_FUNC_get_current_cgroup_id, 0));
}

struct val cg_bi_jiffies(struct cg *g, struct ast_expr *e,
			 struct ast_expr *tg)
{
	return cg_reg_val(e->type, cg_call(g, BPF_FUNC_jiffies64, 0));
}

struct val cg_bi_curtask(struct cg *g, struct ast_expr *e,
			 struct ast_expr *tg)
{
	return cg_reg_val(e->type, cg_call(g, BPF_FUNC_get_current_task, 0));
}

struct val cg_bi_cpid(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	return cg_reg_val(e->type, ir_const(g->ir, g->opts->cpid));
}

/* An index into the table of probe names the runtime prints. */
struct val cg_bi_probe(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	if (g->probe_reg != IR_NOREG)
		return cg_reg_val(e->type, ir_copy(g->ir, g->probe_reg));
	return cg_reg_val(e->type, ir_const(g->ir, (int64_t)g->probe_index));
}

/* Before 6.2 (strscpy, not strscpy_pad) the helper leaves the bytes after
 * the name as they were, and a comm is a map key compared on all 16 bytes:
 * the slot is zeroed first (two stores) on every kernel. */
struct val cg_bi_comm(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	ir_slot s = ir_slot_new(g->ir, 16, 8);
	cg_zero(g, s, 0, 16);
	ir_reg len = ir_const(g->ir, 16);
	ir_reg p = ir_reg_new(g->ir);
	ir_slot_addr(g->ir, p, s, 0);
	cg_call(g, BPF_FUNC_get_current_comm, 2, p, len);
	struct val v = { .kind = V_MEM, .type = e->type, .slot = s };
	return v;
}

/* Compile-time builtins (uaddr, kaddr, cgroupid) become literals in sema;
 * one that reaches codegen is a bug, reported rather than guessed at. */
struct val cg_bi_folded(struct cg *g, struct ast_expr *e,
			struct ast_expr *tg)
{
	cg_error(g, e->span, "internal error: %s() was not resolved at "
		 "compile time", builtin_info[e->builtin].name);
	return cg_reg_val(&type_u64, ir_const(g->ir, 0));
}
