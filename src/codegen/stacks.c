/*
 * kstack and ustack: bpf_get_stackid() into a BPF_MAP_TYPE_STACK_TRACE map,
 * one per frame limit (runtime/stacks.h names and sizes them), and the id
 * (kstack: u64) or {id, pid} (ustack) as the value, symbolised in user
 * space when printed. A failed capture other than -EFAULT (no stack of
 * that kind, e.g. a kernel stack sampled in user mode) is a lost sample:
 * a hash collision (-EEXIST) or a full map (-ENOMEM). It bumps a per-CPU
 * counter the runtime reports at exit.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cg.h"
#include "runtime/stacks.h"
#include "util/arena.h"

static int32_t find_or_add(struct cg *g, const char *name,
			   enum bpf_map_type type, uint32_t ks, uint32_t vs,
			   uint32_t n)
{
	for (size_t i = 0; i < g->maps.len; i++)
		if (!strcmp(g->maps.data[i].name, name))
			return (int32_t)i;
	return cg_add_map(g, arena_strndup(g->arena, name, strlen(name)),
			  type, ks, vs, n);
}

struct val cg_stack(struct cg *g, const struct type *t)
{
	bool user = t->kind == TY_USTACK;
	char name[32];
	stacks_map_name(name, sizeof(name), t->stack_limit);
	int32_t mi = find_or_add(g, name, BPF_MAP_TYPE_STACK_TRACE, 4,
				 8 * t->stack_limit,
				 stacks_map_entries(t->stack_limit));
	int32_t lost = find_or_add(g, STACKS_LOST_MAP, BPF_MAP_TYPE_ARRAY, 4,
				   8, 1);
	ir_reg map = ir_reg_new(g->ir);
	ir_ld_map(g->ir, map, (uint32_t)mi);
	ir_reg id = cg_call(g, BPF_FUNC_get_stackid, 3, ir_ctx(g->ir), map,
			    ir_const(g->ir, user ? BPF_F_USER_STACK : 0));
	ir_jlist ok = ir_jmpi(g->ir, BPF_JSGE, id, 0, IR_NOLABEL);
	ir_jlist_concat(g->ir, &ok,
			ir_jmpi(g->ir, BPF_JEQ, id, -EFAULT, IR_NOLABEL));
	cg_counter_inc(g, lost);
	ir_jlist_patch_here(g->ir, ok);
	if (!user) {
		struct val v = { .kind = V_REG, .type = t, .reg = id };
		return v;
	}
	return cg_usym(g, t, id);
}

/* {value, pid}: ustack and usym values carry the pid that resolves them. */
struct val cg_usym(struct cg *g, const struct type *t, ir_reg value)
{
	ir_slot s = ir_slot_new(g->ir, 16, 8);
	ir_store_slot(g->ir, 8, s, 0, value);
	ir_reg pid = cg_call(g, BPF_FUNC_get_current_pid_tgid, 0);
	ir_alui(g->ir, BPF_RSH, pid, 32);
	ir_store_slot(g->ir, 8, s, 8, pid);
	struct val v = { .kind = V_MEM, .type = t, .slot = s };
	return v;
}
