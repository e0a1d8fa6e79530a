/* uprobe:PATH:FUNC, uprobe:PATH:FUNC+OFFSET, uprobe:PATH:ADDRESS and
 * uretprobe:PATH:FUNC, with wildcards over FUNC. PATH may name a library
 * or program instead ("libc", "bash"). Functions come from the ELF symbol
 * tables; the kernel wants a file offset, which the load segments give. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/elfsym.h"
#include "kernel/glob.h"
#include "kernel/perf.h"
#include "kernel/regs.h"
#include "kernel/usrpath.h"
#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"

const char *probe_user_path(struct probe_env *env, const struct attach_point *a,
			    const char *kind)
{
	char path[PATH_MAX];
	const char *target = a->parts[0];
	int err = usrpath_resolve(target, env->pid, path, sizeof(path));
	if (err == -ENAMETOOLONG) {
		diag_error(env->diag, a->span, "%s target path is too long",
			   kind);
		return NULL;
	}
	if (err || access(path, R_OK)) {
		diag_error(env->diag, a->span, "%s target file '%s' does not "
			   "exist or is not executable", kind, target);
		return NULL;
	}
	return arena_strdup(env->arena, path);
}

struct elf_syms *probe_user_elf(struct probe_env *env,
				const struct attach_point *a, const char *kind,
				const char *path)
{
	struct elf_syms *es;
	int err = elfsym_load(path, &es);
	if (err == -ENOEXEC)
		diag_error(env->diag, a->span, "%s target file '%s' is not an "
			   "ELF file", kind, path);
	else if (err)
		diag_error(env->diag, a->span, "cannot read %s: %s", path,
			   strerror(-err));
	return err ? NULL : es;
}

static void add(struct probe_env *env, const struct attach_point *a,
		const char *path, const char *func, uint64_t off,
		const char *spec, struct probe_target **out, uint32_t *n)
{
	bool ret = !strcmp(a->provider, "uretprobe");
	struct probe_target *t = probe_target_add(env->arena, out, n);
	t->prov = ret ? &probe_uretprobe_prov : &probe_uprobe_prov;
	t->name = arena_printf(env->arena, "%s:%s:%s", a->provider, path,
			       spec);
	t->binary = path;
	t->func = func ? arena_strdup(env->arena, func) : NULL;
	t->u.user.offset = off;
	t->u.user.retprobe = ret;
	t->pid = env->pid; /* not the -c child: bpftrace traces all there */
	t->layout = CTXL_PT_REGS;
	t->features = CTX_REGS | CTX_USER | (t->func ? CTX_FUNC : 0) |
		      (ret ? CTX_RETVAL : CTX_ARGN);
	t->nargs = ret ? 0 : regs_nargs();
}

/* The file offset of vaddr, reported as an error when no segment holds
 * it (a symbol of a section that is not loaded). */
static int file_off(struct probe_env *env, const struct attach_point *a,
		    const struct elf_syms *es, uint64_t vaddr, uint64_t *off)
{
	if (elfsym_vaddr_to_off(es, vaddr, off) == 0)
		return 0;
	diag_error(env->diag, a->span, "address 0x%llx is not in a loaded "
		   "segment of %s", (unsigned long long)vaddr, es->path);
	return -1;
}

