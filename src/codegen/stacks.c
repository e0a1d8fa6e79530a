/*
 * kstack and ustack: the frames themselves are the value (lang/types.h
 * gives the layout), captured with bpf_get_stack() straight into the key,
 * value or record that holds them. Equal stacks are equal bytes (the
 * helper zeroes what follows the last frame), so a map keyed by stacks
 * deduplicates them and nothing is lost to the hash collisions of a
 * stack-trace map. Keys and records too big for the 512-byte BPF stack
 * are built in the per-CPU scratch (cg_scratch).
 *
 * A failed capture (no stack of that kind, e.g. a kernel stack sampled in
 * user mode: -EFAULT) leaves zero frames, which print as nothing.
 */
#include "codegen/emit.h"
#include "codegen/pidns.h"
#include "codegen/stacks.h"
#include "codegen/emitters.h"

/* Keys and records up to this size stay on the BPF stack: kstack(8) as a
 * key costs no scratch lookup. */
#define STACK_BYTES_MAX 128

bool cg_stack_in_scratch(const struct type *t)
{
	static const enum type_kind stacks[] = { TY_KSTACK, TY_USTACK,
						 TY_NONE };
	return t->size > STACK_BYTES_MAX && type_holds(t, stacks);
}

/* kstack, ustack, kstack(...), ustack(...): captured where stored. */
struct val cg_bi_stack(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	struct val v = { .kind = V_STACK, .type = e->type };
	return v;
}

void cg_stack_capture(struct cg *g, const struct type *t, struct cg_mem dst,
		      uint32_t off)
{
	bool user = t->kind == TY_USTACK;
	bool build_id = t->stack_mode == STACK_BUILD_ID;
	uint32_t ips = off + (user ? 16 : 8);
	uint64_t flags = user ? BPF_F_USER_STACK : 0;
	if (build_id) /* struct bpf_stack_build_id frames (32 bytes) */
		flags |= BPF_F_USER_BUILD_ID;
	ir_reg n = cg_call(g, BPF_FUNC_get_stack, 4, ir_ctx(g->ir),
			   cg_mem_addr(g, dst, ips),
			   ir_const(g->ir, (int64_t)type_stack_frame_size(t) *
						   t->stack_limit),
			   ir_const(g->ir, (int64_t)flags));
	/* Bytes written, or -errno with the buffer zeroed: zero frames. */
	ir_jlist ok = ir_jmpi(g->ir, BPF_JSGE, n, 0, IR_NOLABEL);
	ir_movi(g->ir, n, 0);
	ir_jlist_patch_here(g->ir, ok);
	ir_alui(g->ir, BPF_RSH, n, build_id ? 5 : 3);
	cg_store_reg(g, 8, dst, off, n);
	if (!user)
		return;
	/* the pid as sonde's /proc names it, whose maps resolve them */
	cg_store_reg(g, 8, dst, off + 8, cg_current_pid(g));
}
