/*
 * The printf engine. Expected strings were produced by bpftrace 0.17
 * (`bpftrace -e 'BEGIN { printf(...); exit(); }'`) unless marked otherwise.
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
	const struct fmt *f = parse("a%-08.3lxb");
	CHECK(f->nconv == 1 && f->nsegs == 3);
	CHECK(!f->segs[0].is_conv && f->segs[0].len == 1);
	const struct fmt_seg *s = &f->segs[1];
	CHECK(s->is_conv && s->conv == FMT_INT && s->length == FMT_LEN_LONG);
	CHECK(s->left && s->zero && s->width == 8 && s->prec == 3);
	CHECK_STR(s->text, "%-08.3lx");
	CHECK_STR(s->name, "lx");
	CHECK_STR(s->cspec, "%-08.3llx");
	CHECK(s->arg == 0 && !s->dead);
	CHECK_STR(f->segs[2].text, "b");

	s = &parse("%5s")->segs[0];
	CHECK(s->conv == FMT_STR && !s->left && !s->zero && s->width == 5 &&
	      s->prec == -1);
	s = &parse("%.12c")->segs[0];
	CHECK(s->conv == FMT_CHAR && s->width == -1 && s->prec == 12);
	s = &parse("%-p")->segs[0];
	CHECK(s->conv == FMT_PTR && s->left && s->width == -1);
}

TEST(parses_every_length_with_every_integer_conversion)
{
	static const char *lens[] = { "", "hh", "h", "l", "ll", "j", "z", "t" };
	static const char *cmod[] = { "", "hh", "h", "ll", "ll", "ll", "ll", "ll" };
	static const enum fmt_len want[] = {
		FMT_LEN_NONE, FMT_LEN_HH, FMT_LEN_H, FMT_LEN_LONG,
		FMT_LEN_LONG, FMT_LEN_LONG, FMT_LEN_LONG, FMT_LEN_LONG,
	};
	const char *convs = "duxXop";
	for (int l = 0; l < 8; l++) {
		for (const char *c = convs; *c; c++) {
			char spec[16], name[8], cspec[16];
			snprintf(spec, sizeof(spec), "[%%%s%c]", lens[l], *c);
			snprintf(name, sizeof(name), "%s%c", lens[l], *c);
			snprintf(cspec, sizeof(cspec), "%%%s%c", cmod[l], *c);
			const struct fmt *f = parse(spec);
			CHECK(f->nconv == 1 && f->nsegs == 3);
			const struct fmt_seg *s = &f->segs[1];
			CHECK(s->is_conv && s->length == want[l]);
			CHECK(s->conv == (*c == 'p' ? FMT_PTR : FMT_INT));
			CHECK_STR(s->name, name);
			CHECK_STR(s->cspec, cspec);
		}
	}
}

TEST(parses_buffer_conversions)
{
	const struct fmt *f = parse("%r%rx%rh%-4r");
	CHECK(f->nconv == 4);
	CHECK(f->segs[0].conv == FMT_BUF && f->segs[1].conv == FMT_BUF_X);
	CHECK(f->segs[2].conv == FMT_BUF_H && f->segs[3].conv == FMT_BUF);
	CHECK_STR(f->segs[1].name, "rx");
}

/* bpftrace 0.17 recognises none of these: they count no argument. */
TEST(rejects_what_bpftrace_does_not_know)
{
	static const char *lit[] = {
		"%i", "%e", "%f", "%g", "%a", "%n", "%m", "%lc", "%ls", "%hs",
		"%hhc", "%Lf", "%Ld", "%qd", "%+d", "% d", "%#x", "%*d", "%-+d",
		"%--5d", "%.d", "%5.d", "%lr", "%hr", "%", "%l", "%5", "%-",
	};
	for (size_t i = 0; i < sizeof(lit) / sizeof(lit[0]); i++) {
		const struct fmt *f = parse(lit[i]);
		CHECK(f->nconv == 0);
		CHECK(f->nsegs == 1 && !strcmp(f->segs[0].text, lit[i]));
	}
	CHECK(parse("")->nsegs == 0);
}

