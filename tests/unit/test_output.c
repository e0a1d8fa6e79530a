/* Value formatting and the text/JSON output formats, against bpftrace
 * 0.17's exact output for the equivalent scripts. */
#include "check.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "model/types.h"
#include "runtime/output.h"
#include "runtime/value_fmt.h"
#include "util/arena.h"
#include "util/strbuf.h"

static struct arena A;
static struct strbuf SB;

static const char *fmt(const struct type *t, const void *data, bool json,
		       const struct out_resolver *res)
{
	struct vfmt f = { .json = json, .res = res, .stack_indent = VFMT_VALUE_INDENT };
	sb_reset(&SB);
	vfmt_value(&SB, &f, t, data);
	return sb_str(&SB);
}

/* A memory stream standing in for stdout. */
struct capture {
	char *buf, *ebuf; /* what the format wrote to o.f and to o.err */
	size_t len, elen;
	struct out o;
};

static void cap_open(struct capture *c, const char *format,
		     const struct out_resolver *res)
{
	c->buf = c->ebuf = NULL;
	c->len = c->elen = 0;
	FILE *f = open_memstream(&c->buf, &c->len);
	CHECK(out_init(&c->o, format, f, res) == 0);
	c->o.err = open_memstream(&c->ebuf, &c->elen);
}

/* Returns what went to o.f; cap_err() then returns what went to o.err. */
static char *last_err;
static const char *cap_close(struct capture *c)
{
	fclose(c->o.f);
	fclose(c->o.err);
	static char *last;
	free(last);
	free(last_err);
	last = c->buf;
	last_err = c->ebuf;
	return c->buf;
}

static const char *cap_err(void)
{
	return last_err;
}

TEST(ints_of_every_width)
{
	int8_t s8 = -3;
	uint8_t u8 = 200;
	int16_t s16 = -300;
	uint16_t u16 = 65535;
	int32_t s32 = -7;
	uint32_t u32 = 4000000000u;
	int64_t s64 = INT64_MIN;
	uint64_t u64 = UINT64_MAX;
	CHECK_STR(fmt(&type_s8, &s8, false, NULL), "-3");
	CHECK_STR(fmt(&type_u8, &u8, false, NULL), "200");
	CHECK_STR(fmt(&type_s16, &s16, false, NULL), "-300");
	CHECK_STR(fmt(&type_u16, &u16, false, NULL), "65535");
	CHECK_STR(fmt(&type_s32, &s32, true, NULL), "-7");
	CHECK_STR(fmt(&type_u32, &u32, false, NULL), "4000000000");
	CHECK_STR(fmt(&type_s64, &s64, false, NULL), "-9223372036854775808");
	CHECK_STR(fmt(&type_u64, &u64, false, NULL), "18446744073709551615");
	/* JSON: what a double cannot hold exactly is a string (0.26) */
	CHECK_STR(fmt(&type_u64, &u64, true, NULL), "\"18446744073709551615\"");
	CHECK_STR(fmt(&type_s64, &s64, true, NULL), "-9223372036854775808");
	uint64_t exact = 1ull << 53, inexact = (1ull << 53) + 1;
	CHECK_STR(fmt(&type_u64, &exact, true, NULL), "9007199254740992");
	CHECK_STR(fmt(&type_u64, &inexact, true, NULL),
		  "\"9007199254740993\"");
	/* pointers print in hex, and as numbers in JSON:
	 * @p = (struct task_struct *)0x1234 */
	uint64_t p = 0x1234;
	CHECK_STR(fmt(type_ptr(&A, &type_u8, false), &p, false, NULL),
		  "0x1234");
	CHECK_STR(fmt(type_ptr(&A, &type_u8, false), &p, true, NULL), "4660");
	p = 0;
	CHECK_STR(fmt(type_ptr(&A, &type_u8, false), &p, false, NULL), "0x0");
}

/* bpftrace 0.26's Symbolic: the enumerator's name in text (keys too),
 * the unsigned number without one and in JSON values. */
