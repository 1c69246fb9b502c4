/* SPDX-License-Identifier: MIT */
/* The read_format decoder on constructed buffers: every layout, id matching, and malformed input. */
#include "evsel/group_read.h"
#include "harness.h"

#include <tally/common.h>

#define TE PERF_FORMAT_TOTAL_TIME_ENABLED
#define TR PERF_FORMAT_TOTAL_TIME_RUNNING
#define ID PERF_FORMAT_ID
#define GR PERF_FORMAT_GROUP
#define LO PERF_FORMAT_LOST

static void sizes_follow_the_layout(void)
{
	CHECK_INT(tly_read_size(0, 1), 8);
	CHECK_INT(tly_read_size(TE | TR, 1), 24);
	CHECK_INT(tly_read_size(TE | TR | ID | LO, 1), 40);
	CHECK_INT(tly_read_size(GR, 3), 8 + 3 * 8);
	CHECK_INT(tly_read_size(GR | TE | TR | ID, 3), 8 * (3 + 3 * 2));
	CHECK_INT(tly_read_size(GR | TE | TR | ID | LO, 4), 8 * (3 + 4 * 3));
}

/* The kernel's 16 KiB limit on a group's read (perf_event_validate_size): 1022 events with tally's
 * layout, 681 with PERF_FORMAT_LOST as well (which tally's counting reads no longer ask for; 682 events
 * of one PMU used to fail to open as one packed group). */
static void largest_group_that_fits(void)
{
	CHECK_INT(tly_read_max_group(GR | TE | TR | ID), 1022);
	CHECK(tly_read_size(GR | TE | TR | ID, 1022) <= TLY_GROUP_READ_MAX);
	CHECK(tly_read_size(GR | TE | TR | ID, 1023) > TLY_GROUP_READ_MAX);
	CHECK_INT(tly_read_max_group(GR | TE | TR | ID | LO), 681);
	CHECK(tly_read_size(GR | TE | TR | ID | LO, 682) > TLY_GROUP_READ_MAX);
	CHECK_INT(tly_read_max_group(GR), 2047);
	CHECK_INT(tly_read_max_group(TE | TR | ID), 1);
}

/* The layout tally's group reads have now (no lost), through the same in-order pass the counter's read
 * path inlines: a whole group of 700 in kernel order, then one out of order that it hands back. */
static void group_without_lost_in_order(void)
{
	enum { N = 700 };
	static uint64_t buf[3 + 2 * N], ids[N];
	static struct tally_count c[N];
	buf[0] = N;
	buf[1] = 1000;
	buf[2] = 400;
	for (size_t k = 0; k < N; k++) {
		ids[k] = 100 + k;
		buf[3 + 2 * k] = 7 * k;
		buf[3 + 2 * k + 1] = ids[k];
	}
	CHECK_INT(sizeof(buf), tly_read_size(GR | TE | TR | ID, N));
	CHECK(tly_read_decode_group_in_order(buf, sizeof(struct tly_group_entry), ids, N, c));
	CHECK_U64(c[N - 1].value, 7 * (N - 1));
	CHECK_U64(c[N - 1].running, 400);
	CHECK_U64(c[N - 1].lost, 0);
	memset(c, 0, sizeof(c));
	CHECK_INT(tly_read_decode(buf, sizeof(buf), GR | TE | TR | ID, ids, N, c), 0);
	CHECK_U64(c[3].value, 21);
	CHECK_U64(c[3].enabled, 1000);
	CHECK_U64(c[3].id, 103);
	/* Another group size, or two entries swapped: not for the in-order pass. */
	CHECK(!tly_read_decode_group_in_order(buf, sizeof(struct tly_group_entry), ids, N - 1, c));
	buf[3 + 1] = ids[1];
	buf[3 + 2 + 1] = ids[0];
	CHECK(!tly_read_decode_group_in_order(buf, sizeof(struct tly_group_entry), ids, N, c));
	buf[3] = 0;
	buf[3 + 2] = 7;
	CHECK_INT(tly_read_decode(buf, sizeof(buf), GR | TE | TR | ID, ids, N, c), 0);
	CHECK_U64(c[0].value, 7);
	CHECK_U64(c[1].value, 0);
}

