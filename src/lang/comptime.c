/*
 * comptime (comptime.h): the values of literal expressions, the owners of
 * comptime nodes, the pass that decides what is known before the probes
 * are expanded, and the one that puts sema's decisions in the tree.
 */
#include "lang/comptime.h"

#include <errno.h>
#include <string.h>

#include "kernel/btf.h"
#include "lang/builtins.h"
#include "lang/ctypes.h"
#include "lang/parser.h"
#include "model/types.h"
#include "probes/provider.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/strbuf.h"

/* ---- values ---- */

/* What int64 and uint64 hold between them: a value out of it is no
 * literal (bpftrace refuses to fold an overflow). */
#define CT_MIN ((__int128)INT64_MIN)
#define CT_MAX ((__int128)UINT64_MAX)

static bool make_int(__int128 i, struct ct_value *out)
{
	if (i < CT_MIN || i > CT_MAX)
		return false;
	*out = (struct ct_value){ .kind = CT_INT, .i = i };
	return true;
}

static bool make_bool(bool b, struct ct_value *out)
{
	*out = (struct ct_value){ .kind = CT_BOOL, .i = b };
	return true;
}

bool comptime_truth(const struct ct_value *v)
{
	return v->kind == CT_STR ? v->len > 0 : v->i != 0;
}

/* Strings compared as bpftrace compares std::strings: bytes, then
 * length. */
static int str_cmp(const struct ct_value *a, const struct ct_value *b)
{
	uint32_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->s, b->s, n);
	if (c)
		return c;
	return a->len < b->len ? -1 : a->len > b->len;
}

static bool compare(enum ast_op op, int c, struct ct_value *out)
{
	switch (op) {
	case OP_EQ: return make_bool(c == 0, out);
	case OP_NE: return make_bool(c != 0, out);
	case OP_LT: return make_bool(c < 0, out);
	case OP_LE: return make_bool(c <= 0, out);
	case OP_GT: return make_bool(c > 0, out);
	case OP_GE: return make_bool(c >= 0, out);
	default: return false;
	}
}

/* "a" + "b", "abc" + 1 (its tail, as bpftrace folds it) and comparisons;
 * && and || of strings are their truth. Anything else is no literal. */
static bool string_op(struct arena *ar, enum ast_op op,
		      const struct ct_value *l, const struct ct_value *r,
		      struct ct_value *out)
{
	if (op == OP_LAND || op == OP_LOR) {
		bool a = comptime_truth(l), b = comptime_truth(r);
		return make_bool(op == OP_LAND ? a && b : a || b, out);
	}
	if (l->kind == CT_STR && r->kind == CT_INT && op == OP_ADD) {
		if (r->i < 0)
			return false;
		uint32_t k = r->i > l->len ? l->len : (uint32_t)r->i;
		*out = (struct ct_value){ .kind = CT_STR, .s = l->s + k,
					  .len = l->len - k };
		return true;
	}
	if (l->kind != CT_STR || r->kind != CT_STR)
		return false;
	if (op == OP_ADD) {
		char *buf = arena_alloc(ar, (size_t)l->len + r->len + 1);
		memcpy(buf, l->s, l->len);
		memcpy(buf + l->len, r->s, r->len);
		*out = (struct ct_value){ .kind = CT_STR, .s = buf,
					  .len = l->len + r->len };
		return true;
	}
	return compare(op, str_cmp(l, r), out);
}

static bool int_op(enum ast_op op, __int128 a, __int128 b,
		   struct ct_value *out)
{
	switch (op) {
	case OP_ADD: return make_int(a + b, out);
	case OP_SUB: return make_int(a - b, out);
	case OP_MUL:
		/* both within 2^64: the product within 2^128 */
		return make_int(a * b, out);
	case OP_DIV: return b && make_int(a / b, out);
	case OP_MOD: return b && make_int(a % b, out);
	case OP_BAND: return make_int(a & b, out);
	case OP_BOR: return make_int(a | b, out);
	case OP_BXOR: return make_int(a ^ b, out);
	case OP_SHL:
		return b >= 0 && b < 64 &&
		       make_int((__int128)((uint64_t)a << (int)b), out);
	case OP_SHR:
		return b >= 0 && b < 64 &&
		       make_int(a < 0 ? a >> (int)b :
					(__int128)((uint64_t)a >> (int)b),
				out);
	case OP_LAND: return make_bool(a && b, out);
	case OP_LOR: return make_bool(a || b, out);
	default:
		return compare(op, a < b ? -1 : a > b, out);
	}
}

