/* kstack/ustack values (stacks.c): V_STACK, captured where they are
 * stored. */
#ifndef SONDE_CODEGEN_STACKS_H
#define SONDE_CODEGEN_STACKS_H

#include "codegen/cg.h"

/* Captures a stack of type t into dst+off (its frame count, then the
 * frames; a ustack's pid after the count). */
void cg_stack_capture(struct cg *g, const struct type *t, struct cg_mem dst,
		      uint32_t off);
/* Whether keys, values or records of type t are built in the scratch: they
 * hold a stack and would crowd the 512-byte BPF stack. */
bool cg_stack_in_scratch(const struct type *t);
/* Whether uprobe targets t[0..n) may share one program that takes user
 * stacks: the caller's frame that sonde adds where the kernel does not
 * (kernel/ucaller.h) is added to all of them or none. */
struct probe_target;
bool cg_ucaller_agree(const struct probe_target *t, uint32_t n);

#endif
