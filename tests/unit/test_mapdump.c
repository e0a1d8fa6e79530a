/*
 * Map dumping with real BPF maps (needs root; skipped otherwise), filled
 * from user space the way the generated code fills them, and printed to a
 * memory stream. Expected strings are bpftrace 0.17's output for the
 * script quoted above each test.
 */
#include "check.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/types.h"
#include "runtime/hist.h"
#include "runtime/mapdump.h"
#include "runtime/output.h"
#include "util/arena.h"

static struct arena A;
static int ncpu;
static int fds[64];
static int nfds;

#define BAR0 "|                                                    |\n"
#define BAR52 "|@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"

static bool have_bpf(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, 8, 8, 1, NULL);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

#define NEED_BPF()                                                             \
	do {                                                                   \
		if (!have_bpf())                                               \
			SKIP("cannot create BPF maps (not root?)");            \
	} while (0)

/* A map for m, laid out as mapdump.h says. */
static struct mapdump_map mk(const char *name, const struct type *key,
			     const struct type *value, bool percpu)
{
	struct mapdump_map m = { .name = name, .fd = -1, .key = key,
				 .value = value, .percpu = percpu };
	m.fd = bpf_map_create(percpu ? BPF_MAP_TYPE_PERCPU_HASH
				     : BPF_MAP_TYPE_HASH,
			      NULL, maplayout_key_size(key, value),
			      maplayout_value_size(value), 4096, NULL);
	CHECK(m.fd >= 0);
	fds[nfds++] = m.fd;
	return m;
}

/* Adds v (a value_size-byte value) on one CPU of a per-CPU map: the other
 * CPUs keep what they had (zero for a new key). */
static void put_cpu(const struct mapdump_map *m, const void *key,
		    const void *v, int cpu)
{
	uint32_t vs = maplayout_value_size(m->value);
	uint32_t slot = (vs + 7) & ~7u;
	uint8_t *buf = calloc((size_t)ncpu, slot);
	bpf_map_lookup_elem(m->fd, key, buf);
	memcpy(buf + (size_t)cpu * slot, v, vs);
	CHECK(bpf_map_update_elem(m->fd, key, buf, BPF_ANY) == 0);
	free(buf);
}

static void put(const struct mapdump_map *m, const void *key, const void *v)
{
	if (m->percpu)
		put_cpu(m, key, v, 0);
	else
		CHECK(bpf_map_update_elem(m->fd, key, v, BPF_ANY) == 0);
}

/* hist/lhist: count n in bucket b of key prefix k (NULL: key-less). */
static void put_bucket(const struct mapdump_map *m, const void *k,
		       uint64_t b, uint64_t n, int cpu)
{
	uint8_t key[128] = { 0 };
	uint32_t off = maplayout_bucket_offset(m->key);
	if (k)
		memcpy(key, k, m->key->size);
	memcpy(key + off, &b, 8);
	put_cpu(m, key, &n, cpu);
}

static void close_maps(void)
{
	while (nfds)
		close(fds[--nfds]);
}

struct capture {
	char *buf;
	size_t len;
	struct out o;
};

static void cap_open(struct capture *c, const char *format)
{
	c->buf = NULL;
	c->len = 0;
	out_init(&c->o, format, open_memstream(&c->buf, &c->len), NULL);
}

static const char *cap_close(struct capture *c)
{
	fclose(c->o.f);
	static char *last;
	free(last);
	last = c->buf;
	return c->buf;
}

static const struct type *agg(enum type_kind k, uint32_t size)
{
	struct type *t = type_new(&A, k, size);
	/* as sema types them (sema_builtins.c's agg()) */
	t->is_signed = k != TY_COUNT && k != TY_HIST;
	return t;
}

static const struct type *lhist(int64_t min, int64_t max, int64_t step)
{
	struct type *t = type_new(&A, TY_LHIST, 8);
	t->lmin = min;
	t->lmax = max;
	t->lstep = step;
	return t;
}

struct sc { /* avg and stats: {s64 sum; u64 count} */
	int64_t sum;
	uint64_t count;
};

/*
 * BEGIN { @h = hist(5); @h = hist(100); @l = lhist(3,0,10,2); @s = stats(10);
 *         @a = avg(3); @[1,"a"] = count(); @str["x"] = 5; exit(); }
 */
