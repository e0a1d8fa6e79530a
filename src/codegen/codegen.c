/* Statements, probes and the whole program. */
#include "codegen/codegen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend/ir.h"
#include "codegen/emit.h"
#include "codegen/expr.h"
#include "codegen/loops.h"
#include "codegen/maps.h"
#include "codegen/multiattach.h"
#include "codegen/pidns.h"
#include "codegen/program.h"
#include "codegen/registry.h"
#include "codegen/stackids.h"
#include "codegen/sysdispatch.h"
#include "codegen/values.h"
#include "codegen/vars.h"
#include "codegen/walk.h"
#include "model/limits.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Detaching a probe can take ~30 ms of kernel time (an RCU grace period,
 * serialised by the kernel), so beyond this many the programs get a stop
 * flag and the maps print before the detach (runtime/run.c). */
#define CG_DETACH_FIRST_MAX 8

static void assign_var(struct cg *g, struct ast_expr *t, enum ast_op op,
		       struct ast_expr *value)
{
	struct cg_var *v = cg_find_var(g, t->aux);
	struct val x = op == OP_NONE ? cg_expr(g, value) :
		cg_compound(g, t, op, value);
	if (v->reg != IR_NOREG) {
		ir_reg r = cg_to_reg(g, x);
		ir_mov(g->ir, v->reg, r);
		return;
	}
	cg_store_val(g, v->mem, 0, v->type, x);
}

/* @m = v, @m op= v; an aggregation assigned (@m = count()) is the
 * map's update, by its emitter. */
static void assign_map(struct cg *g, struct ast_expr *map,
		       struct ast_expr *value, enum ast_op op)
{
	const struct cmap *m = cg_map(g, cg_map_index(g, map));
	if (type_is_aggregation(m->value) && op == OP_NONE) {
		cg_builtin(g, value, map);
		return;
	}
	cg_map_store(g, map, op == OP_NONE ? cg_expr(g, value) :
		     cg_compound(g, map, op, value));
}

static void gen_block(struct cg *g, const struct ast_block *b);

static void gen_stmt_at(struct cg *g, struct ast_stmt *s);

/* Scratch regions live for one statement: the next reuses them. */
static void gen_stmt(struct cg *g, struct ast_stmt *s)
{
	uint32_t used = g->scratch_used;
	gen_stmt_at(g, s);
	g->scratch_used = used;
}

static void gen_stmt_at(struct cg *g, struct ast_stmt *s)
{
	switch (s->kind) {
	case S_EXPR:
		cg_expr(g, s->u.expr);
		return;
	case S_ASSIGN:
		if (s->u.assign.target->kind == E_MAP) {
			/* the key and value buffers are the map's, so that
			 * a frame too deep for BPF names it */
			ir_set_origin(g->ir, s->u.assign.target);
			assign_map(g, s->u.assign.target, s->u.assign.value,
				   s->u.assign.op);
			ir_set_origin(g->ir, NULL);
		} else
			assign_var(g, s->u.assign.target, s->u.assign.op,
				   s->u.assign.value);
		return;
	case S_LET:
		if (s->u.let.value)
			assign_var(g, s->u.let.var, OP_NONE, s->u.let.value);
		return;
	case S_FOR:
		cg_for(g, s);
		return;
	case S_IF: {
		ir_jlist f = cg_cond_false(g, s->u.if_.cond);
		gen_block(g, &s->u.if_.then);
		if (!s->u.if_.otherwise) {
			ir_jlist_patch_here(g->ir, f);
			return;
		}
		ir_jlist done = ir_ja(g->ir, IR_NOLABEL);
		ir_jlist_patch_here(g->ir, f);
		gen_stmt(g, s->u.if_.otherwise);
		ir_jlist_patch_here(g->ir, done);
		return;
	}
	case S_UNROLL: {
		uint64_t n = s->u.loop.cond->u.num.value;
		for (uint64_t i = 0; i < n && !ir_full(g->ir); i++)
			gen_block(g, &s->u.loop.body);
		return;
	}
	case S_WHILE: {
		if (!g->first_loop)
			g->first_loop = s;
		struct cg_loop l = { ir_label_here(g->ir), IR_NOJUMP, IR_NOJUMP };
		ir_jlist f = cg_cond_false(g, s->u.loop.cond);
		vec_push(&g->loops, l);
		gen_block(g, &s->u.loop.body);
		ir_ja(g->ir, l.head);
		ir_jlist brk = g->loops.data[g->loops.len - 1].breaks;
		g->loops.len--;
		ir_jlist_patch_here(g->ir, f);
		ir_jlist_patch_here(g->ir, brk);
		return;
	}
	case S_BREAK: {
		struct cg_loop *l = &g->loops.data[g->loops.len - 1];
		ir_jlist_concat(g->ir, &l->breaks, ir_ja(g->ir, IR_NOLABEL));
		/* what follows a break is dead: keep emitting into a fresh
		 * (unreachable) block, which the back end drops */
		return;
	}
	case S_CONTINUE: {
		struct cg_loop *l = &g->loops.data[g->loops.len - 1];
		if (l->head == IR_NOLABEL) /* a for body: its callback ends */
			ir_jlist_concat(g->ir, &l->conts,
					ir_ja(g->ir, IR_NOLABEL));
		else
			ir_ja(g->ir, l->head);
		return;
	}
	case S_RETURN:
		/* test and bench probes report through their return value
		 * (non-zero: a failed test, a skipped benchmark), as in
		 * bpftrace 0.26; other programs' values mean nothing to
		 * sonde, and some kernels bound them (iterators: 0 or 1) */
		if (s->u.expr && !g->fn &&
		    g->tgt->prov->prog_type == BPF_PROG_TYPE_XDP) {
			ir_exit(g->ir, cg_int(g, s->u.expr));
			return;
		}
		cg_end_probe(g);
		return;
	case S_BLOCK:
		gen_block(g, &s->u.block);
		return;
	}
}

