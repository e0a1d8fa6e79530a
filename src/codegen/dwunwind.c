/*
 * The DWARF unwinder in the kernel (dwunwind.h, model/unwind.h).
 *
 * Per frame: the instruction pointer is stored, its mapping found by a
 * binary search of the process's mappings, its row by a binary search of
 * the mapping's binary's rows, and the row's rule gives the caller's SP
 * (the CFA), IP (at CFA-8) and BP. Anything the tables do not cover ends
 * the walk with UW_FLAG_TRUNCATED: no frame is ever guessed.
 *
 * The frame loop is a bounded loop (no bpf_loop on 5.10): the verifier
 * follows it stack_limit times with the frame counter exact. Inside an
 * iteration only the counter is exact; the searches' bounds come from the
 * maps, so the verifier never tracks them precisely and the two arms of
 * each search step prune into one state at the next step. The pointer into
 * the mappings array dies right after its loads, for the same reason.
 */
#include <stddef.h>
#include <string.h>

#include "codegen/dwunwind.h"
#include "codegen/emit.h"
#include "codegen/pidns.h"
#include "codegen/program.h"
#include "codegen/fpstack.h"
#include "kernel/features.h"
#include "kernel/regs.h"
#include "model/limits.h"
#include "model/unwind.h"
#include "probes/provider.h"

/* bpftrace 0.26's words, for dw_ustack in a process with no tables. */
#define NO_TABLES_WARNING "No DWARF unwind data available for this process"

#define MAP_OFF(field) \
	((int16_t)(offsetof(struct uw_proc, maps) + \
		   offsetof(struct uw_mapping, field)))

/* The internal map name, declared once for all the program's probes. */
static int32_t unwind_map(struct cg *g, const char *name, enum bpf_map_type t,
			  uint32_t vs, uint32_t n, uint32_t flags)
{
	for (size_t i = 0; i < g->maps.len; i++)
		if (!strcmp(g->maps.data[i].name, name))
			return (int32_t)i;
	int32_t m = cg_add_map(g, name, t, 4, vs, n);
	g->maps.data[m].flags = flags;
	return m;
}

/* Where the walk ends: each end sets flags (UW_FLAG_TRUNCATED or 0) and
 * jumps to out. An end is written where its condition is, as the
 * fall-through of a jump over it: the verifier follows the fall-through
 * first and keeps the jump's other arm pending, so the short way out is
 * done with at once and the pending arms never pile up past its 8,192
 * (BPF_COMPLEXITY_LIMIT_JMP_SEQ) over a stack of frames. */
struct stop {
	ir_reg flags;
	ir_jlist out;
};

static void stop_here(struct cg *g, struct stop *s, uint64_t flags)
{
	ir_movi(g->ir, s->flags, (int64_t)flags);
	ir_jlist_concat(g->ir, &s->out, ir_ja(g->ir, IR_NOLABEL));
}

/* Stops, truncated, when a cond b (b: IR_NOREG compares with imm). */
static void stop_if_flags(struct cg *g, struct stop *s, int cond, ir_reg a,
			  ir_reg b, int32_t imm, uint64_t flags)
{
	int neg = ir_cond_negate(cond);
	ir_jlist go = b != IR_NOREG ? ir_jmp(g->ir, neg, a, b, IR_NOLABEL) :
				      ir_jmpi(g->ir, neg, a, imm, IR_NOLABEL);
	stop_here(g, s, flags);
	ir_jlist_patch_here(g->ir, go);
}

static void stop_if(struct cg *g, struct stop *s, int cond, ir_reg a,
		    ir_reg b, int32_t imm)
{
	stop_if_flags(g, s, cond, a, b, imm, UW_FLAG_TRUNCATED);
}

static void stop_now(struct cg *g, struct stop *s)
{
	stop_here(g, s, UW_FLAG_TRUNCATED);
}

/* A helper call whose failure is an answer, not an error (-k reports
 * none): a read past the stack's end, a lookup of a process with no
 * tables. */
