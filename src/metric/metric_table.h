/* SPDX-License-Identifier: MIT */
/*
 * A table of metric definitions as the vendors write them (perf's pmu-events JSON: MetricName,
 * MetricExpr, MetricThreshold, ScaleUnit, MetricGroup, MetricConstraint, BriefDescription), its expressions
 * parsed once, and one sample's evaluation of any of them: a name in an expression that is a metric of the
 * table is that metric's value (perf's metric references, matched case-insensitively as perf's
 * metricgroup__find_metric), evaluated once per sample and reused, a cycle being not available; any other
 * name goes to the events' environment.
 */
#ifndef TLY_METRIC_TABLE_H
#define TLY_METRIC_TABLE_H

#include "metric/metric_expr.h"

#include <pthread.h>

struct tly_metric_def {
	const char *name;
	const char *expr;
	const char *threshold;   /* NULL: none */
	const char *scale_unit;  /* "100%", "1GHz", "64Bytes"; NULL: "1" */
	const char *groups;      /* ';'-separated */
	const char *constraint;  /* "NO_GROUP_EVENTS", ...; NULL: none */
	const char *description;
};

struct tly_metric_table {
	const struct tly_metric_def *defs; /* the caller's, outliving the table */
	size_t n;
	pthread_mutex_t lock;         /* guards the parse on first use: */
	unsigned char *parsed;        /* per metric: its expression and threshold parsed */
	struct tly_expr **exprs;      /* NULL where the text does not parse: */
	char **parse_errors;          /* then its error text */
	struct tly_expr **thresholds; /* NULL where none (or it does not parse) */
	size_t *by_name;              /* a hash of the names without case: index + 1, 0 for an empty slot */
	size_t cap;                   /* its slots, a power of 2 */
};

/* A table of n definitions; each is parsed when first used (a table of 272 metrics of which -M asks for
 * four parses four and their references); one that does not parse evaluates as not available with the
 * parse error. -ENOMEM only. */
int tly_metric_table_new(const struct tly_metric_def *defs, size_t n, struct tly_metric_table **out);
/* Metric i's expression, parsed on first use; NULL when it does not parse (*error, when not NULL, gets
 * why: valid for the table's life). Thread-safe. */
const struct tly_expr *tly_metric_table_expr(const struct tly_metric_table *t, size_t i, const char **error);
void tly_metric_table_free(struct tly_metric_table *t);
/* The index of metric name (case-insensitive), or -ENOENT. */
int tly_metric_table_find(const struct tly_metric_table *t, const char *name);

/* One sample's values: each metric evaluated at most once. */
struct tly_metric_results {
	struct tly_expr_val *vals;
	char (*reasons)[TLY_EXPR_REASON];
	unsigned char *state; /* 0 not yet, 1 being evaluated (a reference back to it is a cycle), 2 done */
	size_t n;
};

int tly_metric_results_init(struct tly_metric_results *res, size_t n);
/* Forgets the values, for the next sample. */
void tly_metric_results_reset(struct tly_metric_results *res);
void tly_metric_results_free(struct tly_metric_results *res);

/* Metric i's value, with the metrics it refers to, from events (its name callback gives the events). */
struct tly_expr_val tly_metric_table_eval(const struct tly_metric_table *t, const struct tly_expr_env *events,
                                          struct tly_metric_results *res, size_t i);
/* Whether metric i is over its MetricThreshold: 1 over, 0 not, -ENOENT without a threshold, -ENODATA when
 * the threshold is not available (reason, if not NULL, says why). */
int tly_metric_table_threshold(const struct tly_metric_table *t, const struct tly_expr_env *events,
                               struct tly_metric_results *res, size_t i, char *reason);

/* The factor and the unit of a ScaleUnit ("100%": 100 and "%"; "1GHz", "64Bytes", "1per_instr"; NULL or
 * empty: 1 and ""): a metric's value in its unit is the expression's times the factor. */
double tly_metric_scale(const char *scale_unit, const char **unit);

#endif
