/* SPDX-License-Identifier: MIT */
#include "readings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int readings_init(struct readings *rd, tally_counter *counter, enum stat_aggregation aggregation, bool no_scale)
{
	memset(rd, 0, sizeof(*rd));
	rd->counter = counter;
	rd->n = tally_counter_count(counter);
	rd->aggregation = aggregation;
	rd->no_scale = no_scale;
	size_t n = rd->n ? rd->n : 1;
	rd->current = calloc(n, sizeof(*rd->current));
	rd->previous = calloc(n, sizeof(*rd->previous));
	rd->counts = calloc(n, sizeof(*rd->counts));
	rd->parts = calloc(n, sizeof(*rd->parts));
	rd->labels = calloc(n, sizeof(*rd->labels));
	rd->parts_cap = calloc(n, sizeof(*rd->parts_cap));
	rd->reasons = calloc(n, sizeof(*rd->reasons));
	rd->results = calloc(n, sizeof(*rd->results));
	if (!rd->results || !rd->current || !rd->previous || !rd->counts || !rd->parts || !rd->labels ||
	    !rd->parts_cap ||
	    !rd->reasons) {
		readings_free(rd);
		return -ENOMEM;
	}
	return 0;
}

static void free_readings(struct event_reading *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
		free(r[i].parts);
	free(r);
}

void readings_free(struct readings *rd)
{
	free_readings(rd->current, rd->n);
	free_readings(rd->previous, rd->n);
	for (size_t i = 0; rd->parts && i < rd->n; i++)
		free(rd->parts[i]);
	for (size_t i = 0; rd->labels && i < rd->n; i++)
		free(rd->labels[i]);
	free(rd->parts);
	free(rd->labels);
	free(rd->parts_cap);
	free(rd->counts);
	free(rd->reasons);
	free(rd->results);
	memset(rd, 0, sizeof(*rd));
}