TEST(exit_maps_text_and_json)
{
	NEED_BPF();
	const struct type *el[] = { &type_s64, type_string(&A, 2) };
	struct mapdump_map maps[6];
	/* declared out of order: printing sorts by name */
	maps[0] = mk("@str", type_string(&A, 4), &type_s64, false);
	maps[1] = mk("@s", NULL, agg(TY_STATS, 16), true);
	maps[2] = mk("@l", NULL, lhist(0, 10, 2), true);
	maps[3] = mk("@h", NULL, agg(TY_HIST, 8), true);
	maps[4] = mk("@a", NULL, agg(TY_AVG, 16), true);
	maps[5] = mk("@", type_tuple(&A, el, 2), agg(TY_COUNT, 8), true);

	char sk[4] = "x";
	int64_t five = 5;
	put(&maps[0], sk, &five);
	uint64_t zero = 0;
	struct sc s = { 10, 1 };
	put(&maps[1], &zero, &s);
	put_bucket(&maps[2], NULL, hist_linear_index(3, 0, 10, 2), 1, 0);
	put_bucket(&maps[3], NULL, hist_log2_index(5), 1, 0);
	put_bucket(&maps[3], NULL, hist_log2_index(100), 1, ncpu - 1);
	/* avg(3) split over two CPUs: merged sums and counts */
	struct sc a0 = { 2, 1 }, a1 = { 1, 0 };
	put_cpu(&maps[4], &zero, &a0, 0);
	put_cpu(&maps[4], &zero, &a1, ncpu - 1);
	uint8_t k[16] = { 1 };
	memcpy(k + 8, "a", 2);
	uint64_t one = 1;
	put_cpu(&maps[5], k, &one, ncpu - 1);

	struct capture c;
	cap_open(&c, "text");
	CHECK(mapdump_print_exit(&c.o, maps, 6) == 0);
	CHECK_STR(cap_close(&c),
		  "\n\n"
		  "@[1, a]: 1\n"
		  "@a: 3\n"
		  "@h:\n"
		  "[4, 8)                 1 " BAR52
		  "[8, 16)                0 " BAR0
		  "[16, 32)               0 " BAR0
		  "[32, 64)               0 " BAR0
		  "[64, 128)              1 " BAR52
		  "\n"
		  "@l:\n"
		  "[2, 4)                 1 " BAR52
		  "\n"
		  "@s: { .count = 1, .average = 10, .total = 10 }\n"
		  "@str[x]: 5\n");

	cap_open(&c, "json");
	CHECK(mapdump_print_exit(&c.o, maps, 6) == 0);
	/* no exit newlines in JSON, as bpftrace 0.26 */
	CHECK_STR(cap_close(&c),
		  "{\"type\": \"map\", \"data\": {\"@\": {\"1,a\": 1}}}\n"
		  "{\"type\": \"stats\", \"data\": {\"@a\": 3}}\n"
		  "{\"type\": \"hist\", \"data\": {\"@h\": [{\"min\": 4, \"max\": 7, \"count\": 1},{\"min\": 8, \"max\": 15, \"count\": 0},{\"min\": 16, \"max\": 31, \"count\": 0},{\"min\": 32, \"max\": 63, \"count\": 0},{\"min\": 64, \"max\": 127, \"count\": 1}]}}\n"
		  "{\"type\": \"hist\", \"data\": {\"@l\": [{\"min\": 2, \"max\": 3, \"count\": 1}]}}\n"
		  "{\"type\": \"stats\", \"data\": {\"@s\": {\"count\": 1, \"average\": 10, \"total\": 10}}}\n"
		  "{\"type\": \"map\", \"data\": {\"@str\": {\"x\": 5}}}\n");
	close_maps();
}

/* BEGIN { @x[3] = "a"; @x[1] = "b"; @x[-1] = "c"; @x[-2] = "d";
 *         @x[0] = "e"; exit(); }  -- by key, ints as signed (0.17 sorted
 * them as unsigned) */
TEST(sorted_by_key_when_values_are_not_numbers)
{
	NEED_BPF();
	struct mapdump_map m = mk("@x", &type_s64, type_string(&A, 2), false);
	int64_t keys[] = { 3, 1, -1, -2, 0 };
	const char *vals[] = { "a", "b", "c", "d", "e" };
	for (int i = 0; i < 5; i++)
		put(&m, &keys[i], vals[i]);
	struct capture c;
	cap_open(&c, "text");
	mapdump_print(&c.o, &m, 0, 0);
	CHECK_STR(cap_close(&c), "@x[-2]: d\n@x[-1]: c\n@x[0]: e\n@x[1]: b\n"
				 "@x[3]: a\n");
	close_maps();
}

