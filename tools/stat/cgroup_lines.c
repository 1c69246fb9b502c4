/* SPDX-License-Identifier: MIT */
#include "stat/cgroup_lines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tally/events.h>

/* The spec items of the first n -e specs: the events the first -G's one name is for. */
static unsigned origins_of_specs(const struct stat_options *o, size_t n)
{
	unsigned total = 0;
	for (size_t i = 0; i < n; i++) {
		tally_events *alone = NULL;
		if (tally_events_parse(o->specs[i], NULL, &alone) == 0) {
			size_t count = tally_events_count(alone);
			TALLY_OPTS(tally_event_info, info);
			if (count && tally_events_at(alone, count - 1, &info) == 0)
				total += info.origin + 1;
		}
		tally_events_free(alone);
	}
	return total;
}

/* The index of name in cl->names, added when new. */
static size_t name_index(struct cgroup_lines *cl, const char *name)
{
	for (size_t k = 0; k < cl->nr_names; k++)
		if (strcmp(cl->names[k], name) == 0)
			return k;
	cl->names[cl->nr_names] = name;
	return cl->nr_names++;
}

static int alloc_lines(struct cgroup_lines *cl, size_t nr_lines, size_t max_names, size_t nr_events)
{
	cl->nr_lines = nr_lines;
	cl->nr_events = nr_events;
	cl->names = calloc(max_names ? max_names : 1, sizeof(*cl->names));
	cl->event = calloc(nr_lines ? nr_lines : 1, sizeof(*cl->event));
	cl->cgroup = calloc(nr_lines ? nr_lines : 1, sizeof(*cl->cgroup));
	cl->events = calloc(nr_lines ? nr_lines : 1, sizeof(*cl->events));
	cl->counts = calloc(nr_lines ? nr_lines : 1, sizeof(*cl->counts));
	size_t results = max_names * nr_events;
	cl->results = calloc(results ? results : 1, sizeof(*cl->results));
	return cl->names && cl->event && cl->cgroup && cl->events && cl->counts && cl->results ? 0 : -ENOMEM;
}

/* Line l: event i of the counter in cgroup k. One event, so a spec item counted on several PMUs shows
 * each (as --no-merge names them) rather than a sum of lines of which the others would be hidden. */
static void set_line(struct cgroup_lines *cl, size_t l, const struct report_event *events, size_t i, size_t k)
{
	cl->event[l] = i;
	cl->cgroup[l] = k;
	cl->events[l] = events[i];
	cl->events[l].name = events[i].pmu_name;
	cl->events[l].hidden = cl->events[l].summed = false;
	cl->events[l].cgroup = cl->names[k];
}

/* -G: line i is event i, in the cgroup of its spec item (perf gives the j-th name to the j-th event),
 * or "" (every task) for an item no name reaches. */
static int plan_g(struct cgroup_lines *cl, const struct stat_options *o, const tally_counter *counter,
                  const struct report_event *events)
{
	const tally_events *list = tally_counter_events(counter);
	size_t n = tally_counter_count(counter);
	unsigned nr_origins = 0;
	for (size_t i = 0; i < n; i++) {
		TALLY_OPTS(tally_event_info, info);
		if (tally_events_at(list, i, &info) == 0 && info.origin + 1 > nr_origins)
			nr_origins = info.origin + 1;
	}
	/* Empty names past the last event are no cgroups (perf skips them): only a named one needs one. */
	size_t named = o->nr_cgroup_names;
	while (named && !o->cgroup_names[named - 1][0])
		named--;
	/* Name j is for event j among those before its own -G (perf): not for one that comes after it. */
	for (size_t j = 0; j < named; j++) {
		unsigned before = origins_of_specs(o, o->cgroup_name_specs[j]);
		if (o->cgroup_names[j][0] && j >= before) {
			fprintf(stderr, "tally stat: -G: cgroup '%s' is name %zu, for %u event(s): each names the "
			        "cgroup of one event, in the order of the -e events before it\n(see tally stat "
			        "--help)\n", o->cgroup_names[j], j + 1, before);
			return -1;
		}
	}
	const char **of_origin = calloc(nr_origins ? nr_origins : 1, sizeof(*of_origin));
	if (!of_origin || alloc_lines(cl, n, o->nr_cgroup_names + 1, n) < 0) {
		free(of_origin);
		return -ENOMEM;
	}
	unsigned broadcast = o->nr_specs_before_g ? origins_of_specs(o, o->nr_specs_before_g) : 0;
	for (unsigned k = 0; k < broadcast && k < nr_origins; k++)
		of_origin[k] = o->cgroup_names[0];
	for (size_t j = 0; j < named; j++)
		if (o->cgroup_names[j][0])
			of_origin[j] = o->cgroup_names[j];
	for (size_t i = 0; i < n; i++) {
		TALLY_OPTS(tally_event_info, info);
		tally_events_at(list, i, &info);
		set_line(cl, i, events, i, name_index(cl, of_origin[info.origin] ? of_origin[info.origin] : ""));
	}
	free(of_origin);
	return 0;
}