static ir_reg call(struct cg *g, int fn, int nargs, ir_reg a, ir_reg b,
		   ir_reg c)
{
	ir_reg args[3] = { a, b, c }, d = ir_reg_new(g->ir);
	ir_call(g->ir, d, fn, args, nargs);
	return d;
}

static ir_reg lookup(struct cg *g, int32_t map, ir_slot key)
{
	ir_reg m = ir_reg_new(g->ir), kp = ir_reg_new(g->ir);
	ir_ld_map(g->ir, m, (uint32_t)map);
	ir_slot_addr(g->ir, kp, key, 0);
	return call(g, BPF_FUNC_map_lookup_elem, 2, m, kp, IR_NOREG);
}

/* The 8 bytes at addr (user space or kernel) into *d through the word
 * slot buf; jumps to fail when they cannot be read. */
static void read_word(struct cg *g, int fn, ir_reg d, ir_reg addr,
		      ir_slot buf, struct stop *fail)
{
	ir_reg p = ir_reg_new(g->ir);
	ir_slot_addr(g->ir, p, buf, 0);
	ir_reg r = call(g, fn, 3, p, ir_const(g->ir, 8), addr);
	stop_if(g, fail, BPF_JNE, r, IR_NOREG, 0);
	ir_load_slot(g->ir, 8, d, buf, 0);
}

static void load_ctx_regs(struct cg *g, ir_reg ip, ir_reg sp, ir_reg bp)
{
	ir_load(g->ir, 8, ip, ir_ctx(g->ir), (int16_t)regs_pc_offset());
	ir_load(g->ir, 8, sp, ir_ctx(g->ir), (int16_t)regs_sp_offset());
	ir_load(g->ir, 8, bp, ir_ctx(g->ir), (int16_t)regs_offset("bp"));
}

/* The user registers the task saved as it entered the kernel, or a jump
 * to fail where the kernel cannot give them (before bpf_task_pt_regs,
 * 5.15): no frame then rather than a wrong one. */
static void load_task_regs(struct cg *g, ir_reg ip, ir_reg sp, ir_reg bp,
			   ir_slot buf, struct stop *fail)
{
	if (!feat_has(FEAT_TASK_PT_REGS) || !feat_has(FEAT_TASK_BTF)) {
		stop_now(g, fail);
		return;
	}
	ir_reg task = call(g, BPF_FUNC_get_current_task_btf, 0, IR_NOREG,
			   IR_NOREG, IR_NOREG);
	ir_reg regs = call(g, BPF_FUNC_task_pt_regs, 1, task, IR_NOREG,
			   IR_NOREG);
	static const char *const names[3] = { "ip", "sp", "bp" };
	ir_reg to[3] = { ip, sp, bp };
	for (int i = 0; i < 3; i++) {
		ir_reg a = ir_copy(g->ir, regs);
		ir_alui(g->ir, BPF_ADD, a, regs_offset(names[i]));
		read_word(g, BPF_FUNC_probe_read_kernel, to[i], a, buf, fail);
	}
}

/* The walk's starting registers. A uprobe's context is the user
 * registers; a perf event's is the registers where the sample hit, the
 * user's only when it hit user mode (ring 3 in cs); any other probe runs
 * in the kernel, where the task's saved registers are the user's. */
static void start_regs(struct cg *g, ir_reg ip, ir_reg sp, ir_reg bp,
		       ir_slot buf, struct stop *fail)
{
	const struct probe_target *t = g->tgt;
	if (t && t->layout == CTXL_PT_REGS && (t->features & CTX_USER)) {
		load_ctx_regs(g, ip, sp, bp);
		return;
	}
	if (t && t->layout == CTXL_PERF) {
		ir_reg cs = ir_reg_new(g->ir);
		ir_load(g->ir, 8, cs, ir_ctx(g->ir), (int16_t)regs_offset("cs"));
		ir_alui(g->ir, BPF_AND, cs, 3);
		ir_jlist kernel = ir_jmpi(g->ir, BPF_JNE, cs, 3, IR_NOLABEL);
		load_ctx_regs(g, ip, sp, bp);
		ir_jlist done = ir_ja(g->ir, IR_NOLABEL);
		ir_jlist_patch_here(g->ir, kernel);
		load_task_regs(g, ip, sp, bp, buf, fail);
		ir_jlist_patch_here(g->ir, done);
		return;
	}
	load_task_regs(g, ip, sp, bp, buf, fail);
}

