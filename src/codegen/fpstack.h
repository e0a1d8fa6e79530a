/* kstack and ustack as the kernel captures them (fpstack.c):
 * bpf_get_stack()'s frame-pointer walk, with the caller's frame added at
 * a function's entry where the kernel does not add it (kernel/ucaller.h).
 * stacks.c captures with it, and dwunwind.c where a process has no
 * unwind tables. */
#ifndef SONDE_CODEGEN_FPSTACK_H
#define SONDE_CODEGEN_FPSTACK_H

#include "codegen/cg.h"

/* Captures the stack of type t into dst+off in cg_stack_capture's
 * layout (stacks.h). */
void cg_fp_stack_capture(struct cg *g, const struct type *t,
			 struct cg_mem dst, uint32_t off);

#endif
