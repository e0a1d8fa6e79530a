/*
 * Recursive-descent parser for the bpftrace language. The grammar rule a
 * function implements is written above it. Syntax errors are reported with
 * their span; the parser then skips to the end of the statement (or probe)
 * and goes on, so one run reports several independent errors.
 */
#include "parser.h"

#include <setjmp.h>
#include <stdarg.h>
#include <string.h>

#include "lang/builtins.h"
#include "lang/lexer.h"
#include "probes/provider.h"
#include "util/strbuf.h"
#include "util/vec.h"

/* Deeper nesting is refused so that hostile input cannot overflow the C
 * stack, here or in the passes that recurse on the tree. Expressions and
 * blocks count apart, so that each message names what is too deep. */
#define MAX_DEPTH 500 /* expression levels: a '(' costs 3 */
#define MAX_NEST 200  /* blocks and C definitions: an 'if' costs 2 */

/* Growable arrays in the arena: a syntax error longjmps out of any parse
 * function, and arena memory cannot leak when it does. */
#define AVEC(T)                                                                \
	struct {                                                               \
		T *data;                                                       \
		size_t len, cap;                                               \
	}

struct parser {
	struct lexer lx;
	struct arena *arena;
	struct diag *diag;
	struct token tok; /* current token, valid when have_tok */
	int have_tok;
	struct span prev; /* the last token taken */
	int depth;        /* expression recursion */
	int nest;         /* block and definition recursion */
	int braces;       /* '{' taken and not closed, for recovery */
	int in_pred;      /* inside /.../: "/ {" ends the predicate */
	jmp_buf recover;  /* where a syntax error unwinds to */
	AVEC(const char *) typedefs; /* names usable in casts */
	/* the identifier parameters of the macro being parsed: `(t)x` in
	 * its body is a cast to the type t stands for */
	struct ast_expr **mparams;
	uint32_t nmparams;
};

static struct token *peek(struct parser *p)
{
	if (!p->have_tok) {
		p->tok = lex_next(&p->lx);
		p->have_tok = 1;
	}
	return &p->tok;
}

static struct token take(struct parser *p)
{
	struct token t = *peek(p);
	p->have_tok = 0;
	p->prev = t.span;
	if (t.kind == T_LBRACE)
		p->braces++;
	else if (t.kind == T_RBRACE && p->braces > 0)
		p->braces--;
	return t;
}

static int at(struct parser *p, enum tok_kind k)
{
	return peek(p)->kind == k;
}

static int accept(struct parser *p, enum tok_kind k)
{
	if (!at(p, k))
		return 0;
	take(p);
	return 1;
}

/* The empty span just after s: where a missing token belongs. */
static struct span span_after(struct span s)
{
	struct span r = s;
	for (uint32_t i = s.off; i < s.off + s.len; i++) {
		unsigned char c = (unsigned char)s.file->text[i];
		if (c == '\n') {
			r.line++;
			r.col = 1;
		} else if (i > s.off && (c & 0xc0) != 0x80) {
			r.col++;
		}
	}
	if (s.len)
		r.col++;
	r.off = s.off + s.len;
	r.len = 0;
	return r;
}

/* Reports a syntax error at the current token (unless the lexer already
 * reported it) and unwinds to the enclosing recovery point. */
