/* SPDX-License-Identifier: MIT */
/*
 * The end of a region's call fused with its statistics (tly_region_acc_add): per event what
 * tally_snapshot_delta gives for one (cpu, thread) position, here with the cases software events never
 * reach (a multiplexed group, one that did not run, an event without descriptors) and the subtraction.
 */
#include "harness.h"
#include "region/region_stats.h"

/* Events 0 and 2 in group A (u64s 0..6), event 1 alone in group B (7..11), event 3 in no group. */
static const size_t order[] = { 0, 2, 1 };
static const size_t unsupported[] = { 3 };
static const struct tly_raw_group groups[] = {
	{ .members = order, .at = 0, .nr = 2, .stride = 2, .first = SIZE_MAX },
	{ .members = order + 2, .at = 7, .nr = 1, .stride = 2, .first = SIZE_MAX },
};
static const struct tly_raw_layout layout = { .size = 12, .groups = (struct tly_raw_group *)groups,
	                                      .groups_end = (struct tly_raw_group *)groups + 2,
	                                      .order = (size_t *)order, .unsupported = (size_t *)unsupported,
	                                      .nr_unsupported = 1 };

/* Two calls: A exact then not running; B multiplexed (a quarter of its window) then exact. */
static const uint64_t readings[3][12] = {
	{ 2, 100, 100, 10, 1, 0, 3, 1, 0, 0, 0, 2 },
	{ 2, 200, 200, 15, 1, 7, 3, 1, 400, 100, 30, 2 },
	{ 2, 300, 200, 15, 1, 9, 3, 1, 500, 200, 40, 2 },
};

static void each_event_is_tally_snapshot_delta_s(void)
{
	struct tly_region_acc acc[4];
	uint64_t overhead[4] = { 0 };
	tly_region_acc_init(acc, 4, unsupported, 1);
	tly_region_acc_add(acc, layout.groups, layout.groups_end, readings[0], readings[1], overhead, false, false);
	tly_region_acc_add(acc, layout.groups, layout.groups_end, readings[1], readings[2], overhead, false, false);
	CHECK_INT(tly_region_acc_status(&acc[0], 2), TALLY_STATUS_EXACT);
	CHECK_U64(tly_region_acc_counted(&acc[0], 2), 1);
	CHECK_U64(acc[0].sum, 5);
	CHECK(acc[0].ratio == 1.0);
	CHECK_U64(tly_region_acc_counted(&acc[2], 2), 1);
	CHECK_U64(acc[2].sum, 7);
	/* 30 over a quarter of the window scales to 120, then 10 exact. */
	CHECK_INT(tly_region_acc_status(&acc[1], 2), TALLY_STATUS_SCALED);
	CHECK_U64(tly_region_acc_counted(&acc[1], 2), 2);
	CHECK_U64(acc[1].sum, 130);
	CHECK_U64(acc[1].min, 10);
	CHECK_U64(acc[1].max, 120);
	struct tly_region_stats stats;
	tly_region_stats_init(&stats, 1);
	tly_region_stats_add(&stats, &acc[1], 2);
	CHECK(stats.mean == 65.0);
	CHECK(stats.m2 == 6050.0);
	CHECK(acc[1].ratio == 0.25);
	CHECK_INT(tly_region_acc_status(&acc[3], 2), TALLY_STATUS_NOT_SUPPORTED);
	CHECK_U64(tly_region_acc_counted(&acc[3], 2), 0);
}

static void the_overhead_is_subtracted_when_asked(void)
{
	struct tly_region_acc acc[4];
	uint64_t overhead[4] = { 6, 20, 2, 0 };
	tly_region_acc_init(acc, 4, unsupported, 1);
	tly_region_acc_add(acc, layout.groups, layout.groups_end, readings[0], readings[1], overhead, true, false);
	tly_region_acc_add(acc, layout.groups, layout.groups_end, readings[1], readings[2], overhead, true, false);
	CHECK_U64(acc[0].sum, 0); /* 5 - 6 saturates */
	CHECK_U64(acc[2].sum, 5);
	CHECK_U64(acc[1].sum, 100); /* 120 - 20, and 10 - 20 saturates */
	CHECK_U64(acc[1].min, 0);
}

/* A lean layout (each group's members side by side from its first event, read from user space: their
 * values side by side in a reading too) counts event by event what the general one counts through its
 * member lists: the same readings, the same statistics, the exact, scaled, first and not-running calls
 * all taken. */