static int expand_es(struct probe_env *env, const struct attach_point *a,
		     const char *path, const struct elf_syms *es,
		     struct probe_target **out, uint32_t *n)
{
	const char *spec = a->parts[1];
	bool ret = !strcmp(a->provider, "uretprobe");
	uint64_t off;
	if (spec[0] >= '0' && spec[0] <= '9') {
		char *end;
		uint64_t vaddr = strtoull(spec, &end, 0);
		if (*end) {
			diag_error(env->diag, a->span, "bad address '%s'",
				   spec);
			return -1;
		}
		if (file_off(env, a, es, vaddr, &off))
			return -1;
		const struct elf_sym *s = elfsym_lookup(es, vaddr, NULL);
		/* bpftrace names address probes in decimal */
		add(env, a, path, s ? s->name : NULL, off,
		    arena_printf(env->arena, "%llu", (unsigned long long)vaddr),
		    out, n);
		return 0;
	}
	if (glob_has_wildcard(spec)) {
		uint32_t before = *n;
		bool *first = elfsym_first_names(es);
		if (!first) {
			diag_error(env->diag, a->span, "out of memory");
			return -1;
		}
		for (uint32_t i = 0; i < es->nsyms; i++) {
			const struct elf_sym *s = &es->syms[i];
			if (!first[i] || !glob_match(spec, s->name))
				continue; /* one probe per name */
			if (file_off(env, a, es, s->addr, &off)) {
				free(first);
				return -1;
			}
			add(env, a, path, s->name, off, s->name, out, n);
		}
		free(first);
		if (*n == before)
			return probe_missing(env, a, "no function in %s "
					     "matches %s", path, spec);
		return 0;
	}
	char *name = arena_strdup(env->arena, spec);
	char *plus = strchr(name, '+');
	uint64_t delta = 0;
	if (plus) {
		char *end;
		*plus = 0;
		delta = strtoull(plus + 1, &end, 0);
		if (!plus[1] || *end) {
			diag_error(env->diag, a->span, "bad offset '%s'",
				   plus + 1);
			return -1;
		}
		if (ret) {
			diag_error(env->diag, a->span, "uretprobe probes "
				   "cannot take an offset");
			return -1;
		}
	}
	const struct elf_sym *s = elfsym_find(es, name);
	if (!s)
		return probe_missing(env, a, "no function %s in %s", name,
				     path);
	if (s->size && delta >= s->size) {
		diag_error(env->diag, a->span, "offset %llu is outside the "
			   "function %s (its size is %llu)",
			   (unsigned long long)delta, name,
			   (unsigned long long)s->size);
		return -1;
	}
	if (file_off(env, a, es, s->addr + delta, &off))
		return -1;
	add(env, a, path, s->name, off, spec, out, n);
	return 0;
}

static int expand(struct probe_env *env, const struct attach_point *a,
		  struct probe_target **out, uint32_t *n)
{
	if (a->nparts != 2 || !a->parts[0][0] || !a->parts[1][0]) {
		diag_error(env->diag, a->span,
			   "%s probe type requires 2 arguments", a->provider);
		return -1;
	}
	const char *path = probe_user_path(env, a, "uprobe");
	struct elf_syms *es = path ? probe_user_elf(env, a, "uprobe", path) :
				     NULL;
	if (!es)
		return -1;
	int rc = expand_es(env, a, path, es, out, n);
	elfsym_free(es);
	return rc;
}

struct elf_syms *probe_user_list_elf(const char *pattern, const char *kind,
				     char *path, size_t len, const char **rest)
{
	size_t k = strlen(kind);
	if (strncmp(pattern, kind, k) || pattern[k] != ':')
		return NULL;
	const char *p = pattern + k + 1, *colon = strchr(p, ':');
	char target[PATH_MAX];
	size_t n = colon ? (size_t)(colon - p) : strlen(p);
	if (!n || n >= sizeof(target))
		return NULL;
	memcpy(target, p, n);
	target[n] = 0;
	*rest = colon ? colon + 1 : "*";
	struct elf_syms *es;
	if (glob_has_wildcard(target) ||
	    usrpath_resolve(target, 0, path, len) || elfsym_load(path, &es))
		return NULL;
	return es;
}

/* -l 'uprobe:PATH:FUNC_PATTERN' (a pattern needs its file). */
static int list(const char *pattern, bool verbose, FILE *out)
{
	char path[PATH_MAX];
	const char *rest;
	struct elf_syms *es = probe_user_list_elf(pattern, "uprobe", path,
						  sizeof(path), &rest);
	if (!es)
		return 0;
	for (uint32_t i = 0; i < es->nsyms; i++) {
		const struct elf_sym *s = &es->syms[i];
		if (glob_match(rest, s->name) && elfsym_find(es, s->name) == s)
			fprintf(out, "uprobe:%s:%s\n", path, s->name);
	}
	elfsym_free(es);
	return 0;
}

int probe_uprobe_attach(const struct probe_target *t, int prog_fd,
			struct probe_attachment *att)
{
	/* One event for all processes (pid -1) must name a CPU, though the
	 * program runs on every CPU; one for a process follows it on all. */
	int pid = t->pid ? t->pid : -1;
	return probe_attach_perf(perf_open_uprobe(t->binary, t->u.user.offset,
						  t->u.user.retprobe,
						  t->u.user.ref_ctr, pid,
						  pid > 0 ? -1 : 0),
				 prog_fd, att);
}

const struct provider probe_uprobe_prov = {
	.name = "uprobe",
	.aliases = (const char *const[]){ "u", NULL },
	.prog_type = BPF_PROG_TYPE_KPROBE,
	.expand = expand,
	.attach = probe_uprobe_attach,
	.list = list,
};

const struct provider probe_uretprobe_prov = {
	.name = "uretprobe",
	.aliases = (const char *const[]){ "ur", NULL },
	.prog_type = BPF_PROG_TYPE_KPROBE,
	.expand = expand,
	.attach = probe_uprobe_attach,
};
