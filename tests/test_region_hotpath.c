/* SPDX-License-Identifier: MIT */
/*
 * The hot path of named regions: after a name's first use in a thread, begin and end allocate nothing,
 * take no lock and make no system call but the counter's reads (here read(2): software events), and a
 * set that cannot count makes none at all.
 */
#include "alloc_fault.h"
#include "fault.h"
#include "harness.h"

#include <tally/region.h>

enum { CALLS = 1000 };

static unsigned long system_calls(void)
{
	unsigned long n = 0;
	for (int call = 0; call < FAULT_NR_CALLS; call++)
		n += fault_calls((enum fault_call)call);
	return n;
}

static void run_pairs(tally_region_set *s, int id)
{
	for (int call = 0; call < CALLS; call++) {
		tally_region_begin_id(s, id);
		tally_region_end_id(s, id);
	}
}

static void begin_end_read_and_nothing_else(void)
{
	if (alloc_fault_unavailable())
		SKIP("%s", alloc_fault_unavailable());
	tally_region_set *s;
	/* Two groups: the braced one and the packed context-switches. */
	CHECK_INT(tally_region_set_new("{task-clock,page-faults},context-switches", NULL, &s), 0);
	CHECK_STR(tally_region_set_error(s), "");
	int id = tally_region_id(s, "r");
	run_pairs(s, id); /* the first use makes the thread's record */
	fault_install();
	fault_reset();
	alloc_fault_begin(0);
	run_pairs(s, id);
	alloc_fault_end();
	CHECK_INT(alloc_fault_calls(), 0);
	/* One read(2) per group at each begin and end. */
	CHECK_INT(fault_calls(FAULT_READ), 2 * CALLS * 2);
	CHECK_INT(system_calls(), fault_calls(FAULT_READ));
	fault_uninstall();
	struct tally_region_info info = { .sz = sizeof(info) };
	struct tally_region_event e[3];
	CHECK_INT(tally_region_set_read(s, (size_t)id, TALLY_REGION_ALL_THREADS, &info, e, 3, sizeof(e[0])), 3);
	CHECK_INT(info.calls, 2 * CALLS);
	CHECK_INT(e[0].counted, 2 * CALLS);
	tally_region_set_free(s);
}

static void a_set_that_cannot_count_calls_nothing(void)
{
	tally_region_set *s;
	CHECK_INT(tally_region_set_new("{page-faults", NULL, &s), 0);
	CHECK(tally_region_set_error(s)[0] != '\0');
	int id = tally_region_id(s, "r");
	run_pairs(s, id);
	fault_install();
	fault_reset();
	run_pairs(s, id);
	CHECK_INT(system_calls(), 0);
	fault_uninstall();
	tally_region_set_free(s);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "begin_end_read_and_nothing_else", begin_end_read_and_nothing_else },
		{ "a_set_that_cannot_count_calls_nothing", a_set_that_cannot_count_calls_nothing },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