static bool eval_unary(enum ast_op op, const struct ct_value *v,
		       struct ct_value *out)
{
	if (op == OP_LNOT)
		return make_bool(!comptime_truth(v), out);
	if (v->kind == CT_STR)
		return false;
	switch (op) {
	case OP_PLUS: return make_int(v->i, out);
	case OP_NEG: return make_int(-v->i, out);
	/* as bpftrace: ~ of a non-negative integer is uint64's, of a
	 * negative one int64's (both non-negative) */
	case OP_BNOT:
		return make_int(v->i >= 0 ? (__int128)(uint64_t)~(uint64_t)v->i :
					    ~v->i, out);
	default: return false;
	}
}

bool comptime_eval(struct arena *ar, const struct ast_expr *e,
		   ct_call_fn call, void *ctx, struct ct_value *out)
{
	struct ct_value a, b;
	switch (e->kind) {
	case E_INT:
		if (e->u.num.is_bool)
			return make_bool(e->u.num.value != 0, out);
		return make_int(e->u.num.value, out);
	case E_STRING:
		*out = (struct ct_value){ .kind = CT_STR, .s = e->u.str.bytes,
					  .len = e->u.str.len };
		return true;
	case E_UNARY:
		return comptime_eval(ar, e->u.unary.operand, call, ctx, &a) &&
		       eval_unary(e->u.unary.op, &a, out);
	case E_BINARY:
		if (!comptime_eval(ar, e->u.binary.left, call, ctx, &a) ||
		    !comptime_eval(ar, e->u.binary.right, call, ctx, &b))
			return false;
		if (a.kind == CT_STR || b.kind == CT_STR)
			return string_op(ar, e->u.binary.op, &a, &b, out);
		return int_op(e->u.binary.op, a.i, b.i, out);
	case E_TERNARY:
		if (!comptime_eval(ar, e->u.ternary.cond, call, ctx, &a))
			return false;
		return comptime_eval(ar, comptime_truth(&a) ? e->u.ternary.then :
							  e->u.ternary.otherwise,
				     call, ctx, out);
	case E_TUPLE_INDEX: {
		const struct ast_expr *t = e->u.tindex.base;
		if (t->kind != E_TUPLE || t->u.list.names ||
		    e->u.tindex.index >= t->u.list.n)
			return false;
		return comptime_eval(ar, t->u.list.items[e->u.tindex.index], call,
				     ctx, out);
	}
	case E_FIELD: {
		/* a record literal's field: typeinfo(x).full_type,
		 * config.max_strlen (folded into records by sema) */
		const struct ast_expr *t = e->u.field.base;
		if (t->kind != E_TUPLE || !t->u.list.names)
			return false;
		for (uint32_t i = 0; i < t->u.list.n; i++)
			if (!strcmp(t->u.list.names[i], e->u.field.name))
				return comptime_eval(ar, t->u.list.items[i],
						     call, ctx, out);
		return false;
	}
	case E_BLOCK:
		/* { v }: a macro whose body is a value */
		return !e->u.blockx.body.n && e->u.blockx.value &&
		       comptime_eval(ar, e->u.blockx.value, call, ctx, out);
	case E_COMPTIME:
		if (e->u.comptime.result)
			return comptime_eval(ar, e->u.comptime.result, call, ctx,
					     out);
		if (!comptime_eval(ar, e->u.comptime.expr, call, ctx, &a))
			return false;
		if (!e->u.comptime.then) {
			*out = a;
			return true;
		}
		return comptime_eval(ar, comptime_truth(&a) ? e->u.comptime.then :
							  e->u.comptime.otherwise,
				     call, ctx, out);
	case E_CALL:
		return call && call(e, ctx, out);
	default:
		return false;
	}
}

bool comptime_equal(const struct ct_value *a, const struct ct_value *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == CT_STR)
		return a->len == b->len && !memcmp(a->s, b->s, a->len);
	return a->i == b->i;
}

