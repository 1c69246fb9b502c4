/* SPDX-License-Identifier: MIT */
/*
 * Readings of a counter turned into the report model: the window's reading of every event (and its parts
 * when they are shown), or an interval's (-I: the library's scaled difference of two snapshots), and the
 * conversion into report counts with statuses, reasons and part labels (-A: CPU, --per-thread: comm-tid,
 * --per-core: socket-die-core, --per-socket: socket, --per-die: socket-die, --per-node: node), the events of
 * a spec item counted on several PMUs (a hybrid machine's core PMUs, a PMU family's instances) summed into
 * one line unless they are shown apart (--no-merge, -A), each PMU's own count kept beside the sum.
 */
#ifndef TALLY_TOOLS_READINGS_H
#define TALLY_TOOLS_READINGS_H

#include <tally/counter.h>
#include <tally/cpumap.h>
#include <tally/snapshot.h>
#include <tally/threadmap.h>

#include "report/report.h"

/* The label of the part at one position of an event, with the (CPU, thread) it was made for. */
struct part_label {
	int cpu;
	pid_t tid;
	bool known;
	char text[48];
};

/* One event's latest reading (the window's or an interval's) and what its report count points to. */
struct event_reading {
	struct tally_result result;
	struct tally_part *parts;         /* the library's parts, by (CPU, thread) position */
	size_t nr_parts, cap;
	struct report_part *report_parts; /* the parts as reported, one per label */
	struct part_label *labels;        /* the label of each of `parts` by position */
	size_t labels_cap;                /* room in labels */
	size_t report_cap;                /* room in report_parts */
	char reason[1024];                /* copied: the counter's notes do not outlive a read (NOTE_MAX: a
	                                   * diagnosis of a few lines and how it was regrouped) */
};

struct readings {
	tally_counter *counter;
	size_t n;
	enum stat_aggregation aggregation;
	bool no_scale;
	int cache_level;                  /* --per-cache: the level (0: each CPU's highest) */
	bool all_threads;                 /* -a --per-thread: as perf, only the threads that ran, busiest first */
	/* The event whose line shows event i: i, or the first of its spec item when its PMUs are summed
	 * (its count is then added to that line's). NULL: every event on its own line. */
	const size_t *line;
	struct event_reading *events;     /* what readings_fill shows */
	struct tally_result *results;     /* the read buffer, so that a read allocates nothing here */
	struct report_count *counts;      /* the report view of the latest fill */
	struct report_count *pmu_counts;  /* each event's own count in it, before the sums (no parts) */
	struct tally_result *origin_sums; /* the library's sums by origin, for the summed lines */
	/* -I: the interval begins at `base` (`zero`, never taken, stands for the window's beginning) and
	 * ends at the other of `taken`. Made for each open (their size is the target's). */
	tally_snapshot *zero, *taken[2];
	const tally_snapshot *base;
	/* The latest reading's two snapshots (an interval's), or NULL: the window's, the counter's latest
	 * read. */
	const tally_snapshot *from, *to;
};

int readings_init(struct readings *rd, tally_counter *counter, enum stat_aggregation aggregation, bool no_scale,
                  const size_t *line);
void readings_free(struct readings *rd);

/* After each open of the counter: snapshots for its target, the next interval from the window's start. */
int readings_open(struct readings *rd);

/* With --per-thread, labels the parts now, after the open and before counting: a label is made once per
 * position, and the comm of a thread that exits during the run (the end of a -p or -t run) is gone from
 * /proc by the time the results are made; perf reads the names at the start too. */
int readings_name_parts(struct readings *rd);
/* Every event's parts (as they were taken) into the report parts of its line: 0 or -ENOMEM. */
int readings_fill_parts(struct readings *rd);

/* Reads the counter's window (since the latest start or reset) into `events`. */
int readings_take(struct readings *rd);

/* Reads the interval since the previous one (or since the window began) into `events`: every part's
 * difference scaled on its own; a part that did not run in it is not counted there. Also reads the
 * window, so that a group that never ran is explained and split as at any read. */
int readings_interval(struct readings *rd);

/* The latest reading (the window's or an interval's) of cgroup k of a cgroup target: each event summed
 * over its parts in that cgroup, by the library (results: room for every event). Returns the number of
 * results, or a negative code. */
int readings_cgroup(const struct readings *rd, size_t k, struct tally_result *results);

/* Fills rd->counts from `events` (a summed line holds the sum of its PMUs) and rd->pmu_counts (each
 * event's own count). */
void readings_fill(struct readings *rd);

/* The report's status of a library status. */
enum report_status readings_status_of(enum tally_status s);

/* The next interval begins at the window's start (a new run, or a counter reset). */
void readings_restart(struct readings *rd);

#endif
