/*
 * Lexer: script bytes -> tokens, each with its span. The parser pulls
 * tokens one at a time; attach points are lexed raw on request because
 * their syntax (paths, globs, quoted C++ names) is not the expression
 * language's.
 */
#ifndef SONDE_LEXER_H
#define SONDE_LEXER_H

#include <stdint.h>

#include "util/arena.h"
#include "util/diag.h"

enum tok_kind {
	T_EOF,
	T_ERROR,     /* already reported */
	T_IDENT,     /* foo */
	T_MAP,       /* @foo or @ */
	T_VAR,       /* $foo */
	T_POSITIONAL, /* $1, $# (num = -1 for $#) */
	T_INT,
	T_STRING,
	T_DIRECTIVE, /* #include ..., a whole line */
	/* keywords */
	T_IF, T_ELSE, T_UNROLL, T_WHILE, T_BREAK, T_CONTINUE, T_RETURN,
	T_STRUCT, T_UNION, T_ENUM, T_TYPEDEF, T_SIZEOF, T_OFFSETOF,
	/* punctuation */
	T_LBRACE, T_RBRACE, T_LPAREN, T_RPAREN, T_LBRACKET, T_RBRACKET,
	T_SEMI, T_COMMA, T_DOT, T_ARROW, T_QUESTION, T_COLON,
	T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT,
	T_AMP, T_PIPE, T_CARET, T_TILDE, T_BANG,
	T_AMPAMP, T_PIPEPIPE, T_EQEQ, T_NE, T_LT, T_LE, T_GT, T_GE,
	T_SHL, T_SHR, T_INC, T_DEC,
	T_ASSIGN, T_ADD_ASSIGN, T_SUB_ASSIGN, T_MUL_ASSIGN, T_DIV_ASSIGN,
	T_MOD_ASSIGN, T_AND_ASSIGN, T_OR_ASSIGN, T_XOR_ASSIGN,
	T_SHL_ASSIGN, T_SHR_ASSIGN,
};

struct token {
	enum tok_kind kind;
	struct span span;
	const char *text; /* identifiers, names (with sigil), directive text */
	uint64_t num;     /* T_INT, T_POSITIONAL */
	const char *str;  /* T_STRING: decoded bytes, NUL-terminated */
	uint32_t len;     /* T_STRING: decoded length */
	int is_char;      /* T_INT written as a character literal */
	const char **parts; /* attach points: ':'-separated parts, unquoted */
	uint32_t nparts;
};

struct lexer {
	const struct src_file *file;
	struct arena *arena;
	struct diag *diag;
	uint32_t pos, line, col;
	int at_line_start; /* only blanks since the last newline */
	/* The positional parameters an unquoted $N in an attach point
	 * stands for (bpftrace's BEGIN$1, uprobe:$1:f); params NULL: the
	 * text is kept as written. */
	const char *const *params;
	uint32_t nparams;
};

void lex_init(struct lexer *lx, const struct src_file *f, struct arena *a,
	      struct diag *d);
struct token lex_next(struct lexer *lx);
/* Skips blanks and comments; returns the next byte without consuming it
 * (-1 at end). Used by the parser to decide how to lex attach points. */
int lex_peek_char(struct lexer *lx);
/* Lexes one attach point: everything up to blanks, ',', '{' or '}',
 * split on unquoted ':' into parts, "quoted" parts unquoted. Returns T_IDENT
 * with text (the whole, unquoted) and parts, or T_ERROR. */
struct token lex_attach_point(struct lexer *lx);
const char *lex_tok_name(enum tok_kind k);

#endif
