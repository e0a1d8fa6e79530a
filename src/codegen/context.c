/* Where a probe's context keeps argN and retval, by context layout. The
 * values are read straight from the context (V_CTX): the verifier allows
 * direct loads from pt_regs and from the u64 argument array. */
#include "codegen/cg.h"

#include <stdlib.h>
#include <string.h>

#include "kernel/regs.h"
#include "probes/provider.h"

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
			*off = regs_retval_offset();
			return true;
		}
		if (idx >= regs_nargs())
			return false;
		*off = regs_arg_offset(idx);
		return true;
	case CTXL_U64_ARRAY:
		/* fexit puts the return value after the arguments. */
		*off = 8 * (ret ? t->nargs : idx);
		return true;
	default:
		return false;
	}
}
