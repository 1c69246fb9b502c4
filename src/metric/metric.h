/* SPDX-License-Identifier: MIT */
/*
 * Metric evaluation, above the counter: a metric's value from any reading keyed by a parsed event list.
 *
 *   metric_eval.c      inputs matched to the events of a sample, per part or summed; tally_metric_eval
 *   metric_comment.c   the figure perf stat prints beside an event (tally_metric_comment)
 *   metric_expr_*.c    the vendors' expression language (perf's MetricExpr), parsed and evaluated
 *   metric_literals.c  the machine's facts behind its #literals
 *   metric_table.c     a table of vendor metric definitions, references between them resolved
 *
 * What a metric is (its formula, inputs, texts; lookup and selection) is description, in the spec layer
 * (spec/metric_catalog.h), so that the counter can append a metric's events to its spec without reaching
 * up into evaluation (counter/counter_metrics.c).
 */
#ifndef TLY_METRIC_H
#define TLY_METRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tally/metrics.h>

#include "spec/metric_catalog.h"

struct tly_reading {
	double value;
	enum tally_status status;
};

/* 0 when the sample can be read (its struct, its events, its results' elem_sz), else the code with a
 * last-error text naming fn. */
int tly_metric_sample_check(const struct tally_metric_sample *s, const char *fn);
/* The checks of a public evaluation's arguments: the sample's, then value's (not NULL, its sz). */
int tly_metric_args(const struct tally_metric_sample *s, const struct tally_metric_value *value, const char *fn);
/* Readings in the sample: its n, at most the events' count. */
size_t tly_metric_sample_count(const struct tally_metric_sample *s);
struct tly_reading tly_metric_read(const struct tally_metric_sample *s, size_t i);
/* Event i of the sample's list (i below the sample's count): read in place, for evaluations that walk
 * every event per event (the comment column of n events reads n^2 of them). */
const struct tly_event *tly_metric_event(const struct tally_metric_sample *s, size_t i);
/* Whether a reading has a value (exact or scaled). */
bool tly_metric_counted(enum tally_status status);


#endif