TEST(percent_percent_quirks)
{
	/* The "%d" of "%%d" is counted but prints nothing of its own. */
	const struct fmt *f = parse("%%d %d|");
	CHECK(f->nconv == 2 && f->segs[1].dead && !f->segs[3].dead);
	struct rec r = { 0 };
	rec_int(&r, &type_s64, 1);
	rec_int(&r, &type_s64, 2);
	CHECK_STR(run("%%d %d|", &r), "%d 2|");

	r = (struct rec){ 0 };
	/* After the last conversion "%%" is one '%' too (newer bpftrace; 0.17
	 * printed that tail verbatim). */
	CHECK_STR(run("[%%] [100%%]\n", &r), "[%] [100%]\n");
	rec_int(&r, &type_s64, 5);
	CHECK_STR(run("[%%] %d [%%]\n", &r), "[%] 5 [%]\n");
	CHECK_STR(run("%d%%\n", &r), "5%\n");
	CHECK_STR(run("%5%|%d\n", &r), "%|5\n");
	CHECK_STR(run("%d%\n", &r), "5%\n");
	CHECK_STR(run("%-%d\n", &r), "%d\n");
	CHECK_STR(run("[%d]\n", &r), "[5]\n");
	/* Undefined in bpftrace (C printf reads a missing argument): we
	 * print the stray spec as written. */
	CHECK_STR(run("[%+d] %d [%+d]\n", &r), "[%+d] 5 [%+d]\n");
	CHECK_STR(run("%i %d %i\n", &r), "%i 5 %i\n");
}

TEST(nul_bytes)
{
	struct rec r = { 0 };
	rec_int(&r, &type_s64, 5);
	/* The format is a C string before a conversion and, as in newer
	 * bpftrace, after the last one too (0.17 printed that tail
	 * verbatim, NUL bytes included). */
	CHECK(!memcmp(run_n("a\0b %d|\n", 8, &r), "a|\n", 4));
	run_n("%d a\0b|\n", 9, &r);
	CHECK(OUT.len == 3 && !memcmp(OUT.buf, "5 a", 3));
	r = (struct rec){ 0 };
	run_n("xy\0z\n", 5, &r);
	CHECK(OUT.len == 2 && !memcmp(OUT.buf, "xy", 2));
	/* %c of 0 prints nothing, padding included. */
	rec_int(&r, &type_s64, 0);
	rec_int(&r, &type_s64, 66);
	rec_int(&r, &type_s64, 0);
	CHECK_STR(run("[%c]<%c>{%3c}\n", &r), "[]<B>{  }\n");
	CHECK(OUT.len == 10);
	CHECK_STR(run("[%-3c]<%c>{%3c}\n", &r), "[]<B>{  }\n");
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
		  "printf: Not enough arguments for format string (1 supplied, 2 expected)");
	CHECK(arg == FMT_AT_FORMAT);
	CHECK_STR(check_msg("printf", "%d", t, 3, &arg),
		  "printf: Too many arguments for format string (3 supplied, 1 expected)");
	CHECK(arg == 1);
	CHECK_STR(check_msg("printf", "%i", t, 1, &arg),
		  "printf: Too many arguments for format string (1 supplied, 0 expected)");
	CHECK(arg == 0);
	CHECK_STR(check_msg("printf", "[%%] [%%d]", t, 0, &arg),
		  "printf: Not enough arguments for format string (0 supplied, 1 expected)");
	CHECK_STR(check_msg("system", "echo %d %s", t, 1, &arg),
		  "system: Not enough arguments for format string (1 supplied, 2 expected)");
	CHECK_STR(check_msg("cat", "/etc/host%s", t, 2, &arg),
		  "cat: Too many arguments for format string (2 supplied, 1 expected)");
	CHECK_STR(check_msg("printf", "x %5d %-3u\n", t, 2, &arg), "ok");
}