TEST(enum_values)
{
	static const struct type_enumerator v[] = { { "ONE", 1 },
						    { "NEG4", 0xfffffffcu } };
	static const struct type_enum foo = { "Foo", 2, v };
	const struct type *t64 = type_int_enum(&A, &type_u64, &foo);
	const struct type *t32 = type_int_enum(&A, &type_s32, &foo);
	uint64_t one = 1, none = 7;
	int32_t neg = -4;
	CHECK_STR(fmt(t64, &one, false, NULL), "ONE");
	CHECK_STR(fmt(t64, &none, false, NULL), "7");
	CHECK_STR(fmt(t64, &one, true, NULL), "1");
	CHECK_STR(fmt(t32, &neg, false, NULL), "NEG4");
	CHECK_STR(fmt(t32, &neg, true, NULL), "4294967292");
	struct vfmt f = { .json = true };
	sb_reset(&SB);
	vfmt_key(&SB, &f, t64, &one);
	CHECK_STR(sb_str(&SB), "\"ONE\"");
	struct strbuf d = STRBUF_INIT;
	type_describe(t64, &d);
	CHECK_STR(sb_str(&d), "enum Foo");
	sb_free(&d);
}

TEST(strings_and_tuples)
{
	char s[8] = "abc";
	const struct type *st = type_string(&A, 8);
	CHECK_STR(fmt(st, s, false, NULL), "abc");
	CHECK_STR(fmt(st, s, true, NULL), "\"abc\"");
	/* no NUL: cut at its size, with the trailer */
	char full[4] = { 'w', 'x', 'y', 'z' };
	CHECK_STR(fmt(type_string(&A, 4), full, false, NULL), "wxyz..");
	CHECK_STR(fmt(type_string(&A, 4), full, true, NULL), "\"wxyz..\"");
	vfmt_set_str_trailer("_xxx");
	CHECK_STR(fmt(type_string(&A, 4), full, false, NULL), "wxyz_xxx");
	vfmt_set_str_trailer("");
	CHECK_STR(fmt(type_string(&A, 4), full, false, NULL), "wxyz");
	vfmt_set_str_trailer("..");

	/* print((1, "x", (2, -3))) -> (1, x, (2, -3)) and [1,"x",[2,-3]] */
	const struct type *inner_el[] = { &type_s64, &type_s64 };
	const struct type *inner = type_tuple(&A, inner_el, 2);
	const struct type *outer_el[] = { &type_s64, type_string(&A, 2),
					  inner };
	const struct type *tt = type_tuple(&A, outer_el, 3);
	uint8_t data[64] = { 0 };
	int64_t one = 1, two = 2, m3 = -3;
	memcpy(data + tt->fields[0].offset, &one, 8);
	memcpy(data + tt->fields[1].offset, "x", 2);
	memcpy(data + tt->fields[2].offset, &two, 8);
	memcpy(data + tt->fields[2].offset + 8, &m3, 8);
	CHECK_STR(fmt(tt, data, false, NULL), "(1, x, (2, -3))");
	CHECK_STR(fmt(tt, data, true, NULL), "[1,\"x\",[2,-3]]");
}

TEST(buf_escapes)
{
	/* buf("ab\x01\xff\"\\", 6) */
	struct type *bt = type_new(&A, TY_BUF, 4 + 6);
	uint8_t b[10] = { 6, 0, 0, 0, 'a', 'b', 1, 0xff, '"', '\\' };
	CHECK_STR(fmt(bt, b, false, NULL), "ab\\x01\\xff\"\\");
	/* JSON: the bytes as (signed) char numbers, as 0.26 */
	CHECK_STR(fmt(bt, b, true, NULL), "[97,98,1,-1,34,92]");
	b[0] = 99; /* a bad length is clamped to the buffer */
	CHECK_STR(fmt(bt, b, false, NULL), "ab\\x01\\xff\"\\");
}

TEST(json_string_escapes_like_0_17)
{
	/* printf("\r\x1b\x7f\xc3\xa9|\x1f\n") in -f json */
	const char s[] = "\r\x1b\x7f\xc3\xa9|\x1f\n\"\\\t/";
	sb_reset(&SB);
	vfmt_json_string(&SB, s, sizeof(s) - 1);
	CHECK_STR(sb_str(&SB), "\"\\r\\u001b\x7f\\uffffffc3\\uffffffa9|"
			       "\\u001f\\n\\\"\\\\\\t/\"");
}

static const struct type *inet_type(void)
{
	return type_new(&A, TY_INET, 24);
}

