/* Lexer: token kinds, values and spans. */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lexer.h"
#include "util/arena.h"
#include "util/diag.h"

#define MAXTOK 64

/* Lexes all of text; errors go to a memory stream kept in errbuf. */
struct lexed {
	struct arena arena;
	struct src_file file;
	struct diag diag;
	struct token t[MAXTOK];
	int n;
	char *errbuf;
	size_t errlen;
	FILE *errf;
};

static void lex_all(struct lexed *l, const char *text, size_t len)
{
	memset(l, 0, sizeof(*l));
	arena_init(&l->arena);
	l->file.name = "t";
	l->file.text = text;
	l->file.len = (uint32_t)len;
	l->errf = open_memstream(&l->errbuf, &l->errlen);
	diag_init(&l->diag, l->errf);
	struct lexer lx;
	lex_init(&lx, &l->file, &l->arena, &l->diag);
	for (l->n = 0; l->n < MAXTOK; l->n++) {
		l->t[l->n] = lex_next(&lx);
		if (l->t[l->n].kind == T_EOF)
			break;
	}
	fflush(l->errf);
}

static void lexed_free(struct lexed *l)
{
	fclose(l->errf);
	free(l->errbuf);
	arena_release(&l->arena);
}

#define LEX(l, s) lex_all((l), (s), sizeof(s) - 1)

/* The token's text as written in the source. */
static const char *src_of(struct lexed *l, const struct token *t)
{
	static char buf[128];
	snprintf(buf, sizeof(buf), "%.*s", (int)t->span.len,
		 l->file.text + t->span.off);
	return buf;
}

TEST(numbers_in_every_base)
{
	struct lexed l;
	LEX(&l, "0 42 0x2A 0XfF 052 00 1_000_000 0x1_0 2e3 5E2 1e0 "
		"10UL 10u 10ll 10ULL 0x10ul 18446744073709551615 "
		"0xffffffffffffffff 01777777777777777777777");
	static const uint64_t want[] = {
		0, 42, 42, 255, 42, 0, 1000000, 16, 2000, 500, 1,
		10, 10, 10, 10, 16, UINT64_MAX, UINT64_MAX, UINT64_MAX,
	};
	size_t nw = sizeof(want) / sizeof(*want);
	CHECK(l.n == (int)nw);
	for (size_t i = 0; i < nw && i < (size_t)l.n; i++) {
		CHECK(l.t[i].kind == T_INT);
		CHECK(l.t[i].num == want[i]);
		CHECK(!l.t[i].is_char);
	}
	CHECK_STR(src_of(&l, &l.t[6]), "1_000_000");
	CHECK_STR(src_of(&l, &l.t[11]), "10UL");
	CHECK(l.errlen == 0);
	lexed_free(&l);
}

/* bpftrace 0.26's durations: integers in nanoseconds. */
TEST(duration_literals)
{
	struct lexed l;
	LEX(&l, "7ns 3us 100ms 1s 2m 1h 1d 1_000us");
	static const uint64_t want[] = {
		7, 3000, 100000000, 1000000000ULL, 120000000000ULL,
		3600000000000ULL, 86400000000000ULL, 1000000,
	};
	size_t nw = sizeof(want) / sizeof(*want);
	CHECK(l.n == (int)nw);
	for (size_t i = 0; i < nw && i < (size_t)l.n; i++) {
		CHECK(l.t[i].kind == T_INT);
		CHECK(l.t[i].num == want[i]);
	}
	CHECK_STR(src_of(&l, &l.t[2]), "100ms");
	CHECK(l.errlen == 0);
	lexed_free(&l);
}

TEST(bad_numbers_are_errors)
{
	static const char *const bad[] = {
		"18446744073709551616", "0x10000000000000000",
		"02000000000000000000000", "2e19", "09", "10uu", "10abc",
		"0x", "1.5",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct lexed l;
		lex_all(&l, bad[i], strlen(bad[i]));
		CHECK(l.t[0].kind == T_ERROR);
		CHECK(l.t[0].span.len == strlen(bad[i]));
		CHECK(l.t[1].kind == T_EOF);
		CHECK(l.diag.nerrors == 1);
		lexed_free(&l);
	}
}

TEST(character_literals)
{
	struct lexed l;
	LEX(&l, "'a' '\\n' '\\\\' '\\'' '\"' '\\x41' '\\101' '\\0' '\\xff'");
	static const uint64_t want[] = { 'a', '\n', '\\', '\'', '"', 'A', 'A',
					 0, 255 };
	CHECK(l.n == 9);
	for (int i = 0; i < 9 && i < l.n; i++) {
		CHECK(l.t[i].kind == T_INT);
		CHECK(l.t[i].is_char);
		CHECK(l.t[i].num == want[i]);
	}
	CHECK(l.t[1].span.off == 4 && l.t[1].span.len == 4);
	lexed_free(&l);
}

