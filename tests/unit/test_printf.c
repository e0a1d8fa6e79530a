/*
 * The printf engine, against bpftrace 0.26's format_string.cpp: its
 * specifier regex, check() and FormatSpec::apply() through a C++ stream.
 * The strftime/time parts were produced by bpftrace 0.17.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "model/types.h"
#include "lang/fmt_parse.h"
#include "runtime/fmt.h"
#include "util/arena.h"
#include "util/strbuf.h"

/* An event record built the way codegen lays one out. */
struct rec {
	unsigned char bytes[4096];
	uint32_t len, n;
	uint32_t off[FMT_MAX_ARGS];
	const struct type *t[FMT_MAX_ARGS];
};

static void *rec_add(struct rec *r, const struct type *t)
{
	uint32_t al = t->align ? t->align : 1;
	r->len = (r->len + al - 1) / al * al;
	r->off[r->n] = r->len;
	r->t[r->n++] = t;
	void *p = r->bytes + r->len;
	r->len += t->size;
	return p;
}

static void rec_int(struct rec *r, const struct type *t, uint64_t v)
{
	/* Little-endian host: the low bytes come first. */
	memcpy(rec_add(r, t), &v, t->size);
}

static struct arena A;

static void rec_str(struct rec *r, uint32_t size, const char *s)
{
	char *p = rec_add(r, type_string(&A, size));
	strncpy(p, s, size);
}

static void rec_buf(struct rec *r, uint32_t cap, const void *data,
		    uint32_t n)
{
	unsigned char *p = rec_add(r, type_new(&A, TY_BUF, cap + 4));
	memcpy(p, &n, 4);
	memcpy(p + 4, data, n);
}

/* Stands in for the value renderer: "<kind:first 8 bytes in hex>". */
static void stub_value(struct strbuf *sb, const struct type *t,
		       const void *bytes, void *ctx)
{
	uint64_t v = 0;
	memcpy(&v, bytes, t->size < 8 ? t->size : 8);
	sb_printf(sb, "<%d:%llx>", (int)t->kind, (unsigned long long)v);
	(*(int *)ctx)++;
}

static int stub_calls;
static struct strbuf OUT;

/* Formats fmt (of flen bytes) against r; returns the output. */
static const char *run_n(const char *fmt, size_t flen, const struct rec *r)
{
	const struct fmt *f = fmt_parse(&A, fmt, flen);
	struct fmt_error err;
	sb_reset(&OUT);
	if (fmt_check(&A, f, "printf", r->t, r->n, &err))
		return err.msg;
	if (fmt_format(&OUT, f, r->t, r->bytes, r->len, r->off, stub_value,
		       &stub_calls))
		return "(format failed)";
	return sb_str(&OUT);
}

static const char *run(const char *fmt, const struct rec *r)
{
	return run_n(fmt, strlen(fmt), r);
}

static const struct fmt *parse(const char *s)
{
	return fmt_parse(&A, s, strlen(s));
}

TEST(parses_flags_width_precision)
{
	const struct fmt *f = parse("a%-+#08.3lxb");
	CHECK(f->nconv == 1 && f->nsegs == 3);
	CHECK(!f->segs[0].is_conv && f->segs[0].len == 1);
	const struct fmt_seg *s = &f->segs[1];
	CHECK(s->is_conv && s->conv == FMT_INT);
	CHECK(s->left && s->plus && s->alt && s->zero && s->width == 8);
	CHECK_STR(s->text, "%-+#08.3lx");
	CHECK_STR(s->name, "x");
	CHECK_STR(s->length, "l");
	CHECK(s->arg == 0);
	CHECK_STR(f->segs[2].text, "b");

	s = &parse("%5s")->segs[0];
	CHECK(s->conv == FMT_STR && !s->left && !s->zero && s->width == 5);
	s = &parse("%.12c")->segs[0];
	CHECK(s->conv == FMT_CHAR && s->width == 0);
	s = &parse("%-p")->segs[0];
	CHECK(s->conv == FMT_PTR && s->left && s->width == 0);
	/* a '*' width is no width; the space flag is read and dropped */
	s = &parse("%*d")->segs[0];
	CHECK(s->is_conv && s->width == 0);
	s = &parse("% 5d")->segs[0];
	CHECK(s->is_conv && s->width == 5);
	/* length modifiers as written, any mix of h l L j z t */
	CHECK_STR(parse("%hhu")->segs[0].length, "hh");
	CHECK_STR(parse("%Llzd")->segs[0].length, "Llz");
	CHECK_STR(parse("%ls")->segs[0].length, "l");
}

