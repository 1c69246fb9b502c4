/* SPDX-License-Identifier: MIT */
/*
 * The exporter's --metrics: the list resolved as tally stat -M resolves it (report/metric_list.h: the
 * machine's vendor table first, tally's catalogue for the rest), each metric named as a Prometheus gauge
 * family of its own in its base unit (a family holds one unit, so that sum() and avg() over its series
 * mean something: "%" becomes a ratio, GHz hertz, ns seconds, MB/s bytes per second), checked against what
 * this machine can count before anything is served, and evaluated from any reading (an interval's scaled
 * deltas) by the library.
 */
#ifndef TALLY_EXPORTER_METRIC_SET_H
#define TALLY_EXPORTER_METRIC_SET_H

#include <stdbool.h>
#include <stddef.h>

#include <tally/counter.h>
#include <tally/metrics.h>

#include "report/metric_list.h"

/* One metric as the exposition shows it. */
struct metric_gauge {
	char family[160];     /* "tally_metric_ipc", "tally_metric_tma_fb_full_ratio" */
	char help[1024];      /* its name, source, description and unit (one line, unescaped) */
	const char *name;     /* as the vendor table or the catalogue names it ("tma_fb_full", "IPC") */
	bool vendor;          /* index is the vendor table's, else the catalogue's */
	size_t index;
	double factor;        /* from the metric's unit to the family's base unit (0.01 for "%") */
	bool has_threshold;   /* a vendor metric with a MetricThreshold */
};

struct metric_set {
	struct metric_list list;     /* the list resolved: the vendor table's metrics and the catalogue's items */
	struct metric_gauge *gauges;
	size_t nr;
	char note[1024];             /* metrics of a group left out because this machine cannot compute them */
};

/* Resolves list (NULL: no metrics) and gives the spec to count, *counted (malloc'd): spec with the vendor
 * metrics' events appended (the catalogue's are the counter's to append: set->list.catalogue for
 * tally_counter_opts.metrics). An unknown name fails with the library's "did you mean" in err. */
int metric_set_resolve(struct metric_set *set, const char *list, const char *spec, char **counted, char *err,
                       size_t err_len);

/* Names a gauge for each metric, once model (a counter of *counted with the catalogue's metrics) exists.
 * Two metrics of one family name fail with err. */
int metric_set_name(struct metric_set *set, const tally_counter *model, char *err, size_t err_len);

/* Opens model (made with open_without_events, so that events this machine lacks read "not supported"
 * rather than fail the open) on CPU cpu, and closes it again: a metric named in the list that cannot be
 * computed here fails with the reason in err; one that came with a group is left out (said in
 * set->note). An open that fails all the same (no privilege to count a CPU) leaves the question to the
 * targets' opens, which explain it. */
int metric_set_check(struct metric_set *set, const char *list, tally_counter *model, int cpu, char *err,
                     size_t err_len);

/* Metric k of the set over sample: true with *value in the family's unit and *threshold (1 over the
 * MetricThreshold, 0 not, -1 none), false when the sample gives it no value (an input not counted, a 0
 * divisor). */
bool metric_set_eval(const struct metric_set *set, size_t k, const struct tally_metric_sample *sample,
                     double *value, int *threshold);

void metric_set_free(struct metric_set *set);

#endif
