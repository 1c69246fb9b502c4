/* SPDX-License-Identifier: MIT */
/*
 * tally_counter_select: the events a counter's opens leave out (tally stat --no-multiplex counts a spec a
 * set of groups at a time). On the calling thread with software events, whose counts are exact: a group
 * left out reads not counted with a note and takes no descriptor, the others count as without a selection,
 * the selection holds over opens until changed, NULL counts everything again, and the wrong calls are
 * refused with their codes.
 */
#include "harness.h"

#include <errno.h>
#include <sys/mman.h>
#include <tally/counter.h>

/* Touches `pages` fresh pages (mapped anew: malloc may hand back pages faulted in before): at least that
 * many page faults. */
static void fault_pages(size_t pages)
{
	volatile char *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	for (size_t i = 0; i < pages; i++)
		p[i * 4096] = 1;
	munmap((void *)p, pages * 4096);
}

/* One window on the calling thread: open, start, 64 faults, stop, read into r[0 .. 3). */
static int count_window(tally_counter *c, struct tally_result *r)
{
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_THREAD);
	if (tally_counter_open(c, &t) < 0)
		return -1;
	tally_counter_start(c);
	fault_pages(64);
	tally_counter_stop(c);
	int n = tally_counter_read(c, r, 3, sizeof(r[0]));
	tally_counter_close(c);
	return n;
}

static void leaves_groups_out(void)
{
	tally_counter *c;
	CHECK_INT(tally_counter_new("{task-clock,page-faults},minor-faults", NULL, &c), 0);
	struct tally_result r[3];
	const bool second_only[3] = { false, false, true };
	CHECK_INT(tally_counter_select(c, second_only, 3), 0);
	CHECK_INT(count_window(c, r), 3);
	CHECK_INT(r[0].status, TALLY_STATUS_NOT_COUNTED);
	CHECK_INT(r[1].status, TALLY_STATUS_NOT_COUNTED);
	CHECK_U64(r[0].value, 0);
	CHECK_INT(r[0].group, -1);
	CHECK(r[0].has_note);
	CHECK_CONTAINS(tally_counter_note(c, 1), "left out of this open");
	CHECK_INT(r[2].status, TALLY_STATUS_EXACT);
	CHECK(r[2].value >= 64);
	CHECK(!r[2].has_note);
	/* The selection holds for the next open too. */
	CHECK_INT(count_window(c, r), 3);
	CHECK_INT(r[1].status, TALLY_STATUS_NOT_COUNTED);
	CHECK_INT(r[2].status, TALLY_STATUS_EXACT);
	/* The other set: the group counts, the rest is left out. */
	const bool first_only[3] = { true, true, false };
	CHECK_INT(tally_counter_select(c, first_only, 3), 0);
	CHECK_INT(count_window(c, r), 3);
	CHECK_INT(r[0].status, TALLY_STATUS_EXACT);
	CHECK_INT(r[1].status, TALLY_STATUS_EXACT);
	CHECK(r[1].value >= 64);
	CHECK_INT(r[0].group, r[1].group);
	CHECK_INT(r[2].status, TALLY_STATUS_NOT_COUNTED);
	/* NULL: everything again, no note left. */
	CHECK_INT(tally_counter_select(c, NULL, 0), 0);
	CHECK_INT(count_window(c, r), 3);
	for (int i = 0; i < 3; i++) {
		CHECK_INT(r[i].status, TALLY_STATUS_EXACT);
		CHECK(!r[i].has_note);
	}
	tally_counter_free(c);
}

static void refuses_wrong_calls(void)
{
	tally_counter *c;
	CHECK_INT(tally_counter_new("task-clock,page-faults", NULL, &c), 0);
	const bool one[1] = { true };
	CHECK_INT(tally_counter_select(NULL, NULL, 0), -EINVAL);
	CHECK_INT(tally_counter_select(c, one, 1), -EINVAL); /* two events */
	CHECK_CONTAINS(tally_counter_last_error(c), "1 flags for a counter of 2 events");
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_THREAD);
	CHECK_INT(tally_counter_open(c, &t), 0);
	CHECK_INT(tally_counter_select(c, NULL, 0), -TALLY_ESTATE); /* open */
	tally_counter_close(c);
	/* Everything left out: nothing to open, as a counter of no event. */
	const bool none[2] = { false, false };
	CHECK_INT(tally_counter_select(c, none, 2), 0);
	CHECK(tally_counter_open(c, &t) < 0);
	tally_counter_free(c);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "leaves_groups_out", leaves_groups_out },
		{ "refuses_wrong_calls", refuses_wrong_calls },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
