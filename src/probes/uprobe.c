/* uprobe:PATH:FUNC, uprobe:PATH:FUNC+OFFSET, uprobe:PATH:ADDRESS and
 * uretprobe:PATH:FUNC, with wildcards over FUNC. PATH may name a library
 * or program instead ("libc", "bash"). Functions come from the ELF symbol
 * tables; the kernel wants a file offset, which the load segments give. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/elfsym.h"
#include "kernel/features.h"
#include "kernel/glob.h"
#include "kernel/perf.h"
#include "kernel/regs.h"
#include "kernel/umulti.h"
#include "kernel/usrpath.h"
#include "kernel/x86insn.h"
#include "probes/impl.h"
#include "util/arena.h"
#include "util/demangle.h"
#include "util/diag.h"
#include "util/strbuf.h"

/* the providers of this file, defined at its end */
extern const struct provider probe_uprobe_prov, probe_uretprobe_prov;

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
	const char *p = err ? NULL : arena_strdup(env->arena, path);
	if (!p || access(probe_user_binary(env, p), R_OK)) {
		diag_error(env->diag, a->span, "%s target file '%s' does not "
			   "exist or is not executable", kind, target);
		return NULL;
	}
	return p;
}

struct elf_syms *probe_user_elf(struct probe_env *env,
				const struct attach_point *a, const char *kind,
				const char *path)
{
	struct elf_syms *es;
	int err = elfsym_load(path, &es);
	if (err == -ENOEXEC)
		diag_error(env->diag, a->span, "%s target file '%s' is not an "
			   "ELF file%s", kind, path,
			   strcmp(kind, "uprobe") ? "" :
			   " (--unsafe probes it at an address, its offset)");
	else if (err)
		diag_error(env->diag, a->span, "cannot read %s: %s", path,
			   strerror(-err));
	if (err)
		return NULL;
	return probe_user_elf_native(env, a, kind, path, es);
}

struct elf_syms *probe_user_elf_native(struct probe_env *env,
				       const struct attach_point *a,
				       const char *kind, const char *path,
				       struct elf_syms *es)
{
	if (elfsym_native(es))
		return es;
	const char *m = elfsym_machine_name(es);
	char num[32];
	snprintf(num, sizeof(num), "ELF machine %u", es->machine);
	diag_error(env->diag, a->span, "%s target file '%s' is a binary of "
		   "another machine (%s): this sonde traces %s", kind, path,
		   m ? m : num, arch_name(arch_build()));
	elfsym_free(es);
	return NULL;
}