TEST(string_escapes)
{
	struct lexed l;
	LEX(&l, "\"a\\n\\t\\\\\\\"\\x41\\101\\0z\" \"\" \"\xc3\xa9\"");
	CHECK(l.n == 3);
	CHECK(l.t[0].kind == T_STRING);
	CHECK(l.t[0].len == 9);
	CHECK(!memcmp(l.t[0].str, "a\n\t\\\"AA\0z", 9));
	CHECK(l.t[0].span.off == 0);
	CHECK(l.t[0].span.len == 22);
	CHECK(l.t[1].kind == T_STRING && l.t[1].len == 0);
	CHECK(l.t[2].kind == T_STRING && l.t[2].len == 2);
	CHECK_STR(l.t[2].str, "\xc3\xa9");
	CHECK(l.errlen == 0);
	lexed_free(&l);
}

TEST(bad_strings_are_errors)
{
	static const char *const bad[] = {
		"\"abc", "\"a\nb\"", "\"\\q\"", "\"\\xg\"", "\"\\777\"",
		"'ab'", "''", "'x",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct lexed l;
		lex_all(&l, bad[i], strlen(bad[i]));
		CHECK(l.t[0].kind == T_ERROR);
		CHECK(l.diag.nerrors >= 1);
		lexed_free(&l);
	}
	struct lexed l;
	LEX(&l, "\"a\0b\"");
	CHECK(l.t[0].kind == T_ERROR);
	CHECK(strstr(l.errbuf, "NUL byte in literal"));
	lexed_free(&l);
}

TEST(names_maps_vars_positionals)
{
	struct lexed l;
	LEX(&l, "foo _x9 @map @ @a_1 $var $_ $1 $42 $# pid");
	enum tok_kind kinds[] = { T_IDENT, T_IDENT, T_MAP, T_MAP, T_MAP,
				  T_VAR, T_VAR, T_POSITIONAL, T_POSITIONAL,
				  T_POSITIONAL, T_IDENT, T_EOF };
	const char *texts[] = { "foo", "_x9", "@map", "@", "@a_1", "$var",
				"$_" };
	CHECK(l.n == 11);
	for (int i = 0; i < 12 && i <= l.n; i++)
		CHECK(l.t[i].kind == kinds[i]);
	for (int i = 0; i < 7; i++)
		CHECK_STR(l.t[i].text, texts[i]);
	CHECK(l.t[7].num == 1);
	CHECK(l.t[8].num == 42);
	CHECK(l.t[9].num == (uint64_t)-1);
	CHECK(l.t[2].span.off == 8 && l.t[2].span.len == 4);
	CHECK(l.t[9].span.len == 2);
	lexed_free(&l);

	LEX(&l, "$0 $ $99999");
	CHECK(l.t[0].kind == T_ERROR && l.t[1].kind == T_ERROR &&
	      l.t[2].kind == T_ERROR);
	CHECK(l.diag.nerrors == 3);
	lexed_free(&l);
}

TEST(every_punctuator)
{
	static const struct {
		const char *s;
		enum tok_kind k;
	} p[] = {
		{ "{", T_LBRACE }, { "}", T_RBRACE }, { "(", T_LPAREN },
		{ ")", T_RPAREN }, { "[", T_LBRACKET }, { "]", T_RBRACKET },
		{ ";", T_SEMI }, { ",", T_COMMA }, { ".", T_DOT },
		{ "->", T_ARROW }, { "?", T_QUESTION }, { ":", T_COLON },
		{ "+", T_PLUS }, { "-", T_MINUS }, { "*", T_STAR },
		{ "/", T_SLASH }, { "%", T_PERCENT }, { "&", T_AMP },
		{ "|", T_PIPE }, { "^", T_CARET }, { "~", T_TILDE },
		{ "!", T_BANG }, { "&&", T_AMPAMP }, { "||", T_PIPEPIPE },
		{ "==", T_EQEQ }, { "!=", T_NE }, { "<", T_LT }, { "<=", T_LE },
		{ ">", T_GT }, { ">=", T_GE }, { "<<", T_SHL }, { ">>", T_SHR },
		{ "++", T_INC }, { "--", T_DEC }, { "=", T_ASSIGN },
		{ "+=", T_ADD_ASSIGN }, { "-=", T_SUB_ASSIGN },
		{ "*=", T_MUL_ASSIGN }, { "/=", T_DIV_ASSIGN },
		{ "%=", T_MOD_ASSIGN }, { "&=", T_AND_ASSIGN },
		{ "|=", T_OR_ASSIGN }, { "^=", T_XOR_ASSIGN },
		{ "<<=", T_SHL_ASSIGN }, { ">>=", T_SHR_ASSIGN },
	};
	for (size_t i = 0; i < sizeof(p) / sizeof(*p); i++) {
		struct lexed l;
		lex_all(&l, p[i].s, strlen(p[i].s));
		CHECK(l.n == 1);
		CHECK(l.t[0].kind == p[i].k);
		CHECK(l.t[0].span.len == strlen(p[i].s));
		CHECK(l.t[1].kind == T_EOF);
		lexed_free(&l);
	}
	/* longest match first, then the rest */
	struct lexed l;
	LEX(&l, "a<<=b>>c->d---e");
	enum tok_kind k[] = { T_IDENT, T_SHL_ASSIGN, T_IDENT, T_SHR, T_IDENT,
			      T_ARROW, T_IDENT, T_DEC, T_MINUS, T_IDENT, T_EOF };
	for (int i = 0; i < 11; i++)
		CHECK(l.t[i].kind == k[i]);
	lexed_free(&l);
}

