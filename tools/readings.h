/* SPDX-License-Identifier: MIT */
/*
 * Readings of a counter turned into the report model: the latest cumulative reading of every event (and
 * its parts when they are shown), the previous one for -I deltas, and the conversion into report counts
 * with statuses, reasons and part labels (-A: CPU, --per-thread: comm-tid, --per-core: socket-core).
 */
#ifndef TALLY_TOOLS_READINGS_H
#define TALLY_TOOLS_READINGS_H

#include <tally/counter.h>

#include "options.h"
#include "report.h"

struct event_reading {
	struct tally_result result;
	struct tally_part *parts;
	size_t nr_parts, cap;
};

/* The label of the part at one position of an event, with the (CPU, thread) it was made for. */
struct part_label {
	int cpu;
	pid_t tid;
	bool known;
	char text[48];
};

struct readings {
	tally_counter *counter;
	size_t n;
	enum stat_aggregation aggregation;
	bool no_scale;
	struct event_reading *current, *previous;
	bool have_current, have_previous;
	struct tally_result *results;     /* the read buffer, so that a read allocates nothing here */
	struct report_count *counts;      /* the report view of the latest fill */
	struct report_part **parts;       /* per event, the report's parts */
	struct part_label **labels;       /* per event, the label of each part by position */
	size_t *parts_cap;                /* room in parts[i] and labels[i] */
	char (*reasons)[512];             /* per event, copied: the counter's notes do not outlive a read */
};

int readings_init(struct readings *rd, tally_counter *counter, enum stat_aggregation aggregation, bool no_scale);
void readings_free(struct readings *rd);

/* Reads the counter into `current` (the old current becomes `previous`). */
int readings_take(struct readings *rd);

/* Fills rd->counts with current minus previous (since_previous), else with current as it is. */
void readings_fill(struct readings *rd, bool since_previous);

/* Forgets the previous reading (a new run, or a counter reset, starts from zero). */
void readings_restart(struct readings *rd);

#endif
