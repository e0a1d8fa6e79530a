/*
 * Semantic analysis. The program is walked twice: the first walk, with
 * diagnostics muted, settles the types of maps and variables (strings
 * widen to the longest value stored, as in bpftrace); the second walk
 * reports errors against those final types and annotates the AST.
 *
 * This file runs the walks over the probes. The parts it calls each have
 * one concern: sema_stmt.c (statements), sema_expr.c (the expression
 * walker, which dispatches each kind to its checker in sema_const.c,
 * sema_maps.c, sema_ops.c, sema_cast.c, sema_field.c, sema_stmt.c or
 * sema_builtins.c), the registry's typing rules (sema_builtins.c,
 * sema_stdlib.c, sema_iter.c), and the leaves they all share: the state
 * (sema_state.c) and the type rules (sema_types.c). What sema learns
 * from the machine comes through sema_opts.kernel (sema_kernel.c).
 */
#include "lang/sema.h"

#include <linux/bpf.h>
#include <string.h>

#include "kernel/features.h"
#include "kernel/krelease.h"
#include "lang/ctypes.h"
#include "lang/sema_expr.h"
#include "lang/sema_maps.h"
#include "lang/sema_state.h"
#include "lang/sema_stmt.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/vec.h"

/* Whether a body typed for target a is typed the same for target b. */
static bool same_context(const struct probe_target *a,
			 const struct probe_target *b)
{
	return a->args == b->args && a->layout == b->layout &&
	       a->features == b->features && a->nargs == b->nargs &&
	       a->retval == b->retval && !a->func == !b->func &&
	       a->prov == b->prov;
}

static void check_body(struct sema *s, struct ast_probe *p,
		       const struct probe_target *t)
{
	s->tgt = t;
	scope_reset(&s->scopes);
	for (size_t i = 0; i < s->vars.len; i++)
		if (s->vars.data[i].probe == s->probe)
			s->vars.data[i].assigned = false;
	if (p->pred)
		sema_check_cond(s, p->pred, p->pred_span.file ?
				p->pred_span : p->pred->span);
	sema_check_block(s, &p->body);
	s->annotated[s->probe] = t;
}

static void check_probe(struct sema *s, struct ast_probe *p,
			const struct sema_probe *sp)
{
	/* Each distinct context gets the body checked against it. The AST
	 * keeps the last one's annotations; sema_retarget() puts back those
	 * of the target codegen compiles next. */
	if (!sp->ntargets) {
		check_body(s, p, NULL);
		return;
	}
	for (uint32_t t = 0; t < sp->ntargets; t++)
		if (t == 0 || !same_context(&sp->targets[t],
					    &sp->targets[t - 1]))
			check_body(s, p, &sp->targets[t]);
}

void sema_retarget(const struct sema_result *r, uint32_t probe,
		   const struct probe_target *t)
{
	struct sema *s = r->state;
	const struct probe_target *cur = s->annotated[probe];
	if (cur == t || (cur && t && same_context(cur, t)))
		return;
	/* The types of maps and variables are final: checking again only
	 * rewrites this probe's annotations, and reports nothing new. */
	s->report = &s->muted;
	s->probe = probe;
	check_body(s, &s->prog->probes[probe], t);
	/* the walk's scopes are done with: the state lives on, they not */
	scope_free(&s->scopes);
	vec_free(&s->fors);
}

/* let @m = TYPE(N): the types bpftrace 0.26 takes, by name (its
 * list is sorted, and so is its hint). */
static const struct {
	const char *name;
	uint32_t type;
	bool percpu;
} map_kinds[] = {
	{ "hash", BPF_MAP_TYPE_HASH, false },
	{ "lruhash", BPF_MAP_TYPE_LRU_HASH, false },
	{ "percpuhash", BPF_MAP_TYPE_PERCPU_HASH, true },
	{ "percpulruhash", BPF_MAP_TYPE_LRU_PERCPU_HASH, true },
};

