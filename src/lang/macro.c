/*
 * bpftrace 0.26's macros, expanded in one pass over the AST before sema
 * (as its MacroExpansion pass): a call `name(args)`, or a bare `name` of a
 * macro without parameters, becomes a copy of the macro's body, a block
 * expression whose value is the body's trailing expression.
 *
 * Hygiene: a $var parameter stands for the caller's variable, an @map
 * parameter for the caller's map, an identifier parameter for the caller's
 * expression (inserted at every use). The body reaches no other map, and
 * the variables it assigns are renamed ($$name_x, $$name_DEPTH_x), so
 * they cannot meet the caller's.
 *
 * bpftrace's own builtins are macros of its standard library
 * (`macro comm() { __builtin_comm }`); sonde's are not, so the two forms
 * that library gives every builtin variable, `comm()` and `__builtin_comm`,
 * are folded here into the builtin, and a call of a builtin's name that no
 * user macro matches exactly is the builtin's, as in bpftrace.
 *
 * The prelude: the standard library macros sonde writes in the language
 * (src/stdlib/base.bt, built in by src/stdlib/stdlib.mk). It is parsed the
 * first time a name of one of its macros is met, so that a script naming
 * none of them parses nothing more. As in 0.26's MacroRegistry, its macros
 * and the user's are two classes: a user macro of the same name and
 * arguments is no redefinition and wins, and a prelude macro's body sees
 * only the prelude's macros.
 */
#include "lang/macro.h"

#include <stdlib.h>
#include <string.h>

#include "lang/builtins.h"
#include "lang/macrotype.h"
#include "lang/parser.h"
#include "util/strbuf.h"

/* prelude_text[] and prelude_names[] (sorted), from src/stdlib/base.bt */
#include "stdlib_prelude.inc"

/* Expansions of one program, beyond which the input is hostile (a macro
 * that doubles its argument, nested 30 deep, is 2^30 copies). */
#define MAX_EXPANSIONS 20000
#define MAX_DEPTH 64
/* Nodes copied in all: an expression argument used twice doubles at
 * every level, so a few levels of it outgrow any expansion count. */
#define MAX_NODES 1000000

/* The macros of one class, in their order of definition. */
struct mlist {
	const struct ast_macro **m;
	uint32_t n;
};

struct mx {
	struct arena *a;
	struct diag *d;
	struct mlist user; /* the script's and its imports' */
	struct mlist std;  /* the prelude's, once it is parsed */
	bool prelude_read; /* parsed (or tried: an error is reported once) */
	const struct ast_macro *stack[MAX_DEPTH];
	int depth;
	uint32_t expansions;
	uint32_t nodes;
	bool too_many; /* reported once */
};

/* One expansion: what the parameters stand for and which variables the
 * body renames. */
struct frame {
	const struct ast_macro *m;
	struct ast_expr **args; /* the call's, one per parameter */
	const char **assigned;  /* variables the body assigns */
	uint32_t nassigned;
	int depth;              /* of the expansion, from 1 */
	const struct ast_expr *site; /* the call */
};

static void expand_expr(struct mx *x, struct frame *f, struct ast_expr **ep);
static void expand_block(struct mx *x, struct frame *f, struct ast_block *b);

/* ---- copying a macro's body ---- */

/* ast.c's copies, counted against MAX_NODES: past it a copy shares the
 * rest with the original (the run fails anyway). */
static struct ast_expr *clone_expr(struct mx *x, const struct ast_expr *e)
{
	uint32_t left = MAX_NODES - x->nodes;
	struct ast_expr *c = ast_clone_expr(x->a, e, &left);
	x->nodes = MAX_NODES - left;
	return c;
}

static void clone_block(struct mx *x, struct ast_block *dst,
			const struct ast_block *src)
{
	uint32_t left = MAX_NODES - x->nodes;
	ast_clone_block(x->a, dst, src, &left);
	x->nodes = MAX_NODES - left;
}

/* ---- the registry ---- */

