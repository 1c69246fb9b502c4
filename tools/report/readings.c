/* SPDX-License-Identifier: MIT */
#include "report/readings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int readings_init(struct readings *rd, tally_counter *counter, enum stat_aggregation aggregation, bool no_scale,
                  const size_t *line)
{
	memset(rd, 0, sizeof(*rd));
	rd->counter = counter;
	rd->line = line;
	rd->n = tally_counter_count(counter);
	rd->aggregation = aggregation;
	rd->no_scale = no_scale;
	size_t n = rd->n ? rd->n : 1;
	rd->events = calloc(n, sizeof(*rd->events));
	rd->results = calloc(n, sizeof(*rd->results));
	rd->counts = calloc(n, sizeof(*rd->counts));
	rd->pmu_counts = calloc(n, sizeof(*rd->pmu_counts));
	rd->origin_sums = calloc(n, sizeof(*rd->origin_sums));
	if (!rd->events || !rd->results || !rd->counts || !rd->pmu_counts || !rd->origin_sums) {
		readings_free(rd);
		return -ENOMEM;
	}
	return 0;
}

static void free_snapshots(struct readings *rd)
{
	tally_snapshot_free(rd->zero);
	tally_snapshot_free(rd->taken[0]);
	tally_snapshot_free(rd->taken[1]);
	rd->zero = rd->taken[0] = rd->taken[1] = NULL;
	rd->base = rd->from = rd->to = NULL;
}

void readings_free(struct readings *rd)
{
	for (size_t i = 0; rd->events && i < rd->n; i++) {
		free(rd->events[i].parts);
		free(rd->events[i].report_parts);
		free(rd->events[i].labels);
	}
	free(rd->events);
	free(rd->results);
	free(rd->counts);
	free(rd->pmu_counts);
	free(rd->origin_sums);
	free_snapshots(rd);
	memset(rd, 0, sizeof(*rd));
}

int readings_open(struct readings *rd)
{
	free_snapshots(rd);
	int err = tally_snapshot_new(rd->counter, &rd->zero);
	for (int k = 0; k < 2 && !err; k++)
		err = tally_snapshot_new(rd->counter, &rd->taken[k]);
	rd->base = rd->zero;
	return err;
}

void readings_restart(struct readings *rd)
{
	rd->base = rd->zero;
}

/* The parts of event i (of the window, or between two snapshots when `after` is given), growing the buffer
 * until they fit. */