/* lo = the last index in [lo, hi) whose key is <= x, in steps halvings
 * (the caller checked the key at lo; a step where hi is lo + 1 keeps
 * lo). key(mid) loads mid's key into a register, or jumps to fail. Keys
 * and x are below 2^63 (user addresses, row addresses), so the sign of
 * x - key says which half to keep, and the step has no branch: every
 * branch would be one more state the verifier keeps pending per frame. */
typedef ir_reg (*key_fn)(struct cg *g, const void *arg, ir_reg mid,
			 struct stop *fail);

static void search(struct cg *g, ir_reg lo, ir_reg hi, ir_reg x, int steps,
		   key_fn key, const void *arg, struct stop *fail)
{
	struct ir *ir = g->ir;
	for (int s = 0; s < steps; s++) {
		ir_reg mid = ir_copy(ir, lo);
		ir_alu(ir, BPF_ADD, mid, hi);
		ir_alui(ir, BPF_RSH, mid, 1);
		ir_reg above = ir_copy(ir, x); /* 1: key > x, keep [lo, mid) */
		ir_alu(ir, BPF_SUB, above, key(g, arg, mid, fail));
		ir_alui(ir, BPF_RSH, above, 63);
		ir_reg keep_hi = ir_copy(ir, above), keep_lo = ir_copy(ir, above);
		ir_alui(ir, BPF_SUB, keep_hi, 1);   /* all ones: key <= x */
		ir_neg(ir, keep_lo);                /* all ones: key > x */
		ir_reg t = ir_copy(ir, lo);         /* lo = key <= x ? mid : lo */
		ir_alu(ir, BPF_XOR, t, mid);
		ir_alu(ir, BPF_AND, t, keep_hi);
		ir_alu(ir, BPF_XOR, lo, t);
		ir_reg u = ir_copy(ir, hi);         /* hi = key > x ? mid : hi */
		ir_alu(ir, BPF_XOR, u, mid);
		ir_alu(ir, BPF_AND, u, keep_lo);
		ir_alu(ir, BPF_XOR, hi, u);
	}
}

/* A pointer to mapping idx of proc (idx below UW_MAPS_MAX, as the
 * verifier sees it). */
static ir_reg mapping_ptr(struct cg *g, ir_reg proc, ir_reg idx)
{
	ir_reg p = ir_copy(g->ir, idx);
	ir_alui(g->ir, BPF_AND, p, UW_MAPS_MAX - 1);
	ir_alui(g->ir, BPF_LSH, p, 5); /* sizeof(struct uw_mapping) */
	ir_alu(g->ir, BPF_ADD, p, proc);
	return p;
}

static ir_reg mapping_start(struct cg *g, const void *arg, ir_reg mid,
			    struct stop *fail)
{
	ir_reg start = ir_reg_new(g->ir);
	ir_load(g->ir, 8, start, mapping_ptr(g, *(const ir_reg *)arg, mid),
		MAP_OFF(start));
	return start;
}

struct rows_arg {
	int32_t map;
	ir_reg first;
	ir_slot key;
};

/* Row first+idx of .uw_rows, or a jump to fail (out of the array). */
static ir_reg row_ptr(struct cg *g, const struct rows_arg *r, ir_reg idx,
		      struct stop *fail)
{
	ir_reg k = ir_copy(g->ir, idx);
	ir_alu(g->ir, BPF_ADD, k, r->first);
	ir_store_slot(g->ir, 4, r->key, 0, k);
	ir_reg p = lookup(g, r->map, r->key);
	stop_if(g, fail, BPF_JEQ, p, IR_NOREG, 0);
	return p;
}

