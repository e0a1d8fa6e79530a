/*
 * Prometheus exposition of maps (runtime/metrics.c) and the bucket
 * descriptions it and the heatmap use (runtime/hist.c). The rendering
 * tests fill real BPF maps (root; skipped otherwise) as the generated code
 * does, on two CPUs where there are two, and check the exact text.
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
#include "runtime/metrics.h"
#include "util/arena.h"
#include "util/strbuf.h"

static struct arena A;
static int ncpu;

static const char *edge(const struct hist_scale *s, uint32_t i)
{
	static struct strbuf sb;
	sb_reset(&sb);
	hist_bucket_edge(&sb, s, i);
	return sb_str(&sb);
}

static const char *name(const struct hist_scale *s, uint32_t i)
{
	static struct strbuf sb;
	sb_reset(&sb);
	hist_bucket_name(&sb, s, i);
	return sb_str(&sb);
}

TEST(log2_buckets_described)
{
	struct hist_scale s = { false, 0, 0, 0, 0 };
	int64_t max = 0;
	CHECK(hist_scale_nbuckets(&s) == HIST_LOG2_NBUCKETS);
	CHECK(hist_bucket_max(&s, 0, &max) && max == -1);
	CHECK(hist_bucket_max(&s, 1, &max) && max == 0);
	CHECK(hist_bucket_max(&s, 2, &max) && max == 1);
	CHECK(hist_bucket_max(&s, 4, &max) && max == 7); /* [4, 8) */
	CHECK(hist_bucket_max(&s, 12, &max) && max == 2047); /* [1K, 2K) */
	CHECK(hist_bucket_max(&s, 64, &max) && max == INT64_MAX);
	/* every bucket's values are its own */
	for (int64_t v = -3; v < 5000; v += 7) {
		uint64_t i = hist_log2_index(v);
		int64_t lo = -1;
		CHECK(hist_bucket_max(&s, (uint32_t)i, &max) && v <= max);
		if (i > 0)
			CHECK(hist_bucket_max(&s, (uint32_t)i - 1, &lo) && v > lo);
	}
	CHECK_STR(edge(&s, 0), "<0");
	CHECK_STR(edge(&s, 1), "0");
	CHECK_STR(edge(&s, 12), "1K");
	CHECK_STR(name(&s, 12), "[1K, 2K)");
}

TEST(linear_buckets_described)
{
	struct hist_scale s = { true, 0, 20, 5, 0 };
	int64_t max = 0;
	CHECK(hist_scale_nbuckets(&s) == 6);
	CHECK(hist_bucket_max(&s, 0, &max) && max == -1);
	CHECK(hist_bucket_max(&s, 1, &max) && max == 4);
	CHECK(hist_bucket_max(&s, 4, &max) && max == 19);
	CHECK(!hist_bucket_max(&s, 5, &max)); /* [20, ...): +Inf */
	CHECK_STR(edge(&s, 0), "<0");
	CHECK_STR(edge(&s, 2), "5");
	CHECK_STR(edge(&s, 5), "20+");
	CHECK_STR(name(&s, 5), "[20, ...)");
}

static bool have_bpf(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, 8, 8, 1, NULL);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static struct mapdump_map mk(const char *n, const struct type *key,
			     const struct type *value)
{
	struct mapdump_map m = { .name = n, .fd = -1, .key = key, .value = value,
				 .percpu = true };
	m.fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, NULL,
			      maplayout_key_size(key, value),
			      maplayout_value_size(value), 64, NULL);
	CHECK(m.fd >= 0);
	return m;
}

/* v on CPU 0 and, when there is one, 1 on CPU 1. */
static void put(const struct mapdump_map *m, const void *key, uint64_t v)
{
	uint64_t *vals = calloc((size_t)ncpu, 8);
	vals[0] = v;
	if (ncpu > 1)
		vals[1] = 1;
	CHECK(bpf_map_update_elem(m->fd, key, vals, BPF_ANY) == 0);
	free(vals);
}

