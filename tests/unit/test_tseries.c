/* tseries(): merging the CPUs' slots of a bucket as bpftrace 0.26's
 * reduce_tseries_value does, and the text graph and JSON of a series. */
#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/types.h"
#include "runtime/tseries.h"
#include "util/strbuf.h"

struct slot {
	int64_t val, meta;
	uint64_t epoch;
};

static struct slot merged(int agg, bool sgn, const struct slot *cpus, int n)
{
	struct type t = { .kind = TY_TSERIES, .size = 24, .lstep = agg,
			  .is_signed = sgn };
	struct slot out;
	tseries_merge(&t, (const uint8_t *)cpus, n, sizeof(*cpus),
		      (uint8_t *)&out);
	return out;
}

/* Only the CPUs of the newest epoch count; a CPU that never used the
 * bucket (epoch 0) is no value. */
TEST(merge_newest_epoch)
{
	struct slot cpus[3] = { { 5, 100, 7 }, { 9, 50, 8 }, { 1, 10, 0 } };
	struct slot m = merged(TSERIES_SUM, true, cpus, 3);
	CHECK(m.epoch == 8 && m.val == 9);
	struct slot none[2] = { { 5, 1, 0 }, { 6, 1, 0 } };
	m = merged(TSERIES_SUM, true, none, 2);
	CHECK(m.epoch == 0 && m.val == 0);
}

TEST(merge_aggregations)
{
	struct slot cpus[2] = { { -4, 200, 3 }, { 10, 100, 3 } };
	CHECK(merged(TSERIES_LAST, true, cpus, 2).val == -4); /* newer */
	CHECK(merged(TSERIES_SUM, true, cpus, 2).val == 6);
	CHECK(merged(TSERIES_MIN, true, cpus, 2).val == -4);
	CHECK(merged(TSERIES_MAX, true, cpus, 2).val == 10);
	/* unsigned values compare as unsigned: -4 is huge */
	CHECK(merged(TSERIES_MAX, false, cpus, 2).val == -4);
	struct slot avg[2] = { { 10, 2, 3 }, { 20, 3, 3 } };
	CHECK(merged(TSERIES_AVG, true, avg, 2).val == 6);
	struct slot navg[1] = { { -7, 2, 3 } };
	CHECK(merged(TSERIES_AVG, true, navg, 1).val == -3);
}

TEST(text_and_json)
{
	struct out_tpoint p[3] = {
		{ 500000000, -1, true }, { 600000000, 0, false },
		{ 700000000, 1, true },
	};
	setenv("TZ", "UTC", 1);
	struct strbuf sb = STRBUF_INIT;
	tseries_text(&sb, p, 3, true);
	const char *want =
		"             -1                                                  1\n"
		"hh:mm:ss.ms  |___________________________________________________|\n"
		"00:00:00.500 *                         .                         | -1\n"
		"00:00:00.600 |                         .                         | -\n"
		"00:00:00.700 |                         .                         * 1\n"
		"             v___________________________________________________v\n"
		"             -1                                                  1\n";
	CHECK_STR(sb_str(&sb), want);
	sb_reset(&sb);
	tseries_json(&sb, p, 3, true);
	CHECK_STR(sb_str(&sb), "[{\"interval_start\":\"1970-01-01 "
		  "00:00:00.500000000\",\"value\":-1},{\"interval_start\":"
		  "\"1970-01-01 00:00:00.700000000\",\"value\":1}]");
	sb_reset(&sb);
	tseries_text(&sb, p, 0, true);
	CHECK_STR(sb_str(&sb), "<no data>");
	sb_free(&sb);
}

int main(void)
{
	RUN(merge_newest_epoch);
	RUN(merge_aggregations);
	RUN(text_and_json);
	return check_done();
}
