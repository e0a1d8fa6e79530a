/*
 * A wildcard over many syscall tracepoints as one program. Each
 * syscalls:sys_enter_NAME is a perf event of its own, and detaching one
 * waits for an RCU grace period (~25 ms) that the kernel serialises: 361
 * of them took 9 s to go at exit, and as long to verify one by one. The
 * syscall tracepoints all come from raw_syscalls' sys_enter and sys_exit,
 * so one raw tracepoint program on those does the same work: it takes the
 * syscall number (sys_enter's id argument; at sys_exit, the register the
 * kernel's own syscall_get_nr() reads: orig_ax, aarch64's syscallno),
 * leaves out what the syscall events leave out (a 32-bit syscall:
 * TS_COMPAT, aarch64's TIF_32BIT; a number it does not trace) and finds
 * the probe's name by a binary search over the numbers, compiled in.
 *
 * Only where the result is the same: an architecture whose fields sonde
 * knows (abis below), a body and predicate that read nothing of the
 * tracepoint's record (args, ctx) or its kernel stack (which starts in the raw tracepoint's caller,
 * not perf_syscall_enter), and at least CG_SYSDISPATCH_MIN syscalls, below
 * which the detach costs little and the per-syscall events run the
 * program only for the syscalls asked for. The syscalls whose numbers
 * sonde does not know (kernel/sysnr.h) keep their own tracepoints.
 */
#include <stdlib.h>
#include <string.h>

#include "codegen/emit.h"
#include "codegen/multiattach.h"
#include "codegen/program.h"
#include "codegen/sysdispatch.h"
#include "kernel/arch.h"
#include "kernel/btf.h"
#include "kernel/features.h"
#include "kernel/sysnr.h"
#include "lang/builtins.h"
#include "util/arena.h"

/* Where each architecture keeps what the syscall tracepoints read
 * (kernel/trace/trace_syscalls.c): the number at sys_exit, which
 * syscall_get_nr() reads from the registers, and the mark of a 32-bit
 * (compat) syscall, which the tracepoints leave out
 * (arch_trace_is_compat_syscall). The offsets come from the kernel's BTF. */
static const struct {
	const char *nr_field;     /* of struct pt_regs */
	const char *compat_field; /* of struct thread_info */
	uint32_t compat_mask;
} abis[ARCH_COUNT] = {
	/* arch/x86/include/asm/thread_info.h: status & TS_COMPAT */
	[ARCH_X86_64] = { "orig_ax", "status", 0x0002 },
	/* arch/arm64/include/asm/thread_info.h: flags & 1 << TIF_32BIT */
	[ARCH_AARCH64] = { "syscallno", "flags", 1u << 22 },
};

/* What of the tracepoint the program would need (see above), or its
 * name as a string, which each program holds. */
static bool needs_tracepoint(const struct ast_probe *p)
{
	static const int ids[] = { BI_ARGS, BI_CTX, BI_KSTACK_VAR, BI_KSTACK,
				   BI_PROBE_NAME };
	return cg_probe_uses_any(p, ids, sizeof(ids) / sizeof(*ids));
}

/* The syscall of a syscalls:sys_enter_NAME / sys_exit_NAME target and
 * which of the two it is; -1 when t is no such target. */
static int target_nr(const struct probe_target *t, bool *exit)
{
	const char *ev;
	if (t->prov != probe_provider("tracepoint") || !t->u.tp.category ||
	    strcmp(t->u.tp.category, "syscalls") || !(ev = t->u.tp.event))
		return -1;
	if (!strncmp(ev, "sys_enter_", 10))
		*exit = false;
	else if (!strncmp(ev, "sys_exit_", 9))
		*exit = true;
	else
		return -1;
	return sysnr_lookup(ev + (*exit ? 9 : 10));
}

/* The offsets and sizes of abis' fields in this kernel, from BTF. */
static int abi_offsets(struct arena *a, struct cg_sysdispatch *d)
{
	const struct type *task = kbtf_type_by_name(a, "struct task_struct");
	const struct type *regs = kbtf_type_by_name(a, "struct pt_regs");
	struct type_field ti, mark, nr;
	enum arch arch = arch_build();
	if (!task || !regs || kbtf_field(a, task, "thread_info", &ti) ||
	    kbtf_field(a, ti.type, abis[arch].compat_field, &mark) ||
	    kbtf_field(a, regs, abis[arch].nr_field, &nr))
		return -1;
	uint32_t ms = mark.type->size, ns = nr.type->size;
	if ((ms != 4 && ms != 8) || (ns != 4 && ns != 8))
		return -1;
	d->compat_off = ti.offset + mark.offset;
	d->compat_size = (uint8_t)ms;
	d->compat_mask = abis[arch].compat_mask;
	d->nr_off = nr.offset;
	d->nr_size = (uint8_t)ns;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct cg_sysentry *x = a, *y = b;
	return (x->nr > y->nr) - (x->nr < y->nr);
}