static void inet(uint8_t *d, uint64_t af, const char *addr)
{
	memset(d, 0, 24);
	memcpy(d, &af, 8);
	inet_pton((int)af, addr, d + 8);
}

TEST(inet_and_macaddr)
{
	uint8_t d[24];
	inet(d, AF_INET, "127.0.0.1");
	CHECK_STR(fmt(inet_type(), d, false, NULL), "127.0.0.1");
	CHECK_STR(fmt(inet_type(), d, true, NULL), "\"127.0.0.1\"");
	inet(d, AF_INET6, "fe80::1:2");
	CHECK_STR(fmt(inet_type(), d, false, NULL), "fe80::1:2");
	inet(d, AF_INET6, "::");
	CHECK_STR(fmt(inet_type(), d, false, NULL), "::");
	inet(d, AF_INET6, "1:0:0:2::3");
	CHECK_STR(fmt(inet_type(), d, false, NULL), "1:0:0:2::3");

	uint8_t mac[6] = { 0x7a, 0x7a, 0x7a, 0x01, 0x00, 0xff };
	const struct type *mt = type_new(&A, TY_MACADDR, 6);
	CHECK_STR(fmt(mt, mac, false, NULL), "7A:7A:7A:01:00:FF");
	CHECK_STR(fmt(mt, mac, true, NULL), "\"7A:7A:7A:01:00:FF\"");
}

static int mock_sym(void *ctx, uint64_t addr, int32_t pid, bool offset,
		    struct strbuf *sb)
{
	if (addr < 0x1000)
		return -ENOENT;
	sb_printf(sb, "%s%s", pid < 0 ? "kfunc" : "ufunc",
		  offset ? "+16" : "");
	return 0;
}

static int mock_cgroup(void *ctx, uint64_t id, const char *glob,
		       struct strbuf *sb)
{
	sb_printf(sb, "unified:/cg%llu", (unsigned long long)id);
	return 0;
}

static const char *const probe_names[] = { "BEGIN", "kprobe:vfs_read" };

static const struct out_resolver mock = {
	.sym = mock_sym,
	.cgroup_path = mock_cgroup,
	.probe_names = probe_names,
	.nprobes = 2,
};

TEST(symbols_through_the_hook)
{
	uint64_t a = 1;
	const struct type *ks = type_new(&A, TY_KSYM, 8);
	/* no resolver: hex, and "0" for 0, as @k1 = ksym(1), ksym(0) */
	CHECK_STR(fmt(ks, &a, false, NULL), "0x1");
	a = 0;
	CHECK_STR(fmt(ks, &a, false, NULL), "0");
	a = 0x1234567;
	CHECK_STR(fmt(ks, &a, true, NULL), "\"0x1234567\"");
	a = 0x2000;
	CHECK_STR(fmt(ks, &a, false, &mock), "kfunc");
	uint64_t us[2] = { 0x2000, 42 };
	CHECK_STR(fmt(type_new(&A, TY_USYM, 16), us, false, &mock), "ufunc");
}

