/* The front end's passes, in order (frontend.h). */
#include "driver/frontend.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "backend/disasm.h"
#include "codegen/codegen.h"
#include "lang/builtins.h"
#include "lang/cmacro.h"
#include "lang/comptime.h"
#include "lang/config.h"
#include "lang/import.h"
#include "lang/include.h"
#include "lang/macro.h"
#include "lang/namedopt.h"
#include "lang/parser.h"
#include "model/limits.h"
#include "probes/provider.h"
#include "runtime/value_fmt.h"
#include "util/strbuf.h"

/* What the passes hand on to each other. */
struct fe {
	struct job *j;
	const struct options *o;
	const struct src_file *file;
	struct diag *diag;
	struct ast_program *prog;
	struct sema_probe *probes;
	struct sema_opts sopts;
	struct sema_result sres;
};

/* A pass returns 0 to go on, 1 to stop with success (--dump ast), -1
 * after errors. */
typedef int (*fe_pass_fn)(struct fe *f);

uint64_t frontend_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int pass_parse(struct fe *f)
{
	f->prog = parse_program_params(&f->j->arena, f->diag, f->file,
				       (const char *const *)f->o->params,
				       (uint32_t)f->o->nparams);
	return f->diag->nerrors ? -1 : 0;
}

static int pass_imports(struct fe *f)
{
	return import_resolve(&f->j->arena, f->diag, f->prog) < 0 ? -1 : 0;
}

/* The config block sets the limits that the printers read too. */
static int pass_config(struct fe *f)
{
	if (config_apply(f->diag, f->prog->config) < 0)
		return -1;
	vfmt_set_str_trailer(limits.str_trunc_trailer);
	vfmt_set_debug_info(!limits.no_debug_info);
	return 0;
}

static int pass_macros(struct fe *f)
{
	return macro_expand(&f->j->arena, f->diag, f->prog) < 0 ? -1 : 0;
}

/* --dump ast / -d ast: the tree after macros, before C and probes. */
static int pass_dump_ast(struct fe *f)
{
	const struct options *o = f->o;
	if (!((o->dump | o->debug) & DUMP_AST))
		return 0;
	struct strbuf sb = STRBUF_INIT;
	ast_dump(f->prog, &sb);
	fputs(sb_str(&sb), (o->dump & DUMP_AST) ? stdout : stderr);
	sb_free(&sb);
	return o->dump == DUMP_AST ? 1 : 0;
}

static int pass_c(struct fe *f)
{
	const struct options *o = f->o;
	struct include_opts iopts = { o->includes, o->nincludes, o->incdirs,
				      o->nincdirs, limits.kernel_source };
	if (include_expand(&f->j->arena, f->diag, f->prog, &iopts) < 0 ||
	    cmacro_expand(&f->j->arena, f->diag, f->prog) < 0)
		return -1;
	return 0;
}

/* BEGIN and END run whatever --probe-filter says, as bpftrace's. */
static bool filter_exempt(const char *provider)
{
	return !strcasecmp(provider, "BEGIN") || !strcasecmp(provider, "END");
}

/* --probe-filter: whether the probe named name ("interval:ms:200") runs. */
static bool filter_keeps(const struct options *o, const char *name)
{
	return !o->probe_filter ||
	       regexec(&o->filter_re, name, 0, NULL, 0) == 0;
}

/* The attach points of a probe --probe-filter lets through before they
 * expand (so that an attach point filtered out is never looked up): by
 * their canonical name, and any with a wildcard, whose targets are
 * filtered once expanded. */
static uint32_t filter_attach_points(struct arena *a,
				     const struct options *o,
				     struct attach_point **att, uint32_t n)
{
	struct attach_point *keep = arena_alloc(a, sizeof(*keep) * (n + 1));
	uint32_t k = 0;
	struct strbuf name = STRBUF_INIT;
	for (uint32_t i = 0; i < n; i++) {
		const struct attach_point *p = &(*att)[i];
		sb_reset(&name);
		sb_append(&name, p->provider);
		for (uint32_t j = 0; j < p->nparts; j++)
			sb_printf(&name, ":%s", p->parts[j]);
		if (filter_exempt(p->provider) || strpbrk(p->text, "*?[") ||
		    filter_keeps(o, sb_str(&name)))
			keep[k++] = *p;
	}
	sb_free(&name);
	*att = keep;
	return k;
}