static void gen_block(struct cg *g, const struct ast_block *b)
{
	bool in = cg_expansion_enter(g, b->expansion);
	/* a program past the size sonde compiles is refused: no more of it */
	for (uint32_t i = 0; i < b->n && !ir_full(g->ir); i++)
		gen_stmt(g, b->stmts[i]);
	cg_expansion_leave(g, in);
}

/* ir_compile() failed: a frame too deep for BPF's stack is reported at
 * the biggest value live where it is deepest; other errors at the probe. */
static void report_compile_error(struct cg *g, const struct ast_probe *p)
{
	uint32_t size = 0;
	const struct ast_expr *e = ir_stack_culprit(g->ir, &size);
	if (!e) {
		diag_error(g->diag, p->span, "cannot compile this probe: %s",
			   ir_error(g->ir));
		return;
	}
	struct strbuf what = STRBUF_INIT;
	if (e->kind == E_VAR)
		sb_printf(&what, "variable %s", e->u.name);
	else if (e->kind == E_CALL)
		sb_printf(&what, "this %s() call", e->u.call.name);
	else if (e->kind == E_MAP)
		sb_printf(&what, "this use of map %s", e->u.map.name);
	else if (e->kind == E_STRING)
		sb_printf(&what, "this string");
	else
		sb_printf(&what, "this value");
	diag_error(g->diag, e->span, "%s: %s takes %u bytes of it (use "
		   "smaller values, e.g. str(x, LEN), or fewer at once)",
		   ir_error(g->ir), sb_str(&what), size);
	sb_free(&what);
}

/* The kernel refuses a program that uses more than 64 maps
 * (MAX_USED_MAPS) with a bare E2BIG at load: said here, located. */
#define KERNEL_MAX_USED_MAPS 64
static int check_map_count(struct cg *g, const struct ast_probe *p,
			   const struct bpf_code *code)
{
	uint32_t nmaps = (uint32_t)g->maps.len;
	bool *used = xcalloc(nmaps + 1, sizeof(*used));
	uint32_t n = 0, nuser = 0;
	for (uint32_t r = 0; r < code->nrelocs; r++) {
		uint32_t m = code->relocs[r].map_idx;
		if (m < nmaps && !used[m]) {
			used[m] = true;
			n++;
			nuser += g->maps.data[m].is_user;
		}
	}
	free(used);
	if (n <= KERNEL_MAX_USED_MAPS)
		return 0;
	diag_error(g->diag, p->span, "this probe uses %u maps (%u of the "
		   "script's and %u of sonde's own), more than the %d the "
		   "kernel allows in one program: use fewer maps, e.g. one "
		   "map with keys (@m[\"a\"]) instead of @a, @b, ...", n,
		   nuser, n - nuser, KERNEL_MAX_USED_MAPS);
	return -1;
}