TEST(parses_every_specifier)
{
	static const struct { const char *spec, *name; enum fmt_conv conv; } v[] = {
		{ "%d", "d", FMT_INT }, { "%i", "i", FMT_INT },
		{ "%u", "u", FMT_INT }, { "%o", "o", FMT_INT },
		{ "%x", "x", FMT_INT }, { "%X", "X", FMT_INT },
		{ "%c", "c", FMT_CHAR }, { "%p", "p", FMT_PTR },
		{ "%s", "s", FMT_STR }, { "%r", "r", FMT_BUF },
		{ "%rx", "rx", FMT_BUF_X }, { "%rh", "rh", FMT_BUF_H },
		{ "%gr", "gr", FMT_GFP }, { "%g", "g", FMT_STR },
		{ "%f", "f", FMT_STR }, { "%e", "e", FMT_STR },
		{ "%n", "n", FMT_STR }, { "%lld", "d", FMT_INT },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const struct fmt *f = parse(v[i].spec);
		CHECK(f->nconv == 1 && f->nsegs == 1);
		CHECK(f->segs[0].conv == v[i].conv);
		CHECK_STR(f->segs[0].name, v[i].name);
	}
	const struct fmt *f = parse("%r%rx%rh%-4r%grx");
	CHECK(f->nconv == 5);
	CHECK(f->segs[3].conv == FMT_BUF && f->segs[3].left);
	CHECK(f->segs[4].conv == FMT_GFP && !strcmp(f->segs[5].text, "x"));
}

/* What bpftrace 0.26's specifier regex does not match is text. */
TEST(text_that_is_no_conversion)
{
	static const char *lit[] = {
		"%m", "%y", "%0-5d", "%+-d", "%--5d", "%#-x", "%.d", "%5.d",
		"%l", "%5", "%-", "%hq", "%lk",
	};
	for (size_t i = 0; i < sizeof(lit) / sizeof(lit[0]); i++) {
		const struct fmt *f = parse(lit[i]);
		CHECK(f->nconv == 0);
		CHECK(f->nsegs == 1 && !strcmp(f->segs[0].text, lit[i]));
	}
	CHECK(parse("")->nsegs == 0);
	/* "%" at the end, and before what cannot follow it */
	CHECK_STR(parse("100%")->segs[0].text, "100%");
}

TEST(percent_percent)
{
	struct rec r = { 0 };
	CHECK_STR(run("[%%] [100%%]\n", &r), "[%] [100%]\n");
	/* any spec of '%' is one '%', and takes no argument */
	CHECK_STR(run("%5%|%-%|%ll%\n", &r), "%|%|%\n");
	rec_int(&r, &type_s64, 5);
	CHECK_STR(run("[%%] %d [%%]\n", &r), "[%] 5 [%]\n");
	CHECK_STR(run("%d%%\n", &r), "5%\n");
	CHECK_STR(run("%%d %d|", &r), "%d 5|");
	CHECK_STR(run("%d%\n", &r), "5%\n");
}

TEST(nul_bytes)
{
	struct rec r = { 0 };
	rec_int(&r, &type_s64, 5);
	/* the text between conversions is printed as written, NULs too */
	run_n("a\0b %d|\n", 8, &r);
	CHECK(OUT.len == 7 && !memcmp(OUT.buf, "a\0b 5|\n", 7));
	/* %c of 0 is a NUL byte, padded as any byte */
	r = (struct rec){ 0 };
	rec_int(&r, &type_s64, 0);
	rec_int(&r, &type_s64, 66);
	rec_int(&r, &type_s64, 0);
	rec_int(&r, &type_s64, 0x141);
	run("[%c]<%c>{%3c}%-2c|", &r);
	CHECK(OUT.len == 14 && !memcmp(OUT.buf, "[\0]<B>{  \0}A |", 14));
}

