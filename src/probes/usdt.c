/* usdt:PATH:PROVIDER:NAME and usdt:PATH:NAME (any provider), with
 * wildcards in both. Each probe site is a uprobe at the note's address;
 * a semaphore is handed to the kernel as the uprobe's reference counter,
 * which it raises in every process that maps the file while attached. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
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
	t->binary = path;
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

static int expand(struct probe_env *env, const struct attach_point *a,
		  struct probe_target **out, uint32_t *n)
{
	if (a->nparts < 2 || a->nparts > 3 || !a->parts[0][0] ||
	    !a->parts[1][0] || (a->nparts == 3 && !a->parts[2][0])) {
		diag_error(env->diag, a->span,
			   "usdt probe type requires 2 or 3 arguments");
		return -1;
	}
	const char *path = probe_user_path(env, a, "usdt");
	struct elf_syms *es = path ? probe_user_elf(env, a, "usdt", path) :
				     NULL;
	if (!es)
		return -1;
	struct usdt_probes up;
	int err = usdt_load(path, es, &up);
	elfsym_free(es);
	if (err) {
		diag_error(env->diag, a->span, "cannot read the USDT probes of "
			   "%s: %s", path, strerror(-err));
		return -1;
	}
	const char *prov = a->nparts == 3 ? a->parts[1] : "*";
	const char *name = a->parts[a->nparts - 1];
	uint32_t before = *n;
	for (uint32_t i = 0; i < up.n; i++)
		if (glob_match(prov, up.probes[i].provider) &&
		    glob_match(name, up.probes[i].name))
			add(env, path, &up.probes[i], out, n);
	usdt_free(&up);
	if (*n == before) {
		diag_error(env->diag, a->span, "no USDT probe in %s matches "
			   "%s%s%s", path, a->nparts == 3 ? prov : "",
			   a->nparts == 3 ? ":" : "", name);
		return -1;
	}
	return 0;
}

/* -l 'usdt:PATH[:[PROVIDER:]NAME]' */
static int list(const char *pattern, bool verbose, FILE *out)
{
	char path[PATH_MAX];
	const char *rest;
	struct elf_syms *es = probe_user_list_elf(pattern, "usdt", path,
						  sizeof(path), &rest);
	if (!es)
		return 0;
	struct usdt_probes up;
	int err = usdt_load(path, es, &up);
	elfsym_free(es);
	if (err)
		return 0;
	const char *colon = strchr(rest, ':');
	for (uint32_t i = 0; i < up.n; i++) {
		const struct usdt_probe *u = &up.probes[i];
		char full[512];
		snprintf(full, sizeof(full), "%s:%s", u->provider, u->name);
		/* one site per name, as bpftrace lists them */
		bool seen = false;
		for (uint32_t k = 0; k < i && !seen; k++)
			seen = !strcmp(up.probes[k].provider, u->provider) &&
			       !strcmp(up.probes[k].name, u->name);
		if (!seen && glob_match(rest, colon ? full : u->name))
			fprintf(out, "usdt:%s:%s\n", path, full);
	}
	usdt_free(&up);
	return 0;
}

const struct provider probe_usdt_prov = {
	.name = "usdt",
	.aliases = (const char *const[]){ "U", NULL },
	.prog_type = BPF_PROG_TYPE_KPROBE,
	.expand = expand,
	.attach = probe_uprobe_attach,
	.list = list,
};