/* How far args are from m's parameters: 1024 per missing or extra
 * argument, 1 per argument of the wrong kind ($var and @map parameters
 * take only their kind; an identifier takes anything). 0: a match. */
static uint32_t distance(const struct ast_macro *m, struct ast_expr **args,
			 uint32_t nargs)
{
	uint32_t d = 1024 * (m->nparams > nargs ? m->nparams - nargs :
						  nargs - m->nparams);
	for (uint32_t i = 0; i < m->nparams && i < nargs; i++) {
		enum ast_expr_kind k = m->params[i]->kind;
		if ((k == E_MAP || k == E_VAR) && args[i]->kind != k)
			d++;
	}
	return d;
}

/* The first exact match in l, or NULL; *closest and *best (its distance)
 * are lowered where l has a nearer one. */
static const struct ast_macro *scan(const struct mlist *l, const char *name,
				    struct ast_expr **args, uint32_t nargs,
				    const struct ast_macro **closest,
				    uint32_t *best)
{
	for (uint32_t i = 0; i < l->n; i++) {
		const struct ast_macro *m = l->m[i];
		if (strcmp(m->name, name))
			continue;
		uint32_t d = distance(m, args, nargs);
		if (!d)
			return m;
		if (d < *best) {
			*best = d;
			*closest = m;
		}
	}
	return NULL;
}

/* The user's exact match, else the prelude's (only the prelude's when
 * std_only: a prelude macro's body), or NULL with *closest the nearest
 * of either (NULL when no macro has the name). */
static const struct ast_macro *lookup(struct mx *x, const char *name,
				      struct ast_expr **args, uint32_t nargs,
				      bool std_only,
				      const struct ast_macro **closest)
{
	uint32_t best = UINT32_MAX;
	const struct ast_macro *m = NULL;
	*closest = NULL;
	if (!std_only)
		m = scan(&x->user, name, args, nargs, closest, &best);
	if (!m)
		m = scan(&x->std, name, args, nargs, closest, &best);
	return m;
}

static const char *param_name(const struct ast_expr *p)
{
	return p->kind == E_MAP ? p->u.map.name : p->u.name;
}

/* Parameters named twice are refused, as bpftrace's validate(). */
static bool valid(struct mx *x, const struct ast_macro *m)
{
	static const char *const what[] = { [E_VAR] = "Variable",
					    [E_MAP] = "Map",
					    [E_IDENT] = "Ident" };
	for (uint32_t i = 0; i < m->nparams; i++)
		for (uint32_t j = 0; j < i; j++)
			if (m->params[i]->kind == m->params[j]->kind &&
			    !strcmp(param_name(m->params[i]),
				    param_name(m->params[j]))) {
				diag_error(x->d, m->params[i]->span, "%s for macro "
					   "argument has already been used: %s",
					   what[m->params[i]->kind],
					   param_name(m->params[i]));
				return false;
			}
	return true;
}

/* Adds prog's macros to l: a later macro that the earlier ones of l
 * already match is a redefinition (the most precise come first). */
static void register_macros(struct mx *x, struct mlist *l,
			    struct ast_program *prog)
{
	l->m = arena_alloc(x->a, sizeof(*l->m) * (prog->nmacros + 1));
	for (uint32_t i = 0; i < prog->nmacros; i++) {
		struct ast_macro *m = &prog->macros[i];
		const struct ast_macro *closest;
		uint32_t best = UINT32_MAX;
		const struct ast_macro *old = scan(l, m->name, m->params,
						   m->nparams, &closest, &best);
		if (old) {
			diag_error(x->d, m->span, "Redefinition of macro: %s",
				   m->name);
			diag_report(x->d, "ERROR", old->span, "This is the "
				    "original definition.");
			continue;
		}
		if (valid(x, m))
			l->m[l->n++] = m;
	}
}

/* ---- the prelude ---- */

