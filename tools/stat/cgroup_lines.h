/* SPDX-License-Identifier: MIT */
/*
 * -G and --for-each-cgroup in tally stat: which cgroup each shown line counts (perf's rules), the cgroups
 * the counter opens on (a TALLY_TARGET_CGROUPS target, "" for the events -G leaves without one), and each
 * line's count: its event's result in its cgroup, as the library sums it (readings_cgroup).
 */
#ifndef TALLY_TOOLS_CGROUP_LINES_H
#define TALLY_TOOLS_CGROUP_LINES_H

#include <tally/counter.h>

#include "report/readings.h"
#include "report/report.h"
#include "stat/options.h"

struct cgroup_lines {
	const char **names;            /* the target's cgroups, each once; "" counts without a filter */
	size_t nr_names;
	size_t nr_lines;               /* 0: no cgroups asked for */
	size_t *event;                 /* line -> the counter's event */
	size_t *cgroup;                /* line -> index in names */
	struct report_event *events;   /* line -> its event's report entry, with the cgroup's name */
	struct report_count *counts;   /* line -> its count (cgroup_lines_fill) */
	struct tally_result *results;  /* the latest reading's results of cgroup k at k * nr_events */
	size_t nr_events;
	struct report_part *parts;     /* with -A, line l's parts at l * nr_cpus */
	size_t nr_cpus;
	char *storage;                 /* --for-each-cgroup's names, split */
};

/* The lines of -G or --for-each-cgroup for the counter's events (events: their report entries, in
 * event order). Returns 0 (nr_lines 0 without cgroups), or -1 after printing why (-G names more
 * cgroups than there are events), or -ENOMEM. */
int cgroup_lines_plan(struct cgroup_lines *cl, const struct stat_options *o, const tally_counter *counter,
                      const struct report_event *events);

/* Each line's count from the latest reading, its cgroup's result of its event (readings_cgroup); with
 * per_cpu (-A: rd holds the parts), one part per CPU too. Returns the counts. */
const struct report_count *cgroup_lines_fill(struct cgroup_lines *cl, const struct readings *rd, bool per_cpu);

void cgroup_lines_free(struct cgroup_lines *cl);

#endif
