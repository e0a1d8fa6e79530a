/* begin and end: raw tracepoint programs that the runtime runs once
 * through BPF_PROG_TEST_RUN, so they attach to nothing. bpftrace 0.26
 * takes any number of each, run in the order the script gives them. */
#include <string.h>

#include "probes/impl.h"
#include "util/diag.h"

static int expand(struct probe_env *env, const struct attach_point *a,
		  struct probe_target **out, uint32_t *n)
{
	bool end = probe_provider(a->provider)->run == PROBE_RUN_END;
	/* 0.26's name for both spellings (BEGIN, begin), which `probe`
	 * prints and its messages use */
	const char *name = end ? "end" : "begin";
	/* "begin:*" is begin: what a listing's pattern would match */
	uint32_t nparts = a->nparts;
	if (nparts == 1 && !strcmp(a->parts[0], "*"))
		nparts = 0;
	if (nparts) {
		diag_error(env->diag, a->span,
			   "%s probe type requires 0 arguments, found %u",
			   name, nparts);
		return -1;
	}
	struct probe_target *t = probe_target_add(env->arena, out, n);
	t->prov = probe_provider(a->provider);
	t->name = name;
	t->layout = CTXL_NONE;
	return 0;
}

const struct provider probe_begin_prov = {
	.name = "BEGIN",
	.run = PROBE_RUN_BEGIN,
	.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT,
	.expand = expand,
};

const struct provider probe_end_prov = {
	.name = "END",
	.run = PROBE_RUN_END,
	.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT,
	.expand = expand,
};