static ir_reg row_addr(struct cg *g, const void *arg, ir_reg mid,
		       struct stop *fail)
{
	ir_reg a = ir_reg_new(g->ir);
	ir_load(g->ir, 4, a, row_ptr(g, arg, mid, fail),
		(int16_t)offsetof(struct uw_row, addr));
	return a;
}

/* The walk, for a process with tables (proc: its struct uw_proc). Stores
 * the frames from fp on and leaves their number in n; ends through
 * trunc (struct stop), truncated where the walk cannot go on. */
static void walk(struct cg *g, const struct type *t, ir_reg proc, ir_reg fp,
		 ir_reg n, struct stop *trunc)
{
	struct ir *ir = g->ir;
	ir_slot buf = ir_slot_new(ir, 8, 8);
	struct rows_arg rows = {
		.map = unwind_map(g, UW_ROWS_MAP, BPF_MAP_TYPE_ARRAY,
				  sizeof(struct uw_row), UW_ROWS_MAX,
				  BPF_F_MMAPABLE),
		.first = ir_reg_new(ir),
		.key = ir_slot_new(ir, 4, 4),
	};
	ir_reg ip = ir_reg_new(ir), sp = ir_reg_new(ir), bp = ir_reg_new(ir);
	start_regs(g, ip, sp, bp, buf, trunc);

	ir_reg nmaps = ir_reg_new(ir);
	ir_load(ir, 4, nmaps, proc, (int16_t)offsetof(struct uw_proc, nmaps));
	/* more than the array holds is no table sonde wrote (clamping it
	 * would give the verifier an exact count to follow apart) */
	stop_if(g, trunc, BPF_JGT, nmaps, IR_NOREG, UW_MAPS_MAX);
	/* a return address points after its call, maybe past the calling
	 * function's end: look up the call instruction's row (not the
	 * first frame's, which is where the probe hit) */
	ir_reg adj = ir_const(ir, 0);
	/* The loop's bound is counted apart from n: the verifier holds a
	 * counter compared with a constant exactly, and would follow what
	 * comes after the walk once for each value it has where the walk
	 * stops (n is only stored, so its states there prune into one). */
	ir_reg left = ir_const(ir, (int64_t)t->stack_limit);

	ir_label head = ir_label_here(ir);
	ir_store(ir, 8, fp, 0, ip);
	ir_alui(ir, BPF_ADD, fp, 8);
	ir_alui(ir, BPF_ADD, n, 1);

	/* the mapping: the last one starting at or below ip */
	stop_if(g, trunc, BPF_JEQ, nmaps, IR_NOREG, 0);
	ir_reg first = ir_reg_new(ir);
	ir_load(ir, 8, first, proc, MAP_OFF(start));
	stop_if(g, trunc, BPF_JGT, first, ip, 0);
	ir_reg lo = ir_const(ir, 0), hi = ir_copy(ir, nmaps);
	search(g, lo, hi, ip, UW_MAP_SEARCH_STEPS, mapping_start, &proc,
	       trunc);
	ir_reg m = mapping_ptr(g, proc, lo);
	ir_reg end = ir_reg_new(ir), vaddr = ir_reg_new(ir),
	       count = ir_reg_new(ir);
	/* [start, end) holds ip (the search's sign test assumed user
	 * addresses: an ip that is none finds no mapping) */
	ir_load(ir, 8, end, m, MAP_OFF(start));
	stop_if(g, trunc, BPF_JGT, end, ip, 0);
	ir_load(ir, 8, end, m, MAP_OFF(end));
	stop_if(g, trunc, BPF_JGE, ip, end, 0);
	ir_load(ir, 4, rows.first, m, MAP_OFF(row_first));
	ir_load(ir, 4, count, m, MAP_OFF(row_count));
	ir_load(ir, 8, vaddr, m, MAP_OFF(bias));
	ir_reg v = ir_copy(ir, ip);
	ir_alu(ir, BPF_SUB, v, vaddr);
	ir_alu(ir, BPF_SUB, v, adj);
	/* no rows (a binary without unwind data), more than one search
	 * finds, or an address no row can hold */
	stop_if(g, trunc, BPF_JEQ, count, IR_NOREG, 0);
	stop_if(g, trunc, BPF_JGT, count, ir_const(ir, UW_ROWS_MAX), 0);
	stop_if(g, trunc, BPF_JGT, v, ir_const(ir, UINT32_MAX), 0);

	/* the row: the last one at or below the address */
	ir_reg lo2 = ir_const(ir, 0);
	ir_reg a0 = row_addr(g, &rows, lo2, trunc);
	stop_if(g, trunc, BPF_JGT, a0, v, 0);
	search(g, lo2, count, v, UW_ROW_SEARCH_STEPS, row_addr, &rows, trunc);
	ir_reg row = row_ptr(g, &rows, lo2, trunc);
	ir_reg rule = ir_reg_new(ir), cfa = ir_reg_new(ir),
	       off = ir_reg_new(ir);
	ir_load(ir, 1, rule, row, (int16_t)offsetof(struct uw_row, rule));
	ir_load(ir, 2, off, row, (int16_t)offsetof(struct uw_row, cfa_off));
	ir_reg kind = ir_copy(ir, rule);
	ir_alui(ir, BPF_AND, kind, 15);
	/* the outermost frame: the stack is complete */
	stop_if_flags(g, trunc, BPF_JEQ, kind, IR_NOREG, UW_END, 0);

	/* UW_GAP, UW_STOP and anything else: rules the walker does not
	 * follow */
	ir_reg k2 = ir_copy(ir, kind);
	ir_alui(ir, BPF_SUB, k2, UW_CFA_SP);
	stop_if(g, trunc, BPF_JGT, k2, IR_NOREG, UW_CFA_PLT - UW_CFA_SP);
	/* The CFA without a branch (each arm would be walked apart through
	 * the rest of the stack): base = BP for UW_CFA_BP, else SP; the
	 * offset for UW_CFA_PLT is 8, + 8 more once past the entry's push
	 * ((IP & 15) >= 11). */
	ir_reg mask = ir_copy(ir, kind); /* all ones: UW_CFA_BP (3) */
	ir_alui(ir, BPF_AND, mask, 1);
	ir_neg(ir, mask);
	ir_reg base = ir_copy(ir, sp);
	ir_alu(ir, BPF_XOR, base, bp);
	ir_alu(ir, BPF_AND, base, mask);
	ir_alu(ir, BPF_XOR, base, sp);
	ir_reg plt = ir_copy(ir, ip); /* 8 + 8 * ((IP & 15) + 5 >= 16) */
	ir_alui(ir, BPF_AND, plt, 15);
	ir_alui(ir, BPF_ADD, plt, 5);
	ir_alui(ir, BPF_RSH, plt, 4);
	ir_alui(ir, BPF_LSH, plt, 3);
	ir_alui(ir, BPF_ADD, plt, 8);
	ir_reg pmask = ir_copy(ir, kind); /* all ones: UW_CFA_PLT (4) */
	ir_alui(ir, BPF_RSH, pmask, 2);
	ir_neg(ir, pmask);
	ir_alu(ir, BPF_XOR, plt, off);
	ir_alu(ir, BPF_AND, plt, pmask);
	ir_alu(ir, BPF_XOR, plt, off);
	ir_mov(ir, cfa, base);
	ir_alu(ir, BPF_ADD, cfa, plt);

	ir_reg ra = ir_reg_new(ir), at = ir_copy(ir, cfa);
	ir_alui(ir, BPF_SUB, at, 8);
	read_word(g, BPF_FUNC_probe_read_user, ra, at, buf, trunc);
	/* The caller's BP, also without a branch: the word read is the
	 * saved BP where the row saves it (UW_BP_SAVED), else the return
	 * address again (known readable), and kept only in the first case. */
	ir_reg smask = ir_copy(ir, rule); /* enum uw_bp: 0 or 1 */
	ir_alui(ir, BPF_RSH, smask, 4);
	ir_alui(ir, BPF_AND, smask, 3);
	stop_if(g, trunc, BPF_JGT, smask, IR_NOREG, UW_BP_SAVED);
	ir_neg(ir, smask);
	ir_reg bpat = ir_reg_new(ir), saved = ir_reg_new(ir);
	ir_load(ir, 1, bpat, row, (int16_t)offsetof(struct uw_row, bp_off));
	ir_alui(ir, BPF_LSH, bpat, 56); /* signed words */
	ir_alui(ir, BPF_ARSH, bpat, 53);
	ir_alu(ir, BPF_ADD, bpat, cfa);
	ir_alu(ir, BPF_XOR, bpat, at);
	ir_alu(ir, BPF_AND, bpat, smask);
	ir_alu(ir, BPF_XOR, bpat, at);
	read_word(g, BPF_FUNC_probe_read_user, saved, bpat, buf, trunc);
	ir_alu(ir, BPF_XOR, saved, bp);
	ir_alu(ir, BPF_AND, saved, smask);
	ir_alu(ir, BPF_XOR, bp, saved);
	ir_mov(ir, sp, cfa);
	ir_mov(ir, ip, ra);
	/* a zero return address: the outermost frame */
	stop_if_flags(g, trunc, BPF_JEQ, ip, IR_NOREG, 0, 0);
	ir_movi(ir, adj, 1);
	ir_alui(ir, BPF_SUB, left, 1);
	ir_jmpi(ir, BPF_JNE, left, 0, head);
	stop_here(g, trunc, 0); /* stack_limit frames */
}