static int take_parts(struct readings *rd, size_t i, const tally_snapshot *before, const tally_snapshot *after)
{
	struct event_reading *r = &rd->events[i];
	for (;;) {
		int total = after ? tally_snapshot_delta_parts(before, after, i, r->parts, r->cap, sizeof(r->parts[0]))
		                  : tally_counter_parts(rd->counter, i, r->parts, r->cap, sizeof(r->parts[0]));
		if (total < 0)
			return total;
		if ((size_t)total <= r->cap) {
			r->nr_parts = (size_t)total;
			return 0;
		}
		struct tally_part *grown = realloc(r->parts, (size_t)total * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		r->parts = grown;
		r->cap = (size_t)total;
	}
}

static int take_all_parts(struct readings *rd, const tally_snapshot *before, const tally_snapshot *after)
{
	for (size_t i = 0; i < rd->n; i++) {
		rd->events[i].nr_parts = 0;
		if (rd->aggregation != AGGR_GLOBAL) {
			int err = take_parts(rd, i, before, after);
			if (err < 0)
				return err;
		}
	}
	return 0;
}

int readings_take(struct readings *rd)
{
	int got = tally_counter_read(rd->counter, rd->results, rd->n, sizeof(rd->results[0]));
	if (got < 0)
		return got;
	for (size_t i = 0; i < rd->n; i++)
		rd->events[i].result = rd->results[i];
	rd->from = rd->to = NULL;
	return take_all_parts(rd, NULL, NULL);
}

int readings_interval(struct readings *rd)
{
	tally_snapshot *end = rd->base == rd->taken[0] ? rd->taken[1] : rd->taken[0];
	int err = tally_counter_snapshot(rd->counter, end);
	if (!err) {
		int got = tally_snapshot_delta(rd->base, end, rd->results, rd->n, sizeof(rd->results[0]));
		err = got < 0 ? got : 0;
	}
	bool any_not_counted = false;
	for (size_t i = 0; i < rd->n && !err; i++) {
		rd->events[i].result = rd->results[i];
		any_not_counted |= rd->results[i].status == TALLY_STATUS_NOT_COUNTED;
	}
	if (!err)
		err = take_all_parts(rd, rd->base, end);
	/* An event that did not count in the interval may belong to a group that never ran: a read of the
	 * window explains it and, if tally packed the group, splits it (reopened from zero, the next interval
	 * counts the halves). Only then: the snapshot has read everything else, and every interval would
	 * otherwise read each group twice. The notes it leaves explain this interval's <not counted>. */
	int got = err ? err
	              : any_not_counted ? tally_counter_read(rd->counter, rd->results, rd->n, sizeof(rd->results[0]))
	                                : 0;
	if (got < 0)
		return got;
	for (size_t i = 0; any_not_counted && i < rd->n; i++)
		rd->events[i].result.has_note = rd->results[i].has_note;
	rd->from = rd->base;
	rd->to = rd->base = end;
	return 0;
}

int readings_cgroup(const struct readings *rd, size_t k, struct tally_result *results)
{
	if (rd->to)
		return tally_snapshot_delta_cgroup(rd->from, rd->to, k, results, rd->n, sizeof(results[0]));
	return tally_counter_cgroup_results(rd->counter, k, results, rd->n, sizeof(results[0]));
}

enum report_status readings_status_of(enum tally_status s)
{
	switch (s) {
	case TALLY_STATUS_EXACT: return REPORT_COUNTED;
	case TALLY_STATUS_SCALED: return REPORT_SCALED;
	case TALLY_STATUS_NOT_COUNTED: return REPORT_NOT_COUNTED;
	case TALLY_STATUS_NOT_SUPPORTED: return REPORT_NOT_SUPPORTED;
	}
	return REPORT_NOT_COUNTED;
}

/* --per-cache's label, perf 6.3's: the package, die, level and id of the cache the CPU uses ("S0-D0-L3-ID2";
 * a CPU without that cache: its own, "CPU5"). */
static void cache_label(const struct readings *rd, int cpu, const struct tally_cpu_topology *t, int die, char *label,
                        size_t len)
{
	int id, level;
	if (tally_cpu_cache_id(NULL, cpu, rd->cache_level, &id, &level) == 0)
		snprintf(label, len, "S%d-D%d-L%d-ID%d", t->package, die, level, id);
	else
		snprintf(label, len, "CPU%d", cpu);
}

/* The label and grouping key of a part under the chosen aggregation. */
static void part_key(const struct readings *rd, const struct tally_part *p, char *label, size_t len)
{
	TALLY_OPTS(tally_cpu_topology, topology);
	switch (rd->aggregation) {
	case AGGR_CORE:
	case AGGR_SOCKET:
	case AGGR_DIE:
	case AGGR_NODE:
	case AGGR_CACHE: {
		bool placed = p->cpu >= 0 && tally_cpu_topology(NULL, p->cpu, &topology) == 0;
		/* perf numbers a die within its package; a kernel without die_id (before 5.2) has one per
		 * package. */
		int die = topology.die < 0 ? 0 : topology.die;
		if (!placed)
			snprintf(label, len, "CPU%d", p->cpu);
		else if (rd->aggregation == AGGR_CORE)
			snprintf(label, len, "S%d-D%d-C%d", topology.package, die, topology.core);
		else if (rd->aggregation == AGGR_NODE)
			snprintf(label, len, "N%d", topology.node);
		else if (rd->aggregation == AGGR_CACHE)
			cache_label(rd, p->cpu, &topology, die, label, len);
		else if (rd->aggregation == AGGR_SOCKET)
			snprintf(label, len, "S%d", topology.package);
		else
			snprintf(label, len, "S%d-D%d", topology.package, die);
		break;
	}
	case AGGR_THREAD: {
		char comm[32];
		/* A name is at most 15 characters, so it always fits; a cut one would still do. */
		if (p->tid > 0 && tally_thread_name(p->tid, comm, sizeof(comm)) >= 0)
			snprintf(label, len, "%s-%d", comm, (int)p->tid);
		else
			snprintf(label, len, "%d", (int)p->tid);
		break;
	}
	case AGGR_NONE:
	case AGGR_GLOBAL:
		snprintf(label, len, "CPU%d", p->cpu);
		break;
	}
}

/* The label of a part, made (from /proc or sysfs) once per position: an event's parts keep their (CPU,
 * thread) order from read to read, and -I would otherwise read every comm or topology file again at every
 * interval. perf also names the threads once. */
static const char *part_label(const struct readings *rd, struct part_label *cached, const struct tally_part *p)
{
	if (!cached->known || cached->cpu != p->cpu || cached->tid != p->tid) {
		part_key(rd, p, cached->text, sizeof(cached->text));
		cached->cpu = p->cpu;
		cached->tid = p->tid;
		cached->known = true;
	}
	return cached->text;
}

/* The status of parts summed under one label, as the library sums an event's parts: a part that did not
 * count adds nothing, so any counted part gives the label a value (scaled if any part was scaled). */
static enum report_status merged_status(enum report_status a, enum report_status b)
{
	bool a_counted = a == REPORT_COUNTED || a == REPORT_SCALED;
	bool b_counted = b == REPORT_COUNTED || b == REPORT_SCALED;
	if (a_counted != b_counted)
		return a_counted ? a : b;
	return a > b ? a : b;
}

/* The report part labelled `label` of a line, added (zeroed) when it has none yet; NULL without memory. */
static struct report_part *line_part(struct event_reading *ev, size_t *n, const char *label, int cpu, int tid,
                                     enum report_status status)
{
	for (size_t j = 0; j < *n; j++)
		if (strcmp(ev->report_parts[j].label, label) == 0) {
			ev->report_parts[j].status = merged_status(ev->report_parts[j].status, status);
			return &ev->report_parts[j];
		}
	if (*n == ev->report_cap) {
		size_t cap = ev->report_cap ? 2 * ev->report_cap : 8;
		struct report_part *grown = realloc(ev->report_parts, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		ev->report_parts = grown;
		ev->report_cap = cap;
	}
	struct report_part *into = &ev->report_parts[(*n)++];
	memset(into, 0, sizeof(*into));
	snprintf(into->label, sizeof(into->label), "%s", label);
	into->cpu = cpu;
	into->tid = tid;
	into->status = status;
	return into;
}

/* Whether the line's own event has a part on this CPU: a family's instances count on the same CPUs as
 * the first (uncore_imc_<n>, one CPU per package each), a hybrid machine's core PMUs each on CPUs of their
 * own (cpu_core on 0-15, cpu_atom on 16-23). */
static bool line_has_cpu(const struct readings *rd, size_t line, int cpu)
{
	const struct event_reading *head = &rd->events[line];
	for (size_t k = 0; k < head->nr_parts; k++)
		if (head->parts[k].cpu == cpu)
			return true;
	return false;
}

/* Adds the parts of event i to the line of event `line` (itself, or the first of its spec item when its
 * PMUs are summed), one report part per label. A label counts each CPU once: from the line's own event,
 * or from another PMU's where the line's own has none there. */
static int fill_parts(struct readings *rd, size_t i, size_t line, size_t *n)
{
	struct event_reading *ev = &rd->events[i], *into_ev = &rd->events[line];
	if (ev->nr_parts > ev->labels_cap) {
		struct part_label *labels = realloc(ev->labels, ev->nr_parts * sizeof(*labels));
		if (!labels)
			return -ENOMEM;
		memset(labels + ev->labels_cap, 0, (ev->nr_parts - ev->labels_cap) * sizeof(*labels));
		ev->labels = labels;
		ev->labels_cap = ev->nr_parts;
	}
	for (size_t k = 0; k < ev->nr_parts; k++) {
		const struct tally_part *p = &ev->parts[k];
		bool thread = rd->aggregation == AGGR_THREAD;
		struct report_part *into = line_part(into_ev, n, part_label(rd, &ev->labels[k], p), thread ? -1 : p->cpu,
		                                     thread ? (int)p->tid : -1, readings_status_of(p->status));
		if (!into)
			return -ENOMEM;
		into->nr_cpus += !thread && (i == line || !line_has_cpu(rd, line, p->cpu));
		into->value += p->value;
		into->enabled += p->enabled;
		into->running += p->running;
		into->scaled += rd->no_scale ? (double)p->value : (double)p->scaled;
	}
	return 0;
}

/* The line event i is shown on: its own, or the first event of its spec item when its PMUs are summed. */
static size_t line_of(const struct readings *rd, size_t i)
{
	return rd->line ? rd->line[i] : i;
}

/* Every event's parts into the report parts of its line. */
int readings_fill_parts(struct readings *rd)
{
	size_t *nr = calloc(rd->n ? rd->n : 1, sizeof(*nr));
	int err = nr ? 0 : -ENOMEM;
	for (size_t i = 0; i < rd->n && !err && rd->aggregation != AGGR_GLOBAL; i++)
		err = fill_parts(rd, i, line_of(rd, i), &nr[line_of(rd, i)]);
	for (size_t i = 0; i < rd->n && nr; i++) {
		rd->counts[i].parts = rd->events[i].report_parts;
		rd->counts[i].nr_parts = nr[i];
	}
	free(nr);
	return err;
}

int readings_name_parts(struct readings *rd)
{
	if (rd->aggregation != AGGR_THREAD) /* CPUs and cores keep their names */
		return 0;
	int err = readings_take(rd);
	return err ? err : readings_fill_parts(rd);
}

/* The summed lines: each the library's sum of its spec item's results (tally_counter_sum_origins, the
 * results by origin), the first reason of its PMUs' kept for the line. rd->results, free after a take or
 * an interval, holds the results side by side for the call. */
static void sum_lines(struct readings *rd)
{
	for (size_t i = 0; i < rd->n; i++)
		rd->results[i] = rd->events[i].result;
	int origins = tally_counter_sum_origins(rd->counter, rd->results, rd->n, rd->origin_sums, rd->n,
	                                        sizeof(rd->results[0]));
	for (size_t i = 0; i < rd->n; i++) {
		size_t head = line_of(rd, i);
		unsigned origin = rd->events[head].result.origin;
		if (head == i || origins < 0 || origin >= (unsigned)origins || origin >= rd->n)
			continue;
		const struct tally_result *sum = &rd->origin_sums[origin];
		struct report_count *c = &rd->counts[head];
		c->value = sum->value;
		c->enabled = sum->enabled;
		c->running = sum->running;
		c->scaled = rd->no_scale ? (double)sum->value : (double)sum->scaled;
		c->status = readings_status_of(sum->status);
		if (!c->reason)
			c->reason = rd->counts[i].reason;
	}
}

/* Busiest first (the scaled count), as perf sorts -a --per-thread. */
static int busier_first(const void *a, const void *b)
{
	double x = ((const struct report_part *)a)->scaled, y = ((const struct report_part *)b)->scaled;
	return (x < y) - (x > y);
}

/* -a --per-thread: of every thread of the system, those that ran in the reading (a thread that did not
 * has no enabled time: its events run only while it does), busiest first, as perf 6.1 prints them. */
static void keep_threads_that_ran(struct event_reading *ev, struct report_count *c)
{
	struct report_part *parts = ev->report_parts; /* what c->parts shows (readings_fill_parts) */
	size_t kept = 0;
	for (size_t k = 0; k < c->nr_parts; k++)
		if (parts[k].value || parts[k].enabled || parts[k].running)
			parts[kept++] = parts[k];
	c->nr_parts = kept;
	if (kept > 1)
		qsort(parts, kept, sizeof(parts[0]), busier_first);
}

void readings_fill(struct readings *rd)
{
	for (size_t i = 0; i < rd->n; i++) {
		struct event_reading *ev = &rd->events[i];
		const struct tally_result *r = &ev->result;
		struct report_count *c = &rd->counts[i];
		memset(c, 0, sizeof(*c));
		c->value = r->value;
		c->enabled = r->enabled;
		c->running = r->running;
		c->scaled = rd->no_scale ? (double)r->value : (double)r->scaled;
		c->status = readings_status_of(r->status);
		c->group = r->group;
		ev->reason[0] = '\0';
		if (r->has_note)
			snprintf(ev->reason, sizeof(ev->reason), "%s", tally_counter_note(rd->counter, i));
		else if (r->error)
			snprintf(ev->reason, sizeof(ev->reason), "%s", tally_strerror(r->error));
		else if (c->status == REPORT_NOT_COUNTED)
			snprintf(ev->reason, sizeof(ev->reason),
			         "it never ran while enabled (an idle target, or its counters were taken)");
		c->reason = ev->reason[0] ? ev->reason : NULL;
		/* What the event counted on its own PMU, before a summed line adds it up. */
		rd->pmu_counts[i] = *c;
	}
	readings_fill_parts(rd);
	if (rd->line)
		sum_lines(rd);
	for (size_t i = 0; rd->all_threads && i < rd->n; i++)
		keep_threads_that_ran(&rd->events[i], &rd->counts[i]);
}
