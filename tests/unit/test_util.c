#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/diag.h"
#include "util/intparse.h"
#include "util/strbuf.h"
#include "util/vec.h"

TEST(arena_allocates_zeroed_and_aligned)
{
	struct arena a;
	arena_init(&a);
	for (int i = 0; i < 10000; i++) {
		unsigned char *p = arena_alloc(&a, (size_t)(i % 97) + 1);
		CHECK(((size_t)p & 15) == 0);
		CHECK(p[0] == 0);
		p[0] = 0xff;
	}
	char *big = arena_alloc(&a, 1 << 20); /* larger than a block */
	CHECK(big[(1 << 20) - 1] == 0);
	CHECK_STR(arena_printf(&a, "%s-%d", "x", 42), "x-42");
	CHECK_STR(arena_strndup(&a, "hello", 3), "hel");
	arena_release(&a);
}

TEST(strbuf_grows)
{
	struct strbuf sb = STRBUF_INIT;
	CHECK_STR(sb_str(&sb), "");
	for (int i = 0; i < 1000; i++)
		sb_printf(&sb, "%d,", i % 10);
	CHECK(sb.len == 2000);
	sb_reset(&sb);
	sb_append(&sb, "ab");
	sb_putc(&sb, 'c');
	CHECK_STR(sb_str(&sb), "abc");
	sb_free(&sb);
}

TEST(vec_pushes)
{
	VEC(int) v = { 0 };
	for (int i = 0; i < 100000; i++)
		vec_push(&v, i);
	CHECK(v.len == 100000);
	CHECK(v.data[99999] == 99999);
	vec_free(&v);
	CHECK(v.data == NULL);
}

/* bpftrace 0.26's util::to_uint, case by case (its tests/utils.cpp and
 * parser tests). */
TEST(intparse_reads_numbers_as_bpftrace)
{
	static const struct { const char *in; uint64_t want; } ok[] = {
		{ "0", 0 }, { "42", 42 }, { "0x2a", 42 }, { "0X2A", 42 },
		{ "052", 42 }, { "0b101", 5 }, { "1_000", 1000 }, { "1e3", 1000 },
		{ "5E2", 500 }, { "10u", 10 }, { "10ull", 10 }, { "10ll", 10 },
		{ "5ns", 5 }, { "3us", 3000 }, { "2ms", 2000000 },
		{ "1s", 1000000000 }, { "1m", 60000000000ull },
		{ "1h", 3600000000000ull }, { "1d", 86400000000000ull },
		{ "1_500ms", 1500000000 }, { "18446744073709551615",
					     UINT64_MAX },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++) {
		uint64_t v = 1;
		char why[128] = "";
		CHECK(intparse_u64(ok[i].in, &v, why, sizeof(why)) == 0);
		CHECK(v == ok[i].want);
	}
	static const struct { const char *in, *why; } bad[] = {
		{ "abc", "invalid integer: abc" },
		{ "", "invalid integer: " },
		{ "1b", "invalid trailing bytes: 1b" },
		{ "1e0", "invalid trailing bytes: 1e0" },
		{ "12e3", "coefficient part of scientific literal must be 1-9: "
			  "12e3" },
		{ "2e19", "overflow error, maximum value is "
			  "18446744073709551615: 2e19" },
		{ "5000000000u", "overflow error, maximum value is 4294967295: "
				 "5000000000u" },
		{ "213504d", "overflow error, maximum value is "
			     "18446744073709551615: 213504d" },
		{ "-1", "invalid integer: -1" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		uint64_t v;
		char why[128] = "";
		CHECK(intparse_u64(bad[i].in, &v, why, sizeof(why)) < 0);
		CHECK_STR(why, bad[i].why);
	}
}


/* One report of sp in text, as diag.c prints it. */
static char *report(const char *text, uint32_t off, uint32_t len,
		    uint32_t line, uint32_t col, const char *kind)
{
	static char *buf;
	size_t n;
	free(buf);
	FILE *f = open_memstream(&buf, &n);
	struct diag d;
	diag_init(&d, f);
	struct src_file file = { "stdin", text, (uint32_t)strlen(text) };
	struct span sp = { &file, off, len, line, col };
	if (kind)
		diag_c_error(&d, sp, "m");
	else
		diag_error(&d, sp, "m");
	fclose(f);
	return buf;
}

/* bpftrace 0.26's form (src/ast/location.cpp): LINE:COL-END with END the
 * column after the span, '~' under it, tabs as four columns; a span over
 * lines is LINE-ENDLINE and its lines, unmarked; clang's keeps LINE:COL
 * and its caret. */
TEST(diag_prints_ranges_as_bpftrace)
{
	CHECK_STR(report("begin { kaddr(\"x\") }", 8, 10, 1, 9, NULL),
		  "stdin:1:9-19: ERROR: m\n"
		  "begin { kaddr(\"x\") }\n"
		  "        ~~~~~~~~~~\n");
	CHECK_STR(report("begin {\n\t@a = 1 +\n\t\t\"a\"; }", 9, 13, 2, 2,
			 NULL),
		  "stdin:2-3: ERROR: m\n"
		  "\t@a = 1 +\n"
		  "\t\t\"a\"; }\n");
	CHECK_STR(report("begin {\n\t@a = ; }", 14, 1, 2, 7, NULL),
		  "stdin:2:7-8: ERROR: m\n"
		  "    @a = ; }\n"
		  "         ~\n");
	/* an empty span (the place after a token) is one column */
	CHECK_STR(report("import \"a\"\n", 10, 0, 1, 11, NULL),
		  "stdin:1:11-12: ERROR: m\n"
		  "import \"a\"\n"
		  "          ~\n");
	CHECK_STR(report("struct S { char a : 9; };", 16, 1, 1, 17, "c"),
		  "stdin:1:17: error: m\n"
		  "struct S { char a : 9; };\n"
		  "                ^\n");
}

int main(void)
{
	RUN(arena_allocates_zeroed_and_aligned);
	RUN(strbuf_grows);
	RUN(intparse_reads_numbers_as_bpftrace);
	RUN(vec_pushes);
	RUN(diag_prints_ranges_as_bpftrace);
	return check_done();
}
