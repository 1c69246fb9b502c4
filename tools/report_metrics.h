/* SPDX-License-Identifier: MIT */
/*
 * The metrics of a reading of `tally stat`, computed by the library (tally/metrics.h) from the report's
 * counts: the figure perf prints beside an event (IPC beside instructions, GHz beside cycles, ...) and the
 * metrics asked for with -M. The CLI computes none itself.
 */
#ifndef TALLY_TOOLS_REPORT_METRICS_H
#define TALLY_TOOLS_REPORT_METRICS_H

#include <tally/metrics.h>

#include "report.h"

/* The figure beside event i of a reading that covered `seconds` of wall time; false when it has none (not
 * counted, its partner missing or zero, no events list in the report, or no memory). */
bool report_comment(const struct report *r, const struct report_count *counts, size_t i, double seconds,
                    struct tally_metric_value *v);

/* Metric k of the report (r->metrics[k]) over a reading, summed over core PMU parts. Without memory: not
 * available, saying so. */
void report_metric(const struct report *r, const struct report_count *counts, double seconds, size_t k,
                   struct tally_metric_value *v);

#endif