bool cg_sysdispatch_plan(struct cg *g, const struct ast_probe *p,
			 const struct sema_probe *sp,
			 struct cg_sysdispatch *out)
{
	memset(out, 0, sizeof(*out));
	if (sp->ntargets < CG_SYSDISPATCH_MIN || needs_tracepoint(p) ||
	    !feat_has(FEAT_RAW_TP))
		return false;
	bool exit = false;
	uint32_t n = 0;
	out->covered = arena_alloc(g->arena, sp->ntargets * sizeof(bool));
	out->entries = arena_alloc(g->arena,
				   sp->ntargets * sizeof(*out->entries));
	for (uint32_t k = 0; k < sp->ntargets; k++) {
		bool ex;
		int nr = target_nr(&sp->targets[k], &ex);
		if (nr < 0)
			continue;
		/* one direction per program; the other keeps its events */
		if (n && ex != exit)
			continue;
		exit = ex;
		out->covered[k] = true;
		out->entries[n].nr = nr;
		out->entries[n].target = &sp->targets[k];
		n++;
	}
	if (n < CG_SYSDISPATCH_MIN || abi_offsets(g->arena, out))
		return false;
	qsort(out->entries, n, sizeof(*out->entries), cmp_entry);
	for (uint32_t i = 1; i < n; i++)
		if (out->entries[i].nr == out->entries[i - 1].nr)
			return false; /* one syscall named twice: fires twice */
	out->n = n;
	out->exit = exit;
	struct probe_target *t = &out->target;
	t->prov = probe_provider("rawtracepoint");
	const char *tp = exit ? "sys_exit" : "sys_enter";
	t->name = arena_printf(g->arena, "tracepoint:syscalls:%s_* (%u "
			       "syscalls, one program on raw tracepoint %s)",
			       tp, n, tp);
	t->u.raw.name = tp;
	t->layout = CTXL_U64_ARRAY;
	/* a cast integer is a kernel address, as in a tracepoint */
	t->features = CTX_KERNEL;
	t->nargs = 2;
	return t->prov != NULL;
}

/* A failed read leaves the event out: its syscall is unknown. */
static ir_reg read_kernel(struct cg *g, ir_reg base, int32_t off, int size)
{
	ir_slot s = ir_slot_new(g->ir, 8, 8);
	ir_reg dst = ir_reg_new(g->ir), src = ir_copy(g->ir, base);
	ir_slot_addr(g->ir, dst, s, 0);
	ir_alui(g->ir, BPF_ADD, src, off);
	ir_reg r = cg_call(g, BPF_FUNC_probe_read_kernel, 3, dst,
			   ir_const(g->ir, size), src);
	ir_jlist_concat(g->ir, &g->bail,
			ir_jmpi(g->ir, BPF_JNE, r, 0, IR_NOLABEL));
	ir_reg v = ir_reg_new(g->ir);
	ir_load_slot(g->ir, size, v, s, 0);
	return v;
}

/* Entries [lo, hi): a binary search down to runs of 4, then compares;
 * a match sets g->probe_reg and jumps to *found. */
static void search(struct cg *g, const struct cg_sysdispatch *d, ir_reg nr,
		   uint32_t lo, uint32_t hi, ir_jlist *found)
{
	if (hi - lo > 4) {
		uint32_t mid = lo + (hi - lo) / 2;
		ir_jlist right = ir_jmpi(g->ir, BPF_JSGE, nr,
					 d->entries[mid].nr, IR_NOLABEL);
		search(g, d, nr, lo, mid, found);
		ir_jlist_patch_here(g->ir, right);
		search(g, d, nr, mid, hi, found);
		return;
	}
	for (uint32_t i = lo; i < hi; i++) {
		ir_jlist next = ir_jmpi(g->ir, BPF_JNE, nr, d->entries[i].nr,
					IR_NOLABEL);
		ir_movi(g->ir, g->probe_reg,
			cg_name_index(g, probe_target_label(
						      d->entries[i].target)));
		ir_jlist_concat(g->ir, found, ir_ja(g->ir, IR_NOLABEL));
		ir_jlist_patch_here(g->ir, next);
	}
	ir_jlist_concat(g->ir, &g->bail, ir_ja(g->ir, IR_NOLABEL));
}

void cg_sysdispatch_prologue(struct cg *g, const struct cg_sysdispatch *d)
{
	ir_reg nr = ir_reg_new(g->ir);
	if (d->exit) {
		ir_reg regs = ir_reg_new(g->ir);
		ir_load(g->ir, 8, regs, ir_ctx(g->ir), 0);
		ir_mov(g->ir, nr, read_kernel(g, regs, (int32_t)d->nr_off,
					      d->nr_size));
	} else {
		ir_load(g->ir, 8, nr, ir_ctx(g->ir), 8);
	}
	ir_reg task = cg_call(g, BPF_FUNC_get_current_task, 0);
	ir_reg mark = read_kernel(g, task, (int32_t)d->compat_off,
				  d->compat_size);
	ir_jlist_concat(g->ir, &g->bail, ir_jmpi(g->ir, BPF_JSET, mark,
						 (int32_t)d->compat_mask,
						 IR_NOLABEL));
	g->probe_reg = ir_reg_new(g->ir);
	ir_jlist found = IR_NOJUMP;
	search(g, d, nr, 0, d->n, &found);
	ir_jlist_patch_here(g->ir, found);
}