/* BEGIN { @x[-5] = sum(-3); @x[1] = sum(4); @x[2] = sum(-10); exit(); }
 * and print(@x, 2), print(@x, 0, 2) */
TEST(sorted_by_value_with_top_and_div)
{
	NEED_BPF();
	struct mapdump_map m = mk("@x", &type_s64, agg(TY_SUM, 8), true);
	int64_t keys[] = { -5, 1, 2 }, vals[] = { -3, 4, -10 };
	for (int i = 0; i < 3; i++)
		put(&m, &keys[i], &vals[i]);
	struct capture c;
	cap_open(&c, "text");
	mapdump_print(&c.o, &m, 0, 0);
	mapdump_print(&c.o, &m, 2, 0);
	mapdump_print(&c.o, &m, 0, 2);
	CHECK_STR(cap_close(&c), "@x[2]: -10\n@x[-5]: -3\n@x[1]: 4\n"
				 "@x[-5]: -3\n@x[1]: 4\n"
				 "@x[2]: -5\n@x[-5]: -1\n@x[1]: 2\n");
	cap_open(&c, "json");
	mapdump_print(&c.o, &m, 1, 0);
	CHECK_STR(cap_close(&c),
		  "{\"type\": \"map\", \"data\": {\"@x\": {\"1\": 4}}}\n");
	close_maps();
}

/* BEGIN { @a[1]=hist(1) x3; @a[2]=hist(2); @a[3]=hist(3) x2; exit(); }
 * Groups sort by total count; print(@a, 1) keeps the largest. */
TEST(hist_groups_sorted_by_total)
{
	NEED_BPF();
	struct mapdump_map m = mk("@a", &type_s64, agg(TY_HIST, 8), true);
	int64_t k1 = 1, k2 = 2, k3 = 3;
	put_bucket(&m, &k1, hist_log2_index(1), 2, 0);
	put_bucket(&m, &k1, hist_log2_index(1), 1, ncpu - 1);
	put_bucket(&m, &k2, hist_log2_index(2), 1, 0);
	put_bucket(&m, &k3, hist_log2_index(3), 2, 0);
	struct capture c;
	cap_open(&c, "text");
	mapdump_print(&c.o, &m, 0, 0);
	mapdump_print(&c.o, &m, 1, 0);
	CHECK_STR(cap_close(&c),
		  "@a[2]:\n[2, 4)                 1 " BAR52 "\n"
		  "@a[3]:\n[2, 4)                 2 " BAR52 "\n"
		  "@a[1]:\n[1]                    3 " BAR52 "\n"
		  "@a[1]:\n[1]                    3 " BAR52 "\n");
	cap_open(&c, "json");
	mapdump_print(&c.o, &m, 0, 0);
	CHECK_STR(cap_close(&c),
		  "{\"type\": \"hist\", \"data\": {\"@a\": {"
		  "\"2\": [{\"min\": 2, \"max\": 3, \"count\": 1}], "
		  "\"3\": [{\"min\": 2, \"max\": 3, \"count\": 2}], "
		  "\"1\": [{\"min\": 1, \"max\": 1, \"count\": 3}]}}}\n");
	close_maps();
}

/* BEGIN { @x[1] = hist(1); ... @x[20] = hist(1); @x[5] = hist(1) x2 }:
 * ties come out in the order of std::sort, which this must reproduce. */
TEST(hist_ties_in_std_sort_order)
{
	NEED_BPF();
	struct mapdump_map m = mk("@x", &type_s64, agg(TY_HIST, 8), true);
	for (int64_t k = 1; k <= 20; k++)
		put_bucket(&m, &k, 2, k == 5 ? 3 : 1, 0);
	struct capture c;
	cap_open(&c, "text");
	mapdump_print(&c.o, &m, 0, 0);
	const char *out = cap_close(&c);
	char order[256] = "";
	for (const char *p = out; (p = strstr(p, "@x[")); p++) {
		strncat(order, p + 3, strcspn(p + 3, "]"));
		strcat(order, " ");
	}
	CHECK_STR(order, "11 20 19 18 17 16 15 14 13 12 1 10 9 8 7 6 4 3 2 5 ");
	close_maps();
}

/* BEGIN { @x[1] = stats(10) x2; @x[2] = stats(1) x2, stats(100);
 *         @x[3] = stats(30); @y[...] = avg(...) ; exit(); }
 * by average; top and div apply to both, div to stats' average (0.17
 * ignored them for stats). */
