/* SPDX-License-Identifier: MIT */
/*
 * The metrics of a reading of `tally stat`, computed by the library (tally/metrics.h) from the report's
 * counts: the figure perf prints beside an event (IPC beside instructions, GHz beside cycles, ...) and the
 * metrics asked for with -M. The CLI computes none itself.
 */
#ifndef TALLY_TOOLS_REPORT_METRICS_H
#define TALLY_TOOLS_REPORT_METRICS_H

#include <tally/metrics.h>

#include "report/report.h"

/* The figure beside event i of a reading that covered `seconds` of wall time; false when it has none (not
 * counted, its partner missing or zero, no events list in the report, or no memory). */
bool report_comment(const struct report *r, const struct report_count *counts, size_t i, double seconds,
                    struct tally_metric_value *v);

/* Metric k of the report (r->metrics[k]) over a reading, summed over core PMU parts (pmu NULL) or of one
 * part ("cpu_core": the P-cores' IPC); with cgroups (-G, --for-each-cgroup), of cgroup g's lines alone
 * (g < report_metric_cgroups). `counts` are report_metric_counts'. Without memory: not available, saying
 * so. Returns whether the metric is shown for g: always without cgroups, else where the events it took
 * are counted in cgroup g (with -G, the cgroup -G gives the metric's events; with --for-each-cgroup,
 * every cgroup); where -G gave its events different cgroups, not available, saying so. */
bool report_metric(const struct report *r, const struct report_count *counts, double seconds, size_t k,
                   const char *pmu, size_t g, struct tally_metric_value *v);

/* The windows a metric's value (report_metric's v) comes from. */
struct metric_window {
	/* Its inputs were not counted over one window: counted in different runs (--no-multiplex could not
	 * count them together), or in different kernel groups of which one was multiplexed (scaled), so each
	 * counted a different part of the run and the ratio mixes them. Inputs of one group share their
	 * window, multiplexed or not; exact inputs all counted the whole run. */
	bool mixed;
	unsigned run;              /* --no-multiplex: the one run its inputs come from; 0 otherwise or mixed */
};

/* The windows of metric value v, computed over `counts` (as report_metric's) for cgroup g. */
struct metric_window report_metric_window(const struct report *r, const struct report_count *counts, size_t g,
                                          const struct tally_metric_value *v);

/* The cgroups metrics are computed for: the report's, or 1 without cgroups. */
size_t report_metric_cgroups(const struct report *r);

/* The counts of a reading that metrics are computed from: each event's own (pmu_counts: the library sums
 * the parts itself), or with cgroups each line's, its event's in its cgroup. */
static inline const struct report_count *report_metric_counts(const struct report *r,
                                                              const struct report_count *counts,
                                                              const struct report_count *pmu_counts)
{
	return r->cgroups ? counts : pmu_counts;
}

/* The core PMUs metric k has parts on in a reading (tally_metric_parts), into pmus[0 .. n); returns how
 * many (0 without memory). A metric is shown per PMU when it has 2 or more. */
size_t report_metric_parts(const struct report *r, const struct report_count *counts, size_t k, const char **pmus,
                           size_t n);

#endif
