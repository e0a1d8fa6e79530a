/* Where a probe's context keeps argN and retval, by context layout. The
 * values are read straight from the context (V_CTX): the verifier allows
 * direct loads from pt_regs and from the u64 argument array. */
#include "codegen/cg.h"

#include <linux/ptrace.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "probes/provider.h"

#if defined(__x86_64__)
/* The System V argument registers, in order. */
static const uint32_t regs_args[] = {
	offsetof(struct pt_regs, rdi), offsetof(struct pt_regs, rsi),
	offsetof(struct pt_regs, rdx), offsetof(struct pt_regs, rcx),
	offsetof(struct pt_regs, r8),  offsetof(struct pt_regs, r9),
};
static const uint32_t regs_retval = offsetof(struct pt_regs, rax);
#elif defined(__aarch64__)
static const uint32_t regs_args[] = { 0, 8, 16, 24, 32, 40, 48, 56 };
static const uint32_t regs_retval = 0;
#else
#error "pt_regs argument offsets are not known for this architecture"
#endif

uint32_t cg_ctx_max_regs_args(void)
{
	return sizeof(regs_args) / sizeof(*regs_args);
}

bool cg_ctx_offset(const struct probe_target *t, const char *name,
		   uint32_t *off)
{
	bool ret = !strcmp(name, "retval");
	uint32_t idx = 0;
	if (!ret) {
		if (!strncmp(name, "sarg", 4))
			name++;
		if (strncmp(name, "arg", 3))
			return false;
		idx = (uint32_t)atoi(name + 3);
	}
	switch (t->layout) {
	case CTXL_PT_REGS:
		if (ret) {
			*off = regs_retval;
			return true;
		}
		if (idx >= cg_ctx_max_regs_args())
			return false;
		*off = regs_args[idx];
		return true;
	case CTXL_U64_ARRAY:
		/* fexit puts the return value after the arguments. */
		*off = 8 * (ret ? t->nargs : idx);
		return true;
	default:
		return false;
	}
}
