/*
 * Emitters of the builtin variables that read a helper or a constant, and
 * usym(). Functions are emitted in calls.c, context reads in context.c,
 * stacks in stacks.c; registry.c dispatches to them all.
 */
#include <string.h>
#include <time.h>

#include "codegen/emit.h"
#include "codegen/emitters.h"
#include "codegen/pidns.h"
#include "codegen/values.h"
#include "codegen/walk.h"

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* CLOCK_TAI - CLOCK_BOOTTIME, from the tightest of five TAI reads around
 * a boot read. */
static int64_t tai_minus_boot(void)
{
	int64_t best = 0, best_gap = INT64_MAX;
	for (int i = 0; i < 5; i++) {
		struct timespec a, b, boot;
		if (clock_gettime(CLOCK_TAI, &a) ||
		    clock_gettime(CLOCK_BOOTTIME, &boot) ||
		    clock_gettime(CLOCK_TAI, &b))
			continue;
		int64_t gap = ts_ns(&b) - ts_ns(&a);
		if (gap < best_gap) {
			best_gap = gap;
			best = ts_ns(&a) + gap / 2 - ts_ns(&boot);
		}
	}
	return best;
}

static ir_reg pid_tgid(struct cg *g)
{
	return cg_call(g, BPF_FUNC_get_current_pid_tgid, 0);
}

/* The argument of pid(MODE), tid(MODE), nsecs(MODE), or NULL. */
static const char *mode_of(const struct ast_expr *e)
{
	return e->kind == E_CALL && e->u.call.args.n ?
		e->u.call.args.items[0]->u.name : NULL;
}


struct val cg_bi_pid(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	ir_reg r;
	if (cg_ns_pid_tid(g, mode_of(e), false, &r))
		return cg_reg_val(e->type, r);
	r = pid_tgid(g);
	ir_alui(g->ir, BPF_RSH, r, 32);
	return cg_reg_val(e->type, r);
}

struct val cg_bi_tid(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	ir_reg r;
	if (cg_ns_pid_tid(g, mode_of(e), true, &r))
		return cg_reg_val(e->type, r);
	r = pid_tgid(g);
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

/* nsecs, nsecs(MODE): the boot clock unless MODE says otherwise, as in
 * bpftrace 0.26 (strftime() reads its timestamps as boot-clock ones);
 * sw_tai is the boot clock plus TAI's distance from it, measured here
 * (0.26's "vdso sandwich"). */
struct val cg_bi_nsecs(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	const char *mode = mode_of(e);
	int fn = BPF_FUNC_ktime_get_boot_ns;
	if (mode && !strcmp(mode, "monotonic"))
		fn = BPF_FUNC_ktime_get_ns;
	else if (mode && !strcmp(mode, "tai"))
		fn = BPF_FUNC_ktime_get_tai_ns;
	if (mode && !strcmp(mode, "sw_tai")) {
		ir_reg r = cg_call(g, BPF_FUNC_ktime_get_boot_ns, 0);
		ir_alu(g->ir, BPF_ADD, r, ir_const(g->ir, tai_minus_boot()));
		return cg_reg_val(e->type, r);
	}
	return cg_reg_val(e->type, cg_call(g, fn, 0));
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

/* __probe_name: this program's target's name (never a multi-attach
 * program, whose targets share it: multiattach.c plans none) */
struct val cg_bi_probe_name(struct cg *g, struct ast_expr *e,
			    struct ast_expr *tg)
{
	const char *name = g->out->probe_names[g->probe_index];
	return cg_string_const(g, e->span, e->type, name,
			       (uint32_t)strlen(name));
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

/* usym(addr) is {addr, pid}: the pid whose mappings resolve it. */
struct val cg_bi_usym(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	const struct type *t = e->type;
	ir_reg value = cg_int(g, e->u.call.args.items[0]);
	ir_slot s = ir_slot_new(g->ir, 16, 8);
	ir_store_slot(g->ir, 8, s, 0, value);
	ir_store_slot(g->ir, 8, s, 8, cg_current_pid(g));
	struct val v = { .kind = V_MEM, .type = t, .slot = s };
	return v;
}