static int name_cmp(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

static bool prelude_names_it(const char *name)
{
	return bsearch(name, prelude_names,
		       sizeof(prelude_names) / sizeof(prelude_names[0]),
		       sizeof(prelude_names[0]), name_cmp) != NULL;
}

/* Parses the prelude into x->std the first time name is one of its
 * macros. Its file is named as bpftrace names its own, so that what it
 * locates (assert's errorf) is located as bpftrace does. */
static void need_prelude(struct mx *x, const char *name)
{
	if (x->prelude_read || !prelude_names_it(name))
		return;
	x->prelude_read = true;
	static const struct src_file file = {
		"stdlib/base.bt", prelude_text, sizeof(prelude_text) - 1 };
	struct ast_program *p = parse_program_flags(x->a, x->d, &file, NULL, 0,
						    PARSE_NO_PROBES_OK);
	register_macros(x, &x->std, p);
}

static bool is_std(const struct mx *x, const struct ast_macro *m)
{
	for (uint32_t i = 0; i < x->std.n; i++)
		if (x->std.m[i] == m)
			return true;
	return false;
}

/* ---- expansion ---- */

static bool is_builtin_name(const char *name)
{
	uint32_t n;
	return builtin_fn_lookup(name) != BI_NONE ||
	       builtin_var_lookup(name, &n) != BI_NONE;
}

/* A call that matches no definition: 0.26's words, with the closest
 * definition's line. */
static void mismatch(struct mx *x, struct ast_expr *call, const char *name,
		     struct ast_expr **args, uint32_t nargs,
		     const struct ast_macro *m)
{
	diag_error(x->d, call->span, "Call to %s() has arguments that do not "
		   "match any definition.", name);
	if (m->nparams != nargs) {
		diag_report(x->d, "ERROR", m->span, "The closest definition of "
			    "%s() has a different number of arguments. "
			    "Expected: %u but got %u", m->name, m->nparams,
			    nargs);
		return;
	}
	for (uint32_t i = 0; i < nargs; i++) {
		const struct ast_expr *p = m->params[i];
		if ((p->kind != E_MAP && p->kind != E_VAR) ||
		    args[i]->kind == p->kind)
			continue;
		const char *got = args[i]->kind == E_VAR ? "a variable" :
				  args[i]->kind == E_MAP ? "a map" :
							   "an expression";
		diag_error(x->d, args[i]->span, "Mismatched arg. %s() expects "
			   "a %s for arg %s but got %s.", m->name,
			   p->kind == E_MAP ? "map" : "variable",
			   param_name(p), got);
		diag_report(x->d, "ERROR", p->span, "This is the argument in "
			    "the closest definition.");
	}
}

/* The variables a body assigns, which its expansion renames. */
struct assigned {
	struct mx *x;
	const char **names;
	uint32_t n, cap;
};

static void note_assigned(struct assigned *as, const struct ast_expr *t)
{
	if (!t || t->kind != E_VAR)
		return;
	for (uint32_t i = 0; i < as->n; i++)
		if (!strcmp(as->names[i], t->u.name))
			return;
	if (as->n == as->cap) {
		uint32_t cap = as->cap ? as->cap * 2 : 8;
		const char **n = arena_alloc(as->x->a, sizeof(*n) * cap);
		if (as->n)
			memcpy(n, as->names, sizeof(*n) * as->n);
		as->names = n;
		as->cap = cap;
	}
	as->names[as->n++] = t->u.name;
}

static void assigned_in_block(struct assigned *as, const struct ast_block *b);

static void assigned_in_expr(struct ast_expr *e, void *ctx)
{
	struct assigned *as = ctx;
	if (e->kind == E_UNARY && (e->u.unary.op == OP_PREINC ||
				   e->u.unary.op == OP_PREDEC ||
				   e->u.unary.op == OP_POSTINC ||
				   e->u.unary.op == OP_POSTDEC))
		note_assigned(as, e->u.unary.operand);
	else if (e->kind == E_BLOCK)
		assigned_in_block(as, &e->u.blockx.body);
}

static void assigned_in_block(struct assigned *as, const struct ast_block *b)
{
	for (uint32_t i = 0; i < b->n; i++) {
		const struct ast_stmt *s = b->stmts[i];
		if (s->kind == S_ASSIGN)
			note_assigned(as, s->u.assign.target);
		else if (s->kind == S_IF)
			assigned_in_block(as, &s->u.if_.then);
		else if (s->kind == S_WHILE || s->kind == S_UNROLL)
			assigned_in_block(as, &s->u.loop.body);
		else if (s->kind == S_BLOCK)
			assigned_in_block(as, &s->u.block);
		else if (s->kind == S_LET)
			note_assigned(as, s->u.let.var);
		else if (s->kind == S_FOR) {
			note_assigned(as, s->u.for_.var);
			assigned_in_block(as, &s->u.for_.body);
		}
		if (s->kind == S_IF && s->u.if_.otherwise) {
			struct ast_block one = {
				.stmts = (struct ast_stmt **)&s->u.if_.otherwise,
				.n = 1, .span = s->span };
			assigned_in_block(as, &one);
		}
	}
	/* expressions: ++ and --, and block expressions within them */
	ast_walk_block((struct ast_block *)b, assigned_in_expr, as);
}

static int param_index(const struct frame *f, enum ast_expr_kind k,
		       const char *name)
{
	for (uint32_t i = 0; f && i < f->m->nparams; i++)
		if (f->m->params[i]->kind == k &&
		    !strcmp(param_name(f->m->params[i]), name))
			return (int)i;
	return -1;
}

static const char *renamed(struct mx *x, const struct frame *f,
			   const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	/* name keeps its '$': $$add_x, $$add_2_x */
	if (f->depth == 1)
		sb_printf(&sb, "$$%s_%s", f->m->name, name + 1);
	else
		sb_printf(&sb, "$$%s_%d_%s", f->m->name, f->depth, name + 1);
	const char *r = arena_strdup(x->a, sb_str(&sb));
	sb_free(&sb);
	return r;
}

/* A block expression of no statements is its value, so that what looks
 * at an argument's kind (print(@map), a printf format) still sees it. */
/* f as macrotype.h sees an expansion. */
static struct mtype_frame mframe(struct mx *x, const struct frame *f)
{
	return (struct mtype_frame){ .a = x->a, .d = x->d,
				     .macro = f->m->name,
				     .params = f->m->params, .args = f->args,
				     .nparams = f->m->nparams };
}

/* The types ts names, with the types f's parameters stand for
 * (macrotype.h); outside a macro only typeof(T) of a type argument. */
static void subst_type(struct mx *x, const struct frame *f,
		       struct ast_typespec *ts)
{
	struct mtype_frame mf;
	if (f)
		mf = mframe(x, f);
	mtype_subst(f ? &mf : NULL, ts);
}

static void unwrap(struct ast_expr **ep)
{
	struct ast_expr *e = *ep;
	if (e->kind == E_BLOCK && !e->u.blockx.body.n && e->u.blockx.value)
		*ep = e->u.blockx.value;
}

static void too_large(struct mx *x, const struct ast_expr *site)
{
	if (!x->too_many)
		diag_error(x->d, site->span, "macro expansion is too large: "
			   "more than %d expansions, %d levels or %d nodes",
			   MAX_EXPANSIONS, MAX_DEPTH, MAX_NODES);
	x->too_many = true;
}

/* Expands macro m for the call (or bare name) at *ep, args already
 * expanded in the caller's frame. */
static void expand_call(struct mx *x, struct ast_expr **ep,
			const struct ast_macro *m, struct ast_expr **args)
{
	struct ast_expr *site = *ep;
	for (int i = 0; i < x->depth; i++) {
		if (x->stack[i] != m)
			continue;
		struct strbuf sb = STRBUF_INIT;
		for (int j = i; j < x->depth; j++)
			sb_printf(&sb, "%s > ", x->stack[j]->name);
		sb_append(&sb, m->name);
		diag_error(x->d, site->span, "Recursive macro call detected. "
			   "Call chain: %s", sb_str(&sb));
		diag_report(x->d, "ERROR", m->span, "This is the macro called "
			    "again.");
		sb_free(&sb);
		return;
	}
	if (++x->expansions > MAX_EXPANSIONS || x->depth >= MAX_DEPTH ||
	    x->nodes >= MAX_NODES) {
		too_large(x, site);
		return;
	}
	struct ast_expr *e = arena_alloc(x->a, sizeof(*e));
	*e = *site;
	e->kind = E_BLOCK;
	e->builtin = BI_NONE;
	clone_block(x, &e->u.blockx.body, &m->body);
	ast_block_split_value(x->a, &e->u.blockx.body, &e->u.blockx.value);

	struct assigned as = { x, NULL, 0, 0 };
	assigned_in_block(&as, &m->body);
	struct frame f = { m, args, as.names, as.n, x->depth + 1, site };
	x->stack[x->depth++] = m;
	expand_block(x, &f, &e->u.blockx.body);
	if (e->u.blockx.value)
		expand_expr(x, &f, &e->u.blockx.value);
	x->depth--;
	*ep = e;
	unwrap(ep);
	struct ast_expansion *xp = arena_alloc(x->a, sizeof(*xp));
	xp->macro = m->name;
	xp->site = site->span;
	xp->inner = (*ep)->expansion;
	(*ep)->expansion = xp;
}

/* A name that may be a macro (call form or bare), met in frame f:
 * expanded, or left. */
static void maybe_macro(struct mx *x, struct frame *f, struct ast_expr **ep)
{
	struct ast_expr *e = *ep;
	bool call = e->kind == E_CALL;
	const char *name = call ? e->u.call.name : e->u.name;
	struct ast_expr **args = call ? e->u.call.args.items : NULL;
	uint32_t nargs = call ? e->u.call.args.n : 0;
	const struct ast_macro *closest;
	need_prelude(x, name);
	const struct ast_macro *m = lookup(x, name, args, nargs,
					   f && is_std(x, f->m), &closest);
	if (m) {
		expand_call(x, ep, m, args);
		return;
	}
	/* no exact user macro: a builtin's name stays the builtin */
	if (is_builtin_name(name)) {
		uint32_t n;
		enum builtin_id b = builtin_var_lookup(name, &n);
		if (call && !nargs && b != BI_NONE &&
		    builtin_fn_lookup(name) == BI_NONE) {
			/* comm(): the variable, as 0.26's library macro */
			e->kind = E_BUILTIN;
			e->u.name = name;
			e->builtin = (int16_t)b;
			e->builtin_n = (uint16_t)n;
		}
		return;
	}
	if (closest)
		mismatch(x, e, name, args, nargs, closest);
}

static void expand_list(struct mx *x, struct frame *f,
			struct ast_expr_list *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		expand_expr(x, f, &l->items[i]);
}

static void expand_expr(struct mx *x, struct frame *f, struct ast_expr **ep)
{
	struct ast_expr *e = *ep;
	if (!e)
		return;
	switch (e->kind) {
	case E_IDENT: {
		int i = param_index(f, E_IDENT, e->u.name);
		if (i >= 0) {
			/* the caller's expression, already expanded there;
			 * a variable or map is read, never written, through
			 * it (the parser refuses x = and x++) */
			if (x->nodes >= MAX_NODES) {
				too_large(x, e);
				return;
			}
			*ep = clone_expr(x, f->args[i]);
			if (*ep != f->args[i])
				(*ep)->span = e->span;
			unwrap(ep);
			return;
		}
		/* __builtin_comm: 0.26's name of the builtin itself */
		uint32_t n;
		enum builtin_id b;
		if (!strncmp(e->u.name, "__builtin_", 10) &&
		    (b = builtin_var_lookup(e->u.name + 10, &n)) != BI_NONE) {
			e->kind = E_BUILTIN;
			e->u.name = e->u.name + 10;
			e->builtin = (int16_t)b;
			e->builtin_n = (uint16_t)n;
			return;
		}
		maybe_macro(x, f, ep);
		return;
	}
	case E_BUILTIN:
		maybe_macro(x, f, ep);
		return;
	case E_CALL:
		expand_list(x, f, &e->u.call.args);
		maybe_macro(x, f, ep);
		return;
	case E_VAR: {
		if (!f)
			return;
		int i = param_index(f, E_VAR, e->u.name);
		if (i >= 0) {
			e->u.name = f->args[i]->u.name;
			return;
		}
		for (uint32_t j = 0; j < f->nassigned; j++)
			if (!strcmp(f->assigned[j], e->u.name)) {
				e->u.name = renamed(x, f, e->u.name);
				return;
			}
		return;
	}
	case E_MAP:
		expand_list(x, f, &e->u.map.keys);
		if (f) {
			int i = param_index(f, E_MAP, e->u.map.name);
			if (i >= 0)
				e->u.map.name = f->args[i]->u.map.name;
			else {
				diag_error(x->d, e->span, "Unhygienic access to "
					   "map: %s. Maps must be passed into "
					   "the macro as arguments.",
					   e->u.map.name);
				diag_report(x->d, "ERROR", f->site->span, "This "
					    "is the call of %s().",
					    f->m->name);
			}
		}
		return;
	case E_UNARY:
		expand_expr(x, f, &e->u.unary.operand);
		return;
	case E_BINARY:
		expand_expr(x, f, &e->u.binary.left);
		expand_expr(x, f, &e->u.binary.right);
		return;
	case E_TERNARY:
		expand_expr(x, f, &e->u.ternary.cond);
		expand_expr(x, f, &e->u.ternary.then);
		expand_expr(x, f, &e->u.ternary.otherwise);
		return;
	case E_CAST:
		expand_expr(x, f, &e->u.cast.operand);
		if (e->u.cast.to.of)
			expand_expr(x, f, &e->u.cast.to.of);
		subst_type(x, f, &e->u.cast.to);
		return;
	case E_FIELD:
		expand_expr(x, f, &e->u.field.base);
		return;
	case E_INDEX:
		expand_expr(x, f, &e->u.index.base);
		expand_expr(x, f, &e->u.index.index);
		return;
	case E_TUPLE:
		expand_list(x, f, &e->u.list);
		return;
	case E_TUPLE_INDEX:
		expand_expr(x, f, &e->u.tindex.base);
		return;
	case E_SIZEOF:
		/* a bare name there is a type, never a macro (0.26) */
		if (e->u.size_of.expr && (e->u.size_of.expr->kind != E_IDENT ||
					  param_index(f, E_IDENT,
						      e->u.size_of.expr->u.name) >= 0))
			expand_expr(x, f, &e->u.size_of.expr);
		if (e->u.size_of.type.of)
			expand_expr(x, f, &e->u.size_of.type.of);
		if (e->u.size_of.expr && e->u.size_of.expr->kind == E_TYPEARG) {
			/* sizeof(t) of a type argument: of that type */
			e->u.size_of.type = e->u.size_of.expr->u.size_of.type;
			e->u.size_of.type.span = e->u.size_of.expr->span;
			e->u.size_of.expr = NULL;
		}
		if (!e->u.size_of.expr)
			subst_type(x, f, &e->u.size_of.type);
		return;
	case E_TYPEARG:
		if (e->u.size_of.type.of)
			expand_expr(x, f, &e->u.size_of.type.of);
		subst_type(x, f, &e->u.size_of.type);
		return;
	case E_BLOCK:
		expand_block(x, f, &e->u.blockx.body);
		expand_expr(x, f, &e->u.blockx.value);
		unwrap(ep);
		return;
	case E_OFFSETOF:
		/* field_exist(EXPR, f): the expression's type */
		if (e->u.offset_of.type.of)
			expand_expr(x, f, &e->u.offset_of.type.of);
		subst_type(x, f, &e->u.offset_of.type);
		if (f) {
			struct mtype_frame mf = mframe(x, f);
			mtype_subst_fields(&mf, e);
		}
		return;
	case E_COMPTIME:
		expand_expr(x, f, &e->u.comptime.expr);
		if (e->u.comptime.then) {
			expand_expr(x, f, &e->u.comptime.then);
			expand_expr(x, f, &e->u.comptime.otherwise);
		}
		return;
	case E_INT:
	case E_STRING:
	case E_POSITIONAL:
		return;
	}
}

static void expand_stmt(struct mx *x, struct frame *f, struct ast_stmt *s)
{
	switch (s->kind) {
	case S_EXPR: {
		expand_expr(x, f, &s->u.expr);
		struct ast_expr *e = s->u.expr;
		if (e->kind != E_BLOCK)
			return;
		/* a macro called as a statement is a nested block, its
		 * value a statement of it */
		struct ast_block b = e->u.blockx.body;
		if (e->u.blockx.value) {
			struct ast_stmt **st = arena_alloc(
				x->a, sizeof(*st) * (b.n + 1));
			if (b.n)
				memcpy(st, b.stmts, sizeof(*st) * b.n);
			struct ast_stmt *v = arena_alloc(x->a, sizeof(*v));
			v->kind = S_EXPR;
			v->span = e->u.blockx.value->span;
			v->u.expr = e->u.blockx.value;
			st[b.n++] = v;
			b.stmts = st;
		}
		b.trailing = false;
		b.expansion = e->expansion;
		s->kind = S_BLOCK;
		s->u.block = b;
		return;
	}
	case S_RETURN:
		expand_expr(x, f, &s->u.expr);
		return;
	case S_ASSIGN:
		expand_expr(x, f, &s->u.assign.target);
		expand_expr(x, f, &s->u.assign.value);
		return;
	case S_IF:
		expand_expr(x, f, &s->u.if_.cond);
		expand_block(x, f, &s->u.if_.then);
		if (s->u.if_.otherwise)
			expand_stmt(x, f, s->u.if_.otherwise);
		return;
	case S_UNROLL:
	case S_WHILE:
		expand_expr(x, f, &s->u.loop.cond);
		expand_block(x, f, &s->u.loop.body);
		return;
	case S_BREAK:
	case S_CONTINUE:
		return;
	case S_BLOCK:
		expand_block(x, f, &s->u.block);
		return;
	case S_LET:
		expand_expr(x, f, &s->u.let.var);
		if (s->u.let.value)
			expand_expr(x, f, &s->u.let.value);
		if (s->u.let.type.of)
			expand_expr(x, f, &s->u.let.type.of);
		if (s->u.let.has_type)
			subst_type(x, f, &s->u.let.type);
		return;
	case S_FOR:
		expand_expr(x, f, &s->u.for_.var);
		if (s->u.for_.map)
			expand_expr(x, f, &s->u.for_.map);
		if (s->u.for_.start)
			expand_expr(x, f, &s->u.for_.start);
		if (s->u.for_.end)
			expand_expr(x, f, &s->u.for_.end);
		expand_block(x, f, &s->u.for_.body);
		return;
	}
}

static void expand_block(struct mx *x, struct frame *f, struct ast_block *b)
{
	for (uint32_t i = 0; i < b->n; i++)
		expand_stmt(x, f, b->stmts[i]);
}

int macro_expand(struct arena *a, struct diag *d, struct ast_program *prog)
{
	int before = d->nerrors;
	struct mx x;
	memset(&x, 0, sizeof(x));
	x.a = a;
	x.d = d;
	register_macros(&x, &x.user, prog);
	for (uint32_t i = 0; i < prog->nprobes; i++) {
		struct ast_probe *p = &prog->probes[i];
		expand_expr(&x, NULL, &p->pred);
		expand_block(&x, NULL, &p->body);
	}
	return d->nerrors > before ? -1 : 0;
}