TEST(stacks_from_their_frames)
{
	const struct type *kt = type_stack(&A, false, STACK_BPFTRACE, 3);
	/* {nframes, ips...}: zero frames after the last */
	uint64_t k[4] = { 2, 0x2000, 0x10, 0 };
	CHECK_STR(fmt(kt, k, false, &mock),
		  "\n        kfunc+16\n        0x10\n");
	CHECK_STR(fmt(kt, k, true, &mock),
		  "\"\\n        kfunc+16\\n        0x10\\n\"");
	CHECK_STR(fmt(type_stack(&A, false, STACK_PERF, 3), k, false, &mock),
		  "\n\t2000 kfunc+16\n\t10 0x10\n");
	CHECK_STR(fmt(type_stack(&A, false, STACK_RAW, 3), k, false, &mock),
		  "\n2000\n10\n");
	/* no more than the limit, nor past a zero frame */
	CHECK_STR(fmt(type_stack(&A, false, STACK_BPFTRACE, 1), k, false,
		      &mock), "\n        kfunc+16\n");
	k[0] = 3;
	CHECK_STR(fmt(kt, k, false, &mock),
		  "\n        kfunc+16\n        0x10\n");
	k[0] = 0; /* not captured: the newline alone, as bpftrace 0.26 */
	CHECK_STR(fmt(kt, k, false, &mock), "\n");
	k[0] = 2;
	CHECK_STR(fmt(kt, k, false, NULL), "\n        0x2000\n        0x10\n");

	/* {nframes, pid, ips...} */
	const struct type *ut = type_stack(&A, true, STACK_BPFTRACE, 2);
	uint64_t u[4] = { 2, 1234, 0x2000, 0x10 };
	CHECK_STR(fmt(ut, u, false, &mock),
		  "\n        ufunc+16\n        0x10\n");

	/* as a key: indented by 8 too, e.g. @ks[kstack(3), 5]; JSON takes
	 * the spaces out */
	const struct type *el[] = { kt, &type_s64 };
	const struct type *key = type_tuple(&A, el, 2);
	uint64_t kk[5] = { 2, 0x2000, 0x10, 0, 5 };
	struct vfmt f = { .res = &mock, .stack_indent = VFMT_VALUE_INDENT };
	sb_reset(&SB);
	vfmt_key(&SB, &f, key, kk);
	CHECK_STR(sb_str(&SB), "[\n        kfunc+16\n        0x10\n, 5]");
	f.json = true;
	sb_reset(&SB);
	vfmt_key(&SB, &f, key, kk);
	CHECK_STR(sb_str(&SB), "\"\\nkfunc+16\\n0x10\\n,5\"");
}

TEST(username_probe_cgroup)
{
	uint64_t uid = 0;
	const struct type *ut = type_new(&A, TY_USERNAME, 8);
	CHECK_STR(fmt(ut, &uid, false, NULL), "root");
	CHECK_STR(fmt(ut, &uid, true, NULL), "\"root\"");
	uid = 12345; /* no such user: "" as 0.17 */
	CHECK_STR(fmt(ut, &uid, false, NULL), "");

	uint64_t p = 1;
	const struct type *pt = type_new(&A, TY_PROBE, 8);
	CHECK_STR(fmt(pt, &p, false, &mock), "kprobe:vfs_read");
	CHECK_STR(fmt(pt, &p, true, &mock), "\"kprobe:vfs_read\"");
	p = 7;
	CHECK_STR(fmt(pt, &p, false, &mock), "7");

	uint64_t cg = 3;
	const struct type *ct = type_new(&A, TY_CGROUP_PATH, 8);
	CHECK_STR(fmt(ct, &cg, false, &mock), "unified:/cg3");
	CHECK_STR(fmt(ct, &cg, true, &mock), "\"unified:/cg3\"");
	CHECK_STR(fmt(ct, &cg, false, NULL), "3");
}

TEST(strftime_timestamps)
{
	setenv("TZ", "UTC", 1);
	struct type *tt = type_new(&A, TY_TIMESTAMP, 8);
	tt->name = "%Y-%m-%d %H:%M:%S";
	struct out_resolver res = { .boot_wall_ns = 1700000000LL * 1000000000 };
	uint64_t ns = 5ULL * 1000000000;
	CHECK_STR(fmt(tt, &ns, false, &res), "2023-11-14 22:13:25");
	CHECK_STR(fmt(tt, &ns, true, &res), "\"2023-11-14 22:13:25\"");
}

/* struct ethhdr read from a comm of "bpftrace":
 * @s: { .h_dest = [98,112,102,116,114,97], .h_source = [99,101,0,0,0,0],
 *       .h_proto = 0 } */