void probe_uprobe_add(struct probe_env *env, const struct attach_point *a,
		      const struct uprobe_file *f, const char *func,
		      uint64_t off, uint64_t vaddr, const char *spec,
		      struct probe_target **out, uint32_t *n)
{
	bool ret = !strcmp(a->provider, "uretprobe");
	struct probe_target *t = probe_target_add(env->arena, out, n);
	t->prov = ret ? &probe_uretprobe_prov : &probe_uprobe_prov;
	t->name = arena_printf(env->arena, "%s:%s%s%s", a->provider, f->path,
			       spec[0] == '@' ? "" : ":", spec);
	t->binary = probe_user_binary(env, f->file);
	off += f->base;
	/* `func` prints C++ names demangled, as ustack and usym do */
	char *dm = func ? demangle_for_output(func) : NULL;
	t->func = func ? arena_strdup(env->arena, dm ? dm : func) : NULL;
	free(dm);
	t->u.user.offset = off;
	t->u.user.retprobe = ret;
	t->pid = env->pid; /* not the -c child: bpftrace traces all there */
	t->layout = CTXL_PT_REGS;
	t->features = CTX_REGS | CTX_USER | (t->func ? CTX_FUNC : 0) |
		      (ret ? CTX_RETVAL : CTX_ARGN);
	t->nargs = ret ? 0 : regs_nargs();
	probe_uprobe_args(env, t, vaddr);
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

/* The demangled name d past its return type, or NULL when it has none: a
 * space outside <> before the parameter list ends the return type. */
static const char *skip_return_type(const char *d)
{
	const char *space = NULL;
	int depth = 0;
	for (const char *p = d; *p && !(*p == '(' && !depth); p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>')
			depth--;
		else if (*p == ' ' && !depth)
			space = p;
	}
	return space && space > d ? space + 1 : NULL;
}

/* Whether the C++ symbol sym, demangled, is what spec names: with a
 * wildcard, the glob matches the whole demangled name; without, spec is
 * the whole name ("ns::Klass::method(int)") or the name without its
 * parameters ("ns::Klass::method": every overload). */
static bool cpp_matches(const char *spec, const char *sym, bool wildcard)
{
	char *dm = demangle_cpp(sym);
	if (!dm)
		return false;
	size_t k = strlen(spec);
	bool m = false;
	/* the name as written, then without a template's return type
	 * ("long ns::twice<long>(long)") */
	for (const char *d = dm; d && !m; d = skip_return_type(d))
		m = wildcard ? glob_match(spec, d) :
		    !strncmp(d, spec, k) && (!d[k] || d[k] == '(');
	free(dm);
	return m;
}

/* A C++ name with no wildcard that no symbol has as it is: every symbol
 * it names once demangled (uprobe:BIN:"ns::Klass::method(int)"). */
static int expand_cpp(struct probe_env *env, const struct attach_point *a,
		      const struct uprobe_file *f, const struct elf_syms *es,
		      struct probe_target **out, uint32_t *n, bool many)
{
	uint32_t before = *n;
	uint64_t off;
	for (uint32_t i = 0; i < es->nsyms; i++) {
		const struct elf_sym *s = &es->syms[i];
		if (!cpp_matches(a->parts[1], s->name, false) ||
		    elfsym_find(es, s->name) != s)
			continue;
		if (file_off(env, a, es, s->addr, &off))
			return -1;
		probe_uprobe_add(env, a, f, s->name, off, s->addr, s->name,
				 out, n);
	}
	if (*n == before && !many)
		return probe_missing(env, a);
	return 0;
}

/* many: one of several files a wildcard or -p named, where a function
 * that is missing is no error (the caller reports when none matched). */
int probe_uprobe_expand_file(struct probe_env *env,
			     const struct attach_point *a,
			     const struct uprobe_file *f,
			     const struct elf_syms *es,
			     struct probe_target **out, uint32_t *n, bool many)
{
	const char *path = f->path;
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
		/* bpftrace's check first: an address must be in a
		 * function, whose start is an instruction */
		const struct elf_sym *s = elfsym_lookup(es, vaddr, NULL);
		if (!s)
			return probe_attach_refused(env, a, "Could not "
				"resolve address: %s:0x%llx", path,
				(unsigned long long)vaddr);
		if (file_off(env, a, es, vaddr, &off))
			return -1;
		/* bpftrace names address probes in decimal */
		probe_uprobe_add(env, a, f, s->name, off, vaddr,
				 arena_printf(env->arena, "%llu",
					      (unsigned long long)vaddr),
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
			if (!first[i] || !(glob_match(spec, s->name) ||
					   cpp_matches(spec, s->name, true)))
				continue; /* one probe per name */
			if (file_off(env, a, es, s->addr, &off)) {
				free(first);
				return -1;
			}
			probe_uprobe_add(env, a, f, s->name, off, s->addr,
					 s->name, out, n);
		}
		free(first);
		if (*n == before && !many)
			return probe_missing(env, a);
		return 0;
	}
	if (!elfsym_find(es, spec) && strstr(spec, "::"))
		return expand_cpp(env, a, f, es, out, n, many);
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
	if (!s && many)
		return 0;
	if (!s)
		return probe_missing(env, a);
	/* bpftrace 0.26: with no size there is no telling where its first
	 * instruction ends */
	if (!s->size && !delta && !env->unsafe) {
		return probe_attach_refused(env, a, "Could not determine "
			"boundary for %s (symbol has size 0).\nUse --unsafe to "
			"force attachment. WARNING: This option could lead to "
			"data corruption in the target process.", name);
	}
	if (s->size && delta >= s->size)
		return probe_attach_refused(env, a, "Offset outside the "
			"function bounds ('%s' size is %llu)", name,
			(unsigned long long)s->size);
	if (file_off(env, a, es, s->addr + delta, &off) ||
	    probe_uprobe_check_offset(env, a, f->file, name,
				      f->base + off - delta, delta))
		return -1;
	probe_uprobe_add(env, a, f, s->name, off, s->addr, spec, out, n);
	return 0;
}

