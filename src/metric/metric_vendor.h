/* SPDX-License-Identifier: MIT */
/*
 * The vendors' metrics of a machine (tally_vendor_metrics, tally/metrics.h), shared by its files:
 *
 *   metric_vendor.c        the table loaded, -M's selection, the names' events resolved once each
 *   metric_vendor_spec.c   the events a selection reads, grouped as perf groups them
 *   metric_vendor_eval.c   a metric of the table evaluated from a sample
 */
#ifndef TLY_METRIC_VENDOR_H
#define TLY_METRIC_VENDOR_H

#include "metric/metric.h"
#include "metric/metric_table.h"
#include "machine/pmu.h"
#include "spec/event_list.h"

#include <pthread.h>
#include <tally/metrics.h>

/* A name an expression reads, as an event of this machine. */
struct tly_vendor_event {
	char *name;           /* as the expression has it, unescaped: "cpu@INT_MISC.CLEARS_COUNT,cmask=1@" */
	tally_events *parsed; /* its events ('@' read as '/'; a PMU family gives one per instance), or NULL: */
	char *error;          /* why it does not parse here */
	bool tool;            /* one of perf's tool events (duration_time): never in a group */
	size_t hint;          /* where the latest sample had its first instance (under eval_lock) */
};

struct tally_vendor_metrics {
	const tally_pmus *pmus;
	tally_pmus *own_pmus;        /* the snapshot the library loaded, when the caller gave none */
	char model[256];  /* the CPU table's model, then ", <model>" for each system table with metrics */
	char cpuid[128];
	bool nmi_watchdog;
	struct tly_metric_def *defs; /* the table's records, their strings in: */
	char **texts;                /* one block per record (tly_pmu_metric.text), owned */
	size_t n, cap;
	struct tly_metric_table *table;
	struct tly_metric_facts facts;
	pthread_mutex_t lock;        /* guards the events, resolved on first use: */
	struct tly_vendor_event **events; /* a hash by name, cap_events slots (a power of 2) */
	size_t nr_events, cap_events;
	pthread_mutex_t eval_lock;   /* guards one evaluation's results (the metrics met, once each): */
	struct tly_metric_results results;
};

/* 0 when i is a metric of vm, else -EINVAL (vm NULL) or -ERANGE, recorded for fn. */
int tly_vendor_check(const struct tally_vendor_metrics *vm, size_t i, const char *fn);

/* The event that name is on this machine (resolved on first use, kept for vm's life). -ENOMEM only. */
int tly_vendor_event(const struct tally_vendor_metrics *vm, const char *name, const struct tly_vendor_event **out);

/* One evaluation of vm's expressions: the sample's events (NULL for the constants alone, as
 * tly_expr_names_taken wants them) and the value whose inputs get the events read (or NULL). */
struct tly_vendor_eval {
	const struct tally_vendor_metrics *vm;
	const struct tally_metric_sample *s;
	struct tally_metric_value *v;
};

/* The environment of e: names from e->s, has_event and strcmp_cpuid_str from the machine, the #literals. */
void tly_vendor_env(struct tly_vendor_eval *e, struct tly_expr_env *env);

#endif
