/* SPDX-License-Identifier: MIT */
/*
 * One JSON document per invocation (docs/json-schema.json). It is streamed: the header is written at
 * begin, interval and run records as they happen (so `-j -I` shows progress), and the closing totals,
 * the command's exit status and the times at finish.
 */
#include <stdlib.h>
#include <string.h>

#include <tally/common.h>

#include "report/output.h"
#include "report/readings.h"
#include "report/report_metrics.h"

static void write_metric(struct json_writer *w, const struct report *r, const struct report_count *counts, size_t i,
                         double seconds)
{
	struct tally_metric_value m;
	json_key(w, "metric");
	if (counts && report_comment(r, counts, i, seconds, &m)) {
		json_begin_object(w);
		json_member_double(w, "value", m.value);
		json_member_string(w, "unit", m.unit);
		json_member_bool(w, "mixed_windows",
		                 report_metric_window(r, counts, r->line_cgroup ? r->line_cgroup[i] : 0, &m).mixed);
		json_end_object(w);
	} else {
		json_null(w);
	}
}

/* A part, with its metric computed from the same part of every event (scratch: room for them, or NULL
 * for a null metric). */
static void write_part(struct output *o, const struct report_count *counts, size_t i, size_t k, double seconds,
                       struct report_count *scratch)
{
	struct json_writer *w = &o->json;
	const struct report_part *p = &counts[i].parts[k];
	json_begin_object(w);
	json_member_string(w, "label", p->label);
	if (o->report->show_nr_cpus)
		json_member_uint(w, "nr_cpus", p->nr_cpus);
	json_key(w, "cpu");
	if (p->cpu >= 0)
		json_int(w, p->cpu);
	else
		json_null(w);
	json_key(w, "tid");
	if (p->tid >= 0)
		json_int(w, p->tid);
	else
		json_null(w);
	json_member_uint(w, "value", p->value);
	json_member_double(w, "scaled", p->scaled);
	json_member_uint(w, "enabled", p->enabled);
	json_member_uint(w, "running", p->running);
	json_member_string(w, "status", report_status_name(p->status));
	if (scratch)
		output_part_counts(o->report, counts, p->label, k, scratch);
	write_metric(w, o->report, scratch, i, seconds);
	json_end_object(w);
}

/* One reading's counts of every event, as the writers walk them (output_reading). */
struct json_reading {
	const struct report_count *counts, *pmu_counts;
	double seconds;
	const double *stddev, *pmu_stddev;
};

/* The members every count has: value, scaled, times, status and its reason, metric, stddev. */
static void write_count(struct output *o, const struct report_count *counts, size_t i, double seconds,
                        const double *stddev)
{
	struct json_writer *w = &o->json;
	const struct report_count *c = &counts[i];
	json_member_uint(w, "value", c->value);
	json_member_double(w, "scaled", c->scaled);
	json_member_uint(w, "enabled", c->enabled);
	json_member_uint(w, "running", c->running);
	json_member_string(w, "status", report_status_name(c->status));
	json_member_string(w, "reason", c->reason);
	if (c->run) /* --no-multiplex: the run that counted it */
		json_member_uint(w, "run", c->run);
	write_metric(w, o->report, counts, i, seconds);
	if (stddev)
		json_member_double(w, "stddev", stddev[i]);
}

/* The PMUs a summed line adds up, each with its own count, times, status and metric (from its PMU's
 * events: the P-cores' IPC, the E-cores'). */
static void write_pmus(struct output *o, size_t i, const struct json_reading *rd)
{
	struct json_writer *w = &o->json;
	const struct report *r = o->report;
	json_key(w, "pmus");
	json_begin_array(w);
	for (size_t j = i; j < r->nr_events; j++) {
		if (r->events[j].line != i)
			continue;
		json_begin_object(w);
		json_member_string(w, "pmu", r->events[j].pmu);
		json_member_string(w, "name", r->events[j].pmu_name);
		json_member_string(w, "canonical", r->events[j].canonical);
		json_member_string(w, "encoding", r->events[j].encoding);
		write_count(o, rd->pmu_counts, j, rd->seconds, rd->pmu_stddev);
		json_end_object(w);
	}
	json_end_array(w);
}