TEST(stats_and_avg_sorted_by_average)
{
	NEED_BPF();
	struct mapdump_map s = mk("@x", &type_s64, agg(TY_STATS, 16), true);
	struct mapdump_map a = mk("@b", &type_s64, agg(TY_AVG, 16), true);
	int64_t k1 = 1, k2 = 2, k3 = 3;
	struct sc v1 = { 20, 2 }, v2 = { 102, 3 }, v3 = { 30, 1 };
	put(&s, &k1, &v1);
	put(&s, &k2, &v2);
	put(&s, &k3, &v3);
	struct sc b = { 11, 1 };
	put(&a, &k1, &b);
	struct capture c;
	cap_open(&c, "text");
	mapdump_print(&c.o, &s, 2, 7);
	mapdump_print(&c.o, &a, 1, 3);
	CHECK_STR(cap_close(&c),
		  "@x[3]: { .count = 1, .average = 4, .total = 30 }\n"
		  "@x[2]: { .count = 3, .average = 4, .total = 102 }\n"
		  "@b[1]: 3\n");
	cap_open(&c, "json");
	mapdump_print(&c.o, &s, 0, 0);
	CHECK_STR(cap_close(&c),
		  "{\"type\": \"stats\", \"data\": {\"@x\": {"
		  "\"1\": {\"count\": 2, \"average\": 10, \"total\": 20}, "
		  "\"3\": {\"count\": 1, \"average\": 30, \"total\": 30}, "
		  "\"2\": {\"count\": 3, \"average\": 34, \"total\": 102}}}}\n");
	close_maps();
}

/* min/max merge only the CPUs that set a value. */
TEST(min_max_merge_across_cpus)
{
	NEED_BPF();
	if (ncpu < 2)
		SKIP("needs two CPUs");
	struct mapdump_map mn = mk("@mn", NULL, agg(TY_MIN, 16), true);
	struct mapdump_map mx = mk("@mx", NULL, agg(TY_MAX, 16), true);
	uint64_t zero = 0;
	int64_t v0[2] = { 5, 1 }, v1[2] = { -7, 1 }, unset[2] = { -100, 0 };
	put_cpu(&mn, &zero, v0, 0);
	put_cpu(&mn, &zero, unset, 1);
	put_cpu(&mx, &zero, v1, 0);
	put_cpu(&mx, &zero, unset, 1);
	struct capture c;
	cap_open(&c, "text");
	mapdump_print(&c.o, &mn, 0, 0);
	mapdump_print(&c.o, &mx, 0, 0);
	CHECK_STR(cap_close(&c), "@mn: 5\n@mx: -7\n");
	close_maps();
}

/* BEGIN { @a[1] = count(); zero(@a); ... } -> "@a[1]: 0";
 * clear(@a) -> nothing; zeroed hist: "@h[1]:\n\n", JSON []. */
TEST(zero_and_clear)
{
	NEED_BPF();
	struct mapdump_map m = mk("@a", &type_s64, agg(TY_COUNT, 8), true);
	struct mapdump_map h = mk("@z", &type_s64, agg(TY_HIST, 8), true);
	int64_t k = 1;
	uint64_t n = 4;
	put(&m, &k, &n);
	put_bucket(&h, &k, 4, 1, 0);
	CHECK(mapdump_zero(&m) == 0);
	CHECK(mapdump_zero(&h) == 0);
	struct capture c;
	cap_open(&c, "text");
	mapdump_print(&c.o, &m, 0, 0);
	mapdump_print(&c.o, &h, 0, 0);
	CHECK(mapdump_clear(&m) == 0);
	CHECK(mapdump_clear(&h) == 0);
	mapdump_print(&c.o, &m, 0, 0);
	mapdump_print(&c.o, &h, 0, 0);
	CHECK_STR(cap_close(&c), "@a[1]: 0\n@z[1]:\n\n");
	close_maps();
}

