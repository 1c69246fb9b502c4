/* SPDX-License-Identifier: MIT */
/*
 * The derived figure printed beside an event, as perf stat prints it: IPC beside instructions, GHz beside
 * cycles, miss % beside branch-misses and cache-misses, CPUs utilized beside task-clock, and a rate per
 * second beside everything else that was counted.
 */
#ifndef TALLY_TOOLS_METRICS_H
#define TALLY_TOOLS_METRICS_H

#include "report.h"

struct metric {
	double value;
	char unit[32];             /* "insn per cycle", "GHz", "% of all branches", "K/sec", ... */
};

/* Computes the metric of event i from the counts of one reading that covered `seconds` of wall time.
 * Returns false when the event has none (not counted, or its partner event is missing or zero). */
bool metrics_compute(const struct report *r, const struct report_count *counts, size_t i, double seconds,
                     struct metric *m);

#endif
