#include "lexer.h"

#include <ctype.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/utf8.h"
#include "util/vec.h"

void lex_init(struct lexer *lx, const struct src_file *f, struct arena *a,
	      struct diag *d)
{
	lx->file = f;
	lx->arena = a;
	lx->diag = d;
	lx->pos = 0;
	lx->line = 1;
	lx->col = 1;
	lx->at_line_start = 1;
}

static int peek_at(const struct lexer *lx, uint32_t ahead)
{
	uint32_t p = lx->pos + ahead;
	return p < lx->file->len ? (unsigned char)lx->file->text[p] : -1;
}

static int cur(const struct lexer *lx)
{
	return peek_at(lx, 0);
}

/* Length of the valid UTF-8 sequence at p, or 0 if it is not valid. */
static int utf8_len(const struct lexer *lx, uint32_t p)
{
	return utf8_seq_len((const unsigned char *)lx->file->text,
			    lx->file->len, p);
}

/* Whether the byte at p continues a valid UTF-8 sequence. */
static int continues_char(const struct lexer *lx, uint32_t p)
{
	const unsigned char *t = (const unsigned char *)lx->file->text;
	for (uint32_t k = 1; k <= 3 && k <= p; k++) {
		if ((t[p - k] & 0xc0) == 0x80)
			continue;
		return t[p - k] >= 0xc0 && (uint32_t)utf8_len(lx, p - k) > k;
	}
	return 0;
}

static void advance(struct lexer *lx)
{
	if (lx->pos >= lx->file->len)
		return;
	unsigned char c = (unsigned char)lx->file->text[lx->pos];
	if (c == '\n') {
		lx->line++;
		lx->col = 1;
		lx->at_line_start = 1;
	} else if ((c & 0xc0) != 0x80 || !continues_char(lx, lx->pos)) {
		/* Columns count characters: a valid UTF-8 sequence is one,
		 * a stray byte is one (diag.c shows it as one '?'). */
		lx->col++;
	}
	lx->pos++;
}

static struct span span_here(const struct lexer *lx)
{
	struct span s = { lx->file, lx->pos, 0, lx->line, lx->col };
	return s;
}

static void finish_span(const struct lexer *lx, struct span *s)
{
	s->len = lx->pos - s->off;
}

/* Consumes a malformed UTF-8 sequence at the current position: the bad
 * lead byte (or stray continuation byte) and the continuation bytes that
 * follow it, and reports it once. `where` is "" or " in literal". */
static void bad_utf8(struct lexer *lx, const char *where)
{
	struct span sp = span_here(lx);
	char bytes[32];
	int n = 0, len = 0;
	do {
		len += snprintf(bytes + len, sizeof(bytes) - (size_t)len,
				"%s0x%02x", n ? " " : "", cur(lx));
		advance(lx);
		n++;
	} while (n < 4 && cur(lx) >= 0x80 && cur(lx) < 0xc0);
	finish_span(lx, &sp);
	diag_error(lx->diag, sp, "invalid UTF-8 %s %s%s",
		   n > 1 ? "sequence" : "byte", bytes, where);
}

/* A '#' that is not at the start of a line, before a directive name. */
static int misplaced_directive(const struct lexer *lx, uint32_t p)
{
	static const char *const names[] = { "include", "define", "undef",
					     "ifdef", "ifndef", "if", "elif",
					     "else", "endif", "pragma" };
	const char *t = lx->file->text + p + 1;
	uint32_t left = lx->file->len - p - 1;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		size_t n = strlen(names[i]);
		if (left >= n && !memcmp(t, names[i], n))
			return 1;
	}
	return 0;
}

static void report_bad_byte(struct lexer *lx, struct span sp, int c)
{
	if (c == 0)
		diag_error(lx->diag, sp, "unexpected NUL byte");
	else if (c >= 0x80)
		diag_error(lx->diag, sp, "unexpected character '%.*s'",
			   (int)sp.len, lx->file->text + sp.off);
	else if (c == '#' && misplaced_directive(lx, sp.off))
		diag_error(lx->diag, sp, "a preprocessor line must start "
			   "with '#' at the beginning of a line");
	else if (c < 0x20 || c == 0x7f)
		diag_error(lx->diag, sp, "unexpected control character 0x%02x",
			   c);
	else
		diag_error(lx->diag, sp, "unexpected character '%c'", c);
}

