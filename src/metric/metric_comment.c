/* SPDX-License-Identifier: MIT */
/*
 * The figure perf stat prints beside an event (perf 6.1's stat-shadow.c): IPC beside instructions, GHz
 * beside cycles, miss % beside branch-misses and cache-misses, CPUs utilized beside task-clock, and a rate
 * per second beside everything else that was counted. `tally stat` prints it in its comment column; it is
 * here so that every consumer of the library computes it the same way.
 */
#include "metric/metric.h"

#include "core/error.h"
#include "core/opts.h"
#include "spec/event_list.h"
#include "spec/hybrid.h"

#include <linux/perf_event.h>
#include <stdio.h>

/* A generic event, or a core PMU's attr of it (hybrid.c: on hybrid x86 the PMU's type in config[63:32], an
 * arm64 cluster's own type and event number); a partner must be of the same PMU (same type and upper half). */
static bool is_event(const struct tly_event *e, uint32_t type, uint64_t id)
{
	return tly_counts_generic(e, type, id);
}

static bool is_clock(const struct tly_event *e)
{
	return is_event(e, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK) ||
	       is_event(e, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
}

/* The counted event of the given kind that matches e's modifiers and core PMU, or -1. */
static long find_partner(const struct tally_metric_sample *s, const struct tly_event *e, uint32_t type,
                         uint64_t id)
{
	size_t n = tly_metric_sample_count(s);
	for (size_t j = 0; j < n; j++) {
		const struct tly_event *p = tly_metric_event(s, j);
		if (is_event(p, type, id) && tly_metric_counted(tly_metric_read(s, j).status) &&
		    p->attr.exclude_user == e->attr.exclude_user && p->attr.exclude_kernel == e->attr.exclude_kernel &&
		    p->attr.type == e->attr.type && (p->attr.config >> 32) == (e->attr.config >> 32))
			return (long)j;
	}
	return -1;
}

/* Seconds of CPU time the sample covered, from a task-clock or cpu-clock event (ns; its index in *at), or
 * 0. */
static double clock_seconds(const struct tally_metric_sample *s, size_t *at)
{
	size_t n = tly_metric_sample_count(s);
	for (size_t j = 0; j < n; j++) {
		const struct tly_event *info = tly_metric_event(s, j);
		struct tly_reading r = tly_metric_read(s, j);
		*at = j;
		if (is_clock(info) && tly_metric_counted(r.status))
			return r.value / 1e9;
	}
	return 0;
}

static void set(struct tally_metric_value *v, const char *name, double value, const char *unit)
{
	v->name = name;
	v->available = true;
	v->value = value;
	snprintf(v->unit, sizeof(v->unit), "%s", unit);
}

/* Event j, by its display name, as the value's next input. */
static void add_input(struct tally_metric_value *v, const struct tally_metric_sample *s, size_t j)
{
	const struct tly_event *info = tly_metric_event(s, j);
	struct tly_reading r = tly_metric_read(s, j);
	v->inputs[v->nr_inputs++] = (struct tally_metric_input){ .event = info->name, .value = r.value,
	                                                         .status = r.status, .found = true, .nr_events = 1,
	                                                         .first_event = j };
	v->scaled |= r.status == TALLY_STATUS_SCALED;
}

static bool ratio(const struct tally_metric_sample *s, size_t i, const struct tly_event *e, uint32_t type,
                  uint64_t id, double factor, const char *name, const char *unit, struct tally_metric_value *v)
{
	long p = find_partner(s, e, type, id);
	if (p < 0 || tly_metric_read(s, (size_t)p).value <= 0)
		return false;
	set(v, name, factor * tly_metric_read(s, i).value / tly_metric_read(s, (size_t)p).value, unit);
	add_input(v, s, (size_t)p);
	return true;
}

static bool rate(double count, double seconds, struct tally_metric_value *v)
{
	static const struct {
		double factor;
		const char *unit;
	} prefixes[] = { { 1e9, "G/sec" }, { 1e6, "M/sec" }, { 1e3, "K/sec" }, { 1, "/sec" } };
	if (seconds <= 0)
		return false;
	double per_second = count / seconds;
	size_t k = 0;
	while (per_second < prefixes[k].factor && prefixes[k].factor != 1)
		k++;
	set(v, "rate", per_second / prefixes[k].factor, prefixes[k].unit);
	return true;
}

static bool comment(const struct tally_metric_sample *s, size_t i, struct tally_metric_value *v)
{
	const struct tly_event *e = tly_metric_event(s, i);
	struct tly_reading r = tly_metric_read(s, i);
	if (!tly_metric_counted(r.status))
		return false;
	/* perf 6.1 prints nothing beside its tool events: they are times already, a rate of them means
	 * nothing. */
	if (e->tool != TLY_TOOL_NONE)
		return false;
	add_input(v, s, i);
	if (is_clock(e)) {
		if (s->seconds <= 0)
			return false;
		set(v, "CPUs_utilized", r.value / 1e9 / s->seconds, "CPUs utilized");
		return true;
	}
	if (is_event(e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS))
		return ratio(s, i, e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1, "IPC", "insn per cycle", v);
	if (is_event(e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES))
		return ratio(s, i, e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 100, "branch_miss_rate",
		             "% of all branches", v);
	if (is_event(e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES))
		return ratio(s, i, e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 100, "cache_miss_rate",
		             "% of all cache refs", v);
	size_t clock;
	double cpu_seconds = clock_seconds(s, &clock);
	/* The clock is an input too: its window is the figure's as much as the event's. */
	if (cpu_seconds > 0)
		add_input(v, s, clock);
	if (is_event(e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES)) {
		if (cpu_seconds <= 0)
			return false;
		set(v, "cycles_frequency", r.value / cpu_seconds / 1e9, "GHz");
		return true;
	}
	/* perf rates per second of CPU time when a clock event was counted, else per second of wall time. */
	return rate(r.value, cpu_seconds > 0 ? cpu_seconds : s->seconds, v);
}

int tally_metric_comment(const struct tally_metric_sample *sample, size_t event, struct tally_metric_value *value)
{
	int err = tly_metric_args(sample, value, __func__);
	if (!err && event >= tly_metric_sample_count(sample))
		err = tly_error(-ERANGE, "tally_metric_comment: no event %zu in the sample", event);
	if (err)
		return err;
	struct tally_metric_value full = { .sz = sizeof(full), .threshold = -1 };
	bool any = comment(sample, event, &full);
	if (!any)
		full = (struct tally_metric_value){ .sz = sizeof(full), .threshold = -1 };
	int ret = TLY_INFO_COPY(value, &full, tally_metric_value);
	return ret ? ret : any;
}
