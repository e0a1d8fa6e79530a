/* Histogram buckets and rendering, against bpftrace 0.26's output
 * (output/text.cpp, json.cpp, types_format.cpp). */
#include "check.h"

#include <stdint.h>
#include <string.h>

#include "runtime/hist.h"
#include "util/strbuf.h"

#define BAR0 "|                                                    |\n"
#define BAR13 "|@@@@@@@@@@@@@                                       |\n"
#define BAR26 "|@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
#define BAR52 "|@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"

TEST(log2_index_matches_bpftrace)
{
	CHECK(hist_log2_index(-1) == 0);
	CHECK(hist_log2_index(INT64_MIN) == 0);
	CHECK(hist_log2_index(0) == 1);
	CHECK(hist_log2_index(1) == 2);
	CHECK(hist_log2_index(2) == 3);
	CHECK(hist_log2_index(3) == 3);
	CHECK(hist_log2_index(4) == 4);
	CHECK(hist_log2_index(1023) == 11);
	CHECK(hist_log2_index(1024) == 12);
	CHECK(hist_log2_index(1 << 20) == 22);
	CHECK(hist_log2_index(0xffffffffLL) == 33);
	/* 0.17 put all of these in [2G, 4G); newer bpftrace and sonde do
	 * not. */
	CHECK(hist_log2_index(1LL << 32) == 34);
	CHECK(hist_log2_index((1LL << 40) - 1) == 41);
	CHECK(hist_log2_index(1LL << 40) == 42);
	CHECK(hist_log2_index(1LL << 62) == 64);
	CHECK(hist_log2_index(INT64_MAX) == HIST_LOG2_MAX_INDEX);
}

TEST(linear_index_matches_bpftrace)
{
	CHECK(hist_linear_index(-5, 0, 10, 2) == 0);
	CHECK(hist_linear_index(0, 0, 10, 2) == 1);
	CHECK(hist_linear_index(9, 0, 10, 2) == 5);
	CHECK(hist_linear_index(10, 0, 10, 2) == 6);
	CHECK(hist_linear_index(100, 0, 10, 2) == 6);
	/* step not dividing the range: 9 lands in "[10, ...)" as in 0.17 */
	CHECK(hist_linear_index(5, 0, 10, 3) == 2);
	CHECK(hist_linear_index(9, 0, 10, 3) == 4);
	CHECK(hist_linear_index(1, 3, 10, 2) == 0);
	CHECK(hist_linear_nbuckets(0, 10, 2) == 7);
	CHECK(hist_linear_nbuckets(0, 10, 3) == 5);
}

/* hist(-1), hist(0), hist(1), hist(2), hist(3), hist(1023), hist(1024),
 * hist(1 << 20) */
TEST(log2_text)
{
	uint64_t c[HIST_LOG2_NBUCKETS] = { 0 };
	c[0] = c[1] = c[2] = c[11] = c[12] = c[22] = 1;
	c[3] = 2;
	struct strbuf sb = STRBUF_INIT;
	hist_text_log2(&sb, c, HIST_LOG2_NBUCKETS, 0);
	CHECK_STR(sb_str(&sb),
		  "(..., 0)               1 " BAR26
		  "[0]                    1 " BAR26
		  "[1]                    1 " BAR26
		  "[2, 4)                 2 " BAR52
		  "[4, 8)                 0 " BAR0
		  "[8, 16)                0 " BAR0
		  "[16, 32)               0 " BAR0
		  "[32, 64)               0 " BAR0
		  "[64, 128)              0 " BAR0
		  "[128, 256)             0 " BAR0
		  "[256, 512)             0 " BAR0
		  "[512, 1K)              1 " BAR26
		  "[1K, 2K)               1 " BAR26
		  "[2K, 4K)               0 " BAR0
		  "[4K, 8K)               0 " BAR0
		  "[8K, 16K)              0 " BAR0
		  "[16K, 32K)             0 " BAR0
		  "[32K, 64K)             0 " BAR0
		  "[64K, 128K)            0 " BAR0
		  "[128K, 256K)           0 " BAR0
		  "[256K, 512K)           0 " BAR0
		  "[512K, 1M)             0 " BAR0
		  "[1M, 2M)               1 " BAR26);
	sb_free(&sb);
}

