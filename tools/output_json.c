/* SPDX-License-Identifier: MIT */
/*
 * One JSON document per invocation (docs/json-schema.json). It is streamed: the header is written at
 * begin, interval and run records as they happen (so `-j -I` shows progress), and the closing totals,
 * the command's exit status and the times at finish.
 */
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

static void write_part(struct json_writer *w, const struct report_part *p)
{
	json_begin_object(w);
	json_key(w, "label");
	json_string(w, p->label);
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
	json_key(w, "pmu");
	json_string(w, p->pmu);
	json_key(w, "value");
	json_uint(w, p->value);
	json_key(w, "scaled");
	json_double(w, p->scaled);
	json_key(w, "enabled");
	json_uint(w, p->enabled);
	json_key(w, "running");
	json_uint(w, p->running);
	json_key(w, "status");
	json_string(w, status_name(p->status));
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
	json_key(w, "name");
	json_string(w, e->name);
	json_key(w, "canonical");
	json_string(w, e->canonical);
	json_key(w, "pmu");
	json_string(w, e->pmu);
	json_key(w, "encoding");
	json_begin_object(w);
	json_key(w, "type");
	json_uint(w, e->type);
	json_key(w, "config");
	json_uint(w, e->config);
	json_key(w, "config1");
	json_uint(w, e->config1);
	json_key(w, "config2");
	json_uint(w, e->config2);
	json_key(w, "text");
	json_string(w, e->encoding);
	json_end_object(w);
	json_key(w, "group");
	json_int(w, e->group);
	json_key(w, "unit");
	json_string(w, e->unit);
	json_key(w, "unit_scale");
	json_double(w, e->unit_scale);
	json_key(w, "value");
	json_uint(w, c->value);
	json_key(w, "scaled");
	json_double(w, c->scaled);
	json_key(w, "enabled");
	json_uint(w, c->enabled);
	json_key(w, "running");
	json_uint(w, c->running);
	json_key(w, "status");
	json_string(w, status_name(c->status));
	json_key(w, "reason");
	json_string(w, c->reason);
	struct metric m;
	json_key(w, "metric");
	if (metrics_compute(r, counts, i, seconds, &m)) {
		json_begin_object(w);
		json_key(w, "value");
		json_double(w, m.value);
		json_key(w, "unit");
		json_string(w, m.unit);
		json_end_object(w);
	} else {
		json_null(w);
	}
	if (stddev) {
		json_key(w, "stddev");
		json_double(w, stddev[i]);
	}
	if (r->show_parts) {
		json_key(w, "parts");
		json_begin_array(w);
		for (size_t k = 0; k < c->nr_parts; k++)
			write_part(w, &c->parts[k]);
		json_end_array(w);
	}
	json_end_object(w);
}

static void write_events(struct output *o, const struct report_count *counts, double seconds,
                         const double *stddev)
{
	json_key(&o->json, "events");
	json_begin_array(&o->json);
	for (size_t i = 0; i < o->report->nr_events; i++)
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
	json_key(w, "kernel");
	json_string(w, r->kernel);
	json_key(w, "cpu_model");
	json_string(w, r->cpu_model);
	json_key(w, "perf_event_paranoid");
	json_int(w, r->paranoid);
	json_key(w, "pmus");
	json_begin_array(w);
	for (size_t i = 0; i < r->nr_pmus; i++) {
		json_begin_object(w);
		json_key(w, "name");
		json_string(w, r->pmu_names[i]);
		json_key(w, "type");
		json_uint(w, r->pmu_types[i]);
		json_end_object(w);
	}
	json_end_array(w);
	json_key(w, "hybrid");
	json_bool(w, r->nr_core_pmus > 1);
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
	json_key(w, "schema_version");
	json_int(w, OUTPUT_JSON_SCHEMA_VERSION);
	json_key(w, "tally_version");
	json_string(w, tally_version());
	json_key(w, "target");
	json_begin_object(w);
	json_key(w, "kind");
	json_string(w, r->target_kind);
	json_key(w, "description");
	json_string(w, r->target);
	json_end_object(w);
	json_key(w, "note");
	json_string(w, r->note);
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
	json_key(w, "timestamp");
	json_double(w, s->timestamp);
	json_key(w, "seconds");
	json_double(w, s->seconds);
	write_events(o, s->counts, s->seconds, NULL);
	json_end_object(w);
	fflush(o->out);
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
	json_key(w, "run");
	json_uint(w, s->run);
	json_key(w, "elapsed");
	json_double(w, s->seconds);
	json_key(w, "user");
	json_double(w, s->user);
	json_key(w, "sys");
	json_double(w, s->sys);
	json_key(w, "exit_status");
	json_int(w, s->exit_status);
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
		json_key(w, "exit_status");
		json_int(w, t->exit_status);
		json_end_object(w);
	} else {
		json_null(w);
	}
	json_key(w, "exit_status");
	json_int(w, t->exit_status);
	json_key(w, "interrupted");
	json_bool(w, t->interrupted);
	json_key(w, "nr_runs");
	json_uint(w, t->nr_runs);
	json_key(w, "elapsed");
	json_double(w, t->elapsed);
	json_key(w, "elapsed_stddev");
	json_double(w, t->elapsed_stddev);
	json_key(w, "user");
	json_double(w, t->user);
	json_key(w, "sys");
	json_double(w, t->sys);
	write_events(o, t->counts, t->elapsed, t->stddev);
	json_end_object(w);
	fflush(o->out);
}

const struct output_ops output_json_ops = {
	.begin = json_begin,
	.interval = json_interval,
	.run = json_run,
	.finish = json_finish,
};
