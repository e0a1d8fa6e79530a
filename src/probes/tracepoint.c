/* tracepoint:CATEGORY:NAME, with wildcards in both parts. Every match gets
 * its own program because the records (and so `args`) differ. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/glob.h"
#include "kernel/perf.h"
#include "kernel/sysfs.h"
#include "kernel/tracefs.h"
#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"

/* this file's provider, defined at its end */
extern const struct provider probe_tracepoint_prov;

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
	t->u.tp.category = arena_strdup(a, cat);
	t->u.tp.event = arena_strdup(a, name);
	t->name = arena_printf(a, "tracepoint:%s:%s", cat, name);
	t->u.tp.id = (int32_t)fmt.id;
	t->args = tracefs_args_type(a, &fmt);
	t->features = CTX_KERNEL | CTX_ARGS;
	t->layout = CTXL_TRACEPOINT;
	return 0;
}

static int expand(struct probe_env *env, const struct attach_point *a,
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
	if (r == 0)
		return probe_missing(env, a);
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
	return probe_attach_perf(perf_open_tracepoint(t->u.tp.id, -1, 0), prog_fd,
				 att);
}

struct list_ctx {
	const char *pattern;
	bool verbose;
	FILE *out;
};

/* -lv prints each field's declaration as the format file spells it
 * ("__data_loc char[] filename"), as bpftrace does. */
static void list_fields(const char *cat, const char *name, FILE *out)
{
	char rel[512], path[600], *text;
	snprintf(rel, sizeof(rel), "events/%s/%s/format", cat, name);
	if (tracefs_path(path, sizeof(path), rel) ||
	    sysfs_slurp(path, &text, NULL))
		return;
	for (char *p = strstr(text, "field:"); p; p = strstr(p, "field:")) {
		p += 6;
		size_t n = strcspn(p, ";\n");
		const char *last = p + n;
		while (last > p && last[-1] != ' ' && last[-1] != '*')
			last--;
		if (strncmp(last, "common_", 7))
			fprintf(out, "    %.*s\n", (int)n, p);
	}
	free(text);
}

static int list_one(const char *cat, const char *name, void *ctx_)
{
	struct list_ctx *l = ctx_;
	char full[512];
	snprintf(full, sizeof(full), "tracepoint:%s:%s", cat, name);
	if (!glob_match(l->pattern, full))
		return 0;
	fprintf(l->out, "%s\n", full);
	if (l->verbose)
		list_fields(cat, name, l->out);
	return 0;
}

static int list(const char *pattern, bool verbose, FILE *out)
{
	struct list_ctx l = { pattern, verbose, out };
	int r = tracefs_match("*", "*", list_one, &l);
	return r < 0 ? r : 0;
}

const struct provider probe_tracepoint_prov = {
	.pid_in_program = true,
	.name = "tracepoint",
	.aliases = (const char *const[]){ "t", NULL },
	.prog_type = BPF_PROG_TYPE_TRACEPOINT,
	.expand = expand,
	.per_target_program = true,
	.attach = attach,
	.list = list,
};
