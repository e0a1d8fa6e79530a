/* tracepoint:CATEGORY:NAME, with wildcards in both parts. Every match gets
 * its own program because the records (and so `args`) differ. */
#include <errno.h>
#include <string.h>

#include "kernel/perf.h"
#include "kernel/tracefs.h"
#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"

struct match_ctx {
	struct probe_env *env;
	struct probe_target **out;
	uint32_t *n;
	int err;
};

static int add_match(const char *cat, const char *name, void *ctx_)
{
	struct match_ctx *m = ctx_;
	struct arena *a = m->env->arena;
	struct tracefs_format fmt;
	int err = tracefs_format(a, cat, name, &fmt);
	if (err) {
		m->err = err;
		return 1;
	}
	struct probe_target *t = probe_target_add(a, m->out, m->n);
	t->prov = &probe_tracepoint_prov;
	t->a = arena_strdup(a, cat);
	t->b = arena_strdup(a, name);
	t->name = arena_printf(a, "tracepoint:%s:%s", cat, name);
	t->id = (int32_t)fmt.id;
	t->args = tracefs_args_type(a, &fmt);
	t->features = CTX_ARGS;
	t->layout = CTXL_TRACEPOINT;
	return 0;
}

static int expand(struct probe_env *env, const struct ast_attach *a,
		  struct probe_target **out, uint32_t *n)
{
	if (a->nparts != 2 || !a->parts[0][0] || !a->parts[1][0]) {
		diag_error(env->diag, a->span,
			   "tracepoint probe type requires 2 arguments");
		return -1;
	}
	struct match_ctx m = { env, out, n, 0 };
	int r = tracefs_match(a->parts[0], a->parts[1], add_match, &m);
	if (r == 1 && m.err)
		r = m.err;
	if (r == 0) {
		diag_error(env->diag, a->span, "tracepoint not found: %s:%s",
			   a->parts[0], a->parts[1]);
		return -1;
	}
	if (r < 0) {
		diag_error(env->diag, a->span, "cannot read tracepoint %s:%s: %s",
			   a->parts[0], a->parts[1], strerror(-r));
		return -1;
	}
	return 0;
}

static int attach(const struct probe_target *t, int prog_fd,
		  struct probe_attachment *att)
{
	/* One perf event (pid -1, cpu 0) carries the program for every CPU:
	 * the BPF program hangs off the tracepoint, not the event's CPU. */
	return probe_attach_perf(perf_open_tracepoint(t->id, -1, 0), prog_fd,
				 att);
}

const struct provider probe_tracepoint_prov = {
	.name = "tracepoint",
	.prog_type = BPF_PROG_TYPE_TRACEPOINT,
	.expand = expand,
	.per_target_program = true,
	.attach = attach,
};
