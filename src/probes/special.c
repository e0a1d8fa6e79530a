/* BEGIN and END: raw tracepoint programs that the runtime runs once
 * through BPF_PROG_TEST_RUN, so they attach to nothing. */
#include "probes/impl.h"
#include "util/diag.h"

static int expand(struct probe_env *env, const struct attach_point *a,
		  struct probe_target **out, uint32_t *n)
{
	if (a->nparts) {
		diag_error(env->diag, a->span, "%s probes take no arguments",
			   a->provider);
		return -1;
	}
	/* bpftrace refuses a second BEGIN or END: which would run first? */
	bool end = probe_provider(a->provider)->run == PROBE_RUN_END;
	bool *seen = end ? &env->seen_end : &env->seen_begin;
	if (*seen) {
		diag_error(env->diag, a->span, "more than one %s probe defined",
			   a->provider);
		return -1;
	}
	*seen = true;
	struct probe_target *t = probe_target_add(env->arena, out, n);
	t->prov = probe_provider(a->provider);
	t->name = a->provider;
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
