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

/* Metric k of the report (r->metrics[k]) over a reading, summed over core PMU parts (pmu NULL) or of one
 * part ("cpu_core": the P-cores' IPC). `counts` are each event's own (report_sample.pmu_counts: the
 * library sums the parts itself). Without memory: not available, saying so. */
void report_metric(const struct report *r, const struct report_count *counts, double seconds, size_t k,
                   const char *pmu, struct tally_metric_value *v);

/* The core PMUs metric k has parts on in a reading (tally_metric_parts), into pmus[0 .. n); returns how
 * many (0 without memory). A metric is shown per PMU when it has 2 or more. */
size_t report_metric_parts(const struct report *r, const struct report_count *counts, size_t k, const char **pmus,
                           size_t n);

#endif