static const char *check_msg(const char *fn, const char *fmt,
			     const struct type **t, uint32_t n, int *arg)
{
	struct fmt_error err = { NULL, -2 };
	int rc = fmt_check(&A, parse(fmt), fn, t, n, &err);
	*arg = err.arg;
	return rc == 0 ? "ok" : rc == -EINVAL ? err.msg : "bad rc";
}

TEST(argument_count_errors)
{
	const struct type *t[] = { &type_s64, &type_s64, &type_s64 };
	int arg;
	CHECK_STR(check_msg("printf", "%d %s", t, 1, &arg),
		  "not enough arguments for format string (1 supplied, 2 expected)");
	CHECK(arg == FMT_AT_FORMAT);
	CHECK_STR(check_msg("printf", "%d", t, 3, &arg),
		  "too many arguments for format string (3 supplied, 1 expected)");
	CHECK(arg == 1);
	CHECK_STR(check_msg("printf", "%y", t, 1, &arg),
		  "too many arguments for format string (1 supplied, 0 expected)");
	CHECK(arg == 0);
	CHECK_STR(check_msg("printf", "[%%] [%%d]", t, 1, &arg),
		  "too many arguments for format string (1 supplied, 0 expected)");
	CHECK_STR(check_msg("system", "echo %d %s", t, 1, &arg),
		  "not enough arguments for format string (1 supplied, 2 expected)");
	CHECK_STR(check_msg("printf", "x %5d %-3u\n", t, 2, &arg), "ok");
}

TEST(argument_type_errors)
{
	struct type *str = type_new(&A, TY_STRING, 16);
	struct type *buf = type_new(&A, TY_BUF, 68);
	struct type *ksym = type_new(&A, TY_KSYM, 8);
	const struct type *tup_el[] = { &type_s64, &type_s64 };
	const struct type *tup = type_tuple(&A, tup_el, 2);
	const struct type *ptr = type_ptr(&A, &type_s8, false);
	int arg;
	const struct type *t[4];

#define EXPECT(fn, fmt, a0, a1, msg, at)                                      \
	do {                                                                  \
		t[0] = (a0);                                                  \
		t[1] = (a1);                                                  \
		CHECK_STR(check_msg(fn, fmt, t, 2, &arg), msg);               \
		CHECK(arg == (at));                                           \
	} while (0)

	EXPECT("printf", "%d %d", &type_s64, str,
	       "unsupported format specifier for type 'string[16]': d", 1);
	EXPECT("printf", "%s %-5lx", str, str,
	       "unsupported format specifier for type 'string[16]': x", 1);
	EXPECT("printf", "%d%-10rx", &type_s64, &type_s64,
	       "unsupported format specifier for type 'int64': rx", 1);
	EXPECT("printf", "%d%s", tup, str,
	       "unsupported format specifier for type '(int64,int64)': d", 0);
	EXPECT("printf", "%c%d", ksym, &type_s64,
	       "unsupported format specifier for type 'ksym': c", 0);
	EXPECT("printf", "%gr%d", str, &type_s64,
	       "unsupported format specifier for type 'string[16]': gr", 0);
	EXPECT("printf", "%f%d", &type_s64, &type_s64,
	       "unsupported format specifier: f", 0);
	EXPECT("printf", "%d%n", &type_s64, &type_s64,
	       "unsupported format specifier: n", 1);
	EXPECT("printf", "%d%g", &type_s64, &type_s64,
	       "unsupported format specifier: g", 1);
	EXPECT("printf", "%d%s", &type_s64, &type_none,
	       "unable to print none type for specifier: s", 1);
	EXPECT("cat", "/etc/host%s%d", &type_s64, str,
	       "unsupported format specifier for type 'string[16]': d", 1);

	/* %s takes anything: ints, pointers, tuples, symbols, buffers */
	EXPECT("printf", "%s %s", &type_s64, ptr, "ok", -2);
	EXPECT("printf", "%s %s", tup, ksym, "ok", -2);
	EXPECT("printf", "%s %s", buf, str, "ok", -2);
	EXPECT("printf", "%r %rh", buf, buf, "ok", -2);
	EXPECT("printf", "%c %p", &type_s8, &type_u64, "ok", -2);
	EXPECT("printf", "%gr %x", &type_u32, ptr, "ok", -2);
#undef EXPECT
}