/* One event's record: what it is, then its count in this reading. */
static void write_event(struct output *o, size_t i, const struct json_reading *rd)
{
	struct json_writer *w = &o->json;
	const struct report *r = o->report;
	const struct report_event *e = &r->events[i];
	const struct report_count *c = &rd->counts[i];
	json_begin_object(w);
	json_member_string(w, "name", e->name);
	if (r->cgroups)
		json_member_string(w, "cgroup", e->cgroup ? e->cgroup : "");
	json_member_string(w, "canonical", e->canonical);
	/* A summed line is no one PMU's: its PMUs are in "pmus". */
	json_member_string(w, "pmu", e->summed ? NULL : e->pmu);
	json_key(w, "encoding");
	json_begin_object(w);
	json_member_uint(w, "type", e->type);
	json_member_uint(w, "config", e->config);
	json_member_uint(w, "config1", e->config1);
	json_member_uint(w, "config2", e->config2);
	json_member_string(w, "text", e->encoding);
	json_end_object(w);
	json_member_int(w, "group", e->group);
	json_member_string(w, "unit", e->unit);
	json_member_double(w, "unit_scale", e->unit_scale);
	write_count(o, rd->counts, i, rd->seconds, rd->stddev);
	if (e->summed && rd->pmu_counts)
		write_pmus(o, i, rd);
	if (r->show_parts) {
		/* Without memory for them, the parts go without their metrics rather than not at all. */
		struct report_count *scratch = calloc(r->nr_events, sizeof(*scratch));
		json_key(w, "parts");
		json_begin_array(w);
		for (size_t k = 0; k < c->nr_parts; k++)
			write_part(o, rd->counts, i, k, rd->seconds, scratch);
		json_end_array(w);
		free(scratch);
	}
	json_end_object(w);
}

/* A metric's value (null when not available, with the reason) and the inputs it was computed from, each
 * summed over the events taken. */
static void write_metric_members(struct json_writer *w, const struct tally_metric_value *m,
                                 const struct metric_window *win)
{
	json_key(w, "value");
	if (m->available)
		json_double(w, m->value);
	else
		json_null(w);
	json_member_string(w, "unit", m->unit);
	json_member_bool(w, "available", m->available);
	json_member_string(w, "reason", m->available ? NULL : m->reason);
	json_member_bool(w, "scaled", m->scaled);
	json_member_bool(w, "mixed_windows", m->available && win->mixed);
	if (win->run) /* --no-multiplex: the run its events come from */
		json_member_uint(w, "run", win->run);
	if (m->threshold >= 0) /* a vendor metric's MetricThreshold evaluated */
		json_member_bool(w, "over_threshold", m->threshold == 1);
	json_key(w, "inputs");
	json_begin_array(w);
	for (size_t k = 0; k < m->nr_inputs; k++) {
		const struct tally_metric_input *in = &m->inputs[k];
		json_begin_object(w);
		json_member_string(w, "event", in->event);
		json_key(w, "value");
		if (in->found && (in->status == TALLY_STATUS_EXACT || in->status == TALLY_STATUS_SCALED))
			json_double(w, in->value);
		else
			json_null(w);
		json_member_string(w, "status", in->found ? report_status_name(readings_status_of(in->status)) : "missing");
		json_end_object(w);
	}
	json_end_array(w);
}

/* A metric asked for with -M, summed over a hybrid machine's core PMUs, with each PMU's own value in pmus
 * where it has parts on several (the P-cores' IPC, the E-cores'); with cgroups, of cgroup g, named. */
static void write_metric_record(struct output *o, const struct json_reading *rd, size_t k, size_t g)
{
	struct json_writer *w = &o->json;
	const struct report *r = o->report;
	const struct report_count *counts = report_metric_counts(r, rd->counts, rd->pmu_counts);
	struct tally_metric_value m;
	if (!report_metric(r, counts, rd->seconds, k, NULL, g, &m))
		return;
	json_begin_object(w);
	json_member_string(w, "name", m.name);
	if (r->cgroups)
		json_member_string(w, "cgroup", r->cgroup_names[g]);
	struct metric_window win = report_metric_window(r, counts, g, &m);
	write_metric_members(w, &m, &win);
	const char *pmus[8];
	size_t nr = report_metric_parts(r, counts, k, pmus, 8);
	if (nr > 1) {
		json_key(w, "pmus");
		json_begin_array(w);
		for (size_t p = 0; p < nr && p < 8; p++) {
			report_metric(r, counts, rd->seconds, k, pmus[p], g, &m);
			win = report_metric_window(r, counts, g, &m);
			json_begin_object(w);
			json_member_string(w, "pmu", pmus[p]);
			write_metric_members(w, &m, &win);
			json_end_object(w);
		}
		json_end_array(w);
	}
	json_end_object(w);
}

static void write_events(struct output *o, const struct json_reading *rd)
{
	const struct report *r = o->report;
	json_key(&o->json, "events");
	json_begin_array(&o->json);
	for (size_t i = 0; i < r->nr_events; i++)
		if (!r->events[i].hidden)
			write_event(o, i, rd);
	json_end_array(&o->json);
	json_key(&o->json, "metrics");
	json_begin_array(&o->json);
	for (size_t g = 0; g < report_metric_cgroups(r); g++)
		for (size_t k = 0; k < r->nr_metrics; k++)
			write_metric_record(o, rd, k, g);
	json_end_array(&o->json);
}

static void write_strings(struct json_writer *w, const char *const *list, size_t n)
{
	json_begin_array(w);
	for (size_t i = 0; i < n; i++)
		json_string(w, list[i]);
	json_end_array(w);
}