TEST(keywords)
{
	struct lexed l;
	LEX(&l, "if else unroll while break continue return struct union "
		"enum typedef sizeof offsetof iff");
	enum tok_kind k[] = { T_IF, T_ELSE, T_UNROLL, T_WHILE, T_BREAK,
			      T_CONTINUE, T_RETURN, T_STRUCT, T_UNION, T_ENUM,
			      T_TYPEDEF, T_SIZEOF, T_OFFSETOF, T_IDENT, T_EOF };
	for (int i = 0; i < 15; i++)
		CHECK(l.t[i].kind == k[i]);
	lexed_free(&l);
}

TEST(spans_count_lines_and_characters)
{
	struct lexed l;
	/* é is one column; a comment and a newline come before @b */
	LEX(&l, "\"\xc3\xa9\" x /* c\n */\t@b // end\n#include <x.h>\n  y");
	CHECK(l.n == 5);
	CHECK(l.t[1].span.line == 1 && l.t[1].span.col == 5);
	CHECK(l.t[2].kind == T_MAP);
	CHECK(l.t[2].span.line == 2 && l.t[2].span.col == 5);
	CHECK(l.t[3].kind == T_DIRECTIVE);
	CHECK_STR(l.t[3].text, "#include <x.h>");
	CHECK(l.t[3].span.line == 3 && l.t[3].span.col == 1);
	CHECK(l.t[4].span.line == 4 && l.t[4].span.col == 3);
	lexed_free(&l);
}

TEST(shebang_and_comments_are_skipped)
{
	struct lexed l;
	LEX(&l, "#!/usr/bin/sonde\n/* a */ // b\nx");
	CHECK(l.n == 1);
	CHECK(l.t[0].kind == T_IDENT && l.t[0].span.line == 3);
	lexed_free(&l);
	LEX(&l, "x /* never closed");
	CHECK(l.t[1].kind == T_ERROR);
	CHECK(strstr(l.errbuf, "unterminated comment"));
	lexed_free(&l);
}

TEST(bad_bytes_are_reported_once)
{
	struct lexed l;
	LEX(&l, "a \xc0\xaf b \x80 c \x01 `");
	CHECK(l.t[1].kind == T_ERROR && l.t[1].span.len == 2);
	CHECK(l.t[3].kind == T_ERROR && l.t[3].span.len == 1);
	CHECK(l.t[5].kind == T_ERROR);
	CHECK(l.t[6].kind == T_ERROR);
	CHECK(l.diag.nerrors == 4);
	/* an invalid byte counts one column, like a character */
	CHECK(l.t[2].span.col == 6);
	CHECK(strstr(l.errbuf, "invalid UTF-8 sequence 0xc0 0xaf"));
	lexed_free(&l);
}

TEST(attach_points)
{
	struct lexed l;
	LEX(&l, "uprobe:\"/tmp/a b\":f+8, kprobe:vfs_*");
	struct lexer lx;
	lex_init(&lx, &l.file, &l.arena, &l.diag);
	struct token t = lex_attach_point(&lx);
	CHECK(t.kind == T_IDENT);
	CHECK(t.nparts == 3);
	CHECK_STR(t.parts[0], "uprobe");
	CHECK_STR(t.parts[1], "/tmp/a b");
	CHECK_STR(t.parts[2], "f+8");
	CHECK_STR(t.text, "uprobe:/tmp/a b:f+8");
	CHECK(t.span.off == 0 && t.span.len == 21);
	CHECK(lex_peek_char(&lx) == ',');
	CHECK(lex_next(&lx).kind == T_COMMA);
	t = lex_attach_point(&lx);
	CHECK(t.nparts == 2);
	CHECK_STR(t.parts[1], "vfs_*");
	CHECK(lex_next(&lx).kind == T_EOF);
	lexed_free(&l);
}

int main(void)
{
	RUN(numbers_in_every_base);
	RUN(duration_literals);
	RUN(bad_numbers_are_errors);
	RUN(character_literals);
	RUN(string_escapes);
	RUN(bad_strings_are_errors);
	RUN(names_maps_vars_positionals);
	RUN(every_punctuator);
	RUN(keywords);
	RUN(spans_count_lines_and_characters);
	RUN(shebang_and_comments_are_skipped);
	RUN(bad_bytes_are_reported_once);
	RUN(attach_points);
	return check_done();
}