/* Skips blanks and comments. Returns 0, or -1 after reporting an
 * unterminated comment. */
static int skip_space(struct lexer *lx)
{
	for (;;) {
		int c = cur(lx);
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n' ||
		    c == '\v' || c == '\f') {
			advance(lx);
		} else if (c == '/' && peek_at(lx, 1) == '/') {
			while (cur(lx) != -1 && cur(lx) != '\n')
				advance(lx);
		} else if (c == '/' && peek_at(lx, 1) == '*') {
			struct span sp = span_here(lx);
			advance(lx);
			advance(lx);
			while (cur(lx) != -1 &&
			       !(cur(lx) == '*' && peek_at(lx, 1) == '/'))
				advance(lx);
			if (cur(lx) == -1) {
				sp.len = 2;
				diag_error(lx->diag, sp,
					   "unterminated comment");
				return -1;
			}
			advance(lx);
			advance(lx);
		} else if (c == '#' && lx->pos == 0 && peek_at(lx, 1) == '!') {
			while (cur(lx) != -1 && cur(lx) != '\n')
				advance(lx);
		} else {
			return 0;
		}
	}
}

int lex_peek_char(struct lexer *lx)
{
	/* An unterminated comment is reported by the lex_next that follows,
	 * so keep quiet here and leave the position before it. */
	struct lexer save = *lx;
	struct diag quiet = *lx->diag;
	struct diag *real = lx->diag;
	quiet.out = NULL;
	quiet.max_errors = 0;
	lx->diag = &quiet;
	int r = skip_space(lx);
	lx->diag = real;
	if (r < 0) {
		*lx = save;
		return '/';
	}
	return cur(lx);
}

static const struct {
	const char *word;
	enum tok_kind kind;
} keywords[] = {
	{ "if", T_IF },	          { "else", T_ELSE },
	{ "unroll", T_UNROLL },   { "while", T_WHILE },
	{ "break", T_BREAK },     { "continue", T_CONTINUE },
	{ "return", T_RETURN },   { "struct", T_STRUCT },
	{ "union", T_UNION },     { "enum", T_ENUM },
	{ "typedef", T_TYPEDEF }, { "sizeof", T_SIZEOF },
	{ "offsetof", T_OFFSETOF },
};