static const char *render(const struct mapdump_map *m, bool cleared)
{
	static struct strbuf sb;
	struct metrics_map mm = { m, cleared };
	sb_reset(&sb);
	CHECK(metrics_render(&sb, &mm, 1, NULL) == 0);
	return sb_str(&sb);
}

TEST(count_with_tuple_keys_and_escapes)
{
	if (!have_bpf())
		SKIP("cannot create BPF maps (not root?)");
	const struct type *parts[2] = { type_new(&A, TY_STRING, 8),
					type_new(&A, TY_INT, 4) };
	const struct type *kt = type_tuple(&A, parts, 2);
	struct mapdump_map m = mk("@calls", kt, type_new(&A, TY_COUNT, 8));
	uint8_t key[16] = { 0 };
	memcpy(key + kt->fields[0].offset, "a\"b\\c", 5);
	uint32_t pid = 42;
	memcpy(key + kt->fields[1].offset, &pid, 4);
	put(&m, key, 9);
	uint64_t want = 9 + (ncpu > 1);
	char exp[512];
	snprintf(exp, sizeof(exp),
		 "# HELP sonde_calls_total @calls: count() of the script\n"
		 "# TYPE sonde_calls_total counter\n"
		 "sonde_calls_total{key1=\"a\\\"b\\\\c\",key2=\"42\"} %llu\n",
		 (unsigned long long)want);
	CHECK_STR(render(&m, false), exp);
	/* cleared by the script: a gauge, without _total */
	CHECK(strstr(render(&m, true), "# TYPE sonde_calls gauge\n"));
	close(m.fd);
}

TEST(hist_cumulative_buckets)
{
	if (!have_bpf())
		SKIP("cannot create BPF maps (not root?)");
	struct mapdump_map m = mk("@", NULL, type_new(&A, TY_HIST, 8));
	uint64_t k = hist_log2_index(5); /* [4, 8) */
	put(&m, &k, 3);
	k = hist_log2_index(1000); /* [512, 1K) */
	put(&m, &k, 2);
	uint64_t c = ncpu > 1;
	const char *s = render(&m, false);
	char line[128];
	CHECK(strstr(s, "# TYPE sonde histogram\n"));
	CHECK(strstr(s, "sonde_bucket{le=\"3\"} 0\n"));
	snprintf(line, sizeof(line), "sonde_bucket{le=\"7\"} %llu\n",
		 (unsigned long long)(3 + c));
	CHECK(strstr(s, line));
	snprintf(line, sizeof(line), "sonde_bucket{le=\"511\"} %llu\n",
		 (unsigned long long)(3 + c));
	CHECK(strstr(s, line));
	snprintf(line, sizeof(line), "sonde_bucket{le=\"1023\"} %llu\n",
		 (unsigned long long)(5 + 2 * c));
	CHECK(strstr(s, line));
	snprintf(line, sizeof(line),
		 "sonde_bucket{le=\"+Inf\"} %llu\nsonde_count %llu\n",
		 (unsigned long long)(5 + 2 * c),
		 (unsigned long long)(5 + 2 * c));
	CHECK(strstr(s, line));
	CHECK(!strstr(s, "sonde_sum"));
	close(m.fd);
}

TEST(strings_left_out)
{
	if (!have_bpf())
		SKIP("cannot create BPF maps (not root?)");
	struct mapdump_map m = { .name = "@name", .fd = -1,
				 .value = type_new(&A, TY_STRING, 16) };
	CHECK_STR(render(&m, false),
		  "# @name left out: its values are not numbers\n");
}

int main(void)
{
	arena_init(&A);
	ncpu = libbpf_num_possible_cpus();
	RUN(log2_buckets_described);
	RUN(linear_buckets_described);
	RUN(count_with_tuple_keys_and_escapes);
	RUN(hist_cumulative_buckets);
	RUN(strings_left_out);
	arena_release(&A);
	return check_done();
}