static void note_addressed(struct ast_expr *e, void *ctx)
{
	struct cg *g = ctx;
	if (e->kind == E_UNARY && e->u.unary.op == OP_ADDR &&
	    e->u.unary.operand->kind == E_VAR)
		vec_push(&g->addressed, e->u.unary.operand->aux);
}

/* One program for one target of probe p. */
static int gen_program(struct cg *g, struct ast_probe *p,
		       const struct probe_target *t, struct cprog *out)
{
	g->ir = ir_new();
	g->tgt = t;
	g->probe_index = cg_name_index(g, probe_target_label(t));
	g->vars.len = 0;
	g->loops.len = 0;
	g->fn = NULL;
	g->fns.len = 0;
	/* variables whose address is taken live in memory */
	g->addressed.len = 0;
	ast_walk_probe(p, note_addressed, g);
	g->scratch_index = -1;
	g->scratch_used = 0;
	g->bail = IR_NOJUMP;
	g->first_loop = NULL;
	g->probe_reg = IR_NOREG;
	g->func_reg = IR_NOREG;
	cg_declare_probe_vars(g, p);
	if (g->disp)
		cg_sysdispatch_prologue(g, g->disp);
	if (g->multi)
		cg_multi_prologue(g, p);
	if (g->stop_flag >= 0 && t->prov->run == PROBE_RUN_ATTACHED) {
		/* 3 instructions: a direct load of the flag, no helper */
		ir_reg f = ir_reg_new(g->ir);
		ir_ld_map_value(g->ir, f, (uint32_t)g->stop_flag, 0);
		ir_load(g->ir, 8, f, f, 0);
		ir_jlist_concat(g->ir, &g->bail, ir_jmpi(g->ir, BPF_JNE, f, 0,
							 IR_NOLABEL));
	}
	if (g->opts->pid > 0 && t->prov->pid_in_program) {
		/* if (pid != PID) return, as 0.24+ puts before the body */
		ir_reg pid = cg_current_pid(g);
		ir_jlist_concat(g->ir, &g->bail,
				ir_jmpi(g->ir, BPF_JNE, pid,
					(int32_t)g->opts->pid, IR_NOLABEL));
	}
	ir_jlist skip = IR_NOJUMP;
	if (p->pred)
		skip = cg_cond_false(g, p->pred);
	gen_block(g, &p->body);
	ir_jlist_concat(g->ir, &skip, g->bail);
	ir_jlist_patch_here(g->ir, skip);
	ir_exiti(g->ir, 0);
	if (g->opts->dump_ir) {
		sb_printf(g->opts->dump_ir, "%s:\n", t->name);
		ir_dump(g->ir, g->opts->dump_ir);
	}
	int rc = 0;
	ir_set_origin(g->ir, NULL);
	if (!g->failed && ir_compile(g->ir, &out->code) < 0) {
		report_compile_error(g, p);
		rc = -1;
	} else if (!g->failed) {
		char err[256];
		if (ir_link(&out->code, g->fns.data, (uint32_t)g->fns.len, err,
			    sizeof(err)) < 0) {
			diag_error(g->diag, p->span, "%s", err);
			rc = -1;
		} else {
			rc = check_map_count(g, p, &out->code);
		}
	}
	for (size_t i = 0; i < g->fns.len; i++)
		bpf_code_free(&g->fns.data[i]);
	g->fns.len = 0;
	ir_free(g->ir);
	g->ir = NULL;
	out->name = t->name;
	out->type = t->prog_type ? t->prog_type : t->prov->prog_type;
	out->expected_attach_type = t->attach_type;
	out->attach_btf_id = t->btf_id;
	out->attach_btf_obj_fd = t->btf_obj_fd;
	out->targets = t;
	out->ntargets = 1;
	out->is_begin = t->prov->run == PROBE_RUN_BEGIN;
	out->is_end = t->prov->run == PROBE_RUN_END;
	out->is_signal = t->prov->run == PROBE_RUN_SIGNAL;
	out->is_bench = t->prov->run == PROBE_RUN_BENCH;
	out->is_test = t->prov->run == PROBE_RUN_TEST;
	out->loop_at = NULL;
	if (g->first_loop) {
		struct span sp = g->first_loop->span;
		char at[300];
		snprintf(at, sizeof(at), "%s:%u:%u",
			 sp.file ? sp.file->name : "stdin", sp.line, sp.col);
		out->loop_at = arena_strdup(g->arena, at);
	}
	return g->failed ? -1 : rc;
}