/* ... and their targets, by name. */
static uint32_t filter_targets(const struct options *o,
			       struct probe_target *t, uint32_t n)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!t[i].prov || filter_exempt(t[i].prov->name) ||
		    filter_keeps(o, t[i].name))
			t[k++] = t[i];
	return k;
}

/* What the probes expand in: the command line's process, child and
 * parameters. */
static struct probe_env probe_env_of(struct fe *f)
{
	const struct options *o = f->o;
	/* -c without running has a stand-in child pid: still a process */
	int cpid = o->cmd ? f->j->child.pid : 0;
	return (struct probe_env){ .arena = &f->j->arena, .diag = f->diag,
				   .params = o->params, .nparams = o->nparams,
				   .pid = (int)o->pid, .cpid = cpid,
				   .cmd = o->cmd,
				   .no_attach = o->verify || o->dump ||
						o->mode == MODE_CODEGEN ||
						o->emit_elf,
				   .unsafe = o->unsafe };
}

/* comptime known before the probes: probe_exist(), and the predicates
 * that drop a probe this kernel lacks before it is looked up. */
static int pass_comptime(struct fe *f)
{
	struct probe_env env = probe_env_of(f);
	/* asked of this kernel as a run would attach (--verify too) */
	env.no_attach = false;
	return comptime_decide(&f->j->arena, f->diag, f->prog, &env) < 0 ?
		       -1 : 0;
}

/* Expands every attach point of every probe into its targets. A probe
 * none of whose attach points exists here is removed from the program
 * when missing probes are only warned about or ignored, and one
 * --probe-filter leaves nothing of too. */
static int pass_probes(struct fe *f)
{
	const struct options *o = f->o;
	struct arena *a = &f->j->arena;
	struct ast_program *prog = f->prog;
	struct sema_probe *sp = arena_alloc(a, sizeof(*sp) *
						       (prog->nprobes + 1));
	struct probe_env env = probe_env_of(f);
	int cpid = env.cpid;
	int rc = 0;
	uint32_t kept = 0;
	for (uint32_t i = 0; i < prog->nprobes; i++) {
		struct ast_probe p = prog->probes[i];
		if (o->probe_filter &&
		    !(p.nattach = filter_attach_points(a, o, &p.attach,
						       p.nattach)))
			continue;
		env.want_args = ast_probe_uses_builtin(&p, BI_ARGS);
		int e = probe_expand_probe(&env, p.attach, p.nattach,
					   &sp[kept].targets,
					   &sp[kept].ntargets);
		if (e < 0)
			rc = -1;
		if (e == 1)
			continue;
		if (e == 0 && o->probe_filter &&
		    !(sp[kept].ntargets = filter_targets(o, sp[kept].targets,
							 sp[kept].ntargets)))
			continue;
		prog->probes[kept++] = p;
	}
	prog->nprobes = kept;
	f->probes = sp;
	f->sopts = (struct sema_opts){
		o->params, o->nparams, o->unsafe,
		f->j->stand_ins ? f->j->stand_in_cpid : cpid, o->named,
		o->nnamed,
		f->j->kernel ? f->j->kernel : &sema_kernel_host,
		o->pid_set || o->cmd || f->j->stand_ins };
	return rc;
}

static int pass_sema(struct fe *f)
{
	if (sema_check(&f->j->arena, f->diag, f->prog, f->probes, &f->sopts,
		       &f->sres) < 0)
		return -1;
	f->j->prog = f->prog;
	f->j->probes = f->probes;
	return 0;
}

/* What sema decided of each comptime, in the tree codegen reads. */
static int pass_comptime_finish(struct fe *f)
{
	return comptime_finish(f->diag, f->prog) < 0 ? -1 : 0;
}

/* --name=value words after the script, against the program's getopt()s. */
static int pass_named(struct fe *f)
{
	return namedopt_check(&f->sres.named, f->o->named, f->o->nnamed,
			      stderr) < 0 ? -1 : 0;
}

static int pass_codegen(struct fe *f)
{
	const struct options *o = f->o;
	struct job *j = f->j;
	struct strbuf ir_text = STRBUF_INIT;
	struct codegen_opts copts = {
		f->sopts.cpid, o->pid,
		j->stand_ins ? j->stand_in_start : frontend_now_ns(),
		((o->dump | o->debug) & DUMP_IR) ? &ir_text : NULL,
		o->helper_check, o->emit_elf != NULL };
	int rc = codegen(&j->arena, f->diag, f->prog, f->probes, &f->sres,
			 &copts, &j->compiled);
	j->have_compiled = true;
	if ((o->dump | o->debug) & DUMP_IR)
		fputs(sb_str(&ir_text), (o->dump & DUMP_IR) ? stdout : stderr);
	sb_free(&ir_text);
	return rc < 0 ? -1 : 0;
}