static void write_machine(struct output *o)
{
	struct json_writer *w = &o->json;
	const struct report *r = o->report;
	json_key(w, "machine");
	json_begin_object(w);
	json_member_string(w, "kernel", r->kernel);
	json_member_string(w, "cpu_model", r->cpu_model);
	json_member_int(w, "perf_event_paranoid", r->paranoid);
	json_key(w, "pmus");
	json_begin_array(w);
	for (size_t i = 0; i < r->nr_pmus; i++) {
		json_begin_object(w);
		json_member_string(w, "name", r->pmu_names[i]);
		json_member_uint(w, "type", r->pmu_types[i]);
		json_end_object(w);
	}
	json_end_array(w);
	json_member_bool(w, "hybrid", r->nr_core_pmus > 1);
	json_key(w, "core_pmus");
	write_strings(w, r->core_pmu_names, r->nr_core_pmus);
	json_end_object(w);
}

/* A count that is -1 when unknown: null then. */
static void member_count(struct json_writer *w, const char *key, long n)
{
	json_key(w, key);
	if (n >= 0)
		json_int(w, n);
	else
		json_null(w);
}

/* Where tally ran in a parallel job: what tally merge groups and labels ranks by. */
static void write_rank(struct json_writer *w, const struct report *r)
{
	member_count(w, "rank", r->rank);
	member_count(w, "size", r->size);
	json_member_string(w, "host", r->host);
	json_member_string(w, "job", r->job && *r->job ? r->job : NULL);
}

static void json_begin(struct output *o)
{
	struct json_writer *w = &o->json;
	const struct report *r = o->report;
	json_init(w, o->out);
	json_begin_object(w);
	json_member_int(w, "schema_version", OUTPUT_JSON_SCHEMA_VERSION);
	json_member_string(w, "tally_version", tally_version());
	json_key(w, "target");
	json_begin_object(w);
	json_member_string(w, "kind", r->target_kind);
	json_member_string(w, "description", r->target);
	json_end_object(w);
	json_member_string(w, "note", r->note);
	write_rank(w, r);
	write_machine(o);
}

/* The intervals and runs arrays are opened by their first record and closed at finish; only one of the
 * two can be open at a time, since -r and -I do not combine. */
static void json_interval(struct output *o, const struct report_sample *s)
{
	struct json_writer *w = &o->json;
	if (o->intervals++ == 0) {
		json_key(w, "intervals");
		json_begin_array(w);
	}
	json_begin_object(w);
	json_member_double(w, "timestamp", s->timestamp);
	json_member_double(w, "seconds", s->seconds);
	write_events(o, &(struct json_reading){ s->counts, s->pmu_counts, s->seconds, NULL, NULL });
	json_end_object(w);
}

static void json_run(struct output *o, const struct report_sample *s)
{
	struct json_writer *w = &o->json;
	if (o->intervals) {
		/* Close the intervals array: the run record below goes into "runs". */
		json_end_array(w);
		o->intervals = 0;
	}
	if (o->runs++ == 0) {
		json_key(w, "runs");
		json_begin_array(w);
	}
	json_begin_object(w);
	json_member_uint(w, "run", s->run);
	json_member_double(w, "elapsed", s->seconds);
	json_member_double(w, "user", s->user);
	json_member_double(w, "sys", s->sys);
	json_member_int(w, "exit_status", s->exit_status);
	write_events(o, &(struct json_reading){ s->counts, s->pmu_counts, s->seconds, NULL, NULL });
	json_end_object(w);
}

static void json_finish(struct output *o, const struct report_totals *t)
{
	struct json_writer *w = &o->json;
	const struct report *r = o->report;
	if (o->intervals || o->runs)
		json_end_array(w);
	json_key(w, "command");
	if (r->argv) {
		json_begin_object(w);
		json_key(w, "argv");
		json_begin_array(w);
		for (char *const *a = r->argv; *a; a++)
			json_string(w, *a);
		json_end_array(w);
		json_member_int(w, "exit_status", t->exit_status);
		json_end_object(w);
	} else {
		json_null(w);
	}
	json_member_int(w, "exit_status", t->exit_status);
	json_member_bool(w, "interrupted", t->interrupted != 0);
	json_member_uint(w, "nr_runs", t->nr_runs);
	json_member_bool(w, "no_multiplex", t->sets);
	json_member_double(w, "elapsed", t->elapsed);
	json_member_double(w, "elapsed_stddev", t->elapsed_stddev);
	json_member_double(w, "user", t->user);
	json_member_double(w, "sys", t->sys);
	write_events(o, &(struct json_reading){ t->counts, t->pmu_counts, t->elapsed, t->stddev, t->pmu_stddev });
	if (r->regions) {
		json_key(w, "regions");
		if (*r->regions)
			json_raw(w, r->regions);
		else
			json_null(w);
	}
	json_end_object(w);
}

const struct output_ops output_json_ops = {
	.begin = json_begin,
	.interval = json_interval,
	.run = json_run,
	.finish = json_finish,
};
