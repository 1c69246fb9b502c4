/* SPDX-License-Identifier: MIT */
#include "exporter/fleet_metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double fleet_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t slots(const struct fleet_target *t)
{
	return t->nr_parts + 1;
}

static void interval_reset(const struct fleet *f, struct fleet_target *t)
{
	for (size_t k = 0; k < f->nr_events * slots(t); k++) {
		t->acc[k] = 0;
		t->acc_status[k] = TALLY_STATUS_NOT_COUNTED;
	}
	t->acc_since = t->last_read;
}

int fleet_metrics_open(const struct fleet *f, struct fleet_target *t)
{
	size_t n = f->nr_events * slots(t), m = f->metrics.nr * slots(t);
	t->acc = calloc(n ? n : 1, sizeof(*t->acc));
	t->acc_status = calloc(n ? n : 1, sizeof(*t->acc_status));
	t->values = calloc(m ? m : 1, sizeof(*t->values));
	if (!t->acc || !t->acc_status || !t->values)
		return -ENOMEM;
	t->last_read = fleet_now();
	/* Those fleet_init opens have a whole --interval before its first end; one a later scan opens
	 * (just before an update that ends an interval) may have a moment. */
	t->fresh = f->scans > 0;
	interval_reset(f, t);
	return 0;
}

void fleet_metrics_close(struct fleet_target *t)
{
	free(t->acc);
	free(t->acc_status);
	free(t->values);
	t->acc = NULL;
	t->acc_status = NULL;
	t->values = NULL;
}

static bool counted(enum tally_status s)
{
	return s == TALLY_STATUS_EXACT || s == TALLY_STATUS_SCALED;
}

/* One difference added to a slot: what did not run adds nothing, and the slot is scaled when any of its
 * differences was. An event this machine cannot count stays so (from the open on). */
static void slot_add(struct fleet_target *t, size_t i, size_t k, double scaled, enum tally_status s)
{
	enum tally_status *into = &t->acc_status[k];
	if (t->status[i] == TALLY_STATUS_NOT_SUPPORTED || s == TALLY_STATUS_NOT_SUPPORTED) {
		*into = TALLY_STATUS_NOT_SUPPORTED;
		return;
	}
	if (!counted(s) || *into == TALLY_STATUS_NOT_SUPPORTED)
		return;
	t->acc[k] += scaled;
	*into = *into == TALLY_STATUS_SCALED || s == TALLY_STATUS_SCALED ? TALLY_STATUS_SCALED : TALLY_STATUS_EXACT;
}

void fleet_metrics_add(struct fleet_target *t, size_t i, const struct tally_result *whole,
                       const struct tally_part *parts, size_t n)
{
	if (!t->acc)
		return;
	slot_add(t, i, i * slots(t), (double)whole->scaled, whole->status);
	for (size_t p = 0; p < n && p < t->nr_parts; p++)
		slot_add(t, i, i * slots(t) + 1 + p, (double)parts[p].scaled, parts[p].status);
}

/* The part of event i on CPU cpu, or -2 (events of PMUs on fewer CPUs have fewer parts). */
static long part_on(const struct fleet_target *t, size_t i, int cpu, size_t hint)
{
	if (hint < t->nr_parts && t->totals[i * t->nr_parts + hint].cpu == cpu)
		return (long)hint;
	for (size_t p = 0; p < t->nr_parts; p++)
		if (t->totals[i * t->nr_parts + p].cpu == cpu)
			return (long)p;
	return -2;
}

/* The CPU of part p: that of the first event with such a part. -1 when none has. */
static int cpu_of_part(const struct fleet *f, const struct fleet_target *t, size_t p)
{
	for (size_t i = 0; i < f->nr_events; i++)
		if (t->totals[i * t->nr_parts + p].cpu >= 0)
			return t->totals[i * t->nr_parts + p].cpu;
	return -1;
}

/* Every metric of one slot (0: the target; 1 + p: part p's CPU) into t->values. */
static void evaluate_slot(const struct fleet *f, struct fleet_target *t, size_t slot, double seconds,
                          double *values, enum tally_status *statuses)
{
	int cpu = slot ? cpu_of_part(f, t, slot - 1) : -1;
	for (size_t i = 0; i < f->nr_events; i++) {
		long p = slot == 0 ? -1 : cpu < 0 ? -2 : part_on(t, i, cpu, slot - 1);
		size_t k = p >= -1 ? i * slots(t) + (size_t)(p + 1) : 0;
		values[i] = p >= -1 ? t->acc[k] : 0;
		statuses[i] = p >= -1 ? t->acc_status[k] : TALLY_STATUS_NOT_COUNTED;
	}
	TALLY_OPTS(tally_metric_sample, s, .events = tally_counter_events(t->counter), .values = values,
	           .statuses = statuses, .n = f->nr_events, .seconds = seconds);
	for (size_t m = 0; m < f->metrics.nr; m++) {
		struct fleet_metric_value *v = &t->values[m * slots(t) + slot];
		int threshold = -1;
		v->cpu = cpu;
		v->available = (slot == 0 || cpu >= 0) && metric_set_eval(&f->metrics, m, &s, &v->value, &threshold);
		v->threshold = (signed char)threshold;
	}
}

void fleet_metrics_interval_end(const struct fleet *f, struct fleet_target *t)
{
	if (!t->acc)
		return;
	double seconds = t->last_read - t->acc_since;
	double *values = calloc(f->nr_events ? f->nr_events : 1, sizeof(*values));
	enum tally_status *statuses = calloc(f->nr_events ? f->nr_events : 1, sizeof(*statuses));
	if (values && statuses && !t->fresh && seconds > 0) {
		size_t first = f->config.per_cpu ? 1 : 0, last = f->config.per_cpu ? t->nr_parts : 0;
		for (size_t slot = first; slot <= last; slot++)
			evaluate_slot(f, t, slot, seconds, values, statuses);
	}
	free(values);
	free(statuses);
	t->fresh = false;
	interval_reset(f, t);
}
