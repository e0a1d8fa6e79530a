/* The builtin registry and the provider table: every builtin has both of
 * its hooks and is found by its name; a new probe type is a provider
 * entry and nothing else. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codegen/codegen.h"
#include "lang/builtins.h"
#include "lang/parser.h"
#include "lang/sema.h"
#include "model/compiled.h"
#include "probes/provider.h"
#include "util/arena.h"
#include "util/diag.h"

TEST(every_builtin_has_its_hooks)
{
	for (int id = 0; id < BI__COUNT; id++) {
		const struct builtin_info *b = &builtin_info[id];
		CHECK(b->name && *b->name);
		CHECK(sema_builtin_has_typing(id));
		CHECK(codegen_builtin_has_emitter(id));
		if (b->kind == BUILTIN_KIND_FN) {
			CHECK(builtin_fn_lookup(b->name) == (enum builtin_id)id);
			CHECK(b->max_args == BUILTIN_VARIADIC ||
			      b->min_args <= b->max_args);
		} else {
			char name[32];
			uint32_t n = 0;
			snprintf(name, sizeof(name), "%s%s", b->name,
				 b->kind == BUILTIN_KIND_VARN ? "7" : "");
			CHECK(builtin_var_lookup(name, &n) ==
			      (enum builtin_id)id);
			CHECK(n == (b->kind == BUILTIN_KIND_VARN ? 7u : 0u));
		}
	}
	uint32_t n;
	CHECK(builtin_var_lookup("arg", &n) == BI_NONE);
	CHECK(builtin_var_lookup("arg01", &n) == BI_NONE);
	CHECK(builtin_var_lookup("pidx", &n) == BI_NONE);
	/* a variable is no function (uid() is sema's call of the variable);
	 * pid(MODE) is one of both, as in bpftrace 0.26 */
	CHECK(builtin_fn_lookup("uid") == BI_NONE);
	CHECK(builtin_fn_lookup("pid") == BI_PID_FN);
	CHECK(builtin_fn_lookup("nosuch") == BI_NONE);
}

TEST(provider_aliases_are_theirs)
{
	CHECK_STR(probe_type_canonical("t"), "tracepoint");
	CHECK_STR(probe_type_canonical("kfunc"), "fentry");
	CHECK_STR(probe_type_canonical("kretfunc"), "fexit");
	CHECK_STR(probe_type_canonical("u"), "uprobe");
	CHECK_STR(probe_type_canonical("Begin"), "BEGIN");
	CHECK_STR(probe_type_canonical("U"), "usdt");
	CHECK_STR(probe_type_canonical("it"), "iter");
	CHECK(probe_type_canonical("nosuch") == NULL);
	CHECK_STR(probe_provider("iter")->name, "iter");
	CHECK_STR(probe_provider("bench")->name, "bench");
	CHECK(probe_type_canonical("") == NULL);
	/* every provider's aliases lead back to it */
	const struct provider *p;
	for (size_t i = 0; (p = probe_provider_at(i)); i++) {
		CHECK_STR(probe_type_canonical(p->name), p->name);
		for (const char *const *a = p->aliases; a && *a; a++)
			CHECK_STR(probe_type_canonical(*a), p->name);
	}
}

/* A probe type that exists only in this test: one target whose context
 * has the integer arguments of a u64 array. */
static int toy_expand(struct probe_env *env, const struct attach_point *a,
		      struct probe_target **out, uint32_t *n)
{
	struct probe_target *t = probe_target_add(env->arena, out, n);
	t->prov = probe_provider("toyprobe");
	t->name = a->text;
	t->layout = CTXL_U64_ARRAY;
	t->features = CTX_ARGN;
	t->nargs = 2;
	return 0;
}

static const struct provider toy = {
	.name = "toyprobe",
	.aliases = (const char *const[]){ "toy", NULL },
	.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT,
	.expand = toy_expand,
};

static struct arena a;

/* parse -> expand -> sema -> codegen of text; 0 or the error count. The
 * arena lives until the next call (c points into it). */
static int compile(const char *text, struct compiled *c, char **errs)
{
	arena_release(&a);
	arena_init(&a);
	size_t len = 0;
	FILE *ef = open_memstream(errs, &len);
	struct diag d;
	diag_init(&d, ef);
	struct src_file f = { "stdin", text, (uint32_t)strlen(text) };
	struct ast_program *prog = parse_program(&a, &d, &f);
	int rc = d.nerrors;
	if (!rc) {
		struct sema_probe *sp = arena_alloc(&a, sizeof(*sp) *
							   (prog->nprobes + 1));
		struct probe_env env = { .arena = &a, .diag = &d };
		for (uint32_t i = 0; i < prog->nprobes; i++)
			for (uint32_t k = 0; k < prog->probes[i].nattach; k++)
				probe_expand(&env, &prog->probes[i].attach[k],
					     &sp[i].targets, &sp[i].ntargets);
		struct sema_opts so = { 0 };
		struct sema_result sr;
		struct codegen_opts co = { 0 };
		if (!d.nerrors && sema_check(&a, &d, prog, sp, &so, &sr) == 0)
			codegen(&a, &d, prog, sp, &sr, &co, c);
		rc = d.nerrors;
	}
	fclose(ef);
	return rc;
}

TEST(a_new_probe_type_is_one_provider)
{
	char *errs = NULL;
	struct compiled c;
	memset(&c, 0, sizeof(c));
	/* unknown before it is registered */
	CHECK(compile("toy:x { @ = count(); }", &c, &errs) == 1);
	CHECK(errs && strstr(errs, "unknown probe type 'toy'"));
	free(errs);
	CHECK(probe_register(&toy) == 0);
	CHECK(probe_register(&toy) == -EEXIST);
	memset(&c, 0, sizeof(c));
	CHECK(compile("toy:x { @[arg1] = sum(arg0); }", &c, &errs) == 0);
	CHECK(c.nprogs == 1 && c.progs[0].code.ninsns > 0);
	CHECK(c.nprogs == 1 && c.progs[0].type == BPF_PROG_TYPE_RAW_TRACEPOINT);
	CHECK(c.nprogs == 1 && !c.progs[0].is_begin && !c.progs[0].is_end);
	codegen_free(&c);
	free(errs);
	/* and sema holds it to the context it declares */
	memset(&c, 0, sizeof(c));
	CHECK(compile("toyprobe:x { @ = retval; }", &c, &errs) == 1);
	CHECK(errs && strstr(errs, "retval is not available in toyprobe"));
	free(errs);
	arena_release(&a);
}

int main(void)
{
	RUN(every_builtin_has_its_hooks);
	RUN(provider_aliases_are_theirs);
	RUN(a_new_probe_type_is_one_provider);
	return check_done();
}
