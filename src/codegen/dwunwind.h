/*
 * The DWARF unwinder in the kernel (model/unwind.h): a ustack whose type
 * has stack_dwarf is captured by walking the .uw_rows and .uw_procs
 * tables from the probe's user registers, instead of bpf_get_stack()'s
 * frame-pointer walk.
 */
#ifndef SONDE_CODEGEN_DWUNWIND_H
#define SONDE_CODEGEN_DWUNWIND_H

#include "codegen/cg.h"

/* Writes the stack of type t (TY_USTACK, stack_dwarf) at dst + off in
 * the layout of cg_stack_capture: nframes, the pid word (with UW_FLAG_*),
 * the frames. */
void cg_dwunwind_capture(struct cg *g, const struct type *t,
			 struct cg_mem dst, uint32_t off);

#endif
