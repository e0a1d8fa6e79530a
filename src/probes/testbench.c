/* test:NAME and bench:NAME: programs sonde runs itself, through
 * BPF_PROG_TEST_RUN, as bpftrace 0.26 does: bench probes under --bench
 * (--mode bench), repeated until they have run for a millisecond, their
 * average time reported; test probes under --test. Otherwise they are
 * left alone. Like 0.26's they are XDP programs, the one kind the kernel
 * runs repeatedly and times. */
#include <string.h>

#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"

static int expand(struct probe_env *env, const struct attach_point *a,
		  struct probe_target **out, uint32_t *n)
{
	const struct provider *p = probe_provider(a->provider);
	if (a->nparts != 1) {
		diag_error(env->diag, a->span, "%s probe type requires 1 "
			   "arguments, found %u", p->name, a->nparts);
		return -1;
	}
	if (!a->parts[0][0]) {
		diag_error(env->diag, a->span, "%s probes must have a name",
			   p->name);
		return -1;
	}
	struct probe_target *t = probe_target_add(env->arena, out, n);
	t->prov = p;
	t->name = arena_printf(env->arena, "%s:%s", p->name, a->parts[0]);
	t->layout = CTXL_NONE;
	/* addresses read are the kernel's: XDP has probe_read_kernel, not
	 * the helper that tries both */
	t->features = CTX_KERNEL;
	return 0;
}

const struct provider probe_bench_prov = {
	.name = "bench",
	.run = PROBE_RUN_BENCH,
	.prog_type = BPF_PROG_TYPE_XDP,
	.expand = expand,
	.not_emittable = "bench probes run under --bench, which --object "
			 "does not do",
};

const struct provider probe_test_prov = {
	.name = "test",
	.run = PROBE_RUN_TEST,
	.prog_type = BPF_PROG_TYPE_XDP,
	.expand = expand,
	.not_emittable = "test probes run under --test, which --object "
			 "does not do",
};