TEST(records_and_arrays)
{
	struct type *arr = type_new(&A, TY_ARRAY, 6);
	arr->elem = &type_u8;
	arr->count = 6;
	arr->align = 1;
	struct type *rec = type_new(&A, TY_RECORD, 14);
	rec->name = "struct ethhdr";
	rec->nfields = 3;
	rec->fields = arena_alloc(&A, 3 * sizeof(*rec->fields));
	rec->fields[0] = (struct type_field){ .name = "h_dest", .type = arr, .offset = 0, .bit_off = 0, .bit_size = 0 };
	rec->fields[1] = (struct type_field){ .name = "h_source", .type = arr, .offset = 6, .bit_off = 0, .bit_size = 0 };
	rec->fields[2] = (struct type_field){ .name = "h_proto", .type = &type_u16, .offset = 12, .bit_off = 0, .bit_size = 0 };
	uint8_t d[14] = "bpftrace";
	CHECK_STR(fmt(rec, d, false, NULL),
		  "{ .h_dest = [98,112,102,116,114,97], .h_source = "
		  "[99,101,0,0,0,0], .h_proto = 0 }");
	CHECK_STR(fmt(rec, d, true, NULL),
		  "{\"h_dest\": [98,112,102,116,114,97], \"h_source\": "
		  "[99,101,0,0,0,0], \"h_proto\": 0}");
	/* a record without fields: {} */
	struct type *empty = type_new(&A, TY_RECORD, 0);
	CHECK_STR(fmt(empty, d, false, NULL), "{}");
	CHECK_STR(fmt(empty, d, true, NULL), "{}");
	CHECK_STR(fmt(arr, d, false, NULL), "[98,112,102,116,114,97]");

	/* bitfields: a:3 = -1 (signed), b:5 = 9 */
	struct type *bf = type_new(&A, TY_RECORD, 4);
	bf->nfields = 2;
	bf->fields = arena_alloc(&A, 2 * sizeof(*bf->fields));
	bf->fields[0] = (struct type_field){ .name = "a", .type = &type_s32, .offset = 0, .bit_off = 0, .bit_size = 3 };
	bf->fields[1] = (struct type_field){ .name = "b", .type = &type_u32, .offset = 0, .bit_off = 3, .bit_size = 5 };
	uint32_t bits = 7 | (9 << 3);
	CHECK_STR(fmt(bf, &bits, false, NULL), "{ .a = -1, .b = 9 }");
}

TEST(text_events)
{
	struct capture c;
	cap_open(&c, "text", NULL);
	out_attached_probes(&c.o, 1);
	out_attached_probes(&c.o, 2);
	out_printf(&c.o, "a", 1);
	out_printf(&c.o, "b\n", 2);
	out_time(&c.o, "12:00:00\n", 9);
	out_cat(&c.o, "nonl", 4);
	out_syscall(&c.o, "sys\n", 4);
	out_join(&c.o, "/bin/echo,hi", 12);
	out_lost_events(&c.o, 3);
	int64_t five = 5;
	out_value(&c.o, &type_s64, &five);
	out_exit_begin(&c.o);
	/* system()'s output gets a newline, as 0.26's TextOutput::syscall */
	CHECK_STR(cap_close(&c), "ab\n12:00:00\nnonlsys\n\n/bin/echo,hi\n"
				 "5\n\n\n");
	/* bpftrace 0.26: on stderr, beside the program's output */
	CHECK_STR(cap_err(), "Attached 1 probe\nAttached 2 probes\n"
			     "Lost 3 events\n");
}

TEST(json_events)
{
	struct capture c;
	cap_open(&c, "json", NULL);
	out_attached_probes(&c.o, 2);
	out_printf(&c.o, "hi \"x\"\n", 7);
	out_time(&c.o, "05", 2);
	out_cat(&c.o, "a\"b\n\x01" "c\n", 7);
	out_syscall(&c.o, "sys\n", 4);
	out_join(&c.o, "/bin/echo hi there", 18);
	out_lost_events(&c.o, 3);
	char s[4] = "s\"x";
	out_value(&c.o, type_string(&A, 4), s);
	out_exit_begin(&c.o);
	CHECK_STR(cap_close(&c),
		  "{\"type\": \"attached_probes\", \"count\": 2, "
		  "\"data\": {\"probes\": 2}}\n"
		  "{\"type\": \"printf\", \"data\": \"hi \\\"x\\\"\\n\"}\n"
		  "{\"type\": \"time\", \"data\": \"05\"}\n"
		  "{\"type\": \"cat\", \"data\": \"a\\\"b\\n\\u0001c\\n\"}\n"
		  "{\"type\": \"syscall\", \"data\": \"sys\\n\"}\n"
		  "{\"type\": \"join\", \"data\": \"/bin/echo hi there\"}\n"
		  "{\"type\": \"lost_events\", \"count\": 3, "
		  "\"data\": {\"events\": 3}}\n"
		  "{\"type\": \"value\", \"data\": \"s\\\"x\"}\n");
}

/* -k's reports, as bpftrace 0.26 prints them: text on stderr in the
 * located form with the helper and its return code, JSON on the output. */
