/* kfunc:[MODULE:]FUNC (aliases f, fentry) and kretfunc (fr, fexit):
 * fentry/fexit programs on a kernel function found in BTF. The context is
 * the function's arguments as a u64 array, typed as `args` from its BTF
 * prototype; fexit adds retval, typed by the return type, after them.
 *
 * expand also takes "kprobe"/"kretprobe" attach points, so that kprobes
 * can fall back to fentry on kernels without them: the targets keep the
 * kprobe's name and offer argN (and retval) from the same array. */
#include <errno.h>
#include <string.h>

#include "kernel/btf.h"
#include "kernel/features.h"
#include "kernel/glob.h"
#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"

static bool is_return(const char *provider)
{
	return !strcmp(provider, "kretfunc") || !strcmp(provider, "kretprobe");
}

struct match_ctx {
	struct probe_env *env;
	const struct ast_attach *a;
	const char *module; /* NULL: any */
	struct probe_target **out;
	uint32_t *n;
	int err;
};

static bool module_ok(const char *want, const char *module)
{
	return !want || glob_match(want, module ? module : "vmlinux");
}

static void add(struct match_ctx *m, const struct kbtf_func *f)
{
	struct arena *a = m->env->arena;
	const char *kind = m->a->provider;
	bool ret = is_return(kind);
	bool kprobe = kind[0] == 'k' && kind[1] != 'f' && strstr(kind, "probe");
	struct probe_target *t = probe_target_add(a, m->out, m->n);
	t->prov = ret ? &probe_kretfunc_prov : &probe_kfunc_prov;
	t->name = f->module && !kprobe ?
			  arena_printf(a, "%s:%s:%s", kind, f->module, f->name) :
			  arena_printf(a, "%s:%s", kind, f->name);
	t->a = f->name;
	t->b = f->module;
	t->layout = CTXL_U64_ARRAY;
	t->nargs = probe_btf_nslots(f);
	t->features = CTX_ARGN | CTX_FUNC | (kprobe ? 0 : CTX_ARGS) |
		      (ret ? CTX_RETVAL : 0);
	t->args = probe_btf_args_type(
		a, f, arena_printf(a, "struct %s_%s_args", kind, f->name),
		false);
	t->retval = ret && !kprobe ? f->ret : NULL;
	t->prog_type = BPF_PROG_TYPE_TRACING;
	t->attach_type = ret ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY;
	t->btf_id = f->btf_id;
	t->btf_obj_fd = f->btf_obj_fd;
}

static int add_match(const char *name, const char *module, void *ctx_)
{
	struct match_ctx *m = ctx_;
	if (!module_ok(m->module, module))
		return 0;
	struct kbtf_func f;
	int err = kbtf_func(m->env->arena, name, &f);
	if (err) {
		m->err = err;
		return 1;
	}
	add(m, &f);
	return 0;
}

static int expand(struct probe_env *env, const struct ast_attach *a,
		  struct probe_target **out, uint32_t *n)
{
	const char *kind = a->provider;
	if (a->nparts < 1 || a->nparts > 2 || !a->parts[a->nparts - 1][0]) {
		diag_error(env->diag, a->span, "%s probe type requires 1 or 2 "
			   "arguments ([MODULE:]FUNCTION)", kind);
		return -1;
	}
	const char *name = a->parts[a->nparts - 1];
	const char *module = a->nparts == 2 ? a->parts[0] : NULL;
	if (strchr(name, '+')) {
		diag_error(env->diag, a->span, "%s cannot take an offset into "
			   "a function: fentry attaches at its entry only", kind);
		return -1;
	}
	int err = kbtf_load();
	if (err) {
		diag_error(env->diag, a->span, "%s probes need kernel BTF, "
			   "which cannot be read: %s", kind, strerror(-err));
		return -1;
	}
	uint32_t before = *n;
	struct match_ctx m = { env, a, module, out, n, 0 };
	int r;
	if (glob_has_wildcard(name)) {
		r = kbtf_match_funcs(name, add_match, &m);
	} else {
		struct kbtf_func f;
		r = kbtf_func(env->arena, name, &f);
		if (r == 0 && module_ok(module, f.module))
			add(&m, &f);
	}
	if (r == 1 && m.err)
		r = m.err;
	if (r < 0 && r != -ENOENT) {
		diag_error(env->diag, a->span, "cannot read the BTF of %s: %s",
			   name, strerror(-r));
		return -1;
	}
	if (*n == before) {
		diag_error(env->diag, a->span, "no kernel function %s%s%s in "
			   "BTF", module ? module : "", module ? ":" : "", name);
		return -1;
	}
	/* Checked after the lookup so that --dry-run still finds typing
	 * errors on kernels that refuse fentry. */
	if (!feat_has(FEAT_FENTRY) && !env->no_attach) {
		diag_error(env->diag, a->span, "%s probes cannot run here: "
			   "%s; use %s instead",
			   kind, feat_reason(FEAT_FENTRY),
			   feat_has(FEAT_KPROBE) ?
				   (is_return(kind) ? "kretprobe:FUNCTION" :
						      "kprobe:FUNCTION") :
				   "a tracepoint or rawtracepoint");
		return -1;
	}
	return 0;
}

struct list_ctx {
	struct arena *a;
	const char *pattern;
	bool verbose;
	FILE *out;
};

static int list_one(const char *name, const char *module, void *ctx_)
{
	struct list_ctx *l = ctx_;
	const char *full = module ? arena_printf(l->a, "kfunc:%s:%s", module,
						 name) :
				    arena_printf(l->a, "kfunc:%s", name);
	if (!glob_match(l->pattern, full))
		return 0;
	fprintf(l->out, "%s\n", full);
	return l->verbose ? probe_btf_list_args(l->a, name, false, true,
						  l->out) : 0;
}

/* As bpftrace: kfuncs are listed only where they can be attached. */
static int list(const char *pattern, bool verbose, FILE *out)
{
	if (!feat_has(FEAT_FENTRY))
		return -EOPNOTSUPP;
	struct arena a;
	arena_init(&a);
	struct list_ctx l = { &a, pattern, verbose, out };
	int r = kbtf_match_funcs("*", list_one, &l);
	arena_release(&a);
	return r < 0 ? r : 0;
}

const struct provider probe_kfunc_prov = {
	.name = "kfunc",
	.prog_type = BPF_PROG_TYPE_TRACING,
	.expand = expand,
	.per_target_program = true,
	.attach = probe_attach_raw_tp,
	.list = list,
};

const struct provider probe_kretfunc_prov = {
	.name = "kretfunc",
	.prog_type = BPF_PROG_TYPE_TRACING,
	.expand = expand,
	.per_target_program = true,
	.attach = probe_attach_raw_tp,
};
