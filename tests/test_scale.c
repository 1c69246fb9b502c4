/* SPDX-License-Identifier: MIT */
/* Scaling multiplexed counts without overflow, and deltas between readings. */
#include "harness.h"

#include <tally/evlist.h>

static uint64_t scaled_of(uint64_t value, uint64_t enabled, uint64_t running, enum tally_count_status *status)
{
	struct tally_count c = { .value = value, .enabled = enabled, .running = running, .id = 1 };
	uint64_t out = 12345;
	*status = tally_count_scale(&c, &out);
	return out;
}

static void exact_and_not_counted(void)
{
	enum tally_count_status st;
	CHECK_U64(scaled_of(1000, 500, 500, &st), 1000);
	CHECK_INT(st, TALLY_COUNT_EXACT);
	CHECK_U64(scaled_of(UINT64_MAX, UINT64_MAX, UINT64_MAX, &st), UINT64_MAX);
	CHECK_INT(st, TALLY_COUNT_EXACT);
	CHECK_U64(scaled_of(0, 0, 0, &st), 0);
	CHECK_INT(st, TALLY_COUNT_NOT_COUNTED);
	CHECK_U64(scaled_of(77, 1000, 0, &st), 0);
	CHECK_INT(st, TALLY_COUNT_NOT_COUNTED);
	/* A sum over CPUs may round running a hair above enabled: the value stands. */
	CHECK_U64(scaled_of(50, 999, 1000, &st), 50);
	CHECK_INT(st, TALLY_COUNT_EXACT);
	struct tally_count c = { .value = 3, .enabled = 2, .running = 1 };
	CHECK_INT(tally_count_scale(&c, NULL), TALLY_COUNT_SCALED);
}

static void scaled_simple_ratios(void)
{
	enum tally_count_status st;
	CHECK_U64(scaled_of(1000, 300, 100, &st), 3000);
	CHECK_INT(st, TALLY_COUNT_SCALED);
	/* Truncated toward zero: 10 x 7 / 3 = 23.3... */
	CHECK_U64(scaled_of(10, 7, 3, &st), 23);
}

static void no_overflow_on_the_way(void)
{
	enum tally_count_status st;
	/* value x enabled overflows 64 bits long before the quotient does. */
	CHECK_U64(scaled_of(UINT64_C(1) << 62, UINT64_C(3) << 40, UINT64_C(2) << 40, &st),
	          (UINT64_C(1) << 62) + (UINT64_C(1) << 61));
	CHECK_INT(st, TALLY_COUNT_SCALED);
	/* enabled huge, running one less: the value stays just about the same. */
	CHECK_U64(scaled_of(UINT64_C(1000000007), UINT64_MAX, UINT64_MAX - 1, &st), UINT64_C(1000000007));
	/* value near 2^64 over a ratio just above 1: the exact 128-bit quotient, then saturation. */
	CHECK_U64(scaled_of(UINT64_MAX - 10, 1000001, 1000000, &st), UINT64_MAX);
	CHECK_INT(st, TALLY_COUNT_SCALED);
	CHECK_U64(scaled_of(UINT64_MAX / 2, 2, 1, &st), UINT64_MAX - 1);
	CHECK_U64(scaled_of(UINT64_MAX / 2 + 1, 2, 1, &st), UINT64_MAX);
	/* Everything at the top: value x enabled = (2^64-1)^2, over running 2^64-2. */
	CHECK_U64(scaled_of(UINT64_MAX, UINT64_MAX, UINT64_MAX - 1, &st), UINT64_MAX);
	/* A tiny running over a huge enabled. */
	CHECK_U64(scaled_of(1, UINT64_C(1) << 63, 1, &st), UINT64_C(1) << 63);
}

static void deltas(void)
{
	struct tally_count a = { .value = 100, .enabled = 1000, .running = 800, .id = 7, .lost = 1 };
	struct tally_count b = { .value = 250, .enabled = 2000, .running = 1700, .id = 7, .lost = 1 };
	struct tally_count d;
	CHECK_INT(tally_count_delta(&a, &b, &d, sizeof(d)), 0);
	CHECK_U64(d.value, 150);
	CHECK_U64(d.enabled, 1000);
	CHECK_U64(d.running, 900);
	CHECK_U64(d.id, 7);
	CHECK_U64(d.lost, 0);
	CHECK_INT(tally_count_delta(&b, &a, &d, sizeof(d)), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "smaller");
	b.id = 8;
	CHECK_INT(tally_count_delta(&a, &b, &d, sizeof(d)), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "different events");
	CHECK_INT(tally_count_delta(&a, NULL, &d, sizeof(d)), -EINVAL);
	/* Full 64-bit range differences. */
	struct tally_count lo = { .id = 1 }, hi = { .value = UINT64_MAX, .enabled = UINT64_MAX,
		                                    .running = UINT64_MAX, .id = 1 };
	CHECK_INT(tally_count_delta(&lo, &hi, &d, sizeof(d)), 0);
	CHECK_U64(d.value, UINT64_MAX);
	/* An interval the event spent off its counter (multiplexed out): enabled grew, running and the
	 * value did not; a delta of 0 counts running 0, not a reset. */
	struct tally_count off = { .value = 250, .enabled = 3000, .running = 1700, .id = 7, .lost = 1 };
	b.id = 7;
	CHECK_INT(tally_count_delta(&b, &off, &d, sizeof(d)), 0);
	CHECK_U64(d.value, 0);
	CHECK_U64(d.enabled, 1000);
	CHECK_U64(d.running, 0);
	CHECK_INT(tally_count_delta(&b, &b, &d, sizeof(d)), 0); /* nothing between two reads */
	CHECK_U64(d.enabled, 0);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "exact_and_not_counted", exact_and_not_counted },
		{ "scaled_simple_ratios", scaled_simple_ratios },
		{ "no_overflow_on_the_way", no_overflow_on_the_way },
		{ "deltas", deltas },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