TEST(helper_errors)
{
	static const char text[] = "BEGIN { $x = @m[1]; }";
	struct src_file file = { "stdin", text, sizeof(text) - 1 };
	struct span at = { &file, 13, 5, 1, 14 };
	struct capture c;
	cap_open(&c, "text", NULL);
	out_helper_error(&c.o, "map_lookup_elem", 0, at);
	out_helper_error(&c.o, "probe_read", -14, at);
	out_helper_error(&c.o, "map_update_elem", -7, at);
	CHECK_STR(cap_close(&c), "");
	CHECK_STR(cap_err(),
		  "stdin:1:14-19: WARNING: Can't lookup map element because it "
		  "does not exist.\n"
		  "Additional Info - helper: map_lookup_elem, retcode: 0\n"
		  "BEGIN { $x = @m[1]; }\n"
		  "             ~~~~~\n"
		  "stdin:1:14-19: WARNING: Bad address\n"
		  "Additional Info - helper: probe_read, retcode: -14\n"
		  "BEGIN { $x = @m[1]; }\n"
		  "             ~~~~~\n"
		  "stdin:1:14-19: WARNING: Map full; can't update element. Try "
		  "increasing max_map_keys config or manually setting the max "
		  "entries in a map declaration e.g. `let @a = hash(5000)`\n"
		  "Additional Info - helper: map_update_elem, retcode: -7\n"
		  "BEGIN { $x = @m[1]; }\n"
		  "             ~~~~~\n");
	cap_open(&c, "text", NULL);
	c.o.no_warnings = true;
	out_helper_error(&c.o, "probe_read", -14, at);
	CHECK_STR(cap_close(&c), "");
	CHECK_STR(cap_err(), "");
	cap_open(&c, "json", NULL);
	out_helper_error(&c.o, "probe_read", -14, at);
	CHECK_STR(cap_close(&c),
		  "{\"type\": \"helper_error\", \"msg\": \"Bad address\", "
		  "\"helper\": \"probe_read\", \"retcode\": -14, "
		  "\"filename\": \"stdin\", \"line\": 1, \"col\": 14}\n");
	CHECK_STR(cap_err(), "");
}

TEST(unknown_format)
{
	struct out o;
	CHECK(out_init(&o, "xml", stdout, NULL) == -EINVAL);
}

/* Hand-made map entries: @[1, "a"] = 1 (as bpftrace: @[1, a]: 1) */
TEST(map_through_both_formats)
{
	const struct type *el[] = { &type_s64, type_string(&A, 2) };
	const struct type *key = type_tuple(&A, el, 2);
	const struct type *cnt = type_new(&A, TY_COUNT, 8);
	uint8_t k[16] = { 1 };
	memcpy(k + 8, "a", 2);
	uint64_t v = 1;
	struct out_entry e = { k, (uint8_t *)&v, NULL, 0, NULL, 0 };
	struct out_map m = { "@", key, cnt, &e, 1, 0 };
	struct capture c;
	cap_open(&c, "text", NULL);
	out_map(&c.o, &m);
	m.n = 0; /* empty: nothing (0.17: a blank line) */
	out_map(&c.o, &m);
	CHECK_STR(cap_close(&c), "@[1, a]: 1\n");
	cap_open(&c, "json", NULL);
	m.n = 1;
	out_map(&c.o, &m);
	m.n = 0; /* empty: nothing */
	out_map(&c.o, &m);
	CHECK_STR(cap_close(&c),
		  "{\"type\": \"map\", \"data\": {\"@\": {\"1,a\": 1}}}\n");
}

int main(void)
{
	arena_init(&A);
	RUN(ints_of_every_width);
	RUN(enum_values);
	RUN(strings_and_tuples);
	RUN(buf_escapes);
	RUN(json_string_escapes_like_0_17);
	RUN(inet_and_macaddr);
	RUN(symbols_through_the_hook);
	RUN(stacks_from_their_frames);
	RUN(username_probe_cgroup);
	RUN(strftime_timestamps);
	RUN(records_and_arrays);
	RUN(text_events);
	RUN(json_events);
	RUN(helper_errors);
	RUN(unknown_format);
	RUN(map_through_both_formats);
	sb_free(&SB);
	arena_release(&A);
	return check_done();
}
