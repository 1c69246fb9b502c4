/* SPDX-License-Identifier: MIT */
/*
 * The metric catalogue (metric_catalog.c): each metric's formula, inputs and texts, the lookup of names and
 * groups, and which events of a parsed list count an input. Description, like the rest of the spec layer:
 * the counter reads it to add a metric's events to its spec; evaluation (metric/metric.h) sits above.
 */
#ifndef TLY_METRIC_CATALOG_H
#define TLY_METRIC_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tally/events.h>
#include <tally/metrics.h>

struct tly_event;

/* What an input counts, matched against an event's attr (tly_metric_term_matches). */
enum tly_metric_kind {
	TLY_METRIC_HW,    /* a generic hardware event (PERF_TYPE_HARDWARE, config's low 32 bits) */
	TLY_METRIC_CACHE, /* a generic cache event (PERF_TYPE_HW_CACHE, config's low 32 bits) */
	TLY_METRIC_SW,    /* a software event: counts for every part */
	TLY_METRIC_CORE,  /* a config on the CPU's core PMU (the topdown events) */
};

struct tly_metric_term {
	const char *name;  /* as the formula and the spec write it */
	enum tly_metric_kind kind;
	uint64_t config;
};

/* A metric's computation: the inputs' values (in the order of the terms) to the value. Returns false
 * with why filled when the value does not exist (a zero denominator). */
struct tly_metric_calc {
	const double *in;
	double seconds;    /* the sample's wall-clock seconds (> 0 when the metric needs them) */
	char *why;
	size_t why_len;
};

struct tly_metric {
	const char *name, *groups, *unit, *description, *formula, *events, *applies;
	bool needs_seconds;
	size_t nr_terms;
	struct tly_metric_term terms[TALLY_METRIC_MAX_INPUTS];
	bool (*compute)(const struct tly_metric *m, struct tly_metric_calc *calc, double *out);
	/* For the ratios computed by tly_metric_ratio: factor x terms[num] / terms[den]. */
	size_t num, den;
	double factor;
};

extern const struct tly_metric tly_metrics[];
extern const size_t tly_nr_metrics;

/* factor x in[num] / in[den]; a zero denominator is "<den> is 0". */
bool tly_metric_ratio(const struct tly_metric *m, struct tly_metric_calc *calc, double *out);

/* Whether event counts term t: the same generic, software or core-PMU config. */
bool tly_metric_term_matches(const struct tly_metric_term *t, const struct tly_event *event);
/* Whether some event of the list counts term t. */
bool tly_metric_term_present(const tally_events *events, const struct tly_metric_term *t);
/* The metrics a list of names and groups selects (tally_metrics_select without the public checks). */
int tly_metrics_select(const char *list, size_t *indices, size_t n);

#endif
