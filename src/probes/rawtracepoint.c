/* rawtracepoint:NAME and rawtracepoint:MODULE:NAME (alias rt). The context
 * is the tracepoint's arguments as a u64 array: arg0..argN, and `args`
 * typed from the btf_trace_NAME prototype.
 *
 * The program is a plain raw_tp one. A tp_btf program costs the same per
 * event (both run from bpf_trace_run), but there the verifier types a
 * pointer argument as a kernel pointer and refuses arithmetic on it
 * ("arg1 * 2", "arg0 & 0xff": both tried, both rejected), which bpftrace
 * scripts do; and sonde reads through pointers with probe_read anyway, so
 * tp_btf's direct dereference would buy nothing. tp_btf is the fallback
 * for kernels that have it but no raw_tp, and the program of a probe that
 * calls socket_cookie(), whose helper takes only a BTF-typed socket (as
 * bpftrace 0.26, whose rawtracepoint programs are all tp_btf). */
#include <bpf/bpf.h>
#include <errno.h>
#include <string.h>

#include "kernel/btf.h"
#include "kernel/features.h"
#include "kernel/glob.h"
#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"

/* this file's provider, defined at its end */
extern const struct provider probe_rawtracepoint_prov;

/* The kernel's limit on raw tracepoint arguments (MAX_BPF_FUNC_ARGS). */
#define MAX_ARGS 12

struct add_ctx {
	struct probe_env *env;
	struct probe_target **out;
	uint32_t *n;
};

/* The probe's name as `probe` prints it: bpftrace 0.17 has no module part;
 * a module's tracepoint keeps it so that it stays unambiguous. f NULL:
 * no BTF, so untyped arg0..arg11, as in bpftrace 0.17. */
static void add(const struct kbtf_func *f, const char *name, void *ctx_)
{
	struct add_ctx *c = ctx_;
	struct arena *a = c->env->arena;
	struct probe_target *t = probe_target_add(a, c->out, c->n);
	t->prov = &probe_rawtracepoint_prov;
	t->name = probe_btf_name(a, "rawtracepoint", f ? f->module : NULL,
				 name);
	t->u.raw.name = arena_strdup(a, name);
	t->layout = CTXL_U64_ARRAY;
	t->features = CTX_ARGN;
	t->nargs = MAX_ARGS;
	if (!f)
		return;
	t->nargs = probe_btf_nslots(f);
	t->args = probe_btf_args_type(
		a, f, arena_printf(a, "struct rawtracepoint_%s_args", name),
		false);
	t->features |= CTX_ARGS;
	if (feat_has(FEAT_TP_BTF)) {
		t->u.raw.tp_btf_id = f->btf_id;
		t->u.raw.tp_btf_obj_fd = f->btf_obj_fd;
	}
	if (!feat_has(FEAT_RAW_TP) && feat_has(FEAT_TP_BTF)) {
		t->prog_type = BPF_PROG_TYPE_TRACING;
		t->attach_type = BPF_TRACE_RAW_TP;
		t->btf_id = f->btf_id;
		t->btf_obj_fd = f->btf_obj_fd;
	}
}

static void add_btf(const struct kbtf_func *f, void *ctx)
{
	add(f, f->name, ctx);
}

static int expand(struct probe_env *env, const struct attach_point *a,
		  struct probe_target **out, uint32_t *n)
{
	if (a->nparts < 1 || a->nparts > 2 || !a->parts[a->nparts - 1][0]) {
		diag_error(env->diag, a->span, "rawtracepoint probe type "
			   "requires 1 or 2 arguments (MODULE:NAME)");
		return -1;
	}
	const char *name = a->parts[a->nparts - 1];
	const char *module = a->nparts == 2 ? a->parts[0] : NULL;
	struct add_ctx c = { env, out, n };
	if (kbtf_load() < 0) {
		if (glob_has_wildcard(name)) {
			diag_error(env->diag, a->span, "rawtracepoint "
				   "wildcards need kernel BTF, which this "
				   "kernel lacks");
			return -1;
		}
		add(NULL, name, &c);
		return 0;
	}
	int r = probe_btf_each(env->arena, module, name, true, add_btf, &c);
	if (r < 0) {
		diag_error(env->diag, a->span, "cannot read raw tracepoint "
			   "%s: %s", name, strerror(-r));
		return -1;
	}
	/* Without a module the name is looked for in every one, as a
	 * wildcard is (bpftrace 0.26: "*:NAME"): none is an empty probe. */
	if (r == 0 && module)
		return probe_missing(env, a);
	return 0;
}

bool probe_rawtp_as_tp_btf(struct probe_target *t)
{
	if (t->prov != &probe_rawtracepoint_prov || !t->u.raw.tp_btf_id)
		return false;
	t->prog_type = BPF_PROG_TYPE_TRACING;
	t->attach_type = BPF_TRACE_RAW_TP;
	t->btf_id = t->u.raw.tp_btf_id;
	t->btf_obj_fd = t->u.raw.tp_btf_obj_fd;
	return true;
}

int probe_attach_raw_tp(const struct probe_target *t, int prog_fd,
			struct probe_attachment *att)
{
	/* tp_btf, fentry and fexit programs know their target from the BTF
	 * id they were loaded with. */
	int fd = bpf_raw_tracepoint_open(t->prog_type ? NULL : t->u.raw.name, prog_fd);
	if (fd < 0)
		return -errno;
	return probe_att_push(att, fd);
}

static int list(const char *pattern, bool verbose, FILE *out)
{
	return probe_btf_list("rawtracepoint", true, false, pattern, verbose,
			      out);
}

const struct provider probe_rawtracepoint_prov = {
	.pid_in_program = true,
	.name = "rawtracepoint",
	.aliases = (const char *const[]){ "rt", NULL },
	.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT,
	.expand = expand,
	.per_target_program = true,
	.attach = probe_attach_raw_tp,
	.list = list,
};