static void single_event_every_combination(void)
{
	/* For each subset of the optional fields, lay out value 7, enabled 100, running 50, id 9, lost 3. */
	static const uint64_t flags[] = { TE, TR, ID, LO };
	static const uint64_t field[] = { 100, 50, 9, 3 };
	for (unsigned mask = 0; mask < 16; mask++) {
		uint64_t fmt = 0, buf[5];
		size_t n = 0;
		buf[n++] = 7;
		for (int f = 0; f < 4; f++)
			if (mask & (1u << f)) {
				fmt |= flags[f];
				buf[n++] = field[f];
			}
		CHECK_INT(tly_read_size(fmt, 1), n * 8);
		uint64_t id = 9;
		struct tally_count c;
		memset(&c, 0xff, sizeof(c));
		CHECK_INT(tly_read_decode(buf, n * 8, fmt, &id, 1, &c), 0);
		CHECK_U64(c.value, 7);
		CHECK_U64(c.enabled, (fmt & TE) ? 100 : 0);
		CHECK_U64(c.running, (fmt & TR) ? 50 : 0);
		CHECK_U64(c.id, 9);
		CHECK_U64(c.lost, (fmt & LO) ? 3 : 0);
		/* One byte short is a short read, whatever the layout. */
		CHECK_INT(tly_read_decode(buf, n * 8 - 1, fmt, &id, 1, &c), -EIO);
	}
}

static void single_event_wrong_id(void)
{
	uint64_t buf[] = { 7, 100, 100, 10 };
	uint64_t id = 9;
	struct tally_count c;
	CHECK_INT(tly_read_decode(buf, sizeof(buf), TE | TR | ID, &id, 1, &c), -EPROTO);
	CHECK_CONTAINS(tally_last_error(), "0xa");
}

/* A group {leader id 11, member id 22, member id 33} with times 1000/500. */
static size_t build_group(uint64_t *buf, uint64_t fmt, const uint64_t *order_ids, const uint64_t *values)
{
	size_t n = 0;
	buf[n++] = 3;
	if (fmt & TE)
		buf[n++] = 1000;
	if (fmt & TR)
		buf[n++] = 500;
	for (int i = 0; i < 3; i++) {
		buf[n++] = values[i];
		if (fmt & ID)
			buf[n++] = order_ids[i];
		if (fmt & LO)
			buf[n++] = order_ids[i] / 11;
	}
	return n * 8;
}

static void group_in_kernel_order(void)
{
	static const uint64_t ids[] = { 11, 22, 33 };
	static const uint64_t values[] = { 111, 222, 333 };
	const uint64_t formats[] = { GR | ID, GR | TE | TR | ID, GR | TE | TR | ID | LO, GR | TE | ID | LO };
	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
		uint64_t buf[16];
		size_t len = build_group(buf, formats[f], ids, values);
		CHECK_INT(len, tly_read_size(formats[f], 3));
		struct tally_count c[3];
		CHECK_INT(tly_read_decode(buf, len, formats[f], ids, 3, c), 0);
		for (int k = 0; k < 3; k++) {
			CHECK_U64(c[k].value, values[k]);
			CHECK_U64(c[k].id, ids[k]);
			CHECK_U64(c[k].enabled, (formats[f] & TE) ? 1000 : 0);
			CHECK_U64(c[k].running, (formats[f] & TR) ? 500 : 0);
			CHECK_U64(c[k].lost, (formats[f] & LO) ? ids[k] / 11 : 0);
		}
	}
}

static void group_matched_by_id_not_position(void)
{
	/* The buffer lists the members swapped (and the leader last): values must follow their ids. */
	static const uint64_t expected_ids[] = { 11, 22, 33 };
	static const uint64_t buffer_ids[] = { 33, 22, 11 };
	static const uint64_t buffer_values[] = { 333, 222, 111 };
	uint64_t fmt = GR | TE | TR | ID | LO, buf[16];
	size_t len = build_group(buf, fmt, buffer_ids, buffer_values);
	struct tally_count c[3];
	CHECK_INT(tly_read_decode(buf, len, fmt, expected_ids, 3, c), 0);
	CHECK_U64(c[0].value, 111);
	CHECK_U64(c[1].value, 222);
	CHECK_U64(c[2].value, 333);
	CHECK_U64(c[0].lost, 1);
	CHECK_U64(c[2].lost, 3);
}