TEST(argument_type_errors)
{
	struct type *str = type_new(&A, TY_STRING, 16);
	struct type *buf = type_new(&A, TY_BUF, 68);
	struct type *rec = type_new(&A, TY_RECORD, 8);
	struct type *cnt = type_new(&A, TY_COUNT, 8);
	struct type *hist = type_new(&A, TY_HIST, 8);
	struct type *avg = type_new(&A, TY_AVG, 16);
	struct type *ksym = type_new(&A, TY_KSYM, 8);
	struct type *chars = type_new(&A, TY_ARRAY, 16);
	chars->elem = &type_s8;
	chars->count = 16;
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
	       "printf: %d specifier expects a value of type integer (string supplied)", 1);
	EXPECT("printf", "%s %-5.3lx", str, str,
	       "printf: %lx specifier expects a value of type integer (string supplied)", 1);
	EXPECT("printf", "%.2s %d", &type_u8, &type_s64,
	       "printf: %s specifier expects a value of type string (integer supplied)", 0);
	EXPECT("printf", "%s%d", ptr, ptr,
	       "printf: %s specifier expects a value of type string (integer supplied)", 0);
	EXPECT("printf", "%s%d", buf, &type_s64,
	       "printf: %s specifier expects a value of type string (buffer supplied)", 0);
	EXPECT("printf", "%d%-10rx", &type_s64, &type_s64,
	       "printf: %rx specifier expects a value of type buffer (integer supplied)", 1);
	EXPECT("printf", "%d%s", tup, str,
	       "printf: %d specifier expects a value of type integer (tuple supplied)", 0);
	EXPECT("printf", "%s%s", rec, str,
	       "printf: %s specifier expects a value of type string (record supplied)", 0);
	EXPECT("printf", "%d%d", cnt, cnt,
	       "printf: %d specifier expects a value of type integer (count supplied)", 0);
	EXPECT("printf", "%d%d", hist, cnt,
	       "printf: %d specifier expects a value of type integer (hist supplied)", 0);
	EXPECT("printf", "%s%d", avg, cnt,
	       "printf: %s specifier expects a value of type string (avg supplied)", 0);
	EXPECT("printf", "%c%d", ksym, &type_s64,
	       "printf: %c specifier expects a value of type integer (string supplied)", 0);
	EXPECT("printf", "%p%d", chars, &type_s64,
	       "printf: %p specifier expects a value of type integer (string supplied)", 0);
	EXPECT("system", "echo %d%d", &type_s64, str,
	       "system: %d specifier expects a value of type integer (string supplied)", 1);
	EXPECT("cat", "/etc/host%s%d", &type_s64, &type_s64,
	       "cat: %s specifier expects a value of type string (integer supplied)", 0);
	/* The "%d" of "%%d" is still checked. */
	EXPECT("printf", "%%d %s", str, str,
	       "printf: %d specifier expects a value of type integer (string supplied)", 0);

	/* Accepted: pointers as integers; symbols, stacks, addresses and
	 * timestamps as strings; char arrays as strings; buffers with %r. */
	static const enum type_kind strs[] = {
		TY_KSYM, TY_USYM, TY_PROBE, TY_USERNAME, TY_KSTACK, TY_USTACK,
		TY_INET, TY_MACADDR, TY_CGROUP_PATH, TY_TIMESTAMP,
	};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		EXPECT("printf", "%s %d", type_new(&A, strs[i], 16), ptr, "ok", -2);
	EXPECT("printf", "%-16s%x", chars, &type_u8, "ok", -2);
	EXPECT("printf", "%r %rh", buf, buf, "ok", -2);
	EXPECT("printf", "%c %p", &type_s8, &type_u64, "ok", -2);
#undef EXPECT
}

