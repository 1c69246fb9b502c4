/* SPDX-License-Identifier: MIT */
/*
 * Metrics inside the library, one concept per file:
 *
 *   metric_catalog.c   the catalogue: each metric's formula, inputs and texts; lookup and selection
 *   metric_eval.c      inputs matched to the events of a sample, per part or summed; tally_metric_eval
 *   metric_comment.c   the figure perf stat prints beside an event (tally_metric_comment)
 *   counter_metrics.c  the metrics a counter was asked for: their events appended to its spec as groups
 */
#ifndef TLY_METRIC_H
#define TLY_METRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tally/metrics.h>

struct tly_event;

/* What an input counts, matched against an event's attr (metric_eval.c). */
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

/* ---- samples (metric_eval.c) ---- */

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
/* Whether some event of the list counts term t. */
bool tly_metric_term_present(const tally_events *events, const struct tly_metric_term *t);
/* Whether a reading has a value (exact or scaled). */
bool tly_metric_counted(enum tally_status status);

/* The metrics a list of names and groups selects (tally_metrics_select without the public checks). */
int tly_metrics_select(const char *list, size_t *indices, size_t n);

#endif
