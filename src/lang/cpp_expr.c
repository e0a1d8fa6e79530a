#include "lang/cpp_expr.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A macro's body is evaluated in place of its name, to this depth (a
 * macro defined through itself is unknown, not a loop). */
#define MAX_NEST 16
/* Parentheses and unary operators nest to this depth (each level is a
 * dozen frames of the recursive descent). */
#define MAX_DEPTH 256

struct ev {
	const char *p;
	cpp_lookup_fn lookup;
	void *ctx;
	int nest, depth;
	bool bad;
};

static int64_t cond(struct ev *e);

static void blanks(struct ev *e)
{
	for (;;) {
		while (*e->p == ' ' || *e->p == '\t')
			e->p++;
		if (e->p[0] == '/' && e->p[1] == '*') {
			const char *end = strstr(e->p + 2, "*/");
			e->p = end ? end + 2 : e->p + strlen(e->p);
			continue;
		}
		if (e->p[0] == '/' && e->p[1] == '/')
			e->p += strlen(e->p);
		return;
	}
}

static bool eat(struct ev *e, const char *op)
{
	blanks(e);
	size_t n = strlen(op);
	if (strncmp(e->p, op, n))
		return false;
	e->p += n;
	return true;
}

static int64_t fail(struct ev *e)
{
	e->bad = true;
	return 0;
}

static size_t ident_len(const char *p)
{
	size_t n = 0;
	if (!isalpha((unsigned char)*p) && *p != '_')
		return 0;
	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	return n;
}

static int64_t number(struct ev *e)
{
	if (*e->p == '\'') {
		/* 'c' and the simple escapes */
		const char *p = e->p + 1;
		int64_t v = (unsigned char)*p;
		if (*p == '\\') {
			p++;
			const char *esc = "n\nt\tr\r0\0\\\\''";
			const char *m = strchr(esc, *p);
			if (!*p || !m || (m - esc) % 2)
				return fail(e);
			v = (unsigned char)m[1];
		}
		if (p[1] != '\'')
			return fail(e);
		e->p = p + 2;
		return v;
	}
	char *end;
	errno = 0;
	unsigned long long v = strtoull(e->p, &end, 0);
	if (errno || end == e->p)
		return fail(e);
	while (*end && strchr("uUlL", *end))
		end++;
	if (isalnum((unsigned char)*end) || *end == '_' || *end == '.')
		return fail(e);
	e->p = end;
	return (int64_t)v;
}

/* defined NAME / defined(NAME) */
static int64_t defined(struct ev *e)
{
	bool paren = eat(e, "(");
	blanks(e);
	size_t n = ident_len(e->p);
	if (!n)
		return fail(e);
	const char *body;
	bool fn;
	bool d = e->lookup(e->ctx, e->p, n, &body, &fn);
	e->p += n;
	if (paren && !eat(e, ")"))
		return fail(e);
	return d;
}

static int64_t macro(struct ev *e, const char *name, size_t n)
{
	const char *body;
	bool fn;
	if (!e->lookup(e->ctx, name, n, &body, &fn))
		return 0; /* C: an identifier that is no macro is 0 */
	blanks(e);
	if (fn || !*body || e->nest >= MAX_NEST)
		return fail(e);
	struct ev sub = { body, e->lookup, e->ctx, e->nest + 1, e->depth,
			  false };
	int64_t v = cond(&sub);
	blanks(&sub);
	if (sub.bad || *sub.p)
		return fail(e);
	return v;
}

static int64_t unary_in(struct ev *e);

static int64_t unary(struct ev *e)
{
	if (++e->depth > MAX_DEPTH)
		return fail(e);
	int64_t v = unary_in(e);
	e->depth--;
	return v;
}

static int64_t unary_in(struct ev *e)
{
	blanks(e);
	if (eat(e, "!"))
		return !unary(e);
	if (eat(e, "~"))
		return ~unary(e);
	if (eat(e, "-"))
		return -unary(e);
	if (eat(e, "+"))
		return unary(e);
	if (eat(e, "(")) {
		int64_t v = cond(e);
		if (!eat(e, ")"))
			return fail(e);
		return v;
	}
	blanks(e);
	if (isdigit((unsigned char)*e->p) || *e->p == '\'')
		return number(e);
	size_t n = ident_len(e->p);
	if (!n)
		return fail(e);
	const char *name = e->p;
	e->p += n;
	if (n == 7 && !strncmp(name, "defined", 7))
		return defined(e);
	return macro(e, name, n);
}

/* The binary operators by C's precedence, loosest first. */
static const char *const levels[][5] = {
	{ "||" }, { "&&" }, { "|" }, { "^" }, { "&" }, { "==", "!=" },
	{ "<=", ">=", "<", ">" }, { "<<", ">>" }, { "+", "-" },
	{ "*", "/", "%" },
};
#define NLEVELS (sizeof(levels) / sizeof(levels[0]))

/* Whether op at p is that operator and not the start of a longer one
 * (| of ||, & of &&, < of <<). */
static bool at_op(const char *p, const char *op)
{
	size_t n = strlen(op);
	if (strncmp(p, op, n))
		return false;
	if (n == 1 && (*op == '|' || *op == '&') && p[1] == *op)
		return false;
	if (n == 1 && (*op == '<' || *op == '>') &&
	    (p[1] == '=' || p[1] == *op))
		return false;
	return true;
}

static int64_t apply(struct ev *e, const char *op, int64_t a, int64_t b)
{
	switch (op[0]) {
	case '|': return op[1] ? (a || b) : (a | b);
	case '&': return op[1] ? (a && b) : (a & b);
	case '^': return a ^ b;
	case '=': return a == b;
	case '!': return a != b;
	case '<':
		if (op[1] == '<')
			return b < 0 || b > 63 ? fail(e) : (int64_t)((uint64_t)a << b);
		return op[1] ? a <= b : a < b;
	case '>':
		if (op[1] == '>')
			return b < 0 || b > 63 ? fail(e) : a >> b;
		return op[1] ? a >= b : a > b;
	case '+': return (int64_t)((uint64_t)a + (uint64_t)b);
	case '-': return (int64_t)((uint64_t)a - (uint64_t)b);
	case '*': return (int64_t)((uint64_t)a * (uint64_t)b);
	case '/':
	case '%':
		if (!b || (a == INT64_MIN && b == -1))
			return fail(e);
		return op[0] == '/' ? a / b : a % b;
	}
	return fail(e);
}

static int64_t binary(struct ev *e, size_t level)
{
	if (level == NLEVELS)
		return unary(e);
	int64_t v = binary(e, level + 1);
	for (;;) {
		blanks(e);
		const char *op = NULL;
		for (size_t i = 0; i < 5 && levels[level][i]; i++)
			if (at_op(e->p, levels[level][i]))
				op = levels[level][i];
		if (!op || e->bad)
			return v;
		e->p += strlen(op);
		v = apply(e, op, v, binary(e, level + 1));
	}
}

static int64_t cond(struct ev *e)
{
	int64_t c = binary(e, 0);
	if (!eat(e, "?"))
		return c;
	int64_t a = cond(e);
	if (!eat(e, ":"))
		return fail(e);
	int64_t b = cond(e);
	return c ? a : b;
}

int cpp_eval(const char *expr, cpp_lookup_fn lookup, void *ctx,
	     int64_t *value)
{
	struct ev e = { expr, lookup, ctx, 0, 0, false };
	int64_t v = cond(&e);
	blanks(&e);
	if (e.bad || *e.p)
		return -1;
	*value = v;
	return 0;
}