/* --for-each-cgroup: every event once per cgroup, cgroup after cgroup (perf's order); a name given again
 * adds no lines (perf 6.1 counts it once: its metrics, once per cgroup, would not match lines twice). */
static int plan_each(struct cgroup_lines *cl, const struct stat_options *o, const tally_counter *counter,
                     const struct report_event *events)
{
	size_t n = tally_counter_count(counter), nr_names = 1;
	for (const char *p = o->for_each_cgroup; *p; p++)
		nr_names += *p == ',';
	cl->storage = strdup(o->for_each_cgroup);
	if (!cl->storage || alloc_lines(cl, n * nr_names, nr_names, n) < 0)
		return -ENOMEM;
	size_t line = 0;
	for (char *name = cl->storage, *next; name; name = next) {
		next = strchr(name, ',');
		if (next)
			*next++ = '\0';
		size_t known = cl->nr_names, k = name_index(cl, name);
		for (size_t i = 0; k == known && i < n; i++, line++)
			set_line(cl, line, events, i, k);
	}
	cl->nr_lines = line;
	return 0;
}

int cgroup_lines_plan(struct cgroup_lines *cl, const struct stat_options *o, const tally_counter *counter,
                      const struct report_event *events)
{
	memset(cl, 0, sizeof(*cl));
	if (o->nr_cgroup_names)
		return plan_g(cl, o, counter, events);
	return o->for_each_cgroup ? plan_each(cl, o, counter, events) : 0;
}

/* Room for every line's parts: at most as many as its event has. False without memory. */
static bool room_for_parts(struct cgroup_lines *cl, const struct readings *rd)
{
	size_t most = 1;
	for (size_t l = 0; l < cl->nr_lines; l++)
		if (rd->events[cl->event[l]].nr_parts > most)
			most = rd->events[cl->event[l]].nr_parts;
	if (most > cl->nr_cpus) {
		free(cl->parts);
		cl->parts = calloc(cl->nr_lines * most, sizeof(*cl->parts));
		cl->nr_cpus = cl->parts ? most : 0;
	}
	return cl->parts != NULL;
}

/* Line l's parts on each CPU, from its event's parts in the reading that belong to its cgroup (-A). */
static void fill_parts(struct cgroup_lines *cl, const struct readings *rd, size_t l, struct report_count *c)
{
	const struct event_reading *ev = &rd->events[cl->event[l]];
	struct report_part *parts = cl->parts + l * cl->nr_cpus;
	for (size_t k = 0; k < ev->nr_parts; k++) {
		const struct tally_part *p = &ev->parts[k];
		if (p->cgroup < 0 || (size_t)p->cgroup != cl->cgroup[l])
			continue;
		struct report_part *into = &parts[c->nr_parts++];
		memset(into, 0, sizeof(*into));
		snprintf(into->label, sizeof(into->label), "CPU%d", p->cpu);
		into->cpu = p->cpu;
		into->tid = -1;
		into->nr_cpus = 1;
		into->value = p->value;
		into->scaled = rd->no_scale ? (double)p->value : (double)p->scaled;
		into->enabled = p->enabled;
		into->running = p->running;
		into->status = readings_status_of(p->status);
	}
	c->parts = parts;
}

const struct report_count *cgroup_lines_fill(struct cgroup_lines *cl, const struct readings *rd, bool per_cpu)
{
	per_cpu = per_cpu && room_for_parts(cl, rd);
	/* Each cgroup's results as the library sums them; a cgroup it cannot give reads as not counted. */
	for (size_t k = 0; k < cl->nr_names; k++)
		if (readings_cgroup(rd, k, cl->results + k * cl->nr_events) < 0)
			memset(cl->results + k * cl->nr_events, 0, cl->nr_events * sizeof(*cl->results));
	for (size_t l = 0; l < cl->nr_lines; l++) {
		const struct report_count *whole = &rd->counts[cl->event[l]];
		const struct tally_result *r = &cl->results[cl->cgroup[l] * cl->nr_events + cl->event[l]];
		struct report_count *c = &cl->counts[l];
		memset(c, 0, sizeof(*c));
		c->reason = whole->reason;
		c->status = whole->status;
		c->group = whole->group;
		c->run = whole->run;
		/* Not supported, or not open: the event's own status and reason, no parts. */
		if (whole->status == REPORT_NOT_SUPPORTED)
			continue;
		c->value = r->value;
		c->enabled = r->enabled;
		c->running = r->running;
		c->scaled = rd->no_scale ? (double)r->value : (double)r->scaled;
		c->status = readings_status_of(r->status);
		c->reason = c->status == REPORT_NOT_COUNTED
		                    ? "it never ran in this cgroup on the counted CPUs (no task of it ran there)"
		                    : NULL;
		if (per_cpu)
			fill_parts(cl, rd, l, c);
	}
	return cl->counts;
}

void cgroup_lines_free(struct cgroup_lines *cl)
{
	free(cl->names);
	free(cl->event);
	free(cl->cgroup);
	free(cl->events);
	free(cl->counts);
	free(cl->parts);
	free(cl->results);
	free(cl->storage);
	memset(cl, 0, sizeof(*cl));
}