/* gen_program() for target t of probe i, typed as sema typed that target
 * (a program for several targets is typed as its first: their bodies read
 * nothing that differs). Returns 0, or -1 with cp's code freed. */
/* The probes that sp's targets are, as "Attached N probes" counts them:
 * the sites of one USDT marker (next to each other) are one probe. */
static uint32_t distinct_names(const struct sema_probe *sp)
{
	uint32_t n = 0;
	for (uint32_t k = 0; k < sp->ntargets; k++)
		n += !k || strcmp(sp->targets[k].name,
				  sp->targets[k - 1].name);
	return n;
}

static int gen_for(struct cg *g, const struct sema_result *sr, uint32_t i,
		   struct ast_probe *p, const struct probe_target *t,
		   struct cprog *cp)
{
	memset(cp, 0, sizeof(*cp));
	const struct probe_target *typed = g->disp ?
		g->disp->entries[0].target : t;
	sema_retarget(sr, i, typed);
	if (gen_program(g, p, t, cp) < 0) {
		bpf_code_free(&cp->code);
		return -1;
	}
	return 0;
}

/* Each user map's cmap.at: its declaration, else the config item that
 * sized it (max_map_keys, when it is the size used: the environment
 * wins over the block), else its first use. */
static void locate_maps(struct cg *g, const struct ast_program *prog)
{
	const struct sema_result *sr = g->sr;
	const struct ast_config *cf = prog->config;
	for (uint32_t i = 0; i < sr->nmaps; i++) {
		struct cmap *m = &g->maps.data[g->user_maps[i]];
		m->at = sr->maps[i].first_use;
		for (uint32_t k = 0; m->declared && k < prog->nmapdecls; k++)
			if (!strcmp(prog->mapdecls[k].map, m->name))
				m->at = prog->mapdecls[k].span;
		bool sized = !m->declared &&
			     m->max_entries == limits.map_keys_max &&
			     (m->type == BPF_MAP_TYPE_HASH ||
			      m->type == BPF_MAP_TYPE_PERCPU_HASH);
		for (uint32_t k = 0; sized && cf && k < cf->n; k++)
			if ((!strcmp(cf->items[k].key, "max_map_keys") ||
			     !strcmp(cf->items[k].key, "map_keys_max")) &&
			    cf->items[k].num == m->max_entries)
				m->at = cf->items[k].span;
	}
}