static void group_with_unknown_or_repeated_id(void)
{
	static const uint64_t expected_ids[] = { 11, 22, 33 };
	static const uint64_t values[] = { 1, 2, 3 };
	uint64_t fmt = GR | TE | TR | ID, buf[16];
	struct tally_count c[3];

	static const uint64_t missing[] = { 11, 22, 44 };  /* 33 absent, 44 unknown */
	size_t len = build_group(buf, fmt, missing, values);
	CHECK_INT(tly_read_decode(buf, len, fmt, expected_ids, 3, c), -EPROTO);
	CHECK_CONTAINS(tally_last_error(), "0x2c");

	static const uint64_t repeated[] = { 11, 22, 22 };
	len = build_group(buf, fmt, repeated, values);
	CHECK_INT(tly_read_decode(buf, len, fmt, expected_ids, 3, c), -EPROTO);
	CHECK_CONTAINS(tally_last_error(), "twice");
}

static void group_of_other_size(void)
{
	static const uint64_t ids[] = { 11, 22, 33 };
	static const uint64_t values[] = { 1, 2, 3 };
	uint64_t fmt = GR | ID, buf[16];
	size_t len = build_group(buf, fmt, ids, values);
	struct tally_count c[4];
	CHECK_INT(tly_read_decode(buf, len, fmt, ids, 2, c), -EPROTO);
	static const uint64_t four[] = { 11, 22, 33, 44 };
	CHECK_INT(tly_read_decode(buf, len, fmt, four, 4, c), -EPROTO);
	CHECK_CONTAINS(tally_last_error(), "3 events, expected 4");
}

static void group_truncated(void)
{
	static const uint64_t ids[] = { 11, 22, 33 };
	static const uint64_t values[] = { 1, 2, 3 };
	uint64_t fmt = GR | TE | TR | ID | LO, buf[16];
	size_t len = build_group(buf, fmt, ids, values);
	struct tally_count c[3];
	for (size_t cut = 0; cut < len; cut++)
		CHECK_INT(tly_read_decode(buf, cut, fmt, ids, 3, c), -EIO);
	CHECK_CONTAINS(tally_last_error(), "short read");
}

static void group_without_ids_only_for_one(void)
{
	uint64_t buf[] = { 1, 1000, 900, 42 };
	uint64_t id = 5;
	struct tally_count c;
	CHECK_INT(tly_read_decode(buf, sizeof(buf), GR | TE | TR, &id, 1, &c), 0);
	CHECK_U64(c.value, 42);
	CHECK_U64(c.running, 900);
	CHECK_U64(c.id, 5);
	uint64_t two[] = { 2, 10, 20 }, ids[] = { 5, 6 };
	struct tally_count cs[2];
	CHECK_INT(tly_read_decode(two, sizeof(two), GR, ids, 2, cs), -EINVAL);
}

static void unaligned_buffer(void)
{
	static const uint64_t ids[] = { 11, 22, 33 };
	static const uint64_t values[] = { 5, 6, 7 };
	uint64_t fmt = GR | TE | TR | ID, words[16];
	size_t len = build_group(words, fmt, ids, values);
	unsigned char bytes[16 * 8 + 1];
	memcpy(bytes + 1, words, len);
	struct tally_count c[3];
	CHECK_INT(tly_read_decode(bytes + 1, len, fmt, ids, 3, c), 0);
	CHECK_U64(c[2].value, 7);
}

static void bad_arguments(void)
{
	uint64_t buf[4] = { 0 }, zero_id = 0, id = 1;
	struct tally_count c;
	CHECK_INT(tly_read_decode(buf, sizeof(buf), ID, &zero_id, 1, &c), -EINVAL);
	CHECK_INT(tly_read_decode(NULL, 0, ID, &id, 1, &c), -EINVAL);
	CHECK_INT(tly_read_decode(buf, sizeof(buf), ID, &id, 0, &c), -EINVAL);
	uint64_t ids[] = { 1, 2 };
	struct tally_count cs[2];
	CHECK_INT(tly_read_decode(buf, sizeof(buf), ID, ids, 2, cs), -EINVAL);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "sizes_follow_the_layout", sizes_follow_the_layout },
		{ "largest_group_that_fits", largest_group_that_fits },
		{ "group_without_lost_in_order", group_without_lost_in_order },
		{ "single_event_every_combination", single_event_every_combination },
		{ "single_event_wrong_id", single_event_wrong_id },
		{ "group_in_kernel_order", group_in_kernel_order },
		{ "group_matched_by_id_not_position", group_matched_by_id_not_position },
		{ "group_with_unknown_or_repeated_id", group_with_unknown_or_repeated_id },
		{ "group_of_other_size", group_of_other_size },
		{ "group_truncated", group_truncated },
		{ "group_without_ids_only_for_one", group_without_ids_only_for_one },
		{ "unaligned_buffer", unaligned_buffer },
		{ "bad_arguments", bad_arguments },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