/* One row per value: the same 27 conversions of one typed value. */
TEST(formats_every_integer_width_and_conversion)
{
	static const char *fmt =
		"[%d|%u|%x|%X|%o|%c|%p|%hhd|%hhu|%hhx|%hd|%hu|%hX|%ld|%lu|%lx|"
		"%llo|%jd|%zu|%tx|%5d|%-5x|%05u|%.3d|%8.4lx|%-8.3hd|%lp]";
	static const struct {
		const struct type *t;
		uint64_t v;
		const char *want;
	} rows[] = {
{ &type_s8, (uint64_t)-1, "[-1|4294967295|ffffffff|FFFFFFFF|37777777777|\xff""|0xffffffffffffffff|-1|255|ff|-1|65535|FFFF|-1|18446744073709551615|ffffffffffffffff|1777777777777777777777|-1|18446744073709551615|ffffffffffffffff|   -1|ffffffff|4294967295|-001|ffffffffffffffff|-001    |0xffffffffffffffff]" },
{ &type_u8, 200, "[200|200|c8|C8|310|\xc8""|0xc8|-56|200|c8|200|200|C8|200|200|c8|310|200|200|c8|  200|c8   |00200|200|    00c8|200     |0xc8]" },
{ &type_s16, (uint64_t)-2, "[-2|4294967294|fffffffe|FFFFFFFE|37777777776|\xfe""|0xfffffffffffffffe|-2|254|fe|-2|65534|FFFE|-2|18446744073709551614|fffffffffffffffe|1777777777777777777776|-2|18446744073709551614|fffffffffffffffe|   -2|fffffffe|4294967294|-002|fffffffffffffffe|-002    |0xfffffffffffffffe]" },
{ &type_u16, 65000, "[65000|65000|fde8|FDE8|176750|\xe8""|0xfde8|-24|232|e8|-536|65000|FDE8|65000|65000|fde8|176750|65000|65000|fde8|65000|fde8 |65000|65000|    fde8|-536    |0xfde8]" },
{ &type_s32, (uint64_t)-3, "[-3|4294967293|fffffffd|FFFFFFFD|37777777775|\xfd""|0xfffffffffffffffd|-3|253|fd|-3|65533|FFFD|-3|18446744073709551613|fffffffffffffffd|1777777777777777777775|-3|18446744073709551613|fffffffffffffffd|   -3|fffffffd|4294967293|-003|fffffffffffffffd|-003    |0xfffffffffffffffd]" },
{ &type_u32, 4000000000u, "[-294967296|4000000000|ee6b2800|EE6B2800|35632624000||0xee6b2800|0|0|0|10240|10240|2800|4000000000|4000000000|ee6b2800|35632624000|4000000000|4000000000|ee6b2800|-294967296|ee6b2800|4000000000|-294967296|ee6b2800|10240   |0xee6b2800]" },
{ &type_s64, (uint64_t)-5, "[-5|4294967291|fffffffb|FFFFFFFB|37777777773|\xfb""|0xfffffffffffffffb|-5|251|fb|-5|65531|FFFB|-5|18446744073709551611|fffffffffffffffb|1777777777777777777773|-5|18446744073709551611|fffffffffffffffb|   -5|fffffffb|4294967291|-005|fffffffffffffffb|-005    |0xfffffffffffffffb]" },
{ &type_u64, 0xfedcba9876543210ull, "[1985229328|1985229328|76543210|76543210|16625031020|\x10""|0xfedcba9876543210|16|16|10|12816|12816|3210|-81985529216486896|18364758544493064720|fedcba9876543210|1773345651416625031020|-81985529216486896|18364758544493064720|fedcba9876543210|1985229328|76543210|1985229328|1985229328|fedcba9876543210|12816   |0xfedcba9876543210]" },
{ &type_s64, 0x123456789ull, "[591751049|591751049|23456789|23456789|4321263611|\x89""|0x123456789|-119|137|89|26505|26505|6789|4886718345|4886718345|123456789|44321263611|4886718345|4886718345|123456789|591751049|23456789|591751049|591751049|123456789|26505   |0x123456789]" },
{ &type_s64, 0, "[0|0|0|0|0||(nil)|0|0|0|0|0|0|0|0|0|0|0|0|0|    0|0    |00000|000|    0000|000     |(nil)]" },
{ &type_s64, 65, "[65|65|41|41|101|A|0x41|65|65|41|65|65|41|65|65|41|101|65|65|41|   65|41   |00065|065|    0041|065     |0x41]" },
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

TEST(formats_pointers)
{
	struct rec r = { 0 };
	const struct type *p = type_ptr(&A, &type_s8, false);
	for (int i = 0; i < 3; i++)
		rec_int(&r, p, 0xffff888012345678ull);
	CHECK_STR(run("%p %lx %d", &r),
		  "0xffff888012345678 ffff888012345678 305419896");
	r = (struct rec){ 0 };
	for (int i = 0; i < 4; i++)
		rec_int(&r, &type_s64, i == 1);
	CHECK_STR(run("[%p] [%p] [%10p] [%-10p|\n", &r),
		  "[(nil)] [0x1] [     (nil)] [(nil)     |\n");
}

TEST(formats_strings)
{
	struct rec r = { 0 };
	for (int i = 0; i < 5; i++)
		rec_str(&r, 64, "hello");
	rec_str(&r, 64, "hi");
	rec_str(&r, 64, "hello");
	CHECK_STR(run("[%s|%10s|%-10s|%.2s|%5.1s|%05s|%-05.3s]\n", &r),
		  "[hello|     hello|hello     |he|    h|   hi|hel  ]\n");
	/* A string that fills its storage has no NUL. */
	r = (struct rec){ 0 };
	rec_str(&r, 4, "abcdef");
	rec_int(&r, &type_u8, 'X');
	CHECK_STR(run("[%s|%c]", &r), "[abcd|X]");
	/* char[N] from BTF. */
	r = (struct rec){ 0 };
	struct type *chars = type_new(&A, TY_ARRAY, 16);
	chars->elem = &type_s8;
	chars->count = 16;
	chars->align = 1;
	strcpy(rec_add(&r, chars), "bpftrace");
	CHECK_STR(run("%s|", &r), "bpftrace|");
}

TEST(formats_other_values_through_the_callback)
{
	struct rec r = { 0 };
	struct type *ksym = type_new(&A, TY_KSYM, 8);
	for (int i = 0; i < 3; i++)
		rec_int(&r, ksym, 0xabc);
	stub_calls = 0;
	CHECK_STR(run("[%s|%12s|%-.4s]", &r),
		  "[<11:abc>|    <11:abc>|<11:]");
	CHECK(stub_calls == 3);
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
		  "[ab\\x01\\xff] [\\x61\\x62\\x01\\xff] [61 62 01 ff] [%10r] [%-10r] [%.2r]\n");
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
	RUN(parses_every_length_with_every_integer_conversion);
	RUN(parses_buffer_conversions);
	RUN(rejects_what_bpftrace_does_not_know);
	RUN(percent_percent_quirks);
	RUN(nul_bytes);
	RUN(argument_count_errors);
	RUN(argument_type_errors);
	RUN(formats_every_integer_width_and_conversion);
	RUN(formats_pointers);
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
