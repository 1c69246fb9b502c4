/* SPDX-License-Identifier: MIT */
#include "metrics.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

/* On hybrid x86 (5.13+) the upper 32 bits of a generic event's config hold the core PMU's type: compare
 * only the low half to recognize the event, and require the same upper half for a partner. */
#define GENERIC_ID_MASK 0xffffffffULL

static bool is_event(const struct report_event *e, uint32_t type, uint64_t id)
{
	return e->type == type && (e->config & GENERIC_ID_MASK) == id;
}

static bool is_clock(const struct report_event *e)
{
	return is_event(e, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK) ||
	       is_event(e, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
}

static bool usable(const struct report_count *c)
{
	return c->status == REPORT_COUNTED || c->status == REPORT_SCALED;
}

/* Whether two lines count the same cgroup (-G, --for-each-cgroup; both none without): a rate per
 * second of CPU is one cgroup's events over that cgroup's task-clock, as perf computes it. */
static bool same_cgroup(const struct report_event *a, const struct report_event *b)
{
	return strcmp(a->cgroup ? a->cgroup : "", b->cgroup ? b->cgroup : "") == 0;
}

/* The counted event of the given kind that matches e's modifiers, core PMU and cgroup, or -1. */
static long find_partner(const struct report *r, const struct report_count *counts, const struct report_event *e,
                         uint32_t type, uint64_t id)
{
	for (size_t j = 0; j < r->nr_events; j++) {
		const struct report_event *p = &r->events[j];
		if (is_event(p, type, id) && usable(&counts[j]) && p->exclude_user == e->exclude_user &&
		    p->exclude_kernel == e->exclude_kernel && (p->config >> 32) == (e->config >> 32) &&
		    same_cgroup(p, e))
			return (long)j;
	}
	return -1;
}

/* Seconds of CPU time the reading covered, from a task-clock or cpu-clock event (ns), or 0. */
static double clock_seconds(const struct report *r, const struct report_count *counts, const struct report_event *e)
{
	for (size_t j = 0; j < r->nr_events; j++)
		if (is_clock(&r->events[j]) && usable(&counts[j]) && same_cgroup(&r->events[j], e))
			return counts[j].scaled / 1e9;
	return 0;
}

static bool ratio(const struct report *r, const struct report_count *counts, size_t i, uint32_t type,
                  uint64_t id, double factor, const char *unit, struct metric *m)
{
	long p = find_partner(r, counts, &r->events[i], type, id);
	if (p < 0 || counts[p].scaled <= 0)
		return false;
	m->value = factor * counts[i].scaled / counts[p].scaled;
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	return true;
}

static bool rate(double count, double seconds, struct metric *m)
{
	static const struct {
		double factor;
		const char *unit;
	} prefixes[] = { { 1e9, "G/sec" }, { 1e6, "M/sec" }, { 1e3, "K/sec" }, { 1, "/sec" } };
	if (seconds <= 0)
		return false;
	double per_second = count / seconds;
	for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++) {
		if (per_second >= prefixes[k].factor || prefixes[k].factor == 1) {
			m->value = per_second / prefixes[k].factor;
			snprintf(m->unit, sizeof(m->unit), "%s", prefixes[k].unit);
			return true;
		}
	}
	return false;
}

bool metrics_compute(const struct report *r, const struct report_count *counts, size_t i, double seconds,
                     struct metric *m)
{
	const struct report_event *e = &r->events[i];
	memset(m, 0, sizeof(*m));
	if (!usable(&counts[i]))
		return false;
	/* perf 6.1 prints nothing beside its tool events: they are times already, a rate of them means
	 * nothing. */
	if (e->pmu && strcmp(e->pmu, "tool") == 0)
		return false;
	if (is_clock(e)) {
		if (seconds <= 0)
			return false;
		m->value = counts[i].scaled / 1e9 / seconds;
		snprintf(m->unit, sizeof(m->unit), "CPUs utilized");
		return true;
	}
	if (is_event(e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS))
		return ratio(r, counts, i, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1, "insn per cycle", m);
	if (is_event(e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES))
		return ratio(r, counts, i, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 100,
		             "% of all branches", m);
	if (is_event(e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES))
		return ratio(r, counts, i, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 100,
		             "% of all cache refs", m);
	double cpu_seconds = clock_seconds(r, counts, &r->events[i]);
	if (is_event(e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES)) {
		if (cpu_seconds <= 0)
			return false;
		m->value = counts[i].scaled / cpu_seconds / 1e9;
		snprintf(m->unit, sizeof(m->unit), "GHz");
		return true;
	}
	/* perf rates per second of CPU time when a clock event was counted, else per second of wall time. */
	return rate(counts[i].scaled, cpu_seconds > 0 ? cpu_seconds : seconds, m);
}
