/* The kernel's frame-pointer capture of kstack and ustack (fpstack.h). */
#include <string.h>

#include "codegen/emit.h"
#include "codegen/fpstack.h"
#include "codegen/pidns.h"
#include "kernel/features.h"
#include "kernel/regs.h"
#include "kernel/ucaller.h"
#include "probes/provider.h"

/* Whether this program's user stacks miss the caller's frame that sonde
 * adds itself (kernel/ucaller.h): a uprobe (not a uretprobe, not USDT) on
 * an instruction the kernel's rule calls a function's entry, on a kernel
 * that does not add it. A program for many targets is one only when they
 * all agree (cg_ucaller_agree). */
static bool adds_caller(const struct cg *g)
{
	const struct probe_target *t = g->tgt;
	return t && !strcmp(t->prov->name, "uprobe") && !t->u.user.retprobe &&
	       t->binary && ucaller_entry_insn(t->binary, t->u.user.offset) &&
	       !feat_has(FEAT_UPROBE_CALLER);
}

/* The frame after the probed address is the caller's return address, at
 * [sp] as the function is entered (in the link register on arm64): read
 * it, then the kernel's frames one frame in, then put the probed address
 * first and the caller second, as a kernel that adds it would (a build-id
 * frame of the caller holds only its address, BPF_STACK_BUILD_ID_IP, as
 * the kernel's own do when it cannot find a build id). Returns the bytes
 * written, or -errno; *unread jumps away when [sp] cannot be read, to take
 * the kernel's capture as it is (the kernel leaves the caller out then
 * too). */
static ir_reg capture_with_caller(struct cg *g, const struct type *t,
				  struct cg_mem dst, uint32_t ips,
				  uint64_t flags, ir_jlist *unread)
{
	uint32_t fsz = type_stack_frame_size(t);
	uint32_t ipoff = fsz - 8; /* the address: last in a build-id frame */
	int link = regs_link_offset();
	if (link >= 0) {
		ir_reg lr = ir_reg_new(g->ir);
		ir_load(g->ir, 8, lr, ir_ctx(g->ir), (int16_t)link);
		cg_store_reg(g, 8, dst, ips + ipoff, lr);
	} else {
		ir_reg sp = ir_reg_new(g->ir);
		ir_load(g->ir, 8, sp, ir_ctx(g->ir), (int16_t)regs_sp_offset());
		ir_reg rd = cg_call(g, BPF_FUNC_probe_read_user, 3,
				    cg_mem_addr(g, dst, ips + ipoff),
				    ir_const(g->ir, 8), sp);
		*unread = ir_jmpi(g->ir, BPF_JNE, rd, 0, IR_NOLABEL);
	}
	ir_reg n = cg_call(g, BPF_FUNC_get_stack, 4, ir_ctx(g->ir),
			   cg_mem_addr(g, dst, ips + fsz),
			   ir_const(g->ir, (int64_t)fsz * (t->stack_limit - 1)),
			   ir_const(g->ir, (int64_t)flags));
	ir_reg a = cg_mem_addr(g, dst, ips), caller = ir_reg_new(g->ir);
	ir_load(g->ir, 8, caller, a, (int16_t)ipoff);
	ir_jlist none = ir_jmpi(g->ir, BPF_JSLE, n, 0, IR_NOLABEL);
	/* frame 0 = frame 1 (the probed address), word by word */
	for (uint32_t w = 0; w < fsz; w += 8) {
		ir_reg v = ir_reg_new(g->ir);
		ir_load(g->ir, 8, v, a, (int16_t)(fsz + w));
		ir_store(g->ir, 8, a, (int16_t)w, v);
	}
	if (fsz > 8) { /* status BPF_STACK_BUILD_ID_IP, no build id */
		for (uint32_t w = 0; w < ipoff; w += 8)
			ir_storei(g->ir, 8, a, (int16_t)(fsz + w), 0);
		ir_storei(g->ir, 4, a, (int16_t)fsz, BPF_STACK_BUILD_ID_IP);
	}
	ir_store(g->ir, 8, a, (int16_t)(fsz + ipoff), caller);
	ir_alui(g->ir, BPF_ADD, n, (int32_t)fsz);
	ir_jlist done = ir_ja(g->ir, IR_NOLABEL);
	/* no frame: the read address must not stay (equal stacks are
	 * equal bytes) */
	ir_jlist_patch_here(g->ir, none);
	ir_storei(g->ir, 8, a, (int16_t)ipoff, 0);
	ir_jlist_patch_here(g->ir, done);
	return n;
}

void cg_fp_stack_capture(struct cg *g, const struct type *t,
			 struct cg_mem dst, uint32_t off)
{
	bool user = t->kind == TY_USTACK;
	bool build_id = t->stack_mode == STACK_BUILD_ID;
	uint32_t ips = off + (user ? 16 : 8);
	uint64_t flags = user ? BPF_F_USER_STACK : 0;
	if (build_id) /* struct bpf_stack_build_id frames (32 bytes) */
		flags |= BPF_F_USER_BUILD_ID;
	ir_reg n = ir_reg_new(g->ir);
	ir_jlist plain = IR_NOJUMP, joined = IR_NOJUMP;
	bool with_caller = user && t->stack_limit > 1 && adds_caller(g);
	if (with_caller) {
		ir_mov(g->ir, n, capture_with_caller(g, t, dst, ips, flags,
						     &plain));
		/* (none from a link register, which is always read: the
		 * verifier refuses code that cannot be reached) */
		if (plain != IR_NOJUMP) {
			joined = ir_ja(g->ir, IR_NOLABEL);
			ir_jlist_patch_here(g->ir, plain);
		}
	}
	if (!with_caller || plain != IR_NOJUMP)
		ir_mov(g->ir, n,
		       cg_call(g, BPF_FUNC_get_stack, 4, ir_ctx(g->ir),
			       cg_mem_addr(g, dst, ips),
			       ir_const(g->ir,
					(int64_t)type_stack_frame_size(t) *
						t->stack_limit),
			       ir_const(g->ir, (int64_t)flags)));
	ir_jlist_patch_here(g->ir, joined);
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
