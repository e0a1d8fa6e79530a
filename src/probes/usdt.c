/* usdt:PATH:PROVIDER:NAME and usdt:PATH:NAME (any provider), with
 * wildcards in both. Each probe site is a uprobe at the note's address;
 * a semaphore is handed to the kernel as the uprobe's reference counter,
 * which it raises in every process that maps the file while attached. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/elfsym.h"
#include "kernel/glob.h"
#include "kernel/usdt.h"
#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"

/* this file's provider, defined at its end */
extern const struct provider probe_usdt_prov;

static void add(struct probe_env *env, const char *path,
		const struct usdt_probe *u, struct probe_target **out,
		uint32_t *n)
{
	struct probe_target *t = probe_target_add(env->arena, out, n);
	t->prov = &probe_usdt_prov;
	t->name = arena_printf(env->arena, "usdt:%s:%s:%s", path, u->provider,
			       u->name);
	t->binary = probe_user_binary(env, path);
	t->u.user.offset = u->pc_off;
	t->u.user.ref_ctr = u->sema_off;
	t->pid = env->pid ? env->pid : env->cpid;
	t->layout = CTXL_PT_REGS;
	t->features = CTX_ARGN | CTX_REGS | CTX_USER;
	t->nargs = u->nargs;
	struct usdt_arg *args = arena_alloc(env->arena,
					    sizeof(*args) * (u->nargs + 1));
	for (uint32_t i = 0; i < u->nargs; i++) {
		args[i] = u->args[i];
		args[i].text = arena_strdup(env->arena, u->args[i].text);
	}
	t->uargs = args;
}

/* What one attach point asks for, and where its targets go. */
struct want {
	struct probe_env *env;
	const char *prov, *name;
	struct probe_target **out;
	uint32_t *n;
};

/* Adds every probe site of path (whose symbols es are) that matches: a
 * marker the compiler duplicated (inlining, unrolling) is one site each. */
static int add_matches(struct want *w, const char *path,
		       const struct elf_syms *es)
{
	struct usdt_probes up;
	int err = usdt_load(probe_user_binary(w->env, path), es, &up);
	if (err)
		return err;
	for (uint32_t i = 0; i < up.n; i++)
		if (glob_match(w->prov, up.probes[i].provider) &&
		    glob_match(w->name, up.probes[i].name))
			add(w->env, path, &up.probes[i], w->out, w->n);
	usdt_free(&up);
	return 0;
}

static int add_file(const char *path, void *ctx)
{
	struct want *w = ctx;
	struct elf_syms *es;
	if (elfsym_load(path, &es))
		return 0; /* not an ELF file: not one the wildcard meant */
	if (!elfsym_native(es)) { /* nor another machine's */
		elfsym_free(es);
		return 0;
	}
	add_matches(w, arena_strdup(w->env->arena, path), es);
	elfsym_free(es);
	return 0;
}

/* By name, then by the site's offset (a marker of several sites). */
static int cmp_target(const void *a, const void *b)
{
	const struct probe_target *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return (x->u.user.offset > y->u.user.offset) -
	       (x->u.user.offset < y->u.user.offset);
}

/* bpftrace's forms: usdt:FILE:NAME, usdt:FILE:PROVIDER:NAME, and under -p
 * usdt:NAME; FILE may be empty under -p (the process's binary and every
 * library it maps) and a wildcard; an empty PROVIDER is any. */
static int expand(struct probe_env *env, const struct attach_point *a,
		  struct probe_target **out, uint32_t *n)
{
	const char *file = a->parts[0], *prov = "*", *name;
	if (a->nparts == 1 && env->pid > 0) {
		file = "";
		name = a->parts[0];
	} else if (a->nparts == 2 || a->nparts == 3) {
		if (a->nparts == 3 && a->parts[1][0])
			prov = a->parts[1];
		name = a->parts[a->nparts - 1];
	} else {
		diag_error(env->diag, a->span,
			   "usdt probe type requires 2 or 3 arguments");
		return -1;
	}
	if (!name[0] || (!file[0] && env->pid <= 0)) {
		diag_error(env->diag, a->span, "usdt probe needs %s",
			   name[0] ? "a file, or a process with -p" :
				     "a probe name");
		return -1;
	}
	struct want w = { env, prov, name, out, n };
	uint32_t before = *n;
	if (!file[0] || glob_has_wildcard(file)) {
		int err = probe_user_files(env->pid, file, add_file, &w);
		if (err < 0) {
			diag_error(env->diag, a->span, "cannot read the files "
				   "of process %d: %s", env->pid,
				   strerror(-err));
			return -1;
		}
	} else {
		const char *path = probe_user_path(env, a, "usdt");
		struct elf_syms *es =
			path ? probe_user_elf(env, a, "usdt",
					      probe_user_binary(env, path)) :
			       NULL;
		if (!es)
			return -1;
		int err = add_matches(&w, path, es);
		elfsym_free(es);
		if (err) {
			diag_error(env->diag, a->span, "cannot read the USDT "
				   "probes of %s: %s", path, strerror(-err));
			return -1;
		}
	}
	/* bpftrace keeps its matches in a set, sorted by name, and
	 * attaches them in reverse: the same order here makes the first
	 * event of an already running process the one bpftrace sees */
	if (*n > before)
		qsort(*out + before, *n - before, sizeof(**out), cmp_target);
	if (*n == before)
		return probe_missing(env, a);
	return 0;
}

/* -l 'usdt:FILE[:[PROVIDER:]NAME]', FILE a wildcard or, with -p, any of
 * the process's files. */
struct list_ctx {
	const char *rest;
	FILE *out;
};

static int list_file(const char *path, void *ctx)
{
	struct list_ctx *l = ctx;
	struct elf_syms *es;
	if (elfsym_load(path, &es))
		return 0;
	struct usdt_probes up;
	int err = usdt_load(path, es, &up);
	elfsym_free(es);
	if (err)
		return 0;
	const char *colon = strchr(l->rest, ':');
	for (uint32_t i = 0; i < up.n; i++) {
		const struct usdt_probe *u = &up.probes[i];
		char full[512];
		snprintf(full, sizeof(full), "%s:%s", u->provider, u->name);
		/* one site per name, as bpftrace lists them */
		bool seen = false;
		for (uint32_t k = 0; k < i && !seen; k++)
			seen = !strcmp(up.probes[k].provider, u->provider) &&
			       !strcmp(up.probes[k].name, u->name);
		if (!seen && glob_match(l->rest, colon ? full : u->name))
			fprintf(l->out, "usdt:%s:%s\n", path, full);
	}
	usdt_free(&up);
	return 0;
}

static int list(const char *pattern, bool verbose, FILE *out)
{
	char file[PATH_MAX];
	struct list_ctx l = { NULL, out };
	if (!probe_user_list_split(pattern, "usdt", file, sizeof(file),
				   &l.rest))
		return 0;
	probe_user_files(probe_list_get_pid(), file, list_file, &l);
	return 0;
}

const struct provider probe_usdt_prov = {
	.not_emittable = "its arguments' locations are compiled in",
	.name = "usdt",
	.aliases = (const char *const[]){ "U", NULL },
	.prog_type = BPF_PROG_TYPE_KPROBE,
	.expand = expand,
	.attach = probe_uprobe_attach,
	.attach_reversed = true,
	.list = list,
};