static void the_lean_layout_counts_the_same(void)
{
	static const size_t side_by_side[] = { 0, 1, 2 };
	static const struct tly_raw_group general_groups[] = {
		{ .members = side_by_side, .at = 0, .nr = 2, .stride = 2, .first = 0 },
		{ .members = side_by_side + 2, .at = 7, .nr = 1, .stride = 2, .first = 2 },
	};
	static const struct tly_raw_group lean_groups[] = {
		{ .members = side_by_side, .at = 0, .nr = 2, .stride = 1, .first = 0 },
		{ .members = side_by_side + 2, .at = 5, .nr = 1, .stride = 1, .first = 2 },
	};
	/* readings without the ids */
	static const uint64_t lean_readings[3][9] = {
		{ 2, 100, 100, 10, 0, 1, 0, 0, 0 },
		{ 2, 200, 200, 15, 7, 1, 400, 100, 30 },
		{ 2, 300, 200, 15, 9, 1, 500, 200, 40 },
	};
	uint64_t overhead[3] = { 0 };
	struct tly_region_acc general[3], lean[3];
	tly_region_acc_init(general, 3, NULL, 0);
	tly_region_acc_init(lean, 3, NULL, 0);
	for (size_t call = 0; call < 2; call++) {
		tly_region_acc_add(general, general_groups, general_groups + 2, readings[call], readings[call + 1],
		                   overhead, false, false);
		tly_region_acc_add(lean, lean_groups, lean_groups + 2, lean_readings[call], lean_readings[call + 1],
		                   overhead, false, true);
	}
	for (size_t i = 0; i < 3; i++) {
		CHECK_INT(tly_region_acc_status(&lean[i], 2), tly_region_acc_status(&general[i], 2));
		CHECK_U64(tly_region_acc_counted(&lean[i], 2), tly_region_acc_counted(&general[i], 2));
		CHECK_U64(lean[i].sum, general[i].sum);
		CHECK_U64(lean[i].min, general[i].min);
		CHECK_U64(lean[i].max, general[i].max);
		CHECK(lean[i].squares == general[i].squares);
		CHECK(lean[i].ratio == general[i].ratio);
	}
	/* Event 1 is group A's second member here (readings' u64 5): 7 in the first call, exact; the second
	 * call, where A did not run, counts nothing. */
	CHECK_U64(lean[1].sum, 7);
	CHECK_U64(tly_region_acc_counted(&lean[1], 2), 1);
	CHECK_INT(tly_region_acc_status(&lean[2], 2), TALLY_STATUS_SCALED);
}

/* The means and deviations a read makes of the calls' sums: exact where the calls differ little from each
 * other and much from zero (a plain sum of squares loses them in rounding), and the same for any split of
 * the calls over threads. */
static void statistics_from_sums_are_exact(void)
{
	static const struct tly_raw_group one[] = { { .members = order, .at = 0, .nr = 1, .stride = 2 } };
	const struct tly_raw_layout l = { .size = 5, .groups = (struct tly_raw_group *)one,
		                          .groups_end = (struct tly_raw_group *)one + 1,
		                          .order = (size_t *)order };
	const uint64_t base = 1000000000000000ull, deltas[] = { 3, 5, 4, 8, 5, 5 };
	uint64_t overhead[1] = { 0 };
	struct tly_region_acc whole, parts[3];
	tly_region_acc_init(&whole, 1, NULL, 0);
	tly_region_acc_init(parts, 3, NULL, 0);
	for (size_t k = 0; k < 6; k++) {
		const uint64_t begin[5] = { 0, 1, 1, 0, 0 }, end[5] = { 0, 2, 2, base + deltas[k], 0 };
		tly_region_acc_add(&whole, l.groups, l.groups_end, begin, end, overhead, false, false);
		tly_region_acc_add(&parts[k / 2], l.groups, l.groups_end, begin, end, overhead, false, false);
	}
	struct tly_region_stats one_thread, three_threads;
	tly_region_stats_init(&one_thread, 1);
	tly_region_stats_init(&three_threads, 1);
	tly_region_stats_add(&one_thread, &whole, 6);
	for (size_t k = 0; k < 3; k++)
		tly_region_stats_add(&three_threads, &parts[k], 2);
	/* deltas: mean 5, squared deviations 4 + 0 + 1 + 9 + 0 + 0 = 14 */
	CHECK(one_thread.mean == (double)(base + 5));
	CHECK(one_thread.m2 == 14.0);
	CHECK(three_threads.m2 == 14.0);
	CHECK(three_threads.mean == one_thread.mean);
	CHECK_U64(three_threads.counted, 6);
	CHECK_U64(three_threads.min, base + 3);
	CHECK_U64(three_threads.max, base + 8);
	CHECK_INT(three_threads.status, TALLY_STATUS_EXACT);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "each_event_is_tally_snapshot_delta_s", each_event_is_tally_snapshot_delta_s },
		{ "the_overhead_is_subtracted_when_asked", the_overhead_is_subtracted_when_asked },
		{ "the_lean_layout_counts_the_same", the_lean_layout_counts_the_same },
		{ "statistics_from_sums_are_exact", statistics_from_sums_are_exact },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
