#include "lang/cmacro.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/parser.h"
#include "util/strbuf.h"
#include "util/vec.h"

struct macro {
	const char *name;
	const char *body; /* NULL: #undef */
	uint32_t order;   /* later definitions win */
};

struct expander {
	struct arena *a;
	struct diag *d;
	struct macro *m; /* by name, then order */
	size_t n;
	/* the macros being expanded, outermost first */
	const char *active[64];
	int nactive;
	int failed;
	const struct ast_program *prog;
};

/* Whether the script's C definitions have an enumerator name. */
static bool is_enumerator(const struct ast_program *p, const char *name)
{
	for (uint32_t i = 0; i < p->ncdefs; i++) {
		const struct ast_cdef *d = p->cdefs[i];
		for (uint32_t k = 0; d->kind == CDEF_ENUM && k < d->nenums; k++)
			if (!strcmp(d->enums[k].name, name))
				return true;
	}
	return false;
}

/* "#define NAME BODY" or "#undef NAME" into *out (body NULL for #undef
 * and an empty body: no macro); false for other lines and function-like
 * macros. Comments go. */
static bool parse_define(struct arena *a, const char *text, uint32_t order,
			 struct macro *out)
{
	const char *p = text + 1 + strspn(text + 1, " \t");
	bool def = !strncmp(p, "define", 6), undef = !strncmp(p, "undef", 5);
	if (!def && !undef)
		return false;
	p += def ? 6 : 5;
	if (*p != ' ' && *p != '\t')
		return false;
	p += strspn(p, " \t");
	const char *n = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	if (p == n || (def && *p == '('))
		return false;
	*out = (struct macro){ arena_strndup(a, n, (size_t)(p - n)), NULL,
			       order };
	struct strbuf b = STRBUF_INIT;
	for (; def && *p; p++) {
		if (p[0] == '/' && p[1] == '/')
			break;
		if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			if (!e)
				break;
			p = e + 1;
			sb_putc(&b, ' ');
			continue;
		}
		sb_putc(&b, *p);
	}
	const char *body = sb_str(&b);
	size_t len = b.len;
	while (len && isspace((unsigned char)body[len - 1]))
		len--;
	while (len && isspace((unsigned char)*body))
		body++, len--;
	if (len)
		out->body = arena_strndup(a, body, len);
	sb_free(&b);
	return true;
}

static int by_name(const void *x, const void *y)
{
	const struct macro *a = x, *b = y;
	int c = strcmp(a->name, b->name);
	return c ? c : (a->order > b->order) - (a->order < b->order);
}

/* The body of macro name, or NULL. */
static const char *lookup(const struct expander *x, const char *name)
{
	size_t lo = 0, hi = x->n;
	while (lo < hi) { /* the last entry of that name */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(x->m[mid].name, name) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && !strcmp(x->m[lo - 1].name, name) ? x->m[lo - 1].body :
							  NULL;
}

/* Every node of e takes span sp: errors in an expansion point at the
 * macro's use. */
static void relocate(struct ast_expr *e, void *ctx)
{
	e->span = *(const struct span *)ctx;
}

static void expand(struct ast_expr *e, void *ctx);

/* e (an identifier naming macro body) becomes body's expression. */
static void expand_one(struct expander *x, struct ast_expr *e,
		       const char *body)
{
	const char *name = e->u.name;
	for (int i = 0; i < x->nactive; i++) {
		if (strcmp(x->active[i], name))
			continue;
		/* as the C preprocessor leaves it: enum { A = 1 }; #define
		 * A A is the enumerator, as bpftrace 0.26 accepts it */
		if (is_enumerator(x->prog, name))
			return;
		struct strbuf chain = STRBUF_INIT;
		for (int k = 0; k < x->nactive; k++)
			sb_printf(&chain, "%s%s", k ? "->" : "", x->active[k]);
		diag_error(x->d, e->span, "Macro recursion: %s", sb_str(&chain));
		sb_free(&chain);
		x->failed = 1;
		return;
	}
	if (x->nactive == (int)(sizeof(x->active) / sizeof(x->active[0]))) {
		diag_error(x->d, e->span, "macro %s: expansions nested too "
			   "deeply", name);
		x->failed = 1;
		return;
	}
	/* the body alone, as a file of its own; its parse errors are not
	 * the script's */
	struct src_file *f = arena_alloc(x->a, sizeof(*f));
	*f = (struct src_file){ .name = name, .text = body,
				.len = (uint32_t)strlen(body) };
	char *msgs = NULL;
	size_t msglen = 0;
	FILE *quiet = open_memstream(&msgs, &msglen);
	struct diag qd;
	diag_init(&qd, quiet ? quiet : stderr);
	struct ast_expr *v = quiet ? parse_expression(x->a, &qd, f) : NULL;
	if (quiet)
		fclose(quiet);
	free(msgs);
	if (!v || qd.nerrors) {
		diag_error(x->d, e->span, "unable to expand macro as an "
			   "expression: %s", body);
		x->failed = 1;
		return;
	}
	struct span sp = e->span;
	ast_walk_expr(v, relocate, &sp);
	x->active[x->nactive++] = name;
	ast_walk_expr(v, expand, x);
	x->nactive--;
	*e = *v;
}

static void expand(struct ast_expr *e, void *ctx)
{
	struct expander *x = ctx;
	const char *body;
	if (e->kind == E_IDENT && (body = lookup(x, e->u.name)))
		expand_one(x, e, body);
}

int cmacro_expand(struct arena *a, struct diag *d, struct ast_program *p)
{
	struct expander x = { .a = a, .d = d, .prog = p };
	VEC(struct macro) m = { 0 };
	for (uint32_t i = 0; i < p->ndirectives; i++) {
		struct macro one;
		if (parse_define(a, p->directives[i].text, i, &one))
			vec_push(&m, one);
	}
	if (!m.len)
		return 0;
	qsort(m.data, m.len, sizeof(*m.data), by_name);
	x.m = m.data;
	x.n = m.len;
	for (uint32_t i = 0; i < p->nprobes; i++)
		ast_walk_probe(&p->probes[i], expand, &x);
	vec_free(&m);
	return x.failed ? -1 : 0;
}