TEST(zeroed_hist_json)
{
	NEED_BPF();
	struct mapdump_map h = mk("@z", &type_s64, agg(TY_HIST, 8), true);
	struct mapdump_map k0 = mk("@h", NULL, agg(TY_HIST, 8), true);
	int64_t k1 = 1, k2 = 2;
	put_bucket(&h, &k1, 4, 1, 0);
	put_bucket(&h, &k2, 4, 1, 0);
	put_bucket(&k0, NULL, 3, 1, 0);
	mapdump_zero(&h);
	mapdump_zero(&k0);
	struct capture c;
	cap_open(&c, "json");
	mapdump_print(&c.o, &h, 0, 0);
	mapdump_print(&c.o, &k0, 0, 0);
	CHECK_STR(cap_close(&c),
		  "{\"type\": \"hist\", \"data\": {\"@z\": {\"1\": [], \"2\": []}}}\n"
		  "{\"type\": \"hist\", \"data\": {\"@h\": []}}\n");
	close_maps();
}

/* Key-less count() in a per-CPU array prints as bpftrace 0.26's hash
 * entry would: nothing until hit or zeroed, nothing after clear(). */
TEST(keyless_array_count)
{
	NEED_BPF();
	struct mapdump_map m = { .name = "@c", .fd = -1,
				 .value = agg(TY_COUNT, 8), .percpu = true };
	m.fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, NULL, 4, 8,
			      maplayout_array_entries(m.value), NULL);
	CHECK(m.fd >= 0);
	fds[nfds++] = m.fd;
	struct capture c;
	cap_open(&c, "text");
	/* never hit */
	mapdump_print(&c.o, &m, 0, 0);
	/* BEGIN { @c = count(); print(@c); clear(@c); print(@c); } */
	uint32_t zero = 0;
	uint64_t one = 1;
	put_cpu(&m, &zero, &one, 0);
	mapdump_print(&c.o, &m, 0, 0);
	CHECK(mapdump_clear(&m) == 0);
	mapdump_print(&c.o, &m, 0, 0);
	/* @c = count(); zero(@c): "@c: 0" */
	put_cpu(&m, &zero, &one, 0);
	CHECK(mapdump_zero(&m) == 0);
	mapdump_print(&c.o, &m, 0, 0);
	CHECK_STR(cap_close(&c), "@c: 1\n@c: 0\n");
	close_maps();
}

/* Empty maps at exit print nothing (0.17: a blank line each in text). */
TEST(empty_maps_at_exit)
{
	NEED_BPF();
	struct mapdump_map maps[3];
	maps[0] = mk("@b", NULL, agg(TY_AVG, 16), true);
	maps[1] = mk("@a", NULL, &type_s64, false);
	maps[2] = mk("@c", NULL, agg(TY_HIST, 8), true);
	struct capture c;
	cap_open(&c, "text");
	mapdump_print_exit(&c.o, maps, 3);
	/* BEGIN { if (0) { @a = 1; @b = avg(1); @c = hist(1); } exit(); } */
	CHECK_STR(cap_close(&c), "\n\n");
	cap_open(&c, "json");
	mapdump_print_exit(&c.o, maps, 3);
	CHECK_STR(cap_close(&c), "");
	close_maps();
}

/* BEGIN { @x[2, "b"] = "v"; @x[1, "c"] = "v"; @x[1, "a"] = "v";
 *         @x[256, "a"] = "v"; exit(); } -- first argument, then second */
TEST(multi_key_sort)
{
	NEED_BPF();
	const struct type *el[] = { &type_s64, type_string(&A, 2) };
	struct mapdump_map m = mk("@x", type_tuple(&A, el, 2),
				  type_string(&A, 2), false);
	struct { int64_t i; char s[8]; } keys[] = {
		{ 2, "b" }, { 1, "c" }, { 1, "a" }, { 256, "a" },
	};
	for (int i = 0; i < 4; i++)
		put(&m, &keys[i], "v");
	struct capture c;
	cap_open(&c, "text");
	mapdump_print(&c.o, &m, 0, 0);
	CHECK_STR(cap_close(&c), "@x[1, a]: v\n@x[1, c]: v\n@x[2, b]: v\n"
				 "@x[256, a]: v\n");
	close_maps();
}

int main(void)
{
	arena_init(&A);
	ncpu = libbpf_num_possible_cpus();
	RUN(exit_maps_text_and_json);
	RUN(sorted_by_key_when_values_are_not_numbers);
	RUN(sorted_by_value_with_top_and_div);
	RUN(hist_groups_sorted_by_total);
	RUN(hist_ties_in_std_sort_order);
	RUN(stats_and_avg_sorted_by_average);
	RUN(min_max_merge_across_cpus);
	RUN(zero_and_clear);
	RUN(zeroed_hist_json);
	RUN(keyless_array_count);
	RUN(empty_maps_at_exit);
	RUN(multi_key_sort);
	arena_release(&A);
	return check_done();
}
