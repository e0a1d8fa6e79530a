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
#include "codegen/dwunwind.h"
#include "codegen/emit.h"
#include "codegen/fpstack.h"
#include "codegen/stacks.h"
#include "codegen/emitters.h"
#include "kernel/features.h"
#include "kernel/ucaller.h"
#include "probes/provider.h"

#include <string.h>

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

bool cg_ucaller_agree(const struct probe_target *t, uint32_t n)
{
	if (n < 2 || strcmp(t[0].prov->name, "uprobe") || t[0].u.user.retprobe ||
	    feat_has(FEAT_UPROBE_CALLER))
		return true;
	bool first = ucaller_entry_insn(t[0].binary, t[0].u.user.offset);
	for (uint32_t i = 1; i < n; i++)
		if (ucaller_entry_insn(t[i].binary, t[i].u.user.offset) != first)
			return false;
	return true;
}

void cg_stack_capture(struct cg *g, const struct type *t, struct cg_mem dst,
		      uint32_t off)
{
	if (t->kind == TY_USTACK && t->stack_dwarf)
		cg_dwunwind_capture(g, t, dst, off);
	else
		cg_fp_stack_capture(g, t, dst, off);
}