static struct ast_expr *new_node(struct arena *a, enum ast_expr_kind k,
				 struct span sp)
{
	struct ast_expr *e = arena_alloc(a, sizeof(*e));
	memset(e, 0, sizeof(*e));
	e->kind = k;
	e->span = sp;
	e->type = &type_none;
	e->builtin = BI_NONE;
	return e;
}

struct ast_expr *comptime_literal(struct arena *a, const struct ct_value *v,
				  struct span sp)
{
	if (v->kind == CT_STR) {
		struct ast_expr *e = new_node(a, E_STRING, sp);
		char *b = arena_alloc(a, v->len + 1);
		memcpy(b, v->s, v->len);
		b[v->len] = 0;
		e->u.str.bytes = b;
		e->u.str.len = v->len;
		return e;
	}
	struct ast_expr *e = new_node(a, E_INT, sp);
	e->u.num.is_bool = v->kind == CT_BOOL;
	if (v->i >= 0) {
		e->u.num.value = (uint64_t)v->i;
		return e;
	}
	/* a negative value is written -N, as the script would */
	e->u.num.value = (uint64_t)-v->i;
	struct ast_expr *n = new_node(a, E_UNARY, sp);
	n->u.unary.op = OP_NEG;
	n->u.unary.operand = e;
	return n;
}

const char *comptime_spell(struct arena *a, const struct ct_value *v)
{
	if (v->kind == CT_BOOL)
		return v->i ? "true" : "false";
	if (v->kind == CT_STR)
		return arena_printf(a, "\"%.*s\"", (int)v->len, v->s);
	if (v->i < 0)
		return arena_printf(a, "-%llu", (unsigned long long)-v->i);
	return arena_printf(a, "%llu", (unsigned long long)v->i);
}

/* ---- owners ---- */

static struct ast_comptime *new_state(struct arena *a, enum ct_owner o)
{
	struct ast_comptime *st = arena_alloc(a, sizeof(*st));
	memset(st, 0, sizeof(*st));
	st->owner = o;
	return st;
}

static bool is_cond(const struct ast_expr *e)
{
	return e && e->kind == E_COMPTIME && !e->u.comptime.then;
}

static void link_block(struct arena *a, struct ast_block *b);

/* An if whose condition is a comptime is that comptime's to decide; the
 * ifs of the blocks inside st too (those inside expressions are reached
 * by link_in_expr). */
static void link_stmt(struct arena *a, struct ast_stmt *st)
{
	switch (st->kind) {
	case S_IF: {
		struct ast_expr *c = st->u.if_.cond;
		if (is_cond(c) && !c->u.comptime.st) {
			struct ast_comptime *s = new_state(a, CT_IF);
			s->stmt = st;
			s->then = st->u.if_.then;
			s->otherwise = st->u.if_.otherwise;
			c->u.comptime.st = s;
		}
		link_block(a, &st->u.if_.then);
		if (st->u.if_.otherwise)
			link_stmt(a, st->u.if_.otherwise);
		return;
	}
	case S_UNROLL:
	case S_WHILE:
		link_block(a, &st->u.loop.body);
		return;
	case S_BLOCK:
		link_block(a, &st->u.block);
		return;
	case S_FOR:
		link_block(a, &st->u.for_.body);
		return;
	default:
		return;
	}
}

static void link_block(struct arena *a, struct ast_block *b)
{
	for (uint32_t i = 0; i < b->n; i++)
		link_stmt(a, b->stmts[i]);
}

/* An if whose value is used (c ? a : b, as the parser builds it) with a
 * comptime condition becomes one comptime node holding both branches;
 * a block expression's ifs are linked. */
static void link_in_expr(struct ast_expr *e, void *ctx)
{
	struct arena *a = ctx;
	if (e->kind == E_BLOCK) {
		link_block(a, &e->u.blockx.body);
		return;
	}
	if (e->kind != E_TERNARY || !is_cond(e->u.ternary.cond))
		return;
	struct ast_expr *c = e->u.ternary.cond;
	struct ast_expr *then = e->u.ternary.then;
	struct ast_expr *otherwise = e->u.ternary.otherwise;
	e->kind = E_COMPTIME;
	memset(&e->u, 0, sizeof(e->u));
	e->u.comptime.expr = c->u.comptime.expr;
	e->u.comptime.at = c->u.comptime.at;
	e->u.comptime.then = then;
	e->u.comptime.otherwise = otherwise;
}