static _Noreturn void syntax_error(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static _Noreturn void syntax_error(struct parser *p, const char *fmt, ...)
{
	struct token *t = peek(p);
	if (t->kind != T_ERROR) {
		/* The end of the file is shown as the end of its last token,
		 * not as an empty line after it. */
		struct span sp = t->span;
		if (t->kind == T_EOF && p->prev.file)
			sp = span_after(p->prev);
		va_list ap;
		va_start(ap, fmt);
		diag_verror(p->diag, sp, fmt, ap);
		va_end(ap);
	}
	longjmp(p->recover, 1);
}

static const char *describe(const struct token *t)
{
	static char buf[96];
	switch (t->kind) {
	case T_IDENT:
		snprintf(buf, sizeof(buf), "identifier '%s'", t->text);
		return buf;
	case T_MAP:
	case T_VAR:
		snprintf(buf, sizeof(buf), "'%s'", t->text);
		return buf;
	case T_INT:
	case T_STRING:
	case T_EOF:
	case T_POSITIONAL:
	case T_DIRECTIVE:
		return lex_tok_name(t->kind);
	default:
		snprintf(buf, sizeof(buf), "'%s'", lex_tok_name(t->kind));
		/* keyword names already carry quotes */
		if (buf[1] == '\'') {
			memmove(buf, buf + 1, strlen(buf));
			buf[strlen(buf) - 1] = 0;
		}
		return buf;
	}
}

/* Reports a missing token; returns 0 if it was missing. A token missing
 * at the end of a line (usually ';') is reported there, not at whatever
 * starts the next line. */
static int expect_soft(struct parser *p, enum tok_kind k, const char *what)
{
	if (at(p, k))
		return 1;
	struct token *t = peek(p);
	if (t->kind == T_ERROR)
		return 0;
	if (p->prev.file && t->span.line > span_after(p->prev).line)
		diag_error(p->diag, span_after(p->prev), "expected %s", what);
	else
		diag_error(p->diag, t->span, "expected %s, found %s", what,
			   describe(t));
	return 0;
}

static struct token expect(struct parser *p, enum tok_kind k,
			   const char *what)
{
	if (!expect_soft(p, k, what))
		longjmp(p->recover, 1);
	return take(p);
}

static void enter(struct parser *p, const char *what)
{
	if (++p->depth > MAX_DEPTH)
		syntax_error(p, "%s is nested too deeply", what);
}

static void leave(struct parser *p)
{
	p->depth--;
}

/* what: "block" or "definition", for the message. */
static void enter_nest(struct parser *p, const char *what)
{
	if (++p->nest > MAX_NEST)
		syntax_error(p, "%s is nested too deeply", what);
}

static void leave_nest(struct parser *p)
{
	p->nest--;
}

static void *new_node(struct parser *p, size_t size)
{
	return arena_alloc(p->arena, size);
}

static struct ast_expr *new_expr(struct parser *p, enum ast_expr_kind k,
				 struct span sp)
{
	struct ast_expr *e = new_node(p, sizeof(*e));
	e->kind = k;
	e->span = sp;
	e->type = &type_none;
	e->builtin = BI_NONE;
	return e;
}

static struct span end_span(struct span start, struct span last)
{
	return span_join(start, last);
}

static void *agrow(struct arena *a, void *data, size_t len, size_t *cap,
		   size_t elem)
{
	size_t nc = *cap ? *cap * 2 : 4;
	void *n = arena_alloc(a, nc * elem);
	if (len)
		memcpy(n, data, len * elem);
	*cap = nc;
	return n;
}

#define apush(p, v, x)                                                         \
	do {                                                                   \
		if ((v)->len == (v)->cap)                                      \
			(v)->data = agrow((p)->arena, (v)->data, (v)->len,     \
					  &(v)->cap, sizeof(*(v)->data));      \
		(v)->data[(v)->len++] = (x);                                   \
	} while (0)

#define FREEZE(p, v, outp, outn)                                               \
	do {                                                                   \
		(outn) = (uint32_t)(v).len;                                    \
		(outp) = (v).data;                                             \
	} while (0)

static struct ast_expr *parse_expr(struct parser *p);
static struct ast_expr *parse_unary(struct parser *p);
static void parse_block(struct parser *p, struct ast_block *b);

/* ---- types as written in casts, sizeof, offsetof and C definitions ---- */

static const char *const builtin_type_words[] = {
	"void", "bool", "char", "short", "int", "long", "signed", "unsigned",
	"float", "double",
	"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
	"uint64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"__u8", "__u16", "__u32", "__u64", "__s8", "__s16", "__s32", "__s64",
	"int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
	"uint32_t", "uint64_t", "size_t", "ssize_t", "pid_t", "uid_t",
	"gid_t", "string", "buffer", "inet",
};

static int is_qualifier(const char *w)
{
	return !strcmp(w, "const") || !strcmp(w, "volatile") ||
	       !strcmp(w, "restrict") || !strcmp(w, "__user");
}

static int is_combining_word(const char *w)
{
	static const char *const words[] = { "signed", "unsigned", "short",
					     "long", "int", "char" };
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (!strcmp(w, words[i]))
			return 1;
	return 0;
}

static int is_type_word(struct parser *p, const char *w)
{
	for (size_t i = 0; i < sizeof(builtin_type_words) / sizeof(char *); i++)
		if (!strcmp(w, builtin_type_words[i]))
			return 1;
	for (size_t i = 0; i < p->typedefs.len; i++)
		if (!strcmp(w, p->typedefs.data[i]))
			return 1;
	return is_qualifier(w);
}

static enum tok_kind peek2(struct parser *p);

static int at_typeof(struct parser *p)
{
	return at(p, T_IDENT) && !strcmp(peek(p)->text, "typeof") &&
	       peek2(p) == T_LPAREN;
}

/* The parser's position, for a look further ahead than peek2. */
struct pstate {
	struct lexer lx;
	struct token tok;
	int have_tok;
	struct span prev;
	int braces;
};

static struct pstate p_save(struct parser *p)
{
	return (struct pstate){ p->lx, p->tok, p->have_tok, p->prev,
				p->braces };
}

static void p_restore(struct parser *p, const struct pstate *st)
{
	p->lx = st->lx;
	p->tok = st->tok;
	p->have_tok = st->have_tok;
	p->prev = st->prev;
	p->braces = st->braces;
}

/* At a name that is no builtin variable, followed by what only a type
 * has there: `t*` before ')', '[' or ',', or `t[N]`. A type context
 * takes it as a type name, as bpftrace does (a macro's type parameter,
 * a typedef): `sizeof(t*)`, `(t*)x`, `typeof(t[2])`. */
static int ident_type_ahead(struct parser *p, bool dims)
{
	uint32_t n;
	if (!at(p, T_IDENT) || builtin_var_lookup(peek(p)->text, &n) != BI_NONE)
		return 0;
	struct pstate st = p_save(p);
	take(p);
	int r = 0;
	if (at(p, T_STAR)) {
		while (accept(p, T_STAR))
			;
		r = at(p, T_RPAREN) || at(p, T_LBRACKET) || at(p, T_COMMA);
	} else if (dims && accept(p, T_LBRACKET)) {
		r = accept(p, T_INT) && at(p, T_RBRACKET);
	}
	p_restore(p, &st);
	return r;
}

/* dims: `t[N]` is a type too (not after a '(': `(a[0]) + 1` stays an
 * index, where a cast to an array type is rare) */
static int starts_type_with(struct parser *p, bool dims)
{
	struct token *t = peek(p);
	return t->kind == T_STRUCT || t->kind == T_UNION || t->kind == T_ENUM ||
	       (t->kind == T_IDENT && is_type_word(p, t->text)) ||
	       at_typeof(p) || ident_type_ahead(p, dims);
}

static int starts_type(struct parser *p)
{
	return starts_type_with(p, true);
}

static void parse_typespec(struct parser *p, struct ast_typespec *ts);

/* typeof '(' ( typespec | expr ) ')': a type, or an expression's (0.26:
 * a bare name there is a type, a macro only with its call syntax) */
static void parse_typeof(struct parser *p, struct ast_typespec *ts)
{
	struct span kw = take(p).span;
	expect(p, T_LPAREN, "'(' after typeof");
	if (starts_type(p)) {
		parse_typespec(p, ts);
	} else {
		memset(ts, 0, sizeof(*ts));
		ts->base = "typeof";
		ts->of = parse_expr(p);
	}
	ts->span = end_span(kw, expect(p, T_RPAREN, "')'").span);
}

/* type_base := ('struct'|'union'|'enum') IDENT | type_word { type_word } */
static void parse_type_base(struct parser *p, struct ast_typespec *ts)
{
	if (at_typeof(p)) {
		parse_typeof(p, ts);
		return;
	}
	struct strbuf sb = STRBUF_INIT;
	ts->span = peek(p)->span;
	struct span last = ts->span;
	while (at(p, T_IDENT) && is_qualifier(peek(p)->text))
		last = take(p).span;
	if (at(p, T_STRUCT) || at(p, T_UNION) || at(p, T_ENUM)) {
		struct token kw = take(p);
		struct token name = expect(p, T_IDENT, "a type name");
		sb_printf(&sb, "%s %s", lex_tok_name(kw.kind), name.text);
		/* lex_tok_name spells keywords with quotes: strip them */
		char *s = sb.buf;
		size_t j = 0;
		for (size_t i = 0; s[i]; i++)
			if (s[i] != '\'')
				s[j++] = s[i];
		s[j] = 0;
		last = name.span;
	} else {
		while (at(p, T_IDENT) && is_type_word(p, peek(p)->text)) {
			struct token w = take(p);
			last = w.span;
			if (is_qualifier(w.text))
				continue;
			if (sb.len)
				sb_putc(&sb, ' ');
			sb_append(&sb, w.text);
			/* C's combining words (unsigned long int) go on;
			 * any other type name is a whole type by itself. */
			if (!is_combining_word(w.text))
				break;
		}
		/* a name no type word is: a type sema looks up (a macro's
		 * type parameter is replaced before) */
		if (!sb.len && at(p, T_IDENT) &&
		    builtin_var_lookup(peek(p)->text, &(uint32_t){ 0 }) ==
			    BI_NONE) {
			struct token w = take(p);
			last = w.span;
			sb_append(&sb, w.text);
		}
		if (!sb.len)
			syntax_error(p, "expected a type, found %s",
				     describe(peek(p)));
	}
	while (at(p, T_IDENT) && is_qualifier(peek(p)->text))
		last = take(p).span;
	ts->base = arena_strdup(p->arena, sb_str(&sb));
	ts->span = end_span(ts->span, last);
	sb_free(&sb);
}

/* typespec := type_base { '*' } [ '[' INT ']' ] */
static void parse_typespec(struct parser *p, struct ast_typespec *ts)
{
	parse_type_base(p, ts);
	while (at(p, T_STAR) ||
	       (at(p, T_IDENT) && is_qualifier(peek(p)->text))) {
		struct token t = take(p);
		if (t.kind == T_STAR)
			ts->ptr_depth++;
		ts->span = end_span(ts->span, t.span);
	}
	if (accept(p, T_LBRACKET)) {
		if (at(p, T_RBRACKET)) {
			ts->array_auto = true;
			ts->span = end_span(ts->span, take(p).span);
			return;
		}
		struct token n = expect(p, T_INT, "an array length");
		if (n.num == 0 || n.num > 65536) {
			diag_error(p->diag, n.span,
				   "array length must be between 1 and 65536");
			longjmp(p->recover, 1);
		}
		ts->array_len = (uint32_t)n.num;
		ts->span = end_span(ts->span, expect(p, T_RBRACKET, "']'").span);
	}
}

/* ---- expressions ---- */

/* typearg := typeof '(' ( typespec | expr ) ')'
 * A call's argument: a type handed to a macro (bpftrace PR #5234; the
 * typeof keeps `t[2]` a type, never an index). */
static struct ast_expr *parse_typearg(struct parser *p)
{
	struct ast_expr *e = new_expr(p, E_TYPEARG, peek(p)->span);
	parse_typeof(p, &e->u.size_of.type);
	e->span = e->u.size_of.type.span;
	return e;
}

/* args := [ arg { ',' arg } ]   (inside the parentheses)
 * arg := typearg | expr   (typearg: a call's only) */
static void parse_args(struct parser *p, struct ast_expr_list *out,
		       enum tok_kind close, struct span *last)
{
	AVEC(struct ast_expr *) v = { 0 };
	if (!at(p, close)) {
		do {
			apush(p, &v, close == T_RPAREN && at_typeof(p) ?
					     parse_typearg(p) : parse_expr(p));
		} while (accept(p, T_COMMA));
	}
	*last = expect(p, close, close == T_RPAREN ? "')'" : "']'").span;
	FREEZE(p, v, out->items, out->n);
}

/* sizeof := 'sizeof' '(' ( typespec | expr ) ')'
 * typeinfo := 'typeinfo' '(' ( typespec | expr ) ')'   (the word taken:
 * an E_SIZEOF that asks for the type's description) */
static struct ast_expr *parse_sizeof_of(struct parser *p, struct token kw,
					bool info)
{
	struct ast_expr *e = new_expr(p, E_SIZEOF, kw.span);
	e->u.size_of.info = info;
	expect(p, T_LPAREN, info ? "'(' after typeinfo" : "'(' after sizeof");
	if (starts_type(p))
		parse_typespec(p, &e->u.size_of.type);
	else
		e->u.size_of.expr = parse_expr(p);
	e->span = end_span(kw.span, expect(p, T_RPAREN, "')'").span);
	return e;
}

static struct ast_expr *parse_sizeof(struct parser *p)
{
	return parse_sizeof_of(p, take(p), false);
}

/* type_arg := typespec | IDENT | expr
 * The first argument of offsetof and field_exist. A bare IDENT that names
 * no type is a struct's name, as bpftrace 0.26 has it (offsetof(qspinlock,
 * tail)); field_exist also takes an expression (expr_ok), whose type it
 * asks about, kept as typeof(expr): a builtin's name (args, curtask) is
 * that expression. */
static void parse_type_arg(struct parser *p, struct ast_typespec *ts,
			   bool expr_ok)
{
	uint32_t n;
	if (at(p, T_IDENT) && !starts_type(p) &&
	    (!expr_ok || (peek2(p) == T_COMMA &&
			  builtin_var_lookup(peek(p)->text, &n) == BI_NONE))) {
		struct token name = take(p);
		ts->span = name.span;
		ts->base = arena_printf(p->arena, "struct %s", name.text);
		ts->implicit_struct = true;
	} else if (!expr_ok || starts_type(p)) {
		parse_typespec(p, ts);
	} else {
		memset(ts, 0, sizeof(*ts));
		ts->base = "typeof";
		ts->of = parse_expr(p);
		ts->span = ts->of->span;
	}
}

/* ',' IDENT { '.' IDENT } ')' after offsetof's and field_exist's first
 * argument: e's fields; e's span ends at the ')'. */
static void parse_field_path(struct parser *p, struct ast_expr *e,
			     struct span start)
{
	expect(p, T_COMMA, "','");
	AVEC(const char *) fields = { 0 };
	do {
		apush(p, &fields, expect(p, T_IDENT, "a field name").text);
	} while (accept(p, T_DOT));
	FREEZE(p, fields, e->u.offset_of.fields, e->u.offset_of.nfields);
	e->span = end_span(start, expect(p, T_RPAREN, "')'").span);
}

/* offsetof := 'offsetof' '(' ( typespec | IDENT ) ',' IDENT { '.' IDENT } ')' */
static struct ast_expr *parse_offsetof(struct parser *p)
{
	struct token kw = take(p);
	struct ast_expr *e = new_expr(p, E_OFFSETOF, kw.span);
	expect(p, T_LPAREN, "'(' after offsetof");
	parse_type_arg(p, &e->u.offset_of.type, false);
	parse_field_path(p, e, kw.span);
	return e;
}

/* field_exist := 'field_exist' '(' type_arg ',' IDENT { '.' IDENT } ')'
 * (the name taken): a call whose one argument is the path as offsetof
 * holds it, which the typing rule looks up without requiring it. */
static struct ast_expr *parse_field_exist(struct parser *p, struct token name)
{
	struct ast_expr *e = new_expr(p, E_CALL, name.span);
	e->u.call.name = name.text;
	e->u.call.name_span = name.span;
	take(p); /* ( */
	struct ast_expr *path = new_expr(p, E_OFFSETOF, peek(p)->span);
	parse_type_arg(p, &path->u.offset_of.type, true);
	parse_field_path(p, path, path->u.offset_of.type.span);
	e->u.call.args.items = arena_alloc(p->arena, sizeof(path));
	e->u.call.args.items[0] = path;
	e->u.call.args.n = 1;
	e->span = end_span(name.span, path->span);
	return e;
}

/* comptime := 'comptime' unary   (the word taken)
 * bpftrace 0.26's value known at compile time; `if comptime C` keeps only
 * the branch C picks (lang/comptime.h). Located to the ')' of comptime (C),
 * as bpftrace locates it. */
static struct ast_expr *parse_comptime(struct parser *p, struct token kw)
{
	struct ast_expr *e = new_expr(p, E_COMPTIME, kw.span);
	e->u.comptime.expr = parse_unary(p);
	e->span = end_span(kw.span, p->prev);
	e->u.comptime.at = e->span;
	return e;
}

/* block_expr := block   (its value: a last expression with no ';') */
static struct ast_expr *parse_block_expr(struct parser *p)
{
	struct ast_expr *e = new_expr(p, E_BLOCK, peek(p)->span);
	parse_block(p, &e->u.blockx.body);
	/* (no if made a value out of what a syntax error left) */
	ast_block_split_value(p->diag->nerrors ? NULL : p->arena,
			      &e->u.blockx.body, &e->u.blockx.value);
	e->span = e->u.blockx.body.span;
	return e;
}

static struct ast_expr *parse_paren_cond(struct parser *p, const char *what);

/* if_expr := 'if' cond block_expr 'else' ( if_expr | block_expr ): 0.26's
 * if as a value, c ? a : b of its blocks' values */
static struct ast_expr *parse_if_expr(struct parser *p)
{
	enter_nest(p, "block");
	struct token kw = take(p);
	struct ast_expr *e = new_expr(p, E_TERNARY, kw.span);
	e->u.ternary.cond = parse_paren_cond(p, "if");
	e->u.ternary.then = parse_block_expr(p);
	expect(p, T_ELSE, "'else': an if whose value is used needs one");
	e->u.ternary.otherwise = at(p, T_IF) ? parse_if_expr(p) :
					       parse_block_expr(p);
	e->span = end_span(kw.span, e->u.ternary.otherwise->span);
	leave_nest(p);
	return e;
}

/* Whether the tokens after '(' start a record: IDENT '=', where the name
 * is no builtin (as bpftrace 0.26 tells them from a grouping). */
static int starts_record(struct parser *p)
{
	if (!at(p, T_IDENT))
		return 0;
	uint32_t n;
	if (builtin_var_lookup(peek(p)->text, &n) != BI_NONE)
		return 0;
	struct lexer save = p->lx;
	struct token save_tok = p->tok;
	int save_have = p->have_tok;
	struct span save_prev = p->prev;
	take(p);
	int r = at(p, T_ASSIGN);
	p->lx = save;
	p->tok = save_tok;
	p->have_tok = save_have;
	p->prev = save_prev;
	return r;
}

/* record := '(' IDENT '=' expr { ',' IDENT '=' expr } [ ',' ] ')'
 * (the '(' taken) */
static struct ast_expr *parse_record(struct parser *p, struct token open)
{
	AVEC(struct ast_expr *) v = { 0 };
	AVEC(const char *) names = { 0 };
	do {
		if (at(p, T_RPAREN) && v.len)
			break;
		struct token name = expect(p, T_IDENT, "a field name");
		expect(p, T_ASSIGN, "'='");
		apush(p, &v, parse_expr(p));
		/* at the whole "name = value", as bpftrace 0.26 */
		for (size_t i = 0; i < names.len; i++)
			if (!strcmp(names.data[i], name.text)) {
				diag_error(p->diag, end_span(name.span, p->prev),
					   "Named argument list already "
					   "contains name: %s", name.text);
				longjmp(p->recover, 1);
			}
		apush(p, &names, name.text);
	} while (accept(p, T_COMMA));
	struct span last = expect(p, T_RPAREN, "')' or ','").span;
	struct ast_expr *e = new_expr(p, E_TUPLE, end_span(open.span, last));
	FREEZE(p, v, e->u.list.items, e->u.list.n);
	e->u.list.names = names.data;
	return e;
}

/* primary := INT | STRING | 'true' | 'false' | POSITIONAL | VAR
 *          | MAP [ '[' args ']' ] | record | block_expr
 *          | IDENT [ '(' args ')' ] | sizeof | offsetof | field_exist
 *          | comptime
 *          | '(' expr ')' | '(' expr ',' [ expr { ',' expr } ] ')' */
static struct ast_expr *parse_primary(struct parser *p)
{
	struct token *t = peek(p);
	struct ast_expr *e;
	struct span last;
	switch (t->kind) {
	case T_INT: {
		struct token n = take(p);
		e = new_expr(p, E_INT, n.span);
		e->u.num.value = n.num;
		e->u.num.is_char = n.is_char;
		return e;
	}
	case T_STRING: {
		struct token s = take(p);
		e = new_expr(p, E_STRING, s.span);
		e->u.str.bytes = s.str;
		e->u.str.len = s.len;
		return e;
	}
	case T_POSITIONAL: {
		struct token s = take(p);
		e = new_expr(p, E_POSITIONAL, s.span);
		e->u.pos.num = (long)(int64_t)s.num;
		return e;
	}
	case T_VAR: {
		struct token s = take(p);
		e = new_expr(p, E_VAR, s.span);
		e->u.name = s.text;
		return e;
	}
	case T_MAP: {
		struct token s = take(p);
		e = new_expr(p, E_MAP, s.span);
		e->u.map.name = s.text;
		if (accept(p, T_LBRACKET)) {
			e->u.map.has_brackets = true;
			parse_args(p, &e->u.map.keys, T_RBRACKET, &last);
			if (!e->u.map.keys.n) {
				diag_error(p->diag, end_span(s.span, last),
					   "map key is missing between '[' and ']'");
				longjmp(p->recover, 1);
			}
			e->span = end_span(s.span, last);
		}
		return e;
	}
	case T_IDENT: {
		struct token s = take(p);
		if (!strcmp(s.text, "comptime"))
			return parse_comptime(p, s);
		if (!strcmp(s.text, "field_exist") && at(p, T_LPAREN))
			return parse_field_exist(p, s);
		if (!strcmp(s.text, "typeinfo") && at(p, T_LPAREN))
			return parse_sizeof_of(p, s, true);
		if (!strcmp(s.text, "true") || !strcmp(s.text, "false")) {
			e = new_expr(p, E_INT, s.span);
			e->u.num.value = s.text[0] == 't';
			e->u.num.is_bool = true;
			return e;
		}
		if (accept(p, T_LPAREN)) {
			e = new_expr(p, E_CALL, s.span);
			e->u.call.name = s.text;
			e->u.call.name_span = s.span;
			parse_args(p, &e->u.call.args, T_RPAREN, &last);
			e->span = end_span(s.span, last);
			return e;
		}
		uint32_t n;
		enum builtin_id b = builtin_var_lookup(s.text, &n);
		e = new_expr(p, b != BI_NONE ? E_BUILTIN : E_IDENT, s.span);
		e->u.name = s.text;
		e->builtin = (int16_t)b;
		e->builtin_n = (uint16_t)n;
		return e;
	}
	case T_LBRACE:
		return parse_block_expr(p);
	case T_IF:
		return parse_if_expr(p);
	case T_SIZEOF:
		return parse_sizeof(p);
	case T_OFFSETOF:
		return parse_offsetof(p);
	case T_LPAREN: {
		struct token open = take(p);
		int saved_pred = p->in_pred;
		p->in_pred = 0;
		if (starts_record(p)) {
			e = parse_record(p, open);
			p->in_pred = saved_pred;
			return e;
		}
		struct ast_expr *first = parse_expr(p);
		if (!at(p, T_COMMA)) {
			p->in_pred = saved_pred;
			last = expect(p, T_RPAREN, "')'").span;
			/* As bpftrace 0.26's: a parenthesized expression keeps
			 * its own place, inside the parentheses (0.17 located
			 * it and what is built on it from the '(') */
			(void)last;
			return first;
		}
		AVEC(struct ast_expr *) v = { 0 };
		apush(p, &v, first);
		while (accept(p, T_COMMA)) {
			if (at(p, T_RPAREN))
				break;
			apush(p, &v, parse_expr(p));
		}
		p->in_pred = saved_pred;
		last = expect(p, T_RPAREN, "')' or ','").span;
		e = new_expr(p, E_TUPLE, end_span(open.span, last));
		FREEZE(p, v, e->u.list.items, e->u.list.n);
		return e;
	}
	default:
		syntax_error(p, "expected an expression, found %s",
			     describe(t));
	}
}

/* ++ and -- store their result, so like '=' they need a map or variable.
 * The tree stays usable, so parsing goes on. */
static void check_incdec(struct parser *p, enum ast_op op,
			 const struct ast_expr *operand)
{
	if (operand->kind == E_MAP || operand->kind == E_VAR)
		return;
	diag_error(p->diag, operand->span, "can only %s a map or a variable",
		   op == OP_PREINC || op == OP_POSTINC ? "increment" :
							 "decrement");
}

/* postfix := primary { '[' expr ']' | '.' IDENT | '.' INT | '->' IDENT
 *                    | '++' | '--' } */
static struct ast_expr *parse_postfix(struct parser *p)
{
	struct ast_expr *e = parse_primary(p);
	int saved_depth = p->depth;
	for (;;) {
		struct token *t = peek(p);
		/* Each link deepens the tree that later passes recurse on. */
		if (t->kind == T_LBRACKET || t->kind == T_DOT ||
		    t->kind == T_ARROW || t->kind == T_INC || t->kind == T_DEC)
			enter(p, "expression");
		if (t->kind == T_LBRACKET) {
			take(p);
			int saved_pred = p->in_pred;
			p->in_pred = 0;
			struct ast_expr *idx = parse_expr(p);
			p->in_pred = saved_pred;
			struct span last = expect(p, T_RBRACKET, "']'").span;
			struct ast_expr *n = new_expr(p, E_INDEX,
						      end_span(e->span, last));
			n->u.index.base = e;
			n->u.index.index = idx;
			e = n;
		} else if (t->kind == T_DOT || t->kind == T_ARROW) {
			int arrow = take(p).kind == T_ARROW;
			if (!arrow && at(p, T_INT)) {
				struct token n = take(p);
				struct ast_expr *ti = new_expr(
					p, E_TUPLE_INDEX,
					end_span(e->span, n.span));
				if (n.num > 1000) {
					diag_error(p->diag, n.span,
						   "tuple index %llu is out of range",
						   (unsigned long long)n.num);
					longjmp(p->recover, 1);
				}
				ti->u.tindex.base = e;
				ti->u.tindex.index = (uint32_t)n.num;
				e = ti;
				continue;
			}
			struct token name = expect(p, T_IDENT, "a field name");
			struct ast_expr *f = new_expr(p, E_FIELD,
						      end_span(e->span,
							       name.span));
			f->u.field.base = e;
			f->u.field.name = name.text;
			f->u.field.name_span = name.span;
			f->u.field.arrow = arrow;
			e = f;
		} else if (t->kind == T_INC || t->kind == T_DEC) {
			struct token op = take(p);
			struct ast_expr *u = new_expr(p, E_UNARY,
						      end_span(e->span, op.span));
			u->u.unary.op = op.kind == T_INC ? OP_POSTINC :
							   OP_POSTDEC;
			u->u.unary.operand = e;
			check_incdec(p, u->u.unary.op, e);
			e = u;
		} else {
			p->depth = saved_depth;
			return e;
		}
	}
}

/* After a '(': a macro's identifier parameter, ')' and what starts an
 * operand (not an operator: `(x) - 1` stays a subtraction): `(t)0`
 * casts to the type t stands for. */
static int param_cast_ahead(struct parser *p)
{
	if (!at(p, T_IDENT))
		return 0;
	uint32_t i = 0;
	while (i < p->nmparams && (p->mparams[i]->kind != E_IDENT ||
				   strcmp(p->mparams[i]->u.name,
					  peek(p)->text)))
		i++;
	if (i == p->nmparams)
		return 0;
	struct pstate st = p_save(p);
	take(p);
	int r = 0;
	if (accept(p, T_RPAREN)) {
		enum tok_kind k = peek(p)->kind;
		r = k == T_INT || k == T_VAR || k == T_MAP || k == T_IDENT ||
		    k == T_STRING || k == T_LPAREN;
	}
	p_restore(p, &st);
	return r;
}

/* A '(' starts a cast when a type follows it. */
static int starts_cast(struct parser *p)
{
	if (!at(p, T_LPAREN))
		return 0;
	struct lexer save = p->lx;
	struct token save_tok = p->tok;
	int save_have = p->have_tok;
	struct span save_prev = p->prev;
	take(p);
	int r = starts_type_with(p, false) || param_cast_ahead(p);
	p->lx = save;
	p->tok = save_tok;
	p->have_tok = save_have;
	p->prev = save_prev;
	return r;
}

/* unary := ('-'|'+'|'!'|'~'|'*'|'&'|'++'|'--') unary
 *        | '(' typespec ')' unary
 *        | postfix */
static struct ast_expr *parse_unary(struct parser *p)
{
	enter(p, "expression");
	struct token *t = peek(p);
	enum ast_op op = OP_NONE;
	switch (t->kind) {
	case T_MINUS: op = OP_NEG; break;
	case T_PLUS: op = OP_PLUS; break;
	case T_BANG: op = OP_LNOT; break;
	case T_TILDE: op = OP_BNOT; break;
	case T_STAR: op = OP_DEREF; break;
	case T_AMP: op = OP_ADDR; break;
	case T_INC: op = OP_PREINC; break;
	case T_DEC: op = OP_PREDEC; break;
	default: break;
	}
	struct ast_expr *e;
	if (op != OP_NONE) {
		struct token o = take(p);
		struct ast_expr *operand = parse_unary(p);
		if (op == OP_PREINC || op == OP_PREDEC)
			check_incdec(p, op, operand);
		/* to the last token: a ')' closing the operand too */
		e = new_expr(p, E_UNARY, end_span(o.span, p->prev));
		e->u.unary.op = op;
		e->u.unary.operand = operand;
	} else if (starts_cast(p)) {
		struct token open = take(p);
		e = new_expr(p, E_CAST, open.span);
		parse_typespec(p, &e->u.cast.to);
		/* a cast is located at its "(type)", as bpftrace 0.26's */
		e->span = end_span(open.span,
				   expect(p, T_RPAREN, "')' to close the cast").span);
		e->u.cast.operand = parse_unary(p);
	} else {
		e = parse_postfix(p);
	}
	leave(p);
	return e;
}

/* Binary operators by C precedence, lowest first; all left-associative. */
static const struct {
	enum tok_kind tok;
	enum ast_op op;
	int prec;
} binops[] = {
	{ T_PIPEPIPE, OP_LOR, 1 }, { T_AMPAMP, OP_LAND, 2 },
	{ T_PIPE, OP_BOR, 3 },	   { T_CARET, OP_BXOR, 4 },
	{ T_AMP, OP_BAND, 5 },	   { T_EQEQ, OP_EQ, 6 },
	{ T_NE, OP_NE, 6 },	   { T_LT, OP_LT, 7 },
	{ T_LE, OP_LE, 7 },	   { T_GT, OP_GT, 7 },
	{ T_GE, OP_GE, 7 },	   { T_SHL, OP_SHL, 8 },
	{ T_SHR, OP_SHR, 8 },	   { T_PLUS, OP_ADD, 9 },
	{ T_MINUS, OP_SUB, 9 },	   { T_STAR, OP_MUL, 10 },
	{ T_SLASH, OP_DIV, 10 },   { T_PERCENT, OP_MOD, 10 },
};

static int binop_of(struct parser *p, enum ast_op *op)
{
	struct token *t = peek(p);
	/* In a predicate, a '/' closes it unless an operand follows (the
	 * '{' after it may be missing, or the file may end). */
	if (t->kind == T_SLASH && p->in_pred) {
		int c = lex_peek_char(&p->lx);
		int operand = c > 0 && (strchr("_$@(\"'+-!~*&", c) ||
					(c >= '0' && c <= '9') ||
					((c | 0x20) >= 'a' && (c | 0x20) <= 'z'));
		if (!operand)
			return 0;
	}
	for (size_t i = 0; i < sizeof(binops) / sizeof(*binops); i++)
		if (binops[i].tok == t->kind) {
			*op = binops[i].op;
			return binops[i].prec;
		}
	return 0;
}

/* binary(min) := unary { binop[prec >= min] binary(prec + 1) }
 * (precedence climbing over the table above) */
static struct ast_expr *parse_binary(struct parser *p, int min_prec)
{
	enter(p, "expression");
	struct ast_expr *left = parse_unary(p);
	int saved_depth = p->depth;
	enum ast_op op;
	int prec;
	while ((prec = binop_of(p, &op)) && prec >= min_prec) {
		/* a - b - c nests to the left: as deep as parentheses */
		enter(p, "expression");
		take(p);
		struct ast_expr *right = parse_binary(p, prec + 1);
		/* to the last token, as 0.26: "a + (b)" ends at ')' */
		struct ast_expr *b = new_expr(p, E_BINARY,
					      end_span(left->span, p->prev));
		b->u.binary.op = op;
		b->u.binary.left = left;
		b->u.binary.right = right;
		left = b;
	}
	p->depth = saved_depth;
	leave(p);
	return left;
}

/* expr := binary(1) [ '?' [ expr ] ':' expr ]
 * a ?: b is a ? a : b, as in bpftrace 0.26 (a is evaluated twice). */
static struct ast_expr *parse_expr(struct parser *p)
{
	enter(p, "expression");
	struct ast_expr *cond = parse_binary(p, 1);
	if (accept(p, T_QUESTION)) {
		struct ast_expr *then = cond;
		if (!accept(p, T_COLON)) {
			then = parse_expr(p);
			expect(p, T_COLON, "':' in conditional expression");
		}
		struct ast_expr *other = parse_expr(p);
		struct ast_expr *e = new_expr(p, E_TERNARY,
					      end_span(cond->span, p->prev));
		e->u.ternary.cond = cond;
		e->u.ternary.then = then;
		e->u.ternary.otherwise = other;
		cond = e;
	}
	leave(p);
	return cond;
}

/* ---- statements ---- */

static struct ast_stmt *new_stmt(struct parser *p, enum ast_stmt_kind k,
				 struct span sp)
{
	struct ast_stmt *s = new_node(p, sizeof(*s));
	s->kind = k;
	s->span = sp;
	return s;
}

static enum ast_op assign_op(enum tok_kind k, int *is_assign)
{
	*is_assign = 1;
	switch (k) {
	case T_ASSIGN: return OP_NONE;
	case T_ADD_ASSIGN: return OP_ADD;
	case T_SUB_ASSIGN: return OP_SUB;
	case T_MUL_ASSIGN: return OP_MUL;
	case T_DIV_ASSIGN: return OP_DIV;
	case T_MOD_ASSIGN: return OP_MOD;
	case T_AND_ASSIGN: return OP_BAND;
	case T_OR_ASSIGN: return OP_BOR;
	case T_XOR_ASSIGN: return OP_BXOR;
	case T_SHL_ASSIGN: return OP_SHL;
	case T_SHR_ASSIGN: return OP_SHR;
	default: *is_assign = 0; return OP_NONE;
	}
}


/* cond := '(' expr ')' | unary
 * Without parentheses (bpftrace 0.26) the condition is a unary
 * expression, so that the '{' of the block is not taken for an operand. */
static struct ast_expr *parse_paren_cond(struct parser *p, const char *kw)
{
	if (!at(p, T_LPAREN)) {
		if (at(p, T_LBRACE) || at(p, T_SEMI) || at(p, T_ASSIGN) ||
		    at(p, T_RBRACE) || at(p, T_EOF))
			syntax_error(p, "expected a condition after '%s', "
				     "found %s", kw, describe(peek(p)));
		return parse_unary(p);
	}
	take(p);
	struct ast_expr *e = parse_expr(p);
	expect(p, T_RPAREN, "')'");
	return e;
}

/* The kind of the token after the next one (the lexer state is kept). */
static enum tok_kind peek2(struct parser *p)
{
	peek(p);
	struct lexer save = p->lx;
	struct token st = p->tok;
	struct span save_prev = p->prev;
	int save_braces = p->braces;
	take(p);
	enum tok_kind k = peek(p)->kind;
	p->lx = save;
	p->tok = st;
	p->have_tok = 1;
	p->prev = save_prev;
	p->braces = save_braces;
	return k;
}

/* `let` and `for` are words a script may use as names elsewhere (a field
 * `for`): they start a statement only where one is followed by what the
 * statement needs. */
static int at_word(struct parser *p, const char *w)
{
	return at(p, T_IDENT) && !strcmp(peek(p)->text, w);
}

static struct ast_stmt *parse_stmt(struct parser *p, int *needs_semi);

/* if := 'if' cond block [ 'else' ( if | block ) ] */
static struct ast_stmt *parse_if(struct parser *p)
{
	enter_nest(p, "block");
	struct token kw = take(p);
	struct ast_stmt *s = new_stmt(p, S_IF, kw.span);
	s->u.if_.cond = parse_paren_cond(p, "if");
	parse_block(p, &s->u.if_.then);
	s->span = end_span(kw.span, s->u.if_.then.span);
	if (accept(p, T_ELSE)) {
		if (at(p, T_IF)) {
			s->u.if_.otherwise = parse_if(p);
		} else {
			struct ast_stmt *b = new_stmt(p, S_BLOCK,
						      peek(p)->span);
			parse_block(p, &b->u.block);
			b->span = b->u.block.span;
			s->u.if_.otherwise = b;
		}
		s->span = end_span(kw.span, s->u.if_.otherwise->span);
	}
	leave_nest(p);
	return s;
}


/* let := 'let' VAR [ ':' typespec ] [ '=' expr ] */
static struct ast_stmt *parse_let(struct parser *p)
{
	struct token kw = take(p);
	struct ast_stmt *s = new_stmt(p, S_LET, kw.span);
	struct token v = expect(p, T_VAR, "a variable after 'let'");
	struct ast_expr *var = new_expr(p, E_VAR, v.span);
	var->u.name = v.text;
	s->u.let.var = var;
	s->span = end_span(kw.span, v.span);
	if (accept(p, T_COLON)) {
		parse_typespec(p, &s->u.let.type);
		s->u.let.has_type = true;
		s->span = end_span(kw.span, s->u.let.type.span);
	}
	if (accept(p, T_ASSIGN)) {
		s->u.let.value = parse_expr(p);
		s->span = end_span(kw.span, s->u.let.value->span);
	}
	return s;
}

/* for := 'for' ( '(' VAR ':' iterable ')' | VAR ':' iterable ) block
 * iterable := MAP | primary '..' primary */
static struct ast_stmt *parse_for(struct parser *p)
{
	enter_nest(p, "block");
	struct token kw = take(p);
	struct ast_stmt *s = new_stmt(p, S_FOR, kw.span);
	int paren = accept(p, T_LPAREN);
	struct token v = expect(p, T_VAR, "a variable in the for loop");
	struct ast_expr *var = new_expr(p, E_VAR, v.span);
	var->u.name = v.text;
	s->u.for_.var = var;
	expect(p, T_COLON, "':' after the loop variable");
	struct ast_expr *first = parse_primary(p);
	if (at(p, T_DOT) && peek2(p) == T_DOT) {
		take(p);
		take(p);
		s->u.for_.start = first;
		s->u.for_.end = parse_primary(p);
	} else if (first->kind == E_MAP && !first->u.map.has_brackets) {
		s->u.for_.map = first;
	} else {
		diag_error(p->diag, first->span, "expected map or range in for "
			   "loop");
		longjmp(p->recover, 1);
	}
	if (paren)
		expect(p, T_RPAREN, "')'");
	parse_block(p, &s->u.for_.body);
	s->span = end_span(kw.span, s->u.for_.body.span);
	leave_nest(p);
	return s;
}

/* stmt := if | 'unroll' cond block | 'while' cond block | for | block
 *       | 'break' | 'continue' | 'return' [ expr ] | let
 *       | expr [ assign_op expr ] */
static struct ast_stmt *parse_stmt(struct parser *p, int *needs_semi)
{
	struct token *t = peek(p);
	struct ast_stmt *s;
	*needs_semi = 0;
	if (at_word(p, "let") && peek2(p) == T_VAR) {
		*needs_semi = 1;
		return parse_let(p);
	}
	if (at_word(p, "for")) {
		enum tok_kind k = peek2(p);
		if (k == T_VAR || k == T_LPAREN)
			return parse_for(p);
	}
	switch (t->kind) {
	case T_IF:
		return parse_if(p);
	case T_UNROLL:
	case T_WHILE: {
		struct token kw = take(p);
		s = new_stmt(p, kw.kind == T_UNROLL ? S_UNROLL : S_WHILE,
			     kw.span);
		s->u.loop.cond = parse_paren_cond(
			p, kw.kind == T_UNROLL ? "unroll" : "while");
		parse_block(p, &s->u.loop.body);
		s->span = end_span(kw.span, s->u.loop.body.span);
		return s;
	}
	case T_LBRACE:
		s = new_stmt(p, S_BLOCK, t->span);
		parse_block(p, &s->u.block);
		s->span = s->u.block.span;
		return s;
	case T_BREAK:
	case T_CONTINUE: {
		struct token kw = take(p);
		*needs_semi = 1;
		return new_stmt(p, kw.kind == T_BREAK ? S_BREAK : S_CONTINUE,
				kw.span);
	}
	case T_RETURN: {
		struct token kw = take(p);
		*needs_semi = 1;
		s = new_stmt(p, S_RETURN, kw.span);
		if (!at(p, T_SEMI) && !at(p, T_RBRACE)) {
			s->u.expr = parse_expr(p);
			s->span = end_span(kw.span, s->u.expr->span);
		}
		return s;
	}
	default:
		break;
	}
	*needs_semi = 1;
	struct ast_expr *e = parse_expr(p);
	int is_assign;
	enum ast_op op = assign_op(peek(p)->kind, &is_assign);
	if (!is_assign) {
		s = new_stmt(p, S_EXPR, e->span);
		s->u.expr = e;
		return s;
	}
	struct token eq = take(p);
	if (e->kind == E_IDENT && !strcmp(e->u.name, "_") && op == OP_NONE) {
		/* _ = e: e's value is discarded (bpftrace 0.26) */
		s = new_stmt(p, S_EXPR, e->span);
		s->u.expr = parse_expr(p);
		s->span = end_span(e->span, s->u.expr->span);
		return s;
	}
	if (e->kind != E_MAP && e->kind != E_VAR) {
		diag_error(p->diag, e->span,
			   "can only assign to a map or a variable");
		longjmp(p->recover, 1);
	}
	(void)eq;
	s = new_stmt(p, S_ASSIGN, e->span);
	s->u.assign.target = e;
	s->u.assign.op = op;
	s->u.assign.value = parse_expr(p);
	s->span = end_span(e->span, s->u.assign.value->span);
	return s;
}

/* Skips to just after the next ';' at this brace depth, or to (not past)
 * the '}' that closes it, so parsing can resume after an error. */
static void sync_stmt(struct parser *p)
{
	int depth = 0;
	for (;;) {
		struct token *t = peek(p);
		if (t->kind == T_EOF)
			return;
		if (t->kind == T_SEMI && depth == 0) {
			take(p);
			return;
		}
		if (t->kind == T_RBRACE) {
			if (depth == 0)
				return;
			depth--;
		} else if (t->kind == T_LBRACE) {
			depth++;
		}
		take(p);
	}
}

/* block := '{' { stmt (';' | before '}') | ';' } '}' */
static void parse_block(struct parser *p, struct ast_block *b)
{
	enter_nest(p, "block");
	struct token open = expect(p, T_LBRACE, "'{'");
	AVEC(struct ast_stmt *) stmts = { 0 };
	jmp_buf outer;
	memcpy(outer, p->recover, sizeof(jmp_buf));
	int saved_depth = p->depth, saved_nest = p->nest;
	int saved_pred = p->in_pred;
	int errors_before = p->diag->nerrors;
	volatile int trailing = 0; /* set after setjmp */
	p->in_pred = 0;
	while (!at(p, T_RBRACE) && !at(p, T_EOF)) {
		/* Locals changed between here and a longjmp would be
		 * indeterminate after it: stmts grows only once the statement
		 * can no longer fail. */
		if (setjmp(p->recover)) {
			p->depth = saved_depth;
			p->nest = saved_nest;
			sync_stmt(p);
			continue;
		}
		if (accept(p, T_SEMI))
			continue;
		if (at(p, T_ELSE))
			syntax_error(p, "'else' without a matching 'if'");
		int needs_semi;
		struct ast_stmt *s = parse_stmt(p, &needs_semi);
		trailing = needs_semi && s->kind == S_EXPR && at(p, T_RBRACE);
		if (needs_semi && !at(p, T_RBRACE))
			expect(p, T_SEMI, "';' or '}' after the statement");
		apush(p, &stmts, s);
	}
	memcpy(p->recover, outer, sizeof(jmp_buf));
	p->in_pred = saved_pred;
	if (at(p, T_EOF)) {
		/* After an error inside, the missing '}' is most likely a
		 * consequence (an unterminated string ate it): stay quiet. */
		if (p->diag->nerrors == errors_before)
			diag_error(p->diag, open.span, "unterminated block: "
				   "this '{' has no matching '}'");
		longjmp(p->recover, 1);
	}
	struct token close = take(p);
	b->span = end_span(open.span, close.span);
	FREEZE(p, stmts, b->stmts, b->n);
	b->trailing = trailing && b->n;
	leave_nest(p);
}

/* ---- C definitions ---- */

static struct ast_cdef *parse_record_def(struct parser *p);

/* Whether a struct/union keyword starts an inline definition:
 * struct [ IDENT ] '{'. */
static int starts_record_def(struct parser *p)
{
	if (!at(p, T_STRUCT) && !at(p, T_UNION))
		return 0;
	struct lexer save = p->lx;
	struct token st = p->tok;
	struct span save_prev = p->prev;
	take(p);
	if (at(p, T_IDENT))
		take(p);
	int r = at(p, T_LBRACE);
	p->lx = save;
	p->tok = st;
	p->have_tok = 1;
	p->prev = save_prev;
	return r;
}

/* declarator := { '*' } IDENT { '[' INT ']' } [ ':' INT ] */
static void parse_declarator(struct parser *p, struct ast_cfield *f)
{
	while (accept(p, T_STAR))
		f->type.ptr_depth++;
	struct token name = expect(p, T_IDENT, "a field name");
	f->name = name.text;
	f->span = name.span;
	while (accept(p, T_LBRACKET)) {
		/* a flexible array member, int y[0] or int y[]: of no
		 * length, indexed through the pointer to its struct */
		if (!f->type.array_len && !f->type.array_auto &&
		    (at(p, T_RBRACKET) ||
		     (at(p, T_INT) && peek(p)->num == 0))) {
			if (at(p, T_INT))
				take(p);
			f->type.array_auto = true;
			expect(p, T_RBRACKET, "']'");
			continue;
		}
		if (f->type.array_auto)
			syntax_error(p, "a flexible array member has one "
				     "dimension");
		struct token n = expect(p, T_INT, "an array length");
		if (n.num == 0 || n.num > 65536) {
			diag_error(p->diag, n.span,
				   "array length must be between 1 and 65536");
			longjmp(p->recover, 1);
		}
		if (!f->type.array_len) {
			f->type.array_len = (uint32_t)n.num;
		} else if (f->type.ninner < AST_MAX_DIMS - 1) {
			f->type.inner[f->type.ninner++] = (uint32_t)n.num;
		} else {
			diag_error(p->diag, n.span, "an array has at most %d "
				   "dimensions", AST_MAX_DIMS);
			longjmp(p->recover, 1);
		}
		expect(p, T_RBRACKET, "']'");
	}
	if (accept(p, T_COLON)) {
		struct token n = expect(p, T_INT, "a bit-field width");
		if (n.num == 0 || n.num > 64) {
			diag_error(p->diag, n.span,
				   "bit-field width must be between 1 and 64");
			longjmp(p->recover, 1);
		}
		f->bit_width = (int)n.num;
	}
}

/* The field's base type: like type_base, but a lone identifier is a
 * typedef name (u32, pid_t, my_type), as in C. */
static void parse_field_base(struct parser *p, struct ast_typespec *ts)
{
	if (at(p, T_IDENT) && !is_type_word(p, peek(p)->text)) {
		struct token t = take(p);
		ts->span = t.span;
		ts->base = t.text;
		return;
	}
	parse_type_base(p, ts);
}

/* The ';' after a field. Before the closing '}' it may be missing, as
 * clang (bpftrace's parser of struct definitions) allows with a warning. */
static void field_end(struct parser *p)
{
	if (at(p, T_RBRACE) && p->prev.file) {
		diag_warning(p->diag, span_after(p->prev), "expected ';' at "
			     "end of declaration list");
		return;
	}
	expect(p, T_SEMI, "';' after the field");
}

/* fields := { ( record_def [ declarator ] | field_base declarator
 *               { ',' declarator } ) ';' } */
static void parse_fields(struct parser *p, struct ast_cdef *d)
{
	AVEC(struct ast_cfield) fields = { 0 };
	while (!at(p, T_RBRACE)) {
		if (at(p, T_EOF))
			syntax_error(p, "expected '}' to close the definition");
		struct ast_cfield f;
		memset(&f, 0, sizeof(f));
		f.bit_width = -1;
		/* struct x { ... } name; or struct x *name; */
		if (starts_record_def(p)) {
			{
				f.nested = parse_record_def(p);
				f.span = f.nested->span;
				f.type.base = f.nested->name ?
					arena_printf(p->arena, "%s %s",
						     f.nested->kind == CDEF_UNION ?
							     "union" : "struct",
						     f.nested->name) :
					NULL;
				if (!at(p, T_SEMI))
					parse_declarator(p, &f);
				apush(p, &fields, f);
				field_end(p);
				continue;
			}
		}
		parse_field_base(p, &f.type);
		struct ast_typespec base = f.type;
		do {
			f.type = base;
			parse_declarator(p, &f);
			apush(p, &fields, f);
			f.bit_width = -1;
		} while (accept(p, T_COMMA));
		field_end(p);
	}
	d->nfields = (uint32_t)fields.len;
	d->fields = arena_alloc(p->arena, sizeof(*d->fields) * (fields.len + 1));
	if (fields.len)
		memcpy(d->fields, fields.data, sizeof(*d->fields) * fields.len);
}

/* record_def := ('struct' | 'union') [ IDENT ] '{' fields '}' */
/* attributes := '__attribute__' '(' '(' attr { ',' attr } ')' ')'
 * attr := IDENT [ '(' [ INT ] ')' ]
 * packed and aligned(N) shape the layout, as clang does for bpftrace;
 * others are taken and left. */
static void parse_attributes(struct parser *p, struct ast_cdef *d)
{
	take(p);
	expect(p, T_LPAREN, "'(' after __attribute__");
	expect(p, T_LPAREN, "'(' after __attribute__");
	do {
		if (at(p, T_RPAREN))
			break;
		struct token a = expect(p, T_IDENT, "an attribute name");
		const char *n = a.text;
		size_t len = strlen(n);
		if (len > 4 && !strncmp(n, "__", 2) &&
		    !strcmp(n + len - 2, "__")) /* __packed__ is packed */
			n = arena_strndup(p->arena, n + 2, len - 4);
		if (!strcmp(n, "packed"))
			d->packed = true;
		if (accept(p, T_LPAREN)) {
			uint64_t v = 16; /* aligned: the target's largest */
			if (at(p, T_INT))
				v = take(p).num;
			expect(p, T_RPAREN, "')'");
			if (!strcmp(n, "aligned")) {
				if (!v || (v & (v - 1)) || v > 4096) {
					diag_error(p->diag, a.span, "requested "
						   "alignment is not a power of 2");
					longjmp(p->recover, 1);
				}
				if (v > d->aligned)
					d->aligned = (uint32_t)v;
			}
		}
	} while (accept(p, T_COMMA));
	expect(p, T_RPAREN, "')'");
	expect(p, T_RPAREN, "')'");
}

static struct ast_cdef *parse_record_def(struct parser *p)
{
	enter_nest(p, "definition");
	struct token kw = take(p);
	struct ast_cdef *d = new_node(p, sizeof(*d));
	d->kind = kw.kind == T_UNION ? CDEF_UNION : CDEF_STRUCT;
	if (at(p, T_IDENT))
		d->name = take(p).text;
	expect(p, T_LBRACE, "'{' to start the definition");
	parse_fields(p, d);
	d->span = end_span(kw.span, take(p).span);
	while (at(p, T_IDENT) && !strcmp(peek(p)->text, "__attribute__"))
		parse_attributes(p, d);
	leave_nest(p);
	return d;
}

/* enum_def := 'enum' [ IDENT ] '{' IDENT [ '=' ['-'] INT ]
 *             { ',' IDENT [ '=' ['-'] INT ] } [ ',' ] '}' */
static struct ast_cdef *parse_enum_def(struct parser *p)
{
	struct token kw = take(p);
	struct ast_cdef *d = new_node(p, sizeof(*d));
	d->kind = CDEF_ENUM;
	if (at(p, T_IDENT))
		d->name = take(p).text;
	expect(p, T_LBRACE, "'{' to start the enum");
	AVEC(struct ast_enumerator) v = { 0 };
	int64_t next = 0;
	while (!at(p, T_RBRACE)) {
		struct token name = expect(p, T_IDENT, "an enumerator name");
		struct ast_enumerator en = { name.text, next, name.span };
		if (accept(p, T_ASSIGN)) {
			int neg = accept(p, T_MINUS);
			struct token n = expect(p, T_INT, "an integer value");
			en.value = neg ? -(int64_t)n.num : (int64_t)n.num;
		}
		next = en.value + 1;
		apush(p, &v, en);
		if (!accept(p, T_COMMA))
			break;
	}
	d->span = end_span(kw.span, expect(p, T_RBRACE, "'}'").span);
	d->nenums = (uint32_t)v.len;
	d->enums = arena_alloc(p->arena, sizeof(*d->enums) * (v.len + 1));
	if (v.len)
		memcpy(d->enums, v.data, sizeof(*d->enums) * v.len);
	return d;
}

/* cdef := ( record_def | enum_def
 *         | 'typedef' ( typespec | record_def ) IDENT ) ';'
 * For typedef struct TAG { ... } NAME, *inner gets the struct. */
static struct ast_cdef *parse_cdef(struct parser *p, struct ast_cdef **inner)
{
	struct ast_cdef *d;
	if (at(p, T_TYPEDEF)) {
		struct token kw = take(p);
		d = new_node(p, sizeof(*d));
		d->kind = CDEF_TYPEDEF;
		if (starts_record_def(p)) {
			struct ast_cdef *r = parse_record_def(p);
			if (!r->name) {
				/* The tree has no way to name an anonymous
				 * struct from a typedef. */
				diag_error(p->diag, r->span, "a %s in a "
					   "typedef needs a tag: write "
					   "'typedef %s NAME { ... } ...'",
					   lex_tok_name(r->kind == CDEF_UNION ?
							T_UNION : T_STRUCT),
					   r->kind == CDEF_UNION ? "union" :
								   "struct");
				r->name = "?"; /* parsing goes on */
			}
			d->aliased.span = r->span;
			d->aliased.base = arena_printf(
				p->arena, "%s %s",
				r->kind == CDEF_UNION ? "union" : "struct",
				r->name);
			*inner = r;
		} else {
			parse_field_base(p, &d->aliased);
		}
		while (accept(p, T_STAR))
			d->aliased.ptr_depth++;
		struct token name = expect(p, T_IDENT, "the typedef's name");
		d->name = name.text;
		d->span = end_span(kw.span, name.span);
		apush(p, &p->typedefs, name.text);
	} else if (at(p, T_ENUM)) {
		d = parse_enum_def(p);
	} else {
		d = parse_record_def(p);
	}
	/* bpftrace 0.17 takes struct, union and enum definitions without
	 * the ';'. The definition is complete: a missing one needs no
	 * recovery. */
	if (d->kind != CDEF_TYPEDEF)
		accept(p, T_SEMI);
	else if (expect_soft(p, T_SEMI, "';' after the definition"))
		take(p);
	return d;
}

/* ---- probes and the program ---- */

/* attach := [ NAME '=' ] <raw attach point text, see lex_attach_point> */
static void parse_attach(struct parser *p, struct attach_point *a,
			 int after_comma)
{
	struct token t = lex_attach_point(&p->lx);
	if (t.kind == T_ERROR)
		longjmp(p->recover, 1);
	a->span = t.span;
	a->text = t.text;
	if (!t.text[0]) {
		struct token *n = peek(p);
		syntax_error(p, "expected a probe%s, found %s",
			     after_comma ? " after ','" : "", describe(n));
	}
	p->prev = t.span;
	if (!t.parts[0][0]) {
		struct span sp = t.span;
		sp.len = 1;
		diag_error(p->diag, sp, "the probe type is missing before ':'");
		longjmp(p->recover, 1);
	}
	/* [name=]provider:...: bpftrace 0.26's named probe, which `probe`
	 * then names so (a '=' ending the type is no name) */
	const char *eq = strchr(t.parts[0], '=');
	uint32_t skip = 0; /* the name's bytes, before the type */
	if (eq && eq[1]) {
		a->name = arena_strndup(p->arena, t.parts[0],
					(size_t)(eq - t.parts[0]));
		skip = (uint32_t)(eq + 1 - t.parts[0]);
		t.parts[0] = eq + 1;
	}
	a->provider = probe_type_canonical(t.parts[0]);
	if (!a->provider) {
		struct span sp = t.span;
		sp.off += skip;
		sp.col += skip;
		sp.len = (uint32_t)strlen(t.parts[0]);
		diag_error(p->diag, sp, "unknown probe type '%s'", t.parts[0]);
		longjmp(p->recover, 1);
	}
	a->parts = t.parts + 1;
	a->nparts = t.nparts - 1;
}

/* probe := attach { ',' attach } [ '/' expr '/' ] block */
static void parse_probe(struct parser *p, struct ast_probe *pr)
{
	AVEC(struct attach_point) v = { 0 };
	struct attach_point a;
	memset(&a, 0, sizeof(a));
	parse_attach(p, &a, 0);
	apush(p, &v, a);
	pr->span = a.span;
	while (lex_peek_char(&p->lx) == ',') {
		expect(p, T_COMMA, "','");
		memset(&a, 0, sizeof(a));
		parse_attach(p, &a, 1);
		apush(p, &v, a);
	}
	pr->nattach = (uint32_t)v.len;
	pr->attach = arena_alloc(p->arena, sizeof(*pr->attach) * v.len);
	memcpy(pr->attach, v.data, sizeof(*pr->attach) * v.len);
	if (at(p, T_SLASH)) {
		struct span open = take(p).span;
		if (at(p, T_SLASH))
			syntax_error(p, "the predicate is empty: put a "
					"condition between the '/'s");
		p->in_pred = 1;
		pr->pred = parse_expr(p);
		p->in_pred = 0;
		if (!at(p, T_SLASH))
			syntax_error(p, "expected '/' to end the predicate, "
					"found %s", describe(peek(p)));
		pr->pred_span = end_span(open, take(p).span);
	}
	if (!at(p, T_LBRACE))
		syntax_error(p, "expected '{' to start the probe's action "
				"block, found %s", describe(peek(p)));
	parse_block(p, &pr->body);
}

/* ---- config, import and macro: the other top-level items ---- */

/* config := 'config' '=' '{' [ config_item { ';' config_item } [ ';' ] ] '}'
 * config_item := IDENT '=' ( STRING | INT | 'true' | 'false' | IDENT ) */
static struct ast_config *parse_config(struct parser *p)
{
	struct token kw = take(p);
	struct ast_config *c = new_node(p, sizeof(*c));
	AVEC(struct ast_config_item) items = { 0 };
	expect(p, T_ASSIGN, "'=' after config");
	expect(p, T_LBRACE, "'{' after 'config ='");
	while (!at(p, T_RBRACE)) {
		struct ast_config_item it;
		memset(&it, 0, sizeof(it));
		if (!at(p, T_IDENT))
			syntax_error(p, "expected config key, found %s",
				     describe(peek(p)));
		struct token key = take(p);
		it.key = key.text;
		expect(p, T_ASSIGN, "'=' after the config key");
		struct token v = *peek(p);
		switch (v.kind) {
		case T_STRING:
			it.kind = CONFIG_STR;
			it.str = v.str;
			break;
		case T_INT:
			it.kind = CONFIG_INT;
			it.num = v.num;
			break;
		case T_IDENT:
			if (!strcmp(v.text, "true") || !strcmp(v.text, "false")) {
				it.kind = CONFIG_BOOL;
				it.num = v.text[0] == 't';
			} else {
				it.kind = CONFIG_IDENT;
				it.str = v.text;
			}
			break;
		default:
			syntax_error(p, "expected string, int, boolean, or "
				     "ident, found %s", describe(&v));
		}
		take(p);
		it.span = end_span(key.span, v.span);
		apush(p, &items, it);
		if (!accept(p, T_SEMI) && !at(p, T_RBRACE))
			expect(p, T_SEMI, "';' or '}' after the config value");
	}
	struct token close = take(p);
	c->span = end_span(kw.span, close.span);
	FREEZE(p, items, c->items, c->n);
	return c;
}

/* import := 'import' STRING ';' */
static void parse_import(struct parser *p, struct ast_import *imp)
{
	struct token kw = take(p);
	if (!at(p, T_STRING))
		syntax_error(p, "expected string after 'import', found %s",
			     describe(peek(p)));
	struct token path = take(p);
	imp->path = path.str;
	imp->span = end_span(kw.span, path.span);
	expect(p, T_SEMI, "';' after import");
}

/* macro := 'macro' IDENT '(' [ param { ',' param } ] ')' block
 * param := VAR | MAP | IDENT   (an IDENT stands for an expression) */
static void parse_macro(struct parser *p, struct ast_macro *m)
{
	struct token kw = take(p);
	if (!at(p, T_IDENT))
		syntax_error(p, "expected macro name, found %s",
			     describe(peek(p)));
	struct token name = take(p);
	m->name = name.text;
	m->span = end_span(kw.span, name.span);
	expect(p, T_LPAREN, "'(' after the macro name");
	AVEC(struct ast_expr *) params = { 0 };
	while (!at(p, T_RPAREN)) {
		struct token *t = peek(p);
		struct ast_expr *e;
		if (t->kind == T_VAR) {
			e = new_expr(p, E_VAR, t->span);
		} else if (t->kind == T_MAP) {
			e = new_expr(p, E_MAP, t->span);
		} else if (t->kind == T_IDENT) {
			uint32_t n;
			if (builtin_var_lookup(t->text, &n) != BI_NONE) {
				diag_error(p->diag, t->span, "builtin '%s' can't "
					   "be used as a macro argument",
					   t->text);
				longjmp(p->recover, 1);
			}
			e = new_expr(p, E_IDENT, t->span);
		} else {
			syntax_error(p, "expected macro argument ($var, @map, "
				     "or identifier), found %s", describe(t));
		}
		if (e->kind == E_MAP)
			e->u.map.name = t->text;
		else
			e->u.name = t->text;
		take(p);
		apush(p, &params, e);
		if (!accept(p, T_COMMA) && !at(p, T_RPAREN))
			expect(p, T_RPAREN, "',' or ')' after the macro "
					    "argument");
	}
	take(p);
	FREEZE(p, params, m->params, m->nparams);
	if (!at(p, T_LBRACE))
		syntax_error(p, "expected '{' to start the macro's body, "
			     "found %s", describe(peek(p)));
	p->mparams = m->params;
	p->nmparams = m->nparams;
	parse_block(p, &m->body);
	p->nmparams = 0;
}

/* The word that starts the next top-level item, when it is config,
 * import or macro (NULL otherwise), without lexing it for real. */
static const char *next_keyword(struct parser *p)
{
	struct lexer save = p->lx;
	struct diag quiet = *p->diag;
	quiet.out = NULL;
	quiet.max_errors = 0;
	p->lx.diag = &quiet;
	struct token t = lex_next(&p->lx);
	p->lx = save;
	if (t.kind != T_IDENT)
		return NULL;
	static const char *const words[] = { "config", "import", "macro" };
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (!strcmp(t.text, words[i]))
			return words[i];
	return NULL;
}

/* Skips what is left of a bad top-level item: up to and including the
 * '}' that closes its block, or to the end. */
static void sync_toplevel(struct parser *p)
{
	p->in_pred = 0;
	/* Inside a block or definition, skip to the '}' that closes the
	 * outermost one; before any '{', past the next block. */
	int opened = p->braces > 0;
	for (;;) {
		struct token t = take(p);
		if (t.kind == T_EOF) {
			p->tok = t;
			p->have_tok = 1;
			return;
		}
		if (t.kind == T_LBRACE)
			opened = 1;
		else if (t.kind == T_RBRACE && opened && p->braces == 0)
			break;
	}
	accept(p, T_SEMI); /* the one that ends a definition */
}

/* What starts the next top-level item, without lexing it as tokens (an
 * attach point is not made of expression tokens). */
static int next_is_cdef(struct parser *p)
{
	/* Quietly: a bad token here is reported when lexed for real. */
	struct lexer save = p->lx;
	struct diag quiet = *p->diag;
	quiet.out = NULL;
	quiet.max_errors = 0;
	p->lx.diag = &quiet;
	struct token t = lex_next(&p->lx);
	p->lx = save;
	return t.kind == T_STRUCT || t.kind == T_UNION || t.kind == T_ENUM ||
	       t.kind == T_TYPEDEF;
}

/* Whether `let` starts the next top-level item: 1 for `let @` (a map
 * declaration), -1 for `let` and anything else. */
static int next_is_mapdecl(struct parser *p)
{
	struct lexer save = p->lx;
	struct diag quiet = *p->diag;
	quiet.out = NULL;
	quiet.max_errors = 0;
	p->lx.diag = &quiet;
	struct token t = lex_next(&p->lx);
	int r = 0;
	if (t.kind == T_IDENT && !strcmp(t.text, "let")) {
		enum tok_kind k = lex_next(&p->lx).kind;
		r = k == T_MAP ? 1 : k == T_VAR ? -1 : 0;
	}
	p->lx = save;
	return r;
}

/* mapdecl := 'let' MAP '=' IDENT '(' INT ')' [ ';' ] */
static void parse_mapdecl(struct parser *p, struct ast_mapdecl *d)
{
	struct token kw = take(p);
	struct token m = expect(p, T_MAP, "a map");
	expect(p, T_ASSIGN, "'=' in the map declaration");
	struct token k = expect(p, T_IDENT, "map type name");
	expect(p, T_LPAREN, "'('");
	if (!at(p, T_INT)) {
		diag_error(p->diag, peek(p)->span, "expected positive integer "
			   "for map declaration max entries");
		longjmp(p->recover, 1);
	}
	struct token n = take(p);
	struct token close = expect(p, T_RPAREN, "')'");
	d->span = end_span(kw.span, close.span);
	d->map = m.text;
	d->kind = k.text;
	d->kind_span = k.span;
	d->max_entries = n.num;
	if (accept(p, T_SEMI)) /* the statement's, as 0.26 locates it */
		d->span = end_span(kw.span, p->prev);
}

/* Puts the pending token back by moving the lexer to its start. */
static void unpeek(struct parser *p)
{
	struct span sp = p->tok.span;
	p->lx.pos = sp.off;
	p->lx.line = sp.line;
	p->lx.col = sp.col;
	uint32_t i = sp.off;
	while (i > 0 && (p->lx.file->text[i - 1] == ' ' ||
			 p->lx.file->text[i - 1] == '\t'))
		i--;
	p->lx.at_line_start = i == 0 || p->lx.file->text[i - 1] == '\n';
	p->have_tok = 0;
}

int parse_attach_text(struct arena *a, struct diag *d,
		      const struct src_file *file, struct attach_point *out)
{
	struct parser p;
	memset(&p, 0, sizeof(p));
	p.arena = a;
	p.diag = d;
	lex_init(&p.lx, file, a, d);
	memset(out, 0, sizeof(*out));
	if (setjmp(p.recover))
		return -1;
	parse_attach(&p, out, 0);
	if (lex_peek_char(&p.lx) != -1) {
		diag_error(d, peek(&p)->span, "one probe is asked about: "
			   "found %s after it", describe(peek(&p)));
		return -1;
	}
	return 0;
}

/* program := { DIRECTIVE | cdef } { config | import }
 *            { probe | macro | mapdecl } EOF */
struct ast_program *parse_program(struct arena *a, struct diag *d,
				  const struct src_file *file)
{
	return parse_program_params(a, d, file, NULL, 0);
}

struct ast_program *parse_program_params(struct arena *a, struct diag *d,
					 const struct src_file *file,
					 const char *const *params,
					 uint32_t nparams)
{
	return parse_program_flags(a, d, file, params, nparams, 0);
}

struct ast_program *parse_program_flags(struct arena *a, struct diag *d,
					const struct src_file *file,
					const char *const *params,
					uint32_t nparams, unsigned flags)
{
	struct parser p;
	memset(&p, 0, sizeof(p));
	p.arena = a;
	p.diag = d;
	lex_init(&p.lx, file, a, d);
	p.lx.params = params;
	p.lx.nparams = nparams;
	struct ast_program *prog = arena_alloc(a, sizeof(*prog));
	prog->file = file;
	AVEC(struct ast_probe) probes = { 0 };
	AVEC(struct ast_cdef *) cdefs = { 0 };
	AVEC(struct ast_directive) dirs = { 0 };
	AVEC(struct ast_macro) macros = { 0 };
	AVEC(struct ast_import) imports = { 0 };
	AVEC(struct ast_mapdecl) decls = { 0 };
	/* config and import come before any probe, macro or map declaration */
	volatile int seen_body = 0;
	for (;;) {
		if (setjmp(p.recover)) {
			p.depth = 0;
			p.nest = 0;
			p.nmparams = 0;
			sync_toplevel(&p);
			p.braces = 0;
			continue;
		}
		/* Lexer state only: attach points are lexed raw, so a
		 * token peeked at (after a definition) is lexed again. */
		if (p.have_tok && p.tok.kind == T_EOF)
			break;
		if (p.have_tok)
			unpeek(&p);
		int c = lex_peek_char(&p.lx);
		if (c == -1)
			break;
		if (c == '#' || c == '/' || next_is_cdef(&p)) {
			struct token *t = peek(&p);
			if (t->kind == T_DIRECTIVE) {
				struct ast_directive dir = { t->span, t->text };
				apush(&p, &dirs, dir);
				take(&p);
				continue;
			}
			if (t->kind == T_ERROR)
				longjmp(p.recover, 1);
			if (t->kind == T_STRUCT || t->kind == T_UNION ||
			    t->kind == T_ENUM || t->kind == T_TYPEDEF) {
				struct ast_cdef *inner = NULL;
				struct ast_cdef *cd = parse_cdef(&p, &inner);
				if (inner)
					apush(&p, &cdefs, inner);
				apush(&p, &cdefs, cd);
				continue;
			}
			syntax_error(&p, "expected a probe, found %s",
				     describe(t));
		}
		const char *kw = next_keyword(&p);
		if (kw && kw[0] == 'c') {
			struct span at_kw = peek(&p)->span;
			struct ast_config *c = parse_config(&p);
			/* as bpftrace: reported, then parsing goes on */
			if (prog->config)
				diag_error(d, at_kw, "duplicate config block");
			else if (seen_body)
				diag_error(d, at_kw, "config must appear before "
					   "probes and functions");
			else
				prog->config = c;
			continue;
		}
		if (kw && kw[0] == 'i') {
			struct ast_import imp;
			struct span at_kw = peek(&p)->span;
			parse_import(&p, &imp);
			if (seen_body)
				diag_error(d, at_kw, "root imports must appear "
					   "before probes and functions");
			else
				apush(&p, &imports, imp);
			continue;
		}
		seen_body = 1;
		int decl = c == 'l' ? next_is_mapdecl(&p) : 0;
		if (decl < 0)
			syntax_error(&p, "root-level let statements need to be "
				     "map declarations, e.g. let @a = hash(2);");
		if (decl > 0) {
			struct ast_mapdecl md;
			memset(&md, 0, sizeof(md));
			parse_mapdecl(&p, &md);
			apush(&p, &decls, md);
			continue;
		}
		if (kw) {
			struct ast_macro m;
			memset(&m, 0, sizeof(m));
			parse_macro(&p, &m);
			apush(&p, &macros, m);
			continue;
		}
		struct ast_probe pr;
		memset(&pr, 0, sizeof(pr));
		parse_probe(&p, &pr);
		pr.index = (uint32_t)probes.len;
		apush(&p, &probes, pr);
	}
	FREEZE(&p, macros, prog->macros, prog->nmacros);
	FREEZE(&p, imports, prog->imports, prog->nimports);
	if (!probes.len && !d->nerrors && !(flags & PARSE_NO_PROBES_OK) &&
	    !prog->nimports) {
		struct span sp = { file, 0, 0, 1, 1 };
		diag_error(d, sp, "the script has no probes");
	}
	prog->nprobes = (uint32_t)probes.len;
	prog->probes = arena_alloc(a, sizeof(*prog->probes) * (probes.len + 1));
	if (probes.len)
		memcpy(prog->probes, probes.data,
		       sizeof(*prog->probes) * probes.len);
	FREEZE(&p, cdefs, prog->cdefs, prog->ncdefs);
	prog->nmapdecls = (uint32_t)decls.len;
	prog->mapdecls = arena_alloc(a, sizeof(*prog->mapdecls) *
					     (decls.len + 1));
	if (decls.len)
		memcpy(prog->mapdecls, decls.data,
		       sizeof(*prog->mapdecls) * decls.len);
	prog->ndirectives = (uint32_t)dirs.len;
	prog->directives = arena_alloc(a, sizeof(*prog->directives) *
					       (dirs.len + 1));
	if (dirs.len)
		memcpy(prog->directives, dirs.data,
		       sizeof(*prog->directives) * dirs.len);
	return prog;
}

struct ast_expr *parse_expression(struct arena *a, struct diag *d,
				  const struct src_file *file)
{
	struct parser p;
	memset(&p, 0, sizeof(p));
	p.arena = a;
	p.diag = d;
	lex_init(&p.lx, file, a, d);
	if (setjmp(p.recover))
		return NULL;
	struct ast_expr *e = parse_expr(&p);
	return at(&p, T_EOF) ? e : NULL;
}