int codegen(struct arena *a, struct diag *d, struct ast_program *prog,
	    const struct sema_probe *probes, const struct sema_result *sr,
	    const struct codegen_opts *opts, struct compiled *out)
{
	struct cg g;
	memset(&g, 0, sizeof(g));
	/* how the emitters reach the walkers (walk.h) */
	static const struct cg_walker walker = {
		cg_walk_expr, cg_walk_cond_false, gen_block
	};
	g.walk = &walker;
	memset(out, 0, sizeof(*out));
	g.arena = a;
	g.diag = d;
	g.opts = opts;
	g.sr = sr;
	g.out = out;
	g.ringbuf = g.lost = g.stop_flag = -1;
	for (int k = 0; k < CG_SCRATCH_MAPS; k++)
		g.scratch[k] = -1;
	cg_maps_declare(&g);
	locate_maps(&g, prog);
	cg_stackids_plan(&g, prog);
	uint32_t attached = 0;
	for (uint32_t i = 0; i < prog->nprobes; i++)
		for (uint32_t k = 0; k < probes[i].ntargets; k++)
			attached += probes[i].targets[k].prov->run ==
				    PROBE_RUN_ATTACHED;
	if (attached > CG_DETACH_FIRST_MAX)
		g.stop_flag = cg_add_counter(&g, ".stop");
	VEC(struct cprog) progs = { 0 };
	int rc = 0;
	for (uint32_t i = 0; i < prog->nprobes && rc == 0; i++) {
		struct ast_probe *p = &prog->probes[i];
		const struct sema_probe *sp = &probes[i];
		struct cprog cp;
		if (!opts->no_dispatch && cg_multi_plan(p, sp)) {
			/* every target: one program, attached at once */
			g.multi = true;
			rc = gen_for(&g, sr, i, p, &sp->targets[0], &cp);
			g.multi = false;
			if (rc == 0) {
				cp.targets = sp->targets;
				cp.ntargets = sp->ntargets;
				cp.ncounted = distinct_names(sp);
				cp.cookies = cg_multi_cookies(&g, p, sp);
				cp.name = arena_printf(a, "%s and %u more (one "
						       "link)", cp.name,
						       cp.ntargets - 1);
				cp.expected_attach_type = (enum bpf_attach_type)
					sp->targets[0].prov->multi_attach_type;
				vec_push(&progs, cp);
			}
			continue;
		}
		struct cg_sysdispatch disp;
		bool dispatch = !opts->no_dispatch &&
				cg_sysdispatch_plan(&g, p, sp, &disp);
		for (uint32_t k = 0; k < sp->ntargets && rc == 0; k++) {
			if (dispatch && disp.covered[k])
				continue;
			rc = gen_for(&g, sr, i, p, &sp->targets[k], &cp);
			cp.uncounted = k && !strcmp(sp->targets[k].name,
						    sp->targets[k - 1].name);
			if (rc == 0)
				vec_push(&progs, cp);
		}
		if (dispatch && rc == 0) {
			/* the syscalls of disp: one program; its body reads
			 * nothing a syscall's record types */
			struct probe_target *t = arena_alloc(a, sizeof(*t));
			*t = disp.target;
			g.disp = &disp;
			rc = gen_for(&g, sr, i, p, t, &cp);
			g.disp = NULL;
			if (rc == 0) {
				cp.ncounted = disp.n;
				vec_push(&progs, cp);
			}
		}
	}
	if (g.scratch_over && !g.failed) {
		if (g.scratch_over_size)
			cg_error(&g, g.scratch_over_at, "this value takes %u "
				 "bytes of per-CPU scratch, more than the %u "
				 "a per-CPU value may have: use a smaller "
				 "max_strlen or fewer long strings at once",
				 g.scratch_over_size, CG_SCRATCH_VALUE_MAX);
		else
			cg_error(&g, g.scratch_over_at, "this statement needs "
				 "more than %u bytes of per-CPU scratch (%u "
				 "arrays of at most %u bytes, the most a "
				 "per-CPU value may have): use a smaller "
				 "max_strlen or fewer long strings at once",
				 CG_SCRATCH_MAPS * CG_SCRATCH_VALUE_MAX,
				 CG_SCRATCH_MAPS, CG_SCRATCH_VALUE_MAX);
		rc = -1;
	}
	for (int k = 0; k < CG_SCRATCH_MAPS && g.scratch[k] >= 0; k++) {
		g.maps.data[g.scratch[k]].value_size = g.scratch_size[k];
		g.maps.data[g.scratch[k]].max_entries = g.scratch_progs;
	}
	/* Everything the runtime keeps lives in the arena. */
	out->nmaps = (uint32_t)g.maps.len;
	out->maps = arena_alloc(a, sizeof(*out->maps) * (g.maps.len + 1));
	if (g.maps.len)
		memcpy(out->maps, g.maps.data, sizeof(*out->maps) * g.maps.len);
	out->nprogs = (uint32_t)progs.len;
	out->progs = arena_alloc(a, sizeof(*out->progs) * (progs.len + 1));
	if (progs.len)
		memcpy(out->progs, progs.data, sizeof(*out->progs) * progs.len);
	out->nevents = (uint32_t)g.events.len;
	out->events = arena_alloc(a, sizeof(*out->events) *
					     (g.events.len + 1));
	if (g.events.len)
		memcpy(out->events, g.events.data,
		       sizeof(*out->events) * g.events.len);
	out->ringbuf = g.ringbuf;
	out->lost_counter = g.lost;
	out->stop_flag = g.stop_flag;
	vec_free(&g.maps);
	vec_free(&g.events);
	vec_free(&g.vars);
	vec_free(&g.loops);
	vec_free(&g.fns);
	vec_free(&g.addressed);
	free(g.name_slots);
	vec_free(&progs);
	return rc;
}

/* Frees what codegen allocated outside the arena (the programs' code). */
void codegen_free(struct compiled *c)
{
	for (uint32_t i = 0; i < c->nprogs; i++)
		bpf_code_free(&c->progs[i].code);
}