/* Fetches the parts of event i, growing the buffer until they fit. */
static int take_parts(tally_counter *counter, size_t i, struct event_reading *r)
{
	for (;;) {
		int total = tally_counter_parts(counter, i, r->parts, r->cap);
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

int readings_take(struct readings *rd)
{
	struct event_reading *old = rd->previous;
	rd->previous = rd->current;
	rd->current = old;
	int got = tally_counter_read(rd->counter, rd->results, rd->n);
	if (got < 0)
		return got;
	for (size_t i = 0; i < rd->n; i++) {
		rd->current[i].result = rd->results[i];
		rd->current[i].nr_parts = 0;
		if (rd->aggregation != AGGR_GLOBAL) {
			int err = take_parts(rd->counter, i, &rd->current[i]);
			if (err < 0)
				return err;
		}
	}
	rd->have_previous = rd->have_current;
	rd->have_current = true;
	return 0;
}

void readings_restart(struct readings *rd)
{
	rd->have_current = rd->have_previous = false;
}

/* a - b for cumulative counters; a reading below its reference means the group was reopened (split
 * after it never ran), so counting restarted from zero and a itself is the delta. */
static uint64_t since(uint64_t a, uint64_t b)
{
	return a >= b ? a - b : a;
}

static enum report_status status_of(enum tally_status s)
{
	switch (s) {
	case TALLY_STATUS_EXACT: return REPORT_COUNTED;
	case TALLY_STATUS_SCALED: return REPORT_SCALED;
	case TALLY_STATUS_NOT_COUNTED: return REPORT_NOT_COUNTED;
	case TALLY_STATUS_NOT_SUPPORTED: return REPORT_NOT_SUPPORTED;
	}
	return REPORT_NOT_COUNTED;
}

/* The status of a difference of two readings: what the times did in between, as perf judges intervals
 * (an event that did not run in an interval is <not counted> there). */
static enum report_status status_of_delta(enum report_status cumulative, uint64_t enabled, uint64_t running)
{
	if (cumulative == REPORT_NOT_SUPPORTED)
		return cumulative;
	/* A task's events are enabled only while it runs: a sleeping command's interval has no time at all. */
	if (enabled == 0 || running == 0)
		return REPORT_NOT_COUNTED;
	return running < enabled ? REPORT_SCALED : REPORT_COUNTED;
}

struct delta {
	uint64_t value, enabled, running, scaled;
	enum report_status status;
};

static struct delta difference(uint64_t value, uint64_t enabled, uint64_t running, uint64_t scaled,
                               enum tally_status status, const uint64_t *ref)
{
	struct delta d = { value, enabled, running, scaled, status_of(status) };
	if (ref) {
		d.value = since(value, ref[0]);
		d.enabled = since(enabled, ref[1]);
		d.running = since(running, ref[2]);
		d.scaled = since(scaled, ref[3]);
		d.status = status_of_delta(d.status, d.enabled, d.running);
	}
	return d;
}

static const struct tally_part *find_part(const struct event_reading *r, const struct tally_part *p)
{
	for (size_t k = 0; r && k < r->nr_parts; k++)
		if (r->parts[k].cpu == p->cpu && r->parts[k].tid == p->tid)
			return &r->parts[k];
	return NULL;
}

/* The label and grouping key of a part under the chosen aggregation. */
static void part_key(const struct readings *rd, const struct tally_part *p, char *label, size_t len)
{
	TALLY_OPTS(tally_cpu_topology, topology);
	switch (rd->aggregation) {
	case AGGR_CORE:
		if (p->cpu >= 0 && tally_cpu_topology(NULL, p->cpu, &topology) == 0)
			snprintf(label, len, "S%d-C%d", topology.package, topology.core);
		else
			snprintf(label, len, "CPU%d", p->cpu);
		break;
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

static int fill_parts(struct readings *rd, size_t i, const struct event_reading *ref)
{
	const struct event_reading *cur = &rd->current[i];
	struct report_count *c = &rd->counts[i];
	if (cur->nr_parts > rd->parts_cap[i]) {
		struct report_part *grown = realloc(rd->parts[i], cur->nr_parts * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		rd->parts[i] = grown;
		struct part_label *labels = realloc(rd->labels[i], cur->nr_parts * sizeof(*labels));
		if (!labels)
			return -ENOMEM;
		memset(labels + rd->parts_cap[i], 0, (cur->nr_parts - rd->parts_cap[i]) * sizeof(*labels));
		rd->labels[i] = labels;
		rd->parts_cap[i] = cur->nr_parts;
	}
	size_t n = 0;
	for (size_t k = 0; k < cur->nr_parts; k++) {
		const struct tally_part *p = &cur->parts[k];
		const struct tally_part *old = find_part(ref, p);
		uint64_t refs[4];
		if (old) {
			refs[0] = old->value;
			refs[1] = old->enabled;
			refs[2] = old->running;
			refs[3] = old->scaled;
		}
		struct delta d = difference(p->value, p->enabled, p->running, p->scaled, p->status,
		                            old ? refs : NULL);
		const char *label = part_label(rd, &rd->labels[i][k], p);
		struct report_part *into = NULL;
		for (size_t j = 0; j < n; j++)
			if (strcmp(rd->parts[i][j].label, label) == 0)
				into = &rd->parts[i][j];
		if (!into) {
			into = &rd->parts[i][n++];
			memset(into, 0, sizeof(*into));
			snprintf(into->label, sizeof(into->label), "%s", label);
			into->cpu = rd->aggregation == AGGR_THREAD ? -1 : p->cpu;
			into->tid = rd->aggregation == AGGR_THREAD ? (int)p->tid : -1;
			into->status = d.status;
		} else if (d.status > into->status) {
			into->status = d.status;
		}
		into->value += d.value;
		into->enabled += d.enabled;
		into->running += d.running;
		into->scaled += rd->no_scale ? (double)d.value : (double)d.scaled;
	}
	c->parts = rd->parts[i];
	c->nr_parts = n;
	return 0;
}

void readings_fill(struct readings *rd, bool since_previous)
{
	const struct event_reading *refs = since_previous && rd->have_previous ? rd->previous : NULL;
	for (size_t i = 0; i < rd->n; i++) {
		const struct tally_result *r = &rd->current[i].result;
		const struct event_reading *ref = refs ? &refs[i] : NULL;
		uint64_t ref_values[4];
		if (ref) {
			ref_values[0] = ref->result.value;
			ref_values[1] = ref->result.enabled;
			ref_values[2] = ref->result.running;
			ref_values[3] = ref->result.scaled;
		}
		struct delta d = difference(r->value, r->enabled, r->running, r->scaled, r->status,
		                            ref ? ref_values : NULL);
		struct report_count *c = &rd->counts[i];
		memset(c, 0, sizeof(*c));
		c->value = d.value;
		c->enabled = d.enabled;
		c->running = d.running;
		c->scaled = rd->no_scale ? (double)d.value : (double)d.scaled;
		c->status = d.status;
		rd->reasons[i][0] = '\0';
		if (r->has_note)
			snprintf(rd->reasons[i], sizeof(rd->reasons[i]), "%s", tally_counter_note(rd->counter, i));
		else if (r->error)
			snprintf(rd->reasons[i], sizeof(rd->reasons[i]), "%s", tally_strerror(r->error));
		else if (c->status == REPORT_NOT_COUNTED)
			snprintf(rd->reasons[i], sizeof(rd->reasons[i]),
			         "it never ran while enabled (an idle target, or its counters were taken)");
		c->reason = rd->reasons[i][0] ? rd->reasons[i] : NULL;
		if (rd->aggregation != AGGR_GLOBAL)
			fill_parts(rd, i, ref);
	}
}