/* BPFTRACE_MAX_BPF_PROGS, as bpftrace words it (BPFTRACE_MAX_PROBES is
 * checked, located, as the attach points expand). */
static int pass_limits(struct fe *f)
{
	uint32_t n = f->j->compiled.nprogs;
	if (n > limits.max_bpf_progs) {
		fprintf(stderr, "ERROR: Your program is trying to generate more "
			"than %u BPF programs (%u), the limit "
			"BPFTRACE_MAX_BPF_PROGS sets\n", limits.max_bpf_progs,
			n);
		return -1;
	}
	return 0;
}

static int pass_dump_bpf(struct fe *f)
{
	const struct options *o = f->o;
	if (!((o->dump | o->debug) & DUMP_BPF))
		return 0;
	const struct compiled *c = &f->j->compiled;
	struct strbuf sb = STRBUF_INIT;
	for (uint32_t i = 0; i < c->nprogs; i++) {
		sb_printf(&sb, "%s:\n", c->progs[i].name);
		disasm_prog(c->progs[i].code.insns, c->progs[i].code.ninsns,
			    &sb);
	}
	fputs(sb_str(&sb), (o->dump & DUMP_BPF) ? stdout : stderr);
	sb_free(&sb);
	return 0;
}

/* The passes, in order; each stop is the last pass it runs. */
static const struct {
	const char *name;
	fe_pass_fn run;
	int stop; /* the enum fe_stop that ends after it, or -1 */
} passes[] = {
	{ "parse", pass_parse, -1 },
	{ "imports", pass_imports, FE_STOP_IMPORTS },
	{ "config", pass_config, -1 },
	{ "macros", pass_macros, -1 },
	{ "dump-ast", pass_dump_ast, -1 },
	{ "c", pass_c, -1 },
	{ "comptime", pass_comptime, -1 },
	{ "probes", pass_probes, -1 },
	{ "sema", pass_sema, -1 },
	{ "comptime-finish", pass_comptime_finish, -1 },
	{ "named", pass_named, FE_STOP_SEMA },
	{ "codegen", pass_codegen, -1 },
	{ "limits", pass_limits, -1 },
	{ "dump-bpf", pass_dump_bpf, FE_STOP_CODE },
};

int frontend_run(struct job *j, const struct options *o,
		 const struct src_file *file, struct diag *diag,
		 enum fe_stop stop)
{
	struct fe f = { .j = j, .o = o, .file = file, .diag = diag };
	j->reached = -1;
	for (size_t i = 0; i < sizeof(passes) / sizeof(passes[0]); i++) {
		int rc = passes[i].run(&f);
		if (rc)
			return rc < 0 ? 1 : 0;
		if (passes[i].run == pass_named)
			j->reached = FE_STOP_SEMA;
		else if (passes[i].run == pass_codegen)
			j->reached = FE_STOP_CODE;
		if (passes[i].stop == (int)stop)
			break;
	}
	j->prog = f.prog;
	return 0;
}

int frontend_list(const struct options *o, const struct src_file *file)
{
	struct job j;
	memset(&j, 0, sizeof(j));
	arena_init(&j.arena);
	struct diag d;
	diag_init(&d, stderr);
	d.no_warnings = o->no_warnings;
	int rc = frontend_run(&j, o, file, &d, FE_STOP_IMPORTS);
	const struct ast_program *prog = j.prog;
	for (uint32_t i = 0; !rc && i < prog->nprobes; i++) {
		const struct ast_probe *p = &prog->probes[i];
		for (uint32_t k = 0; !rc && k < p->nattach; k++) {
			int err = probe_list_attach(&p->attach[k], o->verbose,
						    stdout);
			if (err < 0) {
				fprintf(stderr, "sonde: cannot list probes: "
						"%s\n", strerror(-err));
				rc = 1;
			}
		}
	}
	job_release(&j);
	return rc;
}

void job_release(struct job *j)
{
	if (j->out && j->out != stdout)
		fclose(j->out);
	if (j->have_compiled)
		codegen_free(&j->compiled);
	if (j->have_child)
		child_release(&j->child);
	arena_release(&j->arena);
	free(j->owned_text);
}