void comptime_link_expr(struct arena *a, struct ast_expr *e)
{
	ast_walk_expr(e, link_in_expr, a);
}

static void link_probe(struct arena *a, struct ast_probe *p)
{
	link_block(a, &p->body);
	ast_walk_probe(p, link_in_expr, a);
	if (is_cond(p->pred) && !p->pred->u.comptime.st) {
		struct ast_comptime *s = new_state(a, CT_PRED);
		s->then = p->body;
		p->pred->u.comptime.st = s;
	}
}

/* ---- field_exist ---- */

int comptime_field_exist(struct arena *a, const struct ctypes *ct,
			 const struct type *t, const char *named,
			 const char *const *fields, uint32_t nfields,
			 const char **which)
{
	if (!t) {
		/* struct/union names are the kernel's unless the script
		 * defines them: with no BTF, none is known */
		bool rec = !strncmp(named, "struct ", 7) ||
			   !strncmp(named, "union ", 6);
		if (rec && kbtf_load() < 0) {
			*which = named;
			return -ENODATA;
		}
		return 0;
	}
	for (uint32_t i = 0; i < nfields; i++) {
		while (t->kind == TY_PTR)
			t = t->elem;
		if (type_is_record(t)) {
			const struct type_field *rf =
				type_record_field(t, fields[i]);
			if (!rf)
				return 0;
			t = rf->type;
			continue;
		}
		if (t->kind != TY_RECORD)
			return 0;
		/* as sema reads a field (sema_field.c): the script's
		 * definition of a record wins; a record with members has
		 * them, a shell's are the kernel's */
		const struct type *def = !t->nfields ?
			ctypes_script_record(ct, t->name) : NULL;
		if (def)
			t = def;
		if (ctypes_script_failed(ct, t->name))
			return 0;
		struct type_field f;
		bool found = false;
		for (uint32_t k = 0; k < t->nfields && !found; k++)
			if (t->fields[k].name &&
			    !strcmp(t->fields[k].name, fields[i])) {
				f = t->fields[k];
				found = true;
			}
		if (!found && !t->nfields) {
			if (kbtf_load() < 0) {
				*which = t->name;
				return -ENODATA;
			}
			found = kbtf_field(a, t, fields[i], &f) == 0;
		}
		if (!found)
			return 0;
		t = f.type;
	}
	return 1;
}

/* ---- before the probes ---- */

struct early {
	struct arena *a;
	struct diag *d;
	struct ast_program *prog;
	const struct probe_env *env;
	struct ctypes *ct; /* built when field_exist() first asks */
	struct diag muted;
};

/* A diag that counts and prints nothing (sema's muted pass's). */
static struct diag quiet(const struct diag *d)
{
	struct diag m = *d;
	m.out = NULL;
	m.max_errors = 0;
	m.nerrors = 0;
	return m;
}

/* probe_exist("PROVIDER:..."): whether the attach point has a target
 * here, looked up as the probes are (wildcards too); 1, 0, or -1 after
 * an error at str (no attach point). */
static int probe_exists(struct early *x, const struct ast_expr *str)
{
	struct src_file *f = arena_alloc(x->a, sizeof(*f));
	f->name = "probe_exist";
	f->text = str->u.str.bytes;
	f->len = str->u.str.len;
	struct diag m = quiet(x->d);
	struct attach_point ap;
	if (memchr(str->u.str.bytes, 0, str->u.str.len) ||
	    parse_attach_text(x->a, &m, f, &ap) < 0) {
		diag_error(x->d, str->span, "probe_exist() takes a probe as a "
			   "script names one (\"tracepoint:block:block_io_start\"), "
			   "not \"%.*s\"", (int)str->u.str.len, str->u.str.bytes);
		return -1;
	}
	struct probe_env env = *x->env;
	env.diag = &m;
	struct probe_target *t = NULL;
	uint32_t n = 0;
	/* a target built is one that exists, whatever else went wrong
	 * (BPFTRACE_MAX_PROBES is counted past) */
	probe_expand(&env, &ap, &t, &n);
	return n > 0;
}