static void check_mapdecls(struct sema *s, struct diag *d)
{
	const struct ast_program *prog = s->prog;
	for (uint32_t i = 0; i < prog->nmapdecls; i++) {
		const struct ast_mapdecl *md = &prog->mapdecls[i];
		int k = -1;
		for (size_t j = 0; j < sizeof(map_kinds) / sizeof(map_kinds[0]);
		     j++)
			if (!strcmp(map_kinds[j].name, md->kind))
				k = (int)j;
		if (k < 0) {
			diag_error(d, md->span, "Invalid bpf map type: %s",
				   md->kind);
			diag_report(d, "HINT", (struct span){ 0 }, "Valid map "
				    "types: hash, lruhash, percpuhash, "
				    "percpulruhash");
			continue;
		}
		for (uint32_t j = 0; j < i; j++)
			if (!strcmp(prog->mapdecls[j].map, md->map))
				diag_error(d, md->span, "Map %s is declared "
					   "more than once", md->map);
		if (md->max_entries < 1 || md->max_entries > UINT32_MAX) {
			diag_error(d, md->span, "the map size must be between 1 "
				   "and %u", UINT32_MAX);
			continue;
		}
		struct sema_map *m = sema_find_map(s, md->map);
		if (!m) {
			diag_warning(d, md->span, "Unused map: %s", md->map);
			continue;
		}
		bool percpu = type_is_aggregation(m->value);
		if (percpu != map_kinds[k].percpu) {
			diag_error(d, m->first_use, "Incompatible map types. Type "
				   "from declaration: %s. Type from value/key "
				   "type: %s", md->kind,
				   percpu ? "percpuhash" : "hash");
			continue;
		}
		if (m->value->kind == TY_HIST || m->value->kind == TY_LHIST) {
			/* their buckets are keys too: N would count them */
			diag_error(d, md->span, "a declared map cannot hold "
				   "hist() or lhist()");
			continue;
		}
		m->decl_type = map_kinds[k].type;
		m->decl_max = (uint32_t)md->max_entries;
		if (m->counted && (m->decl_type == BPF_MAP_TYPE_LRU_HASH ||
				   m->decl_type == BPF_MAP_TYPE_LRU_PERCPU_HASH)) {
			/* len() counts keys as the program inserts and
			 * deletes them: an LRU map evicts some unseen */
			char why[160];
			krelease_needs(why, sizeof(why), "bpf_for_each_map_elem",
				       FEAT_FOR_EACH_MAP);
			diag_error(d, m->len_at, "len() of an LRU map needs %s",
				   why);
		}
	}
}

int sema_check(struct arena *a, struct diag *d, struct ast_program *prog,
	       const struct sema_probe *probes, const struct sema_opts *opts,
	       struct sema_result *out)
{
	struct sema *sp = arena_alloc(a, sizeof(*sp));
	struct sema s;
	memset(&s, 0, sizeof(s));
	s.annotated = arena_alloc(a, sizeof(*s.annotated) *
					     (prog->nprobes + 1));
	s.arena = a;
	s.diag = d;
	s.opts = opts;
	s.kernel = opts->kernel ? opts->kernel : &sema_kernel_none;
	s.walk = sema_walk_expr;
	s.prog = prog;
	s.probes = probes;
	s.muted = *d;
	s.muted.out = NULL;
	s.muted.max_errors = 0;
	s.ct = ctypes_build(a, d, prog);
	for (s.pass = 0; s.pass < 2; s.pass++) {
		s.report = s.pass == 0 ? &s.muted : d;
		/* The muted walk again while a variable widened in it ($b = $a
		 * before $a = 100000 widens $a): the types are final before
		 * the walk that reports and annotates. */
		for (int round = 0; round < 4; round++) {
			size_t n = s.vars.len;
			const struct type **was = arena_alloc(
				a, sizeof(*was) * (n + 1));
			for (size_t i = 0; i < n; i++)
				was[i] = s.vars.data[i].type;
			for (uint32_t i = 0; i < prog->nprobes; i++) {
				s.probe = i;
				check_probe(&s, &prog->probes[i], &probes[i]);
			}
			bool widened = false;
			for (size_t i = 0; i < n; i++)
				widened |= s.vars.data[i].type->size != was[i]->size;
			if (s.pass > 0 || !widened)
				break;
		}
		/* let $x never assigned a typed value: an integer (0) */
		for (size_t i = 0; i < s.vars.len; i++)
			if (s.vars.data[i].type->kind == TY_NONE &&
			    s.vars.data[i].let)
				s.vars.data[i].type = &type_s64;
	}
	for (size_t i = 0; i < s.vars.len; i++) {
		struct var *v = &s.vars.data[i];
		const struct ast_expr *dcl = v->decl;
		if (v->let && !v->assigned_ever && dcl && !d->nerrors)
			diag_warning(d, dcl->span, "Variable %s was never "
				     "assigned to.", v->name);
	}
	scope_free(&s.scopes);
	vec_free(&s.fors);
	for (size_t i = 0; i < s.maps.len; i++) {
		struct sema_map *m = &s.maps.data[i];
		if (m->value->kind == TY_NONE && !d->nerrors)
			diag_error(d, m->first_use, "Undefined map: %s",
				   m->name); /* 0.26's words */
	}
	check_mapdecls(&s, d);
	out->nmaps = (uint32_t)s.maps.len;
	out->maps = arena_alloc(a, sizeof(*out->maps) * (s.maps.len + 1));
	if (s.maps.len)
		memcpy(out->maps, s.maps.data, sizeof(*out->maps) * s.maps.len);
	out->uses_ringbuf = s.uses_ringbuf;
	out->named = s.named;
	vec_free(&s.maps);
	/* sema_retarget() reads the maps from out and the variables, which
	 * are all declared by now, from the arena. */
	struct var *vars = arena_alloc(a, sizeof(*vars) * (s.vars.len + 1));
	if (s.vars.len)
		memcpy(vars, s.vars.data, sizeof(*vars) * s.vars.len);
	size_t nvars = s.vars.len;
	vec_free(&s.vars);
	*sp = s;
	sp->vars.data = vars;
	sp->vars.len = sp->vars.cap = nvars;
	sp->maps.data = out->maps;
	sp->maps.len = sp->maps.cap = out->nmaps;
	sp->pass = 1;
	out->state = sp;
	return d->nerrors ? -1 : 0;
}
