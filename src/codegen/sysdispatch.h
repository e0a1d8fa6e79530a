/* One raw tracepoint program for many syscall tracepoints
 * (sysdispatch.c). */
#ifndef SONDE_CODEGEN_SYSDISPATCH_H
#define SONDE_CODEGEN_SYSDISPATCH_H

#include "codegen/cg.h"

/* A probe over at least this many syscall tracepoints of
 * one direction is one raw tracepoint program (see
 * sysdispatch.c). */
#define CG_SYSDISPATCH_MIN 32
struct cg_sysentry {
	int32_t nr;                        /* the syscall's number */
	const struct probe_target *target; /* its tracepoint */
};
struct cg_sysdispatch {
	struct probe_target target; /* raw_tp sys_enter or sys_exit */
	bool exit;
	bool *covered;        /* per target of the probe: in the program */
	struct cg_sysentry *entries; /* n, by nr */
	uint32_t n;
	/* from the kernel's BTF, for this architecture (sysdispatch.c) */
	uint32_t nr_off;      /* struct pt_regs' syscall number (sys_exit) */
	uint32_t compat_off;  /* task_struct.thread_info's compat mark */
	uint8_t nr_size, compat_size;
	uint32_t compat_mask;
};

/* Whether probe p (its targets sp) becomes one program (out filled;
 * out->covered are its targets), and that program's start, which leaves
 * the events it does not stand for and sets g->probe_reg. */
bool cg_sysdispatch_plan(struct cg *g, const struct ast_probe *p,
			 const struct sema_probe *sp,
			 struct cg_sysdispatch *out);
void cg_sysdispatch_prologue(struct cg *g, const struct cg_sysdispatch *d);

#endif
