/* SPDX-License-Identifier: MIT */
/*
 * tally_counter_read_values: each value is what tally_counter_read gives as the result's scaled value
 * (here through read(2), the path every machine has; the arm64 rig's fast_read_cost reads it from user
 * space), for a prefix of the events too, and its failures are tally_counter_read's.
 */
#include "harness.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <tally/counter.h>

#define SPEC "{task-clock,page-faults},context-switches,cycles,minor-faults"
enum { NR = 5, PAGES = 64 };

static tally_counter *opened(void)
{
	tally_counter *c = NULL;
	CHECK_INT(tally_counter_new(SPEC, NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, NULL), 0);
	return c;
}

/* Stopped, two reads see the same counts: every value equals its result's scaled value, the unsupported
 * event's (cycles in a VM without a PMU) included, and the faults of the touched pages are there. */
static void values_are_the_results_scaled_values(void)
{
	tally_counter *c = opened();
	CHECK_INT(tally_counter_start(c), 0);
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(PAGES * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	for (int i = 0; i < PAGES; i++)
		p[i * page] = 1;
	CHECK_INT(tally_counter_stop(c), 0);
	uint64_t values[NR];
	struct tally_result r[NR];
	memset(values, 0xff, sizeof(values));
	CHECK_INT(tally_counter_read_values(c, values, NR), NR);
	CHECK_INT(tally_counter_read(c, r, NR, sizeof(r[0])), NR);
	for (int i = 0; i < NR; i++)
		CHECK_U64(values[i], r[i].scaled);
	CHECK(values[1] >= PAGES);
	/* A prefix: only its values are written. */
	uint64_t two[3] = { 0, 0, 12345 };
	CHECK_INT(tally_counter_read_values(c, two, 2), 2);
	CHECK_U64(two[0], values[0]);
	CHECK_U64(two[1], values[1]);
	CHECK_U64(two[2], 12345);
	CHECK_INT(tally_counter_read_values(c, NULL, 0), 0);
	munmap(p, (size_t)(PAGES * page));
	tally_counter_free(c);
}

static void failures_are_tally_counter_read_s(void)
{
	uint64_t v[NR];
	CHECK_INT(tally_counter_read_values(NULL, v, NR), -EINVAL);
	tally_counter *c = NULL;
	CHECK_INT(tally_counter_new(SPEC, NULL, &c), 0);
	CHECK_INT(tally_counter_read_values(c, v, NR), -TALLY_ESTATE);
	CHECK_INT(tally_counter_open(c, NULL), 0);
	CHECK_INT(tally_counter_read_values(c, NULL, NR), -EINVAL);
	CHECK_INT(tally_counter_close(c), 0);
	CHECK_INT(tally_counter_read_values(c, v, NR), -TALLY_ESTATE);
	tally_counter_free(c);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "values_are_the_results_scaled_values", values_are_the_results_scaled_values },
		{ "failures_are_tally_counter_read_s", failures_are_tally_counter_read_s },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
