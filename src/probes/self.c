/* self:signal:SIGUSR1: programs the runtime runs, in the script's order,
 * through BPF_PROG_TEST_RUN each time sonde gets that signal, as bpftrace
 * 0.26 does (it no longer prints the maps on SIGUSR1). They attach to
 * nothing. */
#include <stdio.h>
#include <string.h>

#include "kernel/glob.h"
#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"

/* the signals bpftrace 0.26 takes (its SIGNALS) */
static const char *const signals[] = { "SIGUSR1", NULL };

static int expand(struct probe_env *env, const struct attach_point *a,
		  struct probe_target **out, uint32_t *n)
{
	if (a->nparts != 2) {
		diag_error(env->diag, a->span, "self probe type requires 2 "
			   "arguments, found %u", a->nparts);
		return -1;
	}
	if (strcmp(a->parts[0], "signal")) {
		diag_error(env->diag, a->span, "%s is not a supported trigger",
			   a->parts[0]);
		return -1;
	}
	const char *const *s = signals;
	while (*s && strcmp(*s, a->parts[1]))
		s++;
	if (!*s) {
		diag_error(env->diag, a->span, "%s is not a supported signal",
			   a->parts[1]);
		return -1;
	}
	struct probe_target *t = probe_target_add(env->arena, out, n);
	t->prov = probe_provider(a->provider);
	t->name = arena_printf(env->arena, "self:signal:%s", *s);
	t->layout = CTXL_NONE;
	return 0;
}

/* -l 'self:*': the signals, as 0.26 lists them */
static int list(const char *pattern, bool verbose, FILE *out)
{
	for (const char *const *s = signals; *s; s++) {
		char name[64];
		snprintf(name, sizeof(name), "self:signal:%s", *s);
		if (glob_match(pattern, name))
			fprintf(out, "%s\n", name);
	}
	return 0;
}

const struct provider probe_self_prov = {
	.name = "self",
	.run = PROBE_RUN_SIGNAL,
	.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT,
	.expand = expand,
	.not_emittable = "its programs run on a signal to sonde, which "
			 "--object does not handle",
	.list = list,
};