/* A wildcard over files, or -p with a wildcard or no file: every file
 * that matches, each as expand_es() of one. */
struct many_ctx {
	struct probe_env *env;
	const struct attach_point *a;
	struct probe_target **out;
	uint32_t *n;
};

static int expand_one_of_many(const char *path, void *ctx)
{
	struct many_ctx *m = ctx;
	struct elf_syms *es;
	if (elfsym_load(path, &es))
		return 0; /* not an ELF file: not one the wildcard meant */
	const char *p = arena_strdup(m->env->arena, path);
	struct uprobe_file f = { p, p, 0 };
	int rc = probe_uprobe_expand_file(m->env, m->a, &f, es, m->out, m->n,
					  true);
	elfsym_free(es);
	return rc;
}

static int expand_many(struct probe_env *env, const struct attach_point *a,
		       struct probe_target **out, uint32_t *n)
{
	struct many_ctx m = { env, a, out, n };
	uint32_t before = *n;
	int rc = probe_user_files(env->pid, a->parts[0], expand_one_of_many,
				  &m);
	if (rc == -1)
		return -1;
	if (*n == before)
		return probe_missing(env, a);
	return 0;
}

/* uprobe:BIN:ns::Klass::* arrives split at every ':'; a C++ name (parts
 * after the binary holding "::") is one function part again. */
static bool cpp_rejoin(struct probe_env *env, const struct attach_point *a,
		       struct attach_point *out)
{
	struct strbuf sb = STRBUF_INIT;
	for (uint32_t i = 1; i < a->nparts; i++)
		sb_printf(&sb, "%s%s", i > 1 ? ":" : "", a->parts[i]);
	bool cpp = strstr(sb_str(&sb), "::") != NULL;
	if (cpp) {
		*out = *a;
		const char **parts = arena_alloc(env->arena, 2 * sizeof(*parts));
		parts[0] = a->parts[0];
		parts[1] = arena_strdup(env->arena, sb_str(&sb));
		out->parts = parts;
		out->nparts = 2;
	}
	sb_free(&sb);
	return cpp;
}

static int expand(struct probe_env *env, const struct attach_point *a,
		  struct probe_target **out, uint32_t *n)
{
	struct attach_point cpp;
	if (a->nparts > 2 && cpp_rejoin(env, a, &cpp))
		a = &cpp;
	if (a->nparts != 2 || !a->parts[1][0] ||
	    (!a->parts[0][0] && env->pid <= 0)) {
		diag_error(env->diag, a->span,
			   "%s probe type requires 2 arguments", a->provider);
		return -1;
	}
	/* a source line, a file in a ZIP archive, a file that is no ELF */
	int rc = probe_uprobe_where(env, a, out, n);
	if (rc)
		return rc < 0 ? -1 : 0;
	if (glob_has_wildcard(a->parts[0]) || !a->parts[0][0])
		return expand_many(env, a, out, n);
	const char *path = probe_user_path(env, a, "uprobe");
	struct elf_syms *es = path ? probe_user_elf(env, a, "uprobe",
						    probe_user_binary(env, path)) :
				     NULL;
	if (!es)
		return -1;
	struct uprobe_file f = { path, path, 0 };
	rc = probe_uprobe_expand_file(env, a, &f, es, out, n, false);
	elfsym_free(es);
	return rc;
}

/* -l 'uprobe:FILE:FUNC_PATTERN' (FILE may be a wildcard; with -p, the
 * process's files). */
struct list_ctx {
	const char *type; /* "uprobe" or "uretprobe" */
	const char *rest;
	FILE *out;
	bool verbose;
};

