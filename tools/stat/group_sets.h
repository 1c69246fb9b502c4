/* SPDX-License-Identifier: MIT */
/*
 * tally stat --no-multiplex: the command run once per set of groups, each run counting its set alone, and
 * the runs combined: each event's reading from the run that counted it, each -M metric's events in one run.
 * The sets are the kernel's answer, not a guess at the PMU's counters: the first run counts everything; a
 * set whose groups were multiplexed (some event scaled, or never run) is split in halves, each counted in
 * a run of its own, until every unit counted all its run or stands alone. A unit is a kernel group,
 * joined with the other groups a -M metric reads (so that the metric comes from one run).
 */
#ifndef TALLY_TOOLS_GROUP_SETS_H
#define TALLY_TOOLS_GROUP_SETS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <tally/counter.h>

struct stat_session;

struct group_sets {
	size_t n;                     /* the counter's events; 0 without --no-multiplex */
	size_t *unit;                 /* event -> its unit's root event (union-find, by the smallest index) */
	struct tally_result *kept;    /* each event's reading from the run that counts it */
	char (*reasons)[1024];        /* with it, the reason its report showed, copied (readings.h) */
	unsigned *run;                /* each event's run, 0 while none counted it */
	bool *selected;               /* the events of the run being counted (tally_counter_select) */
	bool *multiplexed;            /* by unit root: some event of it scaled or never ran in the latest run */
	/* The sets still to count, first in first out: each a list of unit roots, sets[at[k] .. at[k + 1]). */
	size_t *pool, nr_pool, cap_pool;
	size_t *at, nr_sets, cap_sets, next_set;
	int *run_exit;                /* each run's exit status (the report's run_exit) */
	size_t cap_runs;
	int first_failure;            /* the first failing run's status, 0 while none failed */
	off_t input;                  /* standard input's offset at the start, rewound for each run; -1: none */
};

/* Counts every set, one run each, and leaves the combined reading in the session's counts (stat_finish
 * writes it). Returns an exit status that stopped the runs (>= 0), or -1 when they all ran. */
int stat_count_group_sets(struct stat_session *s);

void group_sets_free(struct group_sets *gs);

#endif