/* hist(1 << 40), hist(1 << 50), hist(1 << 62), hist(-1), hist(INT64_MAX) */
TEST(log2_text_top_buckets)
{
	uint64_t c[HIST_LOG2_NBUCKETS] = { 0 };
	c[0] = 1;
	c[33] = 4;
	c[52] = 1;
	c[64] = 4;
	struct strbuf sb = STRBUF_INIT;
	hist_text_log2(&sb, c, HIST_LOG2_NBUCKETS, 0);
	CHECK(!strncmp(sb_str(&sb),
		       "(..., 0)               1 " BAR13
		       "[0]                    0 " BAR0
		       "[1]                    0 " BAR0, 3 * 80));
	CHECK(strstr(sb_str(&sb), "[512M, 1G)             0 " BAR0
				  "[1G, 2G)               0 " BAR0
				  "[2G, 4G)               4 " BAR52
				  "[4G, 8G)               0 " BAR0) != NULL);
	CHECK(strstr(sb_str(&sb), "[512T, 1P)             0 " BAR0
				  "[1P, 2P)               1 " BAR13) != NULL);
	CHECK(strstr(sb_str(&sb), "[2E, 4E)               0 " BAR0
				  "[4E, 8E)               4 " BAR52) != NULL);
	CHECK(sb.len == 65 * 80);
	sb_free(&sb);
}

/* hist(1), hist(5) x 6, then print(@a, 0, 3): counts divided, and the
 * bars scaled to the divided counts (0.17 scaled them undivided) */
TEST(log2_text_div)
{
	uint64_t c[HIST_LOG2_NBUCKETS] = { 0 };
	c[2] = 1;
	c[4] = 6;
	struct strbuf sb = STRBUF_INIT;
	hist_text_log2(&sb, c, HIST_LOG2_NBUCKETS, 3);
	CHECK_STR(sb_str(&sb),
		  "[1]                    0 " BAR0
		  "[2, 4)                 0 " BAR0
		  "[4, 8)                 2 " BAR52);
	sb_reset(&sb);
	hist_json_log2(&sb, c, HIST_LOG2_NBUCKETS, 3);
	CHECK_STR(sb_str(&sb), "[{\"min\": 1, \"max\": 1, \"count\": 0},"
			       "{\"min\": 2, \"max\": 3, \"count\": 0},"
			       "{\"min\": 4, \"max\": 7, \"count\": 2}]");
	sb_free(&sb);
}

TEST(all_zero_renders_nothing)
{
	uint64_t c[HIST_LOG2_NBUCKETS] = { 0 };
	struct strbuf sb = STRBUF_INIT;
	hist_text_log2(&sb, c, HIST_LOG2_NBUCKETS, 0);
	CHECK_STR(sb_str(&sb), "");
	hist_json_log2(&sb, c, HIST_LOG2_NBUCKETS, 0);
	CHECK_STR(sb_str(&sb), "[]");
	sb_free(&sb);
}

/* lhist(x, 0, 10, 2) for x in -5, 0, 9, 10, 100 */
TEST(linear_text)
{
	uint64_t c[7] = { 1, 1, 0, 0, 0, 1, 2 };
	struct strbuf sb = STRBUF_INIT;
	hist_text_linear(&sb, c, 7, 0, 10, 2, 0);
	CHECK_STR(sb_str(&sb),
		  "(..., 0)               1 " BAR26
		  "[0, 2)                 1 " BAR26
		  "[2, 4)                 0 " BAR0
		  "[4, 6)                 0 " BAR0
		  "[6, 8)                 0 " BAR0
		  "[8, 10)                1 " BAR26
		  "[10, ...)              2 " BAR52);
	sb_reset(&sb);
	/* lhist(5, 0, 10, 3), lhist(10, 0, 10, 3): the last bucket starts
	 * where the steps end, 9 (0.17 said "[10, ...)") */
	uint64_t c3[5] = { 0, 0, 1, 0, 1 };
	hist_text_linear(&sb, c3, 5, 0, 10, 3, 0);
	CHECK_STR(sb_str(&sb),
		  "[3, 6)                 1 " BAR52
		  "[6, 9)                 0 " BAR0
		  "[9, ...)               1 " BAR52);
	sb_reset(&sb);
	/* lhist(x, 3, 10, 2) for x in 5, 3, 1 */
	uint64_t cf[5] = { 1, 1, 1, 0, 0 };
	hist_text_linear(&sb, cf, 5, 3, 10, 2, 0);
	CHECK_STR(sb_str(&sb),
		  "(..., 3)               1 " BAR52
		  "[3, 5)                 1 " BAR52
		  "[5, 7)                 1 " BAR52);
	sb_free(&sb);
}