static int list_file(const char *path, void *ctx)
{
	struct list_ctx *l = ctx;
	struct elf_syms *es;
	if (elfsym_load(path, &es))
		return 0;
	for (uint32_t i = 0; i < es->nsyms; i++) {
		const struct elf_sym *s = &es->syms[i];
		if (!(glob_match(l->rest, s->name) ||
		      cpp_matches(l->rest, s->name,
				  glob_has_wildcard(l->rest))) ||
		    elfsym_find(es, s->name) != s)
			continue;
		fprintf(l->out, "%s:%s:%s\n", l->type, path, s->name);
		if (l->verbose)
			probe_uprobe_list_args(path, s->name, s->addr, l->out);
	}
	elfsym_free(es);
	return 0;
}

static int list_type(const char *type, const char *pattern, bool verbose,
		     FILE *out)
{
	char file[PATH_MAX];
	struct list_ctx l = { type, NULL, out, verbose };
	if (!probe_user_list_split(pattern, type, file, sizeof(file), &l.rest))
		return 0;
	probe_user_files(probe_list_get_pid(), file, list_file, &l);
	return 0;
}

static int list(const char *pattern, bool verbose, FILE *out)
{
	return list_type("uprobe", pattern, verbose, out);
}

/* Only when asked for by name, as bpftrace does: a wildcard type or -p
 * alone lists each function once, as a uprobe. */
static int list_ret(const char *pattern, bool verbose, FILE *out)
{
	static const char name[] = "uretprobe:";
	if (strncmp(pattern, name, sizeof(name) - 1))
		return 0;
	return list_type("uretprobe", pattern, verbose, out);
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

/* One uprobe_multi link for all: their file, process and kind are t[0]'s. */
static int attach_multi(const struct probe_target *t, uint32_t n,
			const uint64_t *cookies, int prog_fd,
			struct probe_attachment *att)
{
	uint64_t *offs = malloc(n * sizeof(*offs));
	if (!offs)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		offs[i] = t[i].u.user.offset;
	int fd = umulti_attach(prog_fd, t->binary, offs, cookies, n,
			       t->u.user.retprobe, t->pid);
	free(offs);
	return fd < 0 ? fd : probe_att_push(att, fd);
}

/* ENOTSUPP (the kernel's 524) for an instruction whose prefix the kernel
 * refuses a uprobe on (pthread_spin_lock's `lock decl`). */
static int refuses(const struct probe_target *t)
{
	if (arch_build() != ARCH_X86_64)
		return 0;
	uint8_t code[16];
	int fd = t->binary ? open(t->binary, O_RDONLY | O_CLOEXEC) : -1;
	ssize_t n = fd < 0 ? -1 : pread(fd, code, sizeof(code),
					(off_t)t->u.user.offset);
	if (fd >= 0)
		close(fd);
	if (n > 0 && x86insn_uprobe_bad_prefix(code, (size_t)n))
		return -524;
	return 0;
}

static bool multi_ok(const struct probe_target *t, uint32_t n)
{
	if (!feat_has(FEAT_UPROBE_MULTI))
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (t[i].prov != t->prov || t[i].pid != t->pid ||
		    t[i].u.user.ref_ctr || !t[i].binary ||
		    strcmp(t[i].binary, t->binary))
			return false;
	return true;
}

const struct provider probe_uprobe_prov = {
	.name = "uprobe",
	.aliases = (const char *const[]){ "u", NULL },
	.prog_type = BPF_PROG_TYPE_KPROBE,
	.expand = expand,
	.attach = probe_uprobe_attach,
	.attach_multi = attach_multi,
	.multi_ok = multi_ok,
	.refuses = refuses,
	.multi_attach_type = UMULTI_ATTACH_TYPE,
	.attach_reversed = true,
	.list = list,
};

const struct provider probe_uretprobe_prov = {
	.name = "uretprobe",
	.aliases = (const char *const[]){ "ur", NULL },
	.prog_type = BPF_PROG_TYPE_KPROBE,
	.expand = expand,
	.attach = probe_uprobe_attach,
	.attach_multi = attach_multi,
	.multi_ok = multi_ok,
	.refuses = refuses,
	.multi_attach_type = UMULTI_ATTACH_TYPE,
	.attach_reversed = true,
	.list = list_ret,
};