static int is_ident_start(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_ident_char(int c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static const char *lex_word(struct lexer *lx)
{
	uint32_t start = lx->pos;
	while (is_ident_char(cur(lx)))
		advance(lx);
	return arena_strndup(lx->arena, lx->file->text + start,
			     lx->pos - start);
}

static int digit_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* The nanoseconds in one unit of the duration suffix at the lexer (taken
 * then), or 0 when none is there. */
static uint64_t duration_suffix(struct lexer *lx)
{
	int c = cur(lx), n = 1;
	uint64_t mult;
	if ((c == 'n' || c == 'u' || c == 'm') && peek_at(lx, 1) == 's') {
		mult = c == 'n' ? 1 : c == 'u' ? 1000ull : 1000000ull;
		n = 2;
	} else if (c == 's') {
		mult = 1000000000ull;
	} else if (c == 'm') {
		mult = 60000000000ull;
	} else if (c == 'h') {
		mult = 3600000000000ull;
	} else if (c == 'd') {
		mult = 86400000000000ull;
	} else {
		return 0;
	}
	while (n--)
		advance(lx);
	return mult;
}

/* integer: decimal, 0x hex, 0 octal, '_' separators, scientific (2e3),
 * C suffixes (u, l, ul, ll, ull in any case), which do not change the type,
 * or a duration suffix (ns, us, ms, s, m, h, d) */
static struct token lex_number(struct lexer *lx, struct token t)
{
	unsigned base = 10;
	if (cur(lx) == '0' && (peek_at(lx, 1) == 'x' || peek_at(lx, 1) == 'X')) {
		base = 16;
		advance(lx);
		advance(lx);
	} else if (cur(lx) == '0' && peek_at(lx, 1) >= '0' &&
		   peek_at(lx, 1) <= '9') {
		base = 8;
		advance(lx);
	}
	uint64_t v = 0;
	int overflow = 0, ndigits = 0, bad_digit = 0;
	for (;;) {
		int c = cur(lx);
		if (c == '_' && ndigits && digit_value(peek_at(lx, 1)) < (int)base) {
			advance(lx);
			continue;
		}
		int d = digit_value(c);
		if (d >= (int)base) {
			/* 09: a decimal digit in an octal literal */
			if (base == 8 && d < 10) {
				bad_digit = 1;
				advance(lx);
				continue;
			}
			break;
		}
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			overflow = 1;
		v = v * base + (uint64_t)d;
		ndigits++;
		advance(lx);
	}
	if (base == 16 && !ndigits) {
		finish_span(lx, &t.span);
		diag_error(lx->diag, t.span, "hexadecimal literal has no digits");
		t.kind = T_ERROR;
		return t;
	}
	/* 1.5 is no tuple access, but $t.1.5 is: a number right after a
	 * '.' is a tuple index. */
	if (base == 10 && cur(lx) == '.' && peek_at(lx, 1) >= '0' &&
	    peek_at(lx, 1) <= '9' &&
	    !(t.span.off > 0 && lx->file->text[t.span.off - 1] == '.')) {
		advance(lx);
		while (is_ident_char(cur(lx)))
			advance(lx);
		finish_span(lx, &t.span);
		diag_error(lx->diag, t.span,
			   "floating-point numbers are not supported");
		t.kind = T_ERROR;
		return t;
	}
	if (base == 10 && (cur(lx) == 'e' || cur(lx) == 'E') &&
	    peek_at(lx, 1) >= '0' && peek_at(lx, 1) <= '9') {
		advance(lx);
		uint64_t e = 0;
		while (cur(lx) >= '0' && cur(lx) <= '9') {
			if (e < 1000)
				e = e * 10 + (uint64_t)(cur(lx) - '0');
			advance(lx);
		}
		for (uint64_t i = 0; i < e && v; i++) {
			if (v > UINT64_MAX / 10) {
				overflow = 1;
				break;
			}
			v *= 10;
		}
	}
	/* A duration suffix (ns, us, ms, s, m, h, d): the value in
	 * nanoseconds, as bpftrace 0.26 reads 100ms. Not after hex digits,
	 * where 0.26 takes none either. */
	uint64_t mult = base == 16 ? 0 : duration_suffix(lx);
	if (mult) {
		if (v > UINT64_MAX / mult)
			overflow = 1;
		v *= mult;
	}
	int nu = 0, nl = 0;
	while (!mult && (cur(lx) == 'u' || cur(lx) == 'U' || cur(lx) == 'l' ||
	       cur(lx) == 'L')) {
		if (cur(lx) == 'u' || cur(lx) == 'U')
			nu++;
		else
			nl++;
		advance(lx);
	}
	int bad_suffix = nu > 1 || nl > 2;
	while (is_ident_char(cur(lx))) {
		bad_suffix = 1;
		advance(lx);
	}
	finish_span(lx, &t.span);
	t.kind = T_INT;
	t.num = v;
	if (bad_digit) {
		diag_error(lx->diag, t.span, "invalid digit in octal literal");
		t.kind = T_ERROR;
	} else if (bad_suffix) {
		diag_error(lx->diag, t.span, "invalid suffix on integer literal");
		t.kind = T_ERROR;
	} else if (overflow) {
		diag_error(lx->diag, t.span,
			   "integer literal is too large for 64 bits");
		t.kind = T_ERROR;
	}
	return t;
}

/* Decodes one escape sequence after the backslash. Returns the byte, or -1
 * after reporting an error. */
static int lex_escape(struct lexer *lx)
{
	struct span sp = span_here(lx);
	sp.off--;
	sp.col--;
	int c = cur(lx);
	switch (c) {
	case 'n': advance(lx); return '\n';
	case 't': advance(lx); return '\t';
	case 'r': advance(lx); return '\r';
	case 'a': advance(lx); return '\a';
	case 'b': advance(lx); return '\b';
	case 'f': advance(lx); return '\f';
	case 'v': advance(lx); return '\v';
	case 'e': advance(lx); return 0x1b;
	case '\\': case '"': case '\'': case '?':
		advance(lx);
		return c;
	case 'x': {
		advance(lx);
		int v = 0, n = 0;
		while (n < 2 && digit_value(cur(lx)) < 16) {
			v = v * 16 + digit_value(cur(lx));
			advance(lx);
			n++;
		}
		if (!n) {
			sp.len = 2;
			diag_error(lx->diag, sp,
				   "\\x escape needs hexadecimal digits");
			return -1;
		}
		return v;
	}
	default:
		if (c >= '0' && c <= '7') {
			int v = 0, n = 0;
			while (n < 3 && cur(lx) >= '0' && cur(lx) <= '7') {
				v = v * 8 + (cur(lx) - '0');
				advance(lx);
				n++;
			}
			if (v > 255) {
				/* bpftrace's words (0.17 and 0.26), which
				 * name the escape */
				sp.len = (uint32_t)n + 1;
				diag_error(lx->diag, sp,
					   "octal escape sequence out of range "
					   "'%.*s'", (int)sp.len,
					   lx->file->text + sp.off);
				return -1;
			}
			return v;
		}
		sp.len = 2;
		if (c >= 0x21 && c < 0x7f) /* bpftrace's words (0.17, 0.26) */
			diag_error(lx->diag, sp,
				   "invalid escape character '\\%c'", c);
		else
			diag_error(lx->diag, sp, "invalid escape sequence");
		if (c != -1 && c != '\n')
			advance(lx);
		return -1;
	}
}

/* Body of a "string" or 'c' literal up to the closing quote. Returns the
 * decoded bytes in sb; 0 on success, -1 after reporting an error. */
static int lex_quoted(struct lexer *lx, int quote, struct span start,
		      struct strbuf *sb)
{
	int failed = 0;
	advance(lx); /* opening quote */
	for (;;) {
		int c = cur(lx);
		if (c == -1 || c == '\n') {
			finish_span(lx, &start);
			diag_error(lx->diag, start, quote == '"' ?
				   "unterminated string" :
				   "unterminated character literal");
			return -1;
		}
		if (c == quote) {
			advance(lx);
			return failed ? -1 : 0;
		}
		if (c == '\\') {
			advance(lx);
			int v = lex_escape(lx);
			if (v < 0)
				failed = 1;
			else
				sb_putc(sb, (char)v);
			continue;
		}
		if (c == 0 || (c < 0x20 && c != '\t') || c == 0x7f) {
			struct span sp = span_here(lx);
			sp.len = 1;
			diag_error(lx->diag, sp, c == 0 ?
				   "NUL byte in literal (write \\0 instead)" :
				   "control character 0x%02x in literal", c);
			failed = 1;
			advance(lx);
			continue;
		}
		if (c >= 0x80) {
			int n = utf8_len(lx, lx->pos);
			if (!n) {
				bad_utf8(lx, " in literal");
				failed = 1;
				continue;
			}
			for (int i = 0; i < n; i++) {
				sb_putc(sb, (char)cur(lx));
				advance(lx);
			}
			continue;
		}
		sb_putc(sb, (char)c);
		advance(lx);
	}
}

static struct token lex_string(struct lexer *lx, struct token t)
{
	struct strbuf sb = STRBUF_INIT;
	int r = lex_quoted(lx, '"', t.span, &sb);
	finish_span(lx, &t.span);
	if (r < 0) {
		t.kind = T_ERROR;
	} else {
		t.kind = T_STRING;
		t.len = (uint32_t)sb.len;
		t.str = arena_strndup(lx->arena, sb_str(&sb), sb.len);
	}
	sb_free(&sb);
	return t;
}

static struct token lex_char(struct lexer *lx, struct token t)
{
	struct strbuf sb = STRBUF_INIT;
	int r = lex_quoted(lx, '\'', t.span, &sb);
	finish_span(lx, &t.span);
	t.kind = T_ERROR;
	if (r == 0 && sb.len != 1)
		diag_error(lx->diag, t.span, sb.len ?
			   "character literal holds more than one byte" :
			   "empty character literal");
	else if (r == 0) {
		t.kind = T_INT;
		t.num = (unsigned char)sb.buf[0];
		t.is_char = 1;
	}
	sb_free(&sb);
	return t;
}

/* A preprocessor line, with backslash-newline continuations. */
static struct token lex_directive(struct lexer *lx, struct token t)
{
	while (cur(lx) != -1 && cur(lx) != '\n') {
		if (cur(lx) == '\\' && peek_at(lx, 1) == '\n')
			advance(lx);
		advance(lx);
	}
	finish_span(lx, &t.span);
	t.kind = T_DIRECTIVE;
	t.text = arena_strndup(lx->arena, lx->file->text + t.span.off,
			       t.span.len);
	return t;
}

struct punct {
	const char *s;
	enum tok_kind kind;
};

/* Longest first, so that "<<=" wins over "<<" and "<". */
static const struct punct puncts[] = {
	{ "<<=", T_SHL_ASSIGN }, { ">>=", T_SHR_ASSIGN },
	{ "->", T_ARROW },	 { "++", T_INC },	 { "--", T_DEC },
	{ "&&", T_AMPAMP },	 { "||", T_PIPEPIPE },	 { "==", T_EQEQ },
	{ "!=", T_NE },		 { "<=", T_LE },	 { ">=", T_GE },
	{ "<<", T_SHL },	 { ">>", T_SHR },	 { "+=", T_ADD_ASSIGN },
	{ "-=", T_SUB_ASSIGN },	 { "*=", T_MUL_ASSIGN }, { "/=", T_DIV_ASSIGN },
	{ "%=", T_MOD_ASSIGN },	 { "&=", T_AND_ASSIGN }, { "|=", T_OR_ASSIGN },
	{ "^=", T_XOR_ASSIGN },	 { "{", T_LBRACE },	 { "}", T_RBRACE },
	{ "(", T_LPAREN },	 { ")", T_RPAREN },	 { "[", T_LBRACKET },
	{ "]", T_RBRACKET },	 { ";", T_SEMI },	 { ",", T_COMMA },
	{ ".", T_DOT },		 { "?", T_QUESTION },	 { ":", T_COLON },
	{ "+", T_PLUS },	 { "-", T_MINUS },	 { "*", T_STAR },
	{ "/", T_SLASH },	 { "%", T_PERCENT },	 { "&", T_AMP },
	{ "|", T_PIPE },	 { "^", T_CARET },	 { "~", T_TILDE },
	{ "!", T_BANG },	 { "<", T_LT },		 { ">", T_GT },
	{ "=", T_ASSIGN },
};

struct token lex_next(struct lexer *lx)
{
	struct token t;
	memset(&t, 0, sizeof(t));
	if (skip_space(lx) < 0) {
		lx->pos = lx->file->len; /* the comment ran to the end */
		t.kind = T_ERROR;
		t.span = span_here(lx);
		return t;
	}
	int line_start = lx->at_line_start;
	t.span = span_here(lx);
	int c = cur(lx);
	lx->at_line_start = 0;
	if (c == -1) {
		t.kind = T_EOF;
		return t;
	}
	if (c == '#' && line_start)
		return lex_directive(lx, t);
	if (is_ident_start(c)) {
		t.text = lex_word(lx);
		finish_span(lx, &t.span);
		t.kind = T_IDENT;
		for (size_t i = 0; i < sizeof(keywords) / sizeof(*keywords); i++)
			if (!strcmp(keywords[i].word, t.text))
				t.kind = keywords[i].kind;
		return t;
	}
	if (c >= '0' && c <= '9')
		return lex_number(lx, t);
	if (c == '"')
		return lex_string(lx, t);
	if (c == '\'')
		return lex_char(lx, t);
	if (c == '@') {
		advance(lx);
		const char *w = lex_word(lx);
		finish_span(lx, &t.span);
		t.kind = T_MAP;
		t.text = arena_printf(lx->arena, "@%s", w);
		return t;
	}
	if (c == '$') {
		advance(lx);
		if (cur(lx) == '#') {
			advance(lx);
			finish_span(lx, &t.span);
			t.kind = T_POSITIONAL;
			t.num = (uint64_t)-1;
			return t;
		}
		if (cur(lx) >= '0' && cur(lx) <= '9') {
			uint64_t v = 0;
			int big = 0;
			while (cur(lx) >= '0' && cur(lx) <= '9') {
				v = v * 10 + (uint64_t)(cur(lx) - '0');
				if (v > 9999)
					big = 1;
				advance(lx);
			}
			finish_span(lx, &t.span);
			if (big || v == 0) {
				diag_error(lx->diag, t.span, v == 0 && !big ?
					   "positional parameters start at $1" :
					   "positional parameter number is too large");
				t.kind = T_ERROR;
				return t;
			}
			t.kind = T_POSITIONAL;
			t.num = v;
			return t;
		}
		if (!is_ident_start(cur(lx))) {
			finish_span(lx, &t.span);
			diag_error(lx->diag, t.span,
				   "expected a variable name after '$'");
			t.kind = T_ERROR;
			return t;
		}
		const char *w = lex_word(lx);
		finish_span(lx, &t.span);
		t.kind = T_VAR;
		t.text = arena_printf(lx->arena, "$%s", w);
		return t;
	}
	for (size_t i = 0; i < sizeof(puncts) / sizeof(*puncts); i++) {
		size_t n = strlen(puncts[i].s);
		if (lx->pos + n <= lx->file->len &&
		    !memcmp(lx->file->text + lx->pos, puncts[i].s, n)) {
			for (size_t k = 0; k < n; k++)
				advance(lx);
			finish_span(lx, &t.span);
			t.kind = puncts[i].kind;
			return t;
		}
	}
	/* A stray byte: report it (a whole UTF-8 character at once). */
	t.kind = T_ERROR;
	int n = c >= 0x80 ? utf8_len(lx, lx->pos) : 1;
	if (!n) {
		bad_utf8(lx, "");
		finish_span(lx, &t.span);
		return t;
	}
	for (int i = 0; i < n; i++)
		advance(lx);
	finish_span(lx, &t.span);
	report_bad_byte(lx, t.span, c);
	return t;
}

static int is_attach_stop(int c)
{
	return c == -1 || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	       c == '\v' || c == '\f' || c == ',' || c == '{' || c == '}' ||
	       c == ';';
}

/* $N in an attach point: the N-th positional parameter, "" when there
 * are fewer, put in place of it: text may follow ("$1func", "aa$1aa"), as
 * bpftrace 0.26 expands it in the attach point's text. A '$' not
 * followed by a digit from 1 to 9 is its error (quoting keeps it). */
static int attach_param(struct lexer *lx, const char **value)
{
	struct span sp = span_here(lx);
	advance(lx); /* '$' */
	int c = cur(lx);
	if (is_attach_stop(c) || c == ':' || c < 0x21 || c >= 0x7f) {
		/* nothing after the '$' in this part */
		finish_span(lx, &sp);
		diag_error(lx->diag, sp, "positional parameter is not valid: "
			   "invalid integer: ");
		return -1;
	}
	if (c < '1' || c > '9') {
		advance(lx);
		finish_span(lx, &sp);
		diag_error(lx->diag, sp, "invalid trailing character for "
			   "positional param: %c. Try quoting this entire part "
			   "if this is intentional e.g. \"$%c\".", c, c);
		return -1;
	}
	uint64_t n = 0;
	bool big = false;
	while (isdigit(cur(lx))) {
		n = n * 10 + (uint64_t)(cur(lx) - '0');
		big |= n > UINT32_MAX;
		advance(lx);
	}
	*value = !big && n >= 1 && n <= lx->nparams ? lx->params[n - 1] : "";
	return 0;
}

struct token lex_attach_point(struct lexer *lx)
{
	struct token t;
	memset(&t, 0, sizeof(t));
	t.kind = T_IDENT;
	if (skip_space(lx) < 0) {
		t.kind = T_ERROR;
		t.span = span_here(lx);
		return t;
	}
	lx->at_line_start = 0;
	t.span = span_here(lx);
	struct strbuf whole = STRBUF_INIT, part = STRBUF_INIT;
	VEC(const char *) parts = { 0 };
	int failed = 0, ended = 0;
	while (!ended) {
		int c = cur(lx);
		if (c == '/' && (peek_at(lx, 1) == '/' || peek_at(lx, 1) == '*'))
			break; /* a comment ends the attach point */
		if (is_attach_stop(c) || (c == '/' && !whole.len)) {
			ended = 1;
		} else if (c == '"') {
			struct span qs = span_here(lx);
			advance(lx);
			for (;;) {
				int q = cur(lx);
				if (q == -1 || q == '\n') {
					finish_span(lx, &qs);
					diag_error(lx->diag, qs,
						   "unterminated string");
					failed = ended = 1;
					break;
				}
				advance(lx);
				if (q == '"')
					break;
				/* bpftrace's rule: a backslash in quotes takes
				 * the next byte as it is ("\"probe\"") */
				if (q == '\\' && cur(lx) != -1 &&
				    cur(lx) != '\n') {
					q = cur(lx);
					advance(lx);
				}
				sb_putc(&whole, (char)q);
				sb_putc(&part, (char)q);
			}
		} else if (c == '$' && lx->params) {
			/* the value is the point's text there: its colons
			 * part it too ('$1' of i:ms:1 is a whole point) */
			const char *v = NULL;
			if (attach_param(lx, &v) < 0)
				failed = ended = 1;
			for (; v && *v; v++) {
				sb_putc(&whole, *v);
				if (*v != ':') {
					sb_putc(&part, *v);
					continue;
				}
				vec_push(&parts, arena_strndup(lx->arena,
							       sb_str(&part),
							       part.len));
				sb_reset(&part);
			}
		} else if (c == ':') {
			vec_push(&parts, arena_strndup(lx->arena, sb_str(&part),
						       part.len));
			sb_reset(&part);
			sb_putc(&whole, ':');
			advance(lx);
		} else if (c < 0x21 || c >= 0x7f) {
			struct span sp = span_here(lx);
			int n = c >= 0x80 ? utf8_len(lx, lx->pos) : 1;
			if (!n) {
				bad_utf8(lx, "");
			} else {
				for (int i = 0; i < n; i++)
					advance(lx);
				finish_span(lx, &sp);
				report_bad_byte(lx, sp, c);
			}
			failed = ended = 1;
		} else {
			sb_putc(&whole, (char)c);
			sb_putc(&part, (char)c);
			advance(lx);
		}
	}
	vec_push(&parts, arena_strndup(lx->arena, sb_str(&part), part.len));
	finish_span(lx, &t.span);
	t.text = arena_strndup(lx->arena, sb_str(&whole), whole.len);
	t.nparts = (uint32_t)parts.len;
	t.parts = arena_alloc(lx->arena, sizeof(char *) * parts.len);
	memcpy(t.parts, parts.data, sizeof(char *) * parts.len);
	if (failed)
		t.kind = T_ERROR;
	vec_free(&parts);
	sb_free(&whole);
	sb_free(&part);
	return t;
}

const char *lex_tok_name(enum tok_kind k)
{
	static const char *names[] = {
		[T_EOF] = "end of file", [T_ERROR] = "invalid token",
		[T_IDENT] = "identifier", [T_MAP] = "map",
		[T_VAR] = "variable", [T_POSITIONAL] = "positional parameter",
		[T_INT] = "integer", [T_STRING] = "string",
		[T_DIRECTIVE] = "preprocessor directive",
		[T_IF] = "'if'", [T_ELSE] = "'else'", [T_UNROLL] = "'unroll'",
		[T_WHILE] = "'while'", [T_BREAK] = "'break'",
		[T_CONTINUE] = "'continue'", [T_RETURN] = "'return'",
		[T_STRUCT] = "'struct'", [T_UNION] = "'union'",
		[T_ENUM] = "'enum'", [T_TYPEDEF] = "'typedef'",
		[T_SIZEOF] = "'sizeof'", [T_OFFSETOF] = "'offsetof'",
	};
	if ((size_t)k < sizeof(names) / sizeof(*names) && names[k])
		return names[k];
	for (size_t i = 0; i < sizeof(puncts) / sizeof(*puncts); i++)
		if (puncts[i].kind == k)
			return puncts[i].s;
	return "token";
}
