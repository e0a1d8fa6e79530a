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

#endif