/* A step of 1: buckets of one integer are "[5]", as bpftrace 0.26 (0.17:
 * "[5, 6)"). lhist(x, 3, 8, 1) for x in 1, 5, 5, 7, 9 */
TEST(linear_text_single_values)
{
	uint64_t c[7] = { 1, 0, 0, 2, 0, 1, 1 };
	struct strbuf sb = STRBUF_INIT;
	hist_text_linear(&sb, c, 7, 3, 8, 1, 0);
	CHECK_STR(sb_str(&sb),
		  "(..., 3)               1 " BAR26
		  "[3]                    0 " BAR0
		  "[4]                    0 " BAR0
		  "[5]                    2 " BAR52
		  "[6]                    0 " BAR0
		  "[7]                    1 " BAR26
		  "[8, ...)               1 " BAR26);
	sb_free(&sb);
}

/* K and M labels only when the step is a multiple of 1K, as bpftrace
 * 0.26 (0.17 put them on any multiple): lhist(x, 0, 2048, 512) */
TEST(linear_text_no_k_labels)
{
	uint64_t c[6] = { 0, 0, 1, 0, 1, 0 };
	struct strbuf sb = STRBUF_INIT;
	hist_text_linear(&sb, c, 6, 0, 2048, 512, 0);
	CHECK_STR(sb_str(&sb),
		  "[512, 1024)            1 " BAR52
		  "[1024, 1536)           0 " BAR0
		  "[1536, 2048)           1 " BAR52);
	sb_free(&sb);
}

/* lhist(1024, 0, 1048576, 2048), lhist(2097152, 0, 1048576, 2048) */
TEST(linear_text_k_m_labels)
{
	static uint64_t c[514];
	c[1] = 1;
	c[513] = 1;
	struct strbuf sb = STRBUF_INIT;
	hist_text_linear(&sb, c, 514, 0, 1048576, 2048, 0);
	CHECK(!strncmp(sb_str(&sb),
		       "[0, 2K)                1 " BAR52
		       "[2K, 4K)               0 " BAR0, 2 * 80));
	CHECK(strstr(sb_str(&sb), "[1016K, 1018K)         0 " BAR0
				  "[1018K, 1020K)         0 " BAR0
				  "[1020K, 1022K)         0 " BAR0
				  "[1022K, 1M)            0 " BAR0
				  "[1M, ...)              1 " BAR52) != NULL);
	sb_free(&sb);
}

TEST(log2_json)
{
	uint64_t c[HIST_LOG2_NBUCKETS] = { 0 };
	c[0] = c[1] = c[2] = c[3] = c[11] = c[12] = c[22] = 1;
	struct strbuf sb = STRBUF_INIT;
	hist_json_log2(&sb, c, HIST_LOG2_NBUCKETS, 0);
	CHECK_STR(sb_str(&sb), "[{\"max\": -1, \"count\": 1},{\"min\": 0, \"max\": 0, \"count\": 1},{\"min\": 1, \"max\": 1, \"count\": 1},{\"min\": 2, \"max\": 3, \"count\": 1},{\"min\": 4, \"max\": 7, \"count\": 0},{\"min\": 8, \"max\": 15, \"count\": 0},{\"min\": 16, \"max\": 31, \"count\": 0},{\"min\": 32, \"max\": 63, \"count\": 0},{\"min\": 64, \"max\": 127, \"count\": 0},{\"min\": 128, \"max\": 255, \"count\": 0},{\"min\": 256, \"max\": 511, \"count\": 0},{\"min\": 512, \"max\": 1023, \"count\": 1},{\"min\": 1024, \"max\": 2047, \"count\": 1},{\"min\": 2048, \"max\": 4095, \"count\": 0},{\"min\": 4096, \"max\": 8191, \"count\": 0},{\"min\": 8192, \"max\": 16383, \"count\": 0},{\"min\": 16384, \"max\": 32767, \"count\": 0},{\"min\": 32768, \"max\": 65535, \"count\": 0},{\"min\": 65536, \"max\": 131071, \"count\": 0},{\"min\": 131072, \"max\": 262143, \"count\": 0},{\"min\": 262144, \"max\": 524287, \"count\": 0},{\"min\": 524288, \"max\": 1048575, \"count\": 0},{\"min\": 1048576, \"max\": 2097151, \"count\": 1}]");
	sb_free(&sb);
}