/* One row per value: the same conversions of one typed value, as 0.26's
 * C++ stream writes them (the precision is no part of it). */
TEST(formats_every_integer_width_and_conversion)
{
	static const char *fmt =
		"[%d|%u|%x|%X|%o|%p|%hhd|%hhu|%hhx|%hd|%hu|%hX|%ld|%lu|%lx|"
		"%llo|%jd|%zu|%tx|%5d|%-5x|%05u|%.3d|%8.4lx|%-8.3hd|%lp|%i]";
	static const struct {
		const struct type *t;
		uint64_t v;
		const char *want;
	} rows[] = {
{ &type_s8, (uint64_t)-1, "[-1|4294967295|ffffffff|FFFFFFFF|37777777777|0xffffffffffffffff|-1|255|ff|-1|65535|FFFF|-1|18446744073709551615|ffffffffffffffff|1777777777777777777777|-1|18446744073709551615|ffffffffffffffff|   -1|ffffffff|4294967295|-1|ffffffffffffffff|-1      |0xffffffffffffffff|-1]" },
{ &type_u8, 200, "[200|200|c8|C8|310|0xc8|-56|200|c8|200|200|C8|200|200|c8|310|200|200|c8|  200|c8   |00200|200|      c8|200     |0xc8|200]" },
{ &type_s16, (uint64_t)-2, "[-2|4294967294|fffffffe|FFFFFFFE|37777777776|0xfffffffffffffffe|-2|254|fe|-2|65534|FFFE|-2|18446744073709551614|fffffffffffffffe|1777777777777777777776|-2|18446744073709551614|fffffffffffffffe|   -2|fffffffe|4294967294|-2|fffffffffffffffe|-2      |0xfffffffffffffffe|-2]" },
{ &type_u16, 65000, "[65000|65000|fde8|FDE8|176750|0xfde8|-24|232|e8|-536|65000|FDE8|65000|65000|fde8|176750|65000|65000|fde8|65000|fde8 |65000|65000|    fde8|-536    |0xfde8|65000]" },
{ &type_s32, (uint64_t)-3, "[-3|4294967293|fffffffd|FFFFFFFD|37777777775|0xfffffffffffffffd|-3|253|fd|-3|65533|FFFD|-3|18446744073709551613|fffffffffffffffd|1777777777777777777775|-3|18446744073709551613|fffffffffffffffd|   -3|fffffffd|4294967293|-3|fffffffffffffffd|-3      |0xfffffffffffffffd|-3]" },
{ &type_u32, 4000000000u, "[-294967296|4000000000|ee6b2800|EE6B2800|35632624000|0xee6b2800|0|0|0|10240|10240|2800|4000000000|4000000000|ee6b2800|35632624000|4000000000|4000000000|ee6b2800|-294967296|ee6b2800|4000000000|-294967296|ee6b2800|10240   |0xee6b2800|-294967296]" },
{ &type_s64, (uint64_t)-5, "[-5|4294967291|fffffffb|FFFFFFFB|37777777773|0xfffffffffffffffb|-5|251|fb|-5|65531|FFFB|-5|18446744073709551611|fffffffffffffffb|1777777777777777777773|-5|18446744073709551611|fffffffffffffffb|   -5|fffffffb|4294967291|-5|fffffffffffffffb|-5      |0xfffffffffffffffb|-5]" },
{ &type_u64, 0xfedcba9876543210ull, "[1985229328|1985229328|76543210|76543210|16625031020|0xfedcba9876543210|16|16|10|12816|12816|3210|-81985529216486896|18364758544493064720|fedcba9876543210|1773345651416625031020|-81985529216486896|18364758544493064720|fedcba9876543210|1985229328|76543210|1985229328|1985229328|fedcba9876543210|12816   |0xfedcba9876543210|1985229328]" },
{ &type_s64, 0x123456789ull, "[591751049|591751049|23456789|23456789|4321263611|0x123456789|-119|137|89|26505|26505|6789|4886718345|4886718345|123456789|44321263611|4886718345|4886718345|123456789|591751049|23456789|591751049|591751049|123456789|26505   |0x123456789|591751049]" },
{ &type_s64, 0, "[0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|    0|0    |00000|0|       0|0       |0|0]" },
{ &type_s64, 65, "[65|65|41|41|101|0x41|65|65|41|65|65|41|65|65|41|101|65|65|41|   65|41   |00065|65|      41|65      |0x41|65]" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct rec r = { 0 };
		for (int k = 0; k < 27; k++) {
			/* Pad between arguments to catch offset mix-ups. */
			rec_int(&r, &type_u8, 0xaa);
			r.n--;
			rec_int(&r, rows[i].t, rows[i].v);
		}
		CHECK_STR(run(fmt, &r), rows[i].want);
	}
}

/* The flags as a C++ stream applies them: the fill goes before a sign or
 * 0x ("000-5"), '+' signs signed numbers only, '#' prefixes non-zero hex
 * and octal numbers, '-' pads with the fill on the right. */
TEST(formats_flags_as_a_stream)
{
	struct rec r = { 0 };
	for (int i = 0; i < 12; i++)
		rec_int(&r, &type_s64, i < 4 ? (uint64_t)-5 : i < 8 ? 255 : 0);
	CHECK_STR(run("[%05d|%+d|%-05d|%+5d|%#x|%#X|%#o|%+u|%#x|%#o|%#06x|%-#6x]",
		      &r),
		  "[000-5|-5|-5000|   -5|0xff|0XFF|0377|255|0|0|000000|0     ]");
	r = (struct rec){ 0 };
	for (int i = 0; i < 4; i++)
		rec_int(&r, &type_s64, 255);
	CHECK_STR(run("[%#06x|%+d|%+05d|% d]", &r), "[000xff|+255|0+255|255]");
}

TEST(formats_chars)
{
	struct rec r = { 0 };
	rec_int(&r, &type_s64, 0x41);
	rec_int(&r, &type_s64, 0x4142);
	rec_int(&r, &type_s8, 'z');
	CHECK_STR(run("%c%c%3c", &r), "AB  z");
	CHECK_STR(run("%-3c|%c|%c", &r), "A  |B|z");
}

TEST(formats_pointers)
{
	struct rec r = { 0 };
	const struct type *p = type_ptr(&A, &type_s8, false);
	for (int i = 0; i < 3; i++)
		rec_int(&r, p, 0xffff888012345678ull);
	CHECK_STR(run("%p %lx %d", &r),
		  "0xffff888012345678 ffff888012345678 305419896");
	/* NULL is "0", as a C++ stream writes a null void * */
	r = (struct rec){ 0 };
	for (int i = 0; i < 4; i++)
		rec_int(&r, &type_s64, i == 1);
	CHECK_STR(run("[%p] [%p] [%10p] [%-10p|\n", &r),
		  "[0] [0x1] [         0] [0         |\n");
}

TEST(formats_gfp_flags)
{
	struct rec r = { 0 };
	static const uint64_t v[] = { 0x1, 0xcc0, 0, 0x400cc0, 0x2800, 0x200,
				      0x2100cca, 0x8c40 };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		rec_int(&r, &type_u64, v[i]);
	CHECK_STR(run("%gr|%gr|%gr|%gr|%gr|%gr|%gr|%gr", &r),
		  "GFP_DMA|GFP_KERNEL|0|GFP_KERNEL_ACCOUNT|"
		  "GFP_NOWAIT|0x200|GFP_HIGHUSER_MOVABLE|"
		  "GFP_NOFS|__GFP_NOFAIL");
	r = (struct rec){ 0 };
	rec_int(&r, &type_u64, 1);
	CHECK_STR(run("[%12gr]", &r), "[     GFP_DMA]");
}

/* Strings print whole (0.26 applies no precision to them), padded. */
TEST(formats_strings)
{
	struct rec r = { 0 };
	for (int i = 0; i < 5; i++)
		rec_str(&r, 64, "hello");
	rec_str(&r, 64, "hi");
	rec_str(&r, 64, "hello");
	CHECK_STR(run("[%s|%10s|%-10s|%.2s|%5.1s|%05s|%-05.3s]\n", &r),
		  "[<3:6f6c6c6568>|<3:6f6c6c6568>|<3:6f6c6c6568>|"
		  "<3:6f6c6c6568>|<3:6f6c6c6568>|<3:6968>|"
		  "<3:6f6c6c6568>]\n");
}

TEST(formats_other_values_through_the_callback)
{
	struct rec r = { 0 };
	struct type *ksym = type_new(&A, TY_KSYM, 8);
	for (int i = 0; i < 3; i++)
		rec_int(&r, ksym, 0xabc);
	rec_int(&r, &type_s64, -7);
	stub_calls = 0;
	CHECK_STR(run("[%s|%12s|%-.4s|%s]", &r),
		  "[<11:abc>|    <11:abc>|<11:abc>|<2:fffffffffffffff9>]");
	CHECK(stub_calls == 4);
}

TEST(formats_buffers)
{
	struct rec r = { 0 };
	for (int i = 0; i < 3; i++)
		rec_buf(&r, 8, "ab\x01\xff", 4);
	rec_buf(&r, 8, "ab", 2);
	rec_buf(&r, 8, "ab", 2);
	rec_buf(&r, 8, "abcd", 4);
	CHECK_STR(run("[%r] [%rx] [%rh] [%10r] [%-10r] [%.2r]\n", &r),
		  "[ab\\x01\\xff] [\\x61\\x62\\x01\\xff] [61 62 01 ff] "
		  "[        ab] [ab        ] [abcd]\n");
	r = (struct rec){ 0 };
	rec_buf(&r, 8, "a\tb\"\\c~ ", 8);
	CHECK_STR(run("[%r]\n", &r), "[a\\x09b\"\\c~ ]\n");
	/* Contents are never read as a format. */
	r = (struct rec){ 0 };
	rec_buf(&r, 8, "a%%d%s", 6);
	rec_int(&r, &type_s64, 7);
	CHECK_STR(run("[%%] [%r] %d\n", &r), "[%] [a%%d%s] 7\n");
	/* A length beyond the storage is clamped (not bpftrace-verified). */
	r = (struct rec){ 0 };
	rec_buf(&r, 2, "xy", 2);
	uint32_t big = 1000;
	memcpy(r.bytes + r.off[0], &big, 4);
	CHECK_STR(run("%rh", &r), "78 79");
}

TEST(record_bounds)
{
	struct rec r = { 0 };
	rec_int(&r, &type_s64, 1);
	const struct fmt *f = parse("x%d");
	sb_reset(&OUT);
	CHECK(fmt_format(&OUT, f, r.t, r.bytes, 7, r.off, NULL, NULL) == -EINVAL);
	CHECK(OUT.len == 0);
	CHECK(fmt_format(&OUT, f, r.t, r.bytes, 8, r.off, NULL, NULL) == 0);
	CHECK_STR(sb_str(&OUT), "x1");
}

/* 2023-11-14 22:13:20.123456789 UTC */
#define T0 1700000000123456789ull

TEST(strftime_formats)
{
	sb_reset(&OUT);
	CHECK(fmt_strftime(&OUT, "%Y-%m-%d %H:%M:%S.%f", T0) == 0);
	CHECK_STR(sb_str(&OUT), "2023-11-14 22:13:20.123456");
	sb_reset(&OUT);
	CHECK(fmt_strftime(&OUT, "%f%f|%3f|%N", T0 % 1000000000 + 1000) == 0);
	CHECK_STR(sb_str(&OUT), "123457123457|%3f|%N");
	/* bpftrace 0.26's %k (nanoseconds) and %l (milliseconds) */
	sb_reset(&OUT);
	CHECK(fmt_strftime(&OUT, "%S %k %l", T0) == 0);
	CHECK_STR(sb_str(&OUT), "20 123456789 123");
	sb_reset(&OUT);
	CHECK(fmt_strftime(&OUT, "a%%%f", 5000) == 0);
	CHECK_STR(sb_str(&OUT), "a%000005");
	/* Like bpftrace 0.17: "%%f" becomes "%123456", which fails. */
	sb_reset(&OUT);
	CHECK(fmt_strftime(&OUT, "%%f", T0) == -ERANGE);
	CHECK_STR(sb_str(&OUT), "(?)");
	sb_reset(&OUT);
	CHECK(fmt_strftime(&OUT, "", T0) == -ERANGE);
	CHECK_STR(sb_str(&OUT), "(?)");
}

TEST(strftime_output_limit)
{
	char f[80];
	memset(f, 'x', sizeof(f));
	strcpy(f + 53, "%s"); /* 53 + 10 digits = 63 bytes: fits */
	sb_reset(&OUT);
	CHECK(fmt_strftime(&OUT, f, T0) == 0);
	CHECK(OUT.len == 63);
	f[53] = 'x';
	strcpy(f + 54, "%s");
	sb_reset(&OUT);
	CHECK(fmt_strftime(&OUT, f, T0) == -ERANGE);
	CHECK_STR(sb_str(&OUT), "(?)");
	sb_reset(&OUT);
	CHECK(fmt_time(&OUT, f, T0) == -ERANGE);
	CHECK(OUT.len == 0);
}

TEST(time_formats)
{
	sb_reset(&OUT);
	CHECK(fmt_time(&OUT, "%H:%M:%S\n", T0) == 0);
	CHECK_STR(sb_str(&OUT), "22:13:20\n");
	/* time() knows no %f (bpftrace 0.17 prints it as is). */
	sb_reset(&OUT);
	CHECK(fmt_time(&OUT, "%f %s", T0) == 0);
	CHECK_STR(sb_str(&OUT), "%f 1700000000");
	sb_reset(&OUT);
	CHECK(fmt_time(&OUT, "", T0) == -ERANGE);
}

TEST(boot_epoch)
{
	struct timespec boot;
	clock_gettime(CLOCK_BOOTTIME, &boot);
	int64_t b = fmt_boot_epoch_ns();
	int64_t now = (int64_t)fmt_now_ns();
	int64_t since = (int64_t)boot.tv_sec * 1000000000 + boot.tv_nsec;
	CHECK(b > 0);
	/* now - boot_epoch is the boot-time clock, within a second. */
	CHECK(llabs(now - b - since) < 1000000000);
}

int main(void)
{
	arena_init(&A);
	setenv("TZ", "UTC", 1);
	tzset();
	RUN(parses_flags_width_precision);
	RUN(parses_every_specifier);
	RUN(text_that_is_no_conversion);
	RUN(percent_percent);
	RUN(nul_bytes);
	RUN(argument_count_errors);
	RUN(argument_type_errors);
	RUN(formats_every_integer_width_and_conversion);
	RUN(formats_flags_as_a_stream);
	RUN(formats_chars);
	RUN(formats_pointers);
	RUN(formats_gfp_flags);
	RUN(formats_strings);
	RUN(formats_other_values_through_the_callback);
	RUN(formats_buffers);
	RUN(record_bounds);
	RUN(strftime_formats);
	RUN(strftime_output_limit);
	RUN(time_formats);
	RUN(boot_epoch);
	sb_free(&OUT);
	arena_release(&A);
	return check_done();
}