void cg_dwunwind_capture(struct cg *g, const struct type *t,
			 struct cg_mem dst, uint32_t off)
{
	struct ir *ir = g->ir;
	if (t->stack_mode == STACK_BUILD_ID) {
		/* the walk gives addresses; build ids are the kernel's */
		cg_error(g, g->at ? g->at->span : (struct span){ 0 },
			 "a DWARF-unwound ustack cannot be in build_id mode");
		return;
	}
	int32_t procs = unwind_map(g, UW_PROCS_MAP, BPF_MAP_TYPE_HASH,
				   sizeof(struct uw_proc), UW_PROCS_MAX, 0);
	ir_reg pid = cg_current_pid(g);
	ir_slot key = ir_slot_new(ir, 4, 4);
	ir_store_slot(ir, 4, key, 0, pid);
	ir_reg proc = lookup(g, procs, key);
	ir_jlist none = ir_jmpi(ir, BPF_JEQ, proc, 0, IR_NOLABEL);

	/* frames past the last are zero: equal stacks are equal bytes */
	cg_zero_mem(g, dst, off + 16, 8 * t->stack_limit);
	ir_reg n = ir_const(ir, 0);
	ir_reg fp = cg_mem_addr(g, dst, off + 16);
	struct stop end = { .flags = ir_reg_new(ir), .out = IR_NOJUMP };
	walk(g, t, proc, fp, n, &end);
	ir_jlist_patch_here(ir, end.out);
	cg_store_reg(g, 8, dst, off, n);
	ir_alu(ir, BPF_OR, end.flags, pid);
	cg_store_reg(g, 8, dst, off + 8, end.flags);
	ir_jlist done = ir_ja(ir, IR_NOLABEL);

	/* no tables: the frame-pointer walk, said so in the pid word (and
	 * to dw_ustack's user, who asked for this process's tables; under
	 * ustack_unwind = dwarf every process has them but kernel threads,
	 * which have no user stack to warn of) */
	ir_jlist_patch_here(ir, none);
	cg_fp_stack_capture(g, t, dst, off);
	ir_reg w = ir_const(ir, (int64_t)UW_FLAG_NO_TABLES);
	ir_alu(ir, BPF_OR, w, cg_current_pid(g));
	cg_store_reg(g, 8, dst, off + 8, w);
	if (!limits.ustack_dwarf)
		cg_runtime_error(g, NO_TABLES_WARNING,
				 g->at ? g->at->span : (struct span){ 0 });
	ir_jlist_patch_here(ir, done);
}