static void fold_probe_exist(struct ast_expr *e, void *ctx)
{
	struct early *x = ctx;
	if (e->kind != E_CALL || strcmp(e->u.call.name, "probe_exist") ||
	    e->u.call.args.n != 1 ||
	    e->u.call.args.items[0]->kind != E_STRING)
		return; /* the typing rule says what is wrong */
	int r = probe_exists(x, e->u.call.args.items[0]);
	if (r < 0)
		return;
	struct span sp = e->span;
	memset(e, 0, sizeof(*e));
	e->kind = E_INT;
	e->span = sp;
	e->type = &type_none;
	e->builtin = BI_NONE;
	e->u.num.value = (uint64_t)r;
	e->u.num.is_bool = true;
}

/* The questions answered before the probes: kfunc_exist("f") and
 * field_exist of a type. Anything it cannot answer (a mistake included)
 * is left to sema, which says what is wrong. */
static bool early_call(const struct ast_expr *call, void *ctx,
		       struct ct_value *out)
{
	struct early *x = ctx;
	const char *name = call->u.call.name;
	if (call->u.call.args.n != 1)
		return false;
	const struct ast_expr *arg = call->u.call.args.items[0];
	if (!strcmp(name, "kfunc_exist") && arg->kind == E_STRING)
		return make_bool(kbtf_kfunc_id(arg->u.str.bytes) > 0, out);
	if (strcmp(name, "field_exist") || arg->kind != E_OFFSETOF ||
	    arg->u.offset_of.type.of)
		return false;
	if (!x->ct) {
		x->muted = quiet(x->d);
		x->ct = ctypes_build(x->a, &x->muted, x->prog);
	}
	const struct ast_typespec *ts = &arg->u.offset_of.type;
	const struct type *t = ctypes_resolve(x->ct, &x->muted, ts);
	const char *which;
	int r = comptime_field_exist(x->a, x->ct,
				     t->kind == TY_NONE ? NULL : t, ts->base,
				     arg->u.offset_of.fields,
				     arg->u.offset_of.nfields, &which);
	return r >= 0 && make_bool(r, out);
}

int comptime_decide(struct arena *a, struct diag *d, struct ast_program *p,
		    const struct probe_env *env)
{
	struct early x = { a, d, p, env, NULL, { 0 } };
	int before = d->nerrors;
	for (uint32_t i = 0; i < p->nprobes; i++)
		ast_walk_probe(&p->probes[i], fold_probe_exist, &x);
	if (d->nerrors > before)
		return -1;
	uint32_t kept = 0;
	for (uint32_t i = 0; i < p->nprobes; i++) {
		struct ast_probe *pr = &p->probes[i];
		struct ct_value v;
		if (is_cond(pr->pred) &&
		    comptime_eval(a, pr->pred, early_call, &x, &v)) {
			if (!comptime_truth(&v))
				continue; /* never looked up nor attached */
			pr->pred = NULL;
		}
		p->probes[kept++] = *pr;
	}
	p->nprobes = kept;
	for (uint32_t i = 0; i < p->nprobes; i++)
		link_probe(a, &p->probes[i]);
	return 0;
}

/* ---- after sema ---- */

struct finish {
	struct diag *d;
	bool failed;
};

/* Children first (ast_walk_expr): a comptime inside the branch taken is
 * in place before the one that took it. */
static void put_result(struct ast_expr *e, void *ctx)
{
	struct finish *f = ctx;
	if (e->kind != E_COMPTIME)
		return;
	if (!e->u.comptime.result) {
		diag_error(f->d, e->span, "internal error: this comptime "
			   "expression was never decided");
		f->failed = true;
		return;
	}
	/* a macro's expansion is named from its root */
	const struct ast_expansion *x = e->expansion;
	*e = *e->u.comptime.result;
	if (!e->expansion)
		e->expansion = x;
}

int comptime_finish(struct diag *d, struct ast_program *p)
{
	struct finish f = { d, false };
	for (uint32_t i = 0; i < p->nprobes; i++) {
		struct ast_probe *pr = &p->probes[i];
		bool ct = pr->pred && pr->pred->kind == E_COMPTIME;
		ast_walk_probe(pr, put_result, &f);
		/* a comptime predicate decided true is none (false keeps the
		 * probe attached, its body empty) */
		if (ct && pr->pred->kind == E_INT &&
		    pr->pred->u.num.is_bool && pr->pred->u.num.value)
			pr->pred = NULL;
	}
	return f.failed ? -1 : 0;
}