TEST(linear_json)
{
	uint64_t c[7] = { 1, 1, 0, 0, 0, 1, 2 };
	struct strbuf sb = STRBUF_INIT;
	hist_json_linear(&sb, c, 7, 0, 10, 2, 0);
	CHECK_STR(sb_str(&sb), "[{\"max\": -1, \"count\": 1},{\"min\": 0, \"max\": 1, \"count\": 1},{\"min\": 2, \"max\": 3, \"count\": 0},{\"min\": 4, \"max\": 5, \"count\": 0},{\"min\": 6, \"max\": 7, \"count\": 0},{\"min\": 8, \"max\": 9, \"count\": 1},{\"min\": 10, \"count\": 2}]");
	sb_reset(&sb);
	/* lhist(1, 3, 10, 2), lhist(20, 3, 10, 2) */
	uint64_t cf[5] = { 1, 0, 0, 0, 1 };
	hist_json_linear(&sb, cf, 5, 3, 10, 2, 0);
	CHECK_STR(sb_str(&sb), "[{\"max\": 2, \"count\": 1},{\"min\": 3, \"max\": 4, \"count\": 0},{\"min\": 5, \"max\": 6, \"count\": 0},{\"min\": 7, \"max\": 8, \"count\": 0},{\"min\": 9, \"count\": 1}]");
	sb_free(&sb);
}

/* hist(n, k): the index bpftrace 0.26's log2(n, k) computes (its
 * comment's example: 225 with k = 2 is 28), k = 0 the plain log2, and
 * the highest index (64 - k) << k fits the bucket count. */
TEST(log2k_index_matches_bpftrace)
{
	CHECK(hist_log2k_index(225, 2) == 28);
	CHECK(hist_log2k_index(-3, 3) == 0);
	CHECK(hist_log2k_index(0, 3) == 1);
	CHECK(hist_log2k_index(7, 3) == 8);
	CHECK(hist_log2k_index(15, 3) == 16);
	CHECK(hist_log2k_index(16, 3) == 17);
	CHECK(hist_log2k_index(17, 3) == 17);
	CHECK(hist_log2k_index(18, 3) == 18);
	for (int64_t v = -2; v < 5000; v += 7)
		CHECK(hist_log2k_index(v, 0) == hist_log2_index(v));
	for (uint32_t k = 0; k <= 5; k++)
		CHECK(hist_log2k_index(INT64_MAX, k) + 1 ==
		      hist_log2k_nbuckets(k));
}

/* 2^k buckets per power of 2, labelled as 0.26 labels them: integers up
 * to 2 << k, then [16, 18) and its suffixed edges ("1024K"). */
TEST(log2k_text)
{
	uint64_t counts[200] = { 0 };
	counts[hist_log2k_index(15, 3)] = 1;
	counts[hist_log2k_index(16, 3)] = 2;
	counts[hist_log2k_index(1000000, 3)] = 4;
	struct strbuf sb = STRBUF_INIT;
	hist_text_log2k(&sb, counts, 200, 3, 1);
	const char *t = sb_str(&sb);
	CHECK(strncmp(t, "[15]                   1 |@@@@@@@@@@@@@ ", 40) == 0);
	CHECK(strstr(t, "|\n[16, 18)               2 |@@@@") != NULL);
	CHECK(strstr(t, "\n[960K, 1024K)          4 |@@@@") != NULL);
	sb_reset(&sb);
	hist_json_log2k(&sb, counts, 200, 3, 1);
	CHECK(strncmp(sb_str(&sb), "[{\"min\": 15, \"max\": 15, \"count\": "
		      "1},{\"min\": 16, \"max\": 17, \"count\": 2}", 70) == 0);
	sb_free(&sb);
}

int main(void)
{
	RUN(log2_index_matches_bpftrace);
	RUN(linear_index_matches_bpftrace);
	RUN(log2_text);
	RUN(log2_text_top_buckets);
	RUN(log2_text_div);
	RUN(all_zero_renders_nothing);
	RUN(linear_text);
	RUN(linear_text_single_values);
	RUN(linear_text_no_k_labels);
	RUN(linear_text_k_m_labels);
	RUN(log2_json);
	RUN(linear_json);
	RUN(log2k_index_matches_bpftrace);
	RUN(log2k_text);
	return check_done();
}
