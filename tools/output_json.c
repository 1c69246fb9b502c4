/* SPDX-License-Identifier: MIT */
/*
 * One JSON document per invocation (docs/json-schema.json). It is streamed: the header is written at
 * begin, interval and run records as they happen (so `-j -I` shows progress), and the closing totals,
 * the command's exit status and the times at finish.
 */
#include <stdlib.h>
#include <string.h>

#include <tally/common.h>

#include "metrics.h"
#include "output.h"

static const char *status_name(enum report_status status)
{
	switch (status) {
	case REPORT_COUNTED: return "counted";
	case REPORT_SCALED: return "scaled";
	case REPORT_NOT_COUNTED: return "not-counted";
	case REPORT_NOT_SUPPORTED: return "not-supported";
	}
	return "unknown";
}

static void write_metric(struct json_writer *w, const struct report *r, const struct report_count *counts, size_t i,
                         double seconds)
{
	struct metric m;
	json_key(w, "metric");
	if (counts && metrics_compute(r, counts, i, seconds, &m)) {
		json_begin_object(w);
		json_member_double(w, "value", m.value);
		json_member_string(w, "unit", m.unit);
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
	json_member_string(w, "status", status_name(p->status));
	if (scratch)
		output_part_counts(o->report, counts, p->label, k, scratch);
	write_metric(w, o->report, scratch, i, seconds);
	json_end_object(w);
}

/* One event's record: what it is, then its count in this reading. */
static void write_event(struct output *o, size_t i, const struct report_count *counts, double seconds,
                        const double *stddev)
{
	struct json_writer *w = &o->json;
	const struct report *r = o->report;
	const struct report_event *e = &r->events[i];
	const struct report_count *c = &counts[i];
	json_begin_object(w);
	json_member_string(w, "name", e->name);
	if (r->cgroups)
		json_member_string(w, "cgroup", e->cgroup ? e->cgroup : "");
	json_member_string(w, "canonical", e->canonical);
	json_member_string(w, "pmu", e->pmu);
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
	json_member_uint(w, "value", c->value);
	json_member_double(w, "scaled", c->scaled);
	json_member_uint(w, "enabled", c->enabled);
	json_member_uint(w, "running", c->running);
	json_member_string(w, "status", status_name(c->status));
	json_member_string(w, "reason", c->reason);
	write_metric(w, r, counts, i, seconds);
	if (stddev) {
		json_member_double(w, "stddev", stddev[i]);
	}
	/* A merged family has its PMUs as parts even where no other parts are shown. */
	if (r->show_parts || c->nr_parts) {
		/* Without memory for them, the parts go without their metrics rather than not at all. */
		struct report_count *scratch = calloc(r->nr_events, sizeof(*scratch));
		json_key(w, "parts");
		json_begin_array(w);
		for (size_t k = 0; k < c->nr_parts; k++)
			write_part(o, counts, i, k, seconds, scratch);
		json_end_array(w);
		free(scratch);
	}
	json_end_object(w);
}

static void write_events(struct output *o, const struct report_count *counts, double seconds,
                         const double *stddev)
{
	json_key(&o->json, "events");
	json_begin_array(&o->json);
	for (size_t i = 0; i < o->report->nr_events; i++)
		if (!o->report->events[i].hidden)
			write_event(o, i, counts, seconds, stddev);
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
	write_events(o, s->counts, s->seconds, NULL);
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
	write_events(o, s->counts, s->seconds, NULL);
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
	json_member_double(w, "elapsed", t->elapsed);
	json_member_double(w, "elapsed_stddev", t->elapsed_stddev);
	json_member_double(w, "user", t->user);
	json_member_double(w, "sys", t->sys);
	write_events(o, t->counts, t->elapsed, t->stddev);
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
