/*
 * The front end as src/main.c's compile() runs it, for the fuzz targets
 * that take a script (fuzz_frontend) or compile one for its types
 * (fuzz_printers): parse ($1.. given) -> imports -> the config block ->
 * bpftrace macros -> #include and C macros -> probe expansion -> sema.
 *
 * The pipeline exists only inside main.c (its static compile() and
 * expand_probes()), so it is mirrored here, in the same order, with the
 * library calls main.c makes; --probe-filter is left out. When it moves
 * into a library function, call that instead.
 */
#ifndef SONDE_FUZZ_PIPELINE_H
#define SONDE_FUZZ_PIPELINE_H

#include "lang/ast.h"
#include "lang/builtins.h"
#include "lang/cmacro.h"
#include "lang/config.h"
#include "lang/import.h"
#include "lang/include.h"
#include "lang/macro.h"
#include "lang/parser.h"
#include "lang/sema.h"
#include "model/limits.h"
#include "probes/provider.h"
#include "util/arena.h"
#include "util/diag.h"

/* What a script's $1, $2 and --name=value see, as if given after it. */
static char *fuzz_params[] = { (char *)"1", (char *)"two", (char *)"-3" };
static char *fuzz_named[] = { (char *)"verbose", (char *)"count=5" };

/* main.c's expand_probes() without --probe-filter: a probe none of
 * whose attach points exists here is left out when missing probes are
 * only warned about (e == 1). */
static int fuzz_expand(struct arena *a, struct diag *d,
		       struct ast_program *prog, struct sema_probe **out)
{
	struct sema_probe *sp = arena_alloc(a, sizeof(*sp) *
						       (prog->nprobes + 1));
	struct probe_env env = { .arena = a, .diag = d, .params = fuzz_params,
				 .nparams = 3, .no_attach = true };
	int rc = 0;
	uint32_t kept = 0;
	for (uint32_t i = 0; i < prog->nprobes; i++) {
		struct ast_probe p = prog->probes[i];
		env.want_args = ast_probe_uses_builtin(&p, BI_ARGS);
		int e = probe_expand_probe(&env, p.attach, p.nattach,
					   &sp[kept].targets,
					   &sp[kept].ntargets);
		if (e < 0)
			rc = -1;
		if (e == 1)
			continue;
		prog->probes[kept++] = p;
	}
	prog->nprobes = kept;
	*out = sp;
	return rc;
}

/* The program sema accepted, its probes and sema's result, or NULL
 * after errors (reported to d). Everything lives in a. */
static struct ast_program *fuzz_front_end(struct arena *a, struct diag *d,
					  const struct src_file *file,
					  struct sema_probe **sp,
					  struct sema_result *sr)
{
	struct ast_program *prog = parse_program_params(
		a, d, file, (const char *const *)fuzz_params, 3);
	if (!prog)
		abort(); /* never NULL */
	struct include_opts io = { NULL, 0, NULL, 0, limits.kernel_source };
	struct sema_opts so = { fuzz_params, 3, true, 0, fuzz_named, 2 };
	if (!d->nerrors && import_resolve(a, d, prog) == 0 &&
	    config_apply(d, prog->config) == 0 &&
	    macro_expand(a, d, prog) == 0 &&
	    include_expand(a, d, prog, &io) == 0 &&
	    cmacro_expand(a, d, prog) == 0 &&
	    fuzz_expand(a, d, prog, sp) == 0 &&
	    sema_check(a, d, prog, *sp, &so, sr) == 0 && !d->nerrors)
		return prog;
	return NULL;
}

#endif
