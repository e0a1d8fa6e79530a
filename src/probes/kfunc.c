/* fentry:[MODULE:]FUNC (aliases f, kfunc) and fexit (fr, kretfunc), as
 * bpftrace 0.26 names them (kfunc and kretfunc were their old names):
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
#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"

/* the providers of this file, defined at its end */
extern const struct provider probe_kfunc_prov, probe_kretfunc_prov;

static bool is_return(const char *provider)
{
	return !strcmp(provider, "fexit") || !strcmp(provider, "kretprobe");
}

struct add_ctx {
	struct probe_env *env;
	const struct attach_point *a;
	struct probe_target **out;
	uint32_t *n;
};

static void add(const struct kbtf_func *f, void *ctx_)
{
	struct add_ctx *c = ctx_;
	struct arena *a = c->env->arena;
	const char *kind = c->a->provider;
	bool ret = is_return(kind);
	bool kprobe = strstr(kind, "probe") != NULL;
	struct probe_target *t = probe_target_add(a, c->out, c->n);
	t->prov = ret ? &probe_kretfunc_prov : &probe_kfunc_prov;
	/* bpftrace 0.26 names them fentry:vmlinux:FUNC, fexit:MODULE:FUNC;
	 * a kprobe standing in keeps the kprobe's name */
	t->name = kprobe ? probe_btf_name(a, kind, NULL, f->name) :
		  probe_btf_name(a, ret ? "fexit" : "fentry",
				 f->module ? f->module : "vmlinux", f->name);
	t->u.raw.name = f->name;
	t->u.raw.module = f->module;
	t->layout = CTXL_U64_ARRAY;
	t->nargs = probe_btf_nslots(f);
	t->features = CTX_KERNEL | CTX_ARGN | CTX_FUNC |
		      (kprobe ? 0 : CTX_ARGS) |
		      (ret ? CTX_RETVAL : 0);
	t->args = probe_btf_args_type(
		a, f, arena_printf(a, "struct %s_%s_args", kind, f->name),
		false);
	t->retval = ret && !kprobe ? f->ret : NULL;
	t->prog_type = BPF_PROG_TYPE_TRACING;
	t->attach_type = ret ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY;
	t->btf_id = f->btf_id;
	t->btf_obj_fd = f->btf_obj_fd;
	/* `func` from bpf_get_func_ip (Linux 5.15), else the name: each
	 * fentry program has one target, so the name is known here */
	if (!feat_has(FEAT_GET_FUNC_IP))
		t->func = f->name;
}

static int expand(struct probe_env *env, const struct attach_point *a,
		  struct probe_target **out, uint32_t *n)
{
	const char *kind = a->provider;
	/* bpftrace 0.26's words; its fentry:bpf:[ID:]PROG variant attaches
	 * to a running BPF program */
	if (a->nparts >= 2 && !strcmp(a->parts[0], "bpf")) {
		diag_error(env->diag, a->span, "%s:bpf probes (on BPF programs) "
			   "are not supported yet", kind);
		return -1;
	}
	if (a->nparts == 3) {
		diag_error(env->diag, a->span, "Only the 'bpf' variant of this "
			   "probe supports 4 arguments");
		return -1;
	}
	if (a->nparts < 1 || a->nparts > 3) {
		diag_error(env->diag, a->span, "%s probe type requires 1 or 3 "
			   "arguments, found %u", kind, a->nparts);
		return -1;
	}
	if (!a->parts[a->nparts - 1][0]) {
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
	struct add_ctx c = { env, a, out, n };
	int r = probe_btf_each(env->arena, module, name, false, add, &c);
	if (r < 0) {
		diag_error(env->diag, a->span, "cannot read the BTF of %s: %s",
			   name, strerror(-r));
		return -1;
	}
	if (r == 0)
		return probe_missing(env, a);
	/* Checked after the lookup so that --mode codegen still finds
	 * typing errors on kernels that refuse fentry. */
	if (probe_refuse(env, a, FEAT_FENTRY, feat_has(FEAT_KPROBE) ?
				 (is_return(kind) ? "kretprobe:FUNCTION" :
						    "kprobe:FUNCTION") :
				 "a tracepoint or rawtracepoint"))
		return -1;
	return 0;
}

/* As bpftrace, fentry and fexit functions are listed only where they can
 * be attached, under their 0.26 names; fexit only when asked for by name
 * (a wildcard type lists bpftrace's kernel list, without return probes). */
static int list(const char *pattern, bool verbose, FILE *out)
{
	if (!feat_has(FEAT_FENTRY))
		return -EOPNOTSUPP;
	return probe_btf_list("fentry", false, false, pattern, verbose, out);
}

static int list_ret(const char *pattern, bool verbose, FILE *out)
{
	if (!feat_has(FEAT_FENTRY))
		return -EOPNOTSUPP;
	return probe_btf_list("fexit", false, true, pattern, verbose, out);
}

const struct provider probe_kfunc_prov = {
	.pid_in_program = true,
	.not_emittable = "it cannot be attached or tested on the "
			 "kernels sonde is tried on",
	.name = "fentry",
	.aliases = (const char *const[]){ "f", "kfunc", NULL },
	.prog_type = BPF_PROG_TYPE_TRACING,
	.expand = expand,
	.per_target_program = true,
	.attach = probe_attach_raw_tp,
	.attach_reversed = true,
	.list = list,
};

const struct provider probe_kretfunc_prov = {
	.pid_in_program = true,
	.not_emittable = "it cannot be attached or tested on the "
			 "kernels sonde is tried on",
	.name = "fexit",
	.list = list_ret,
	.aliases = (const char *const[]){ "fr", "kretfunc", NULL },
	.prog_type = BPF_PROG_TYPE_TRACING,
	.expand = expand,
	.per_target_program = true,
	.attach = probe_attach_raw_tp,
	/* the trampoline runs fexit programs last attached first too */
	.attach_reversed = true,
};
