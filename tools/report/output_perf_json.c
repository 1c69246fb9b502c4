/* SPDX-License-Identifier: MIT */
/*
 * perf stat's own JSON (--json-format=perf): one object per line and per printed figure, perf 6.1's keys
 * in perf's order, so that scripts written for `perf stat -j` (and perf's lint,
 * tests/shell/lib/perf_json_output_lint.py) read tally's. Only the figures: no machine, no runs, no
 * elapsed time, as perf prints none. tally's own schema (-j) is the documented one.
 */
#include <string.h>

#include "report/output.h"
#include "report/report_metrics.h"

static void member_string(FILE *out, const char *key, const char *value)
{
	fprintf(out, "\"%s\" : \"", key);
	json_escape(out, value, strlen(value));
	fputs("\", ", out);
}

/* The part's key and value as perf names them: "cpu" : "3" for -A's "CPU3", "core" : "S0-D0-C1" with the
 * CPUs summed as "aggregate-number", "thread" : "comm-tid". */
static void print_part(FILE *out, const struct report *r, const struct output_line *line)
{
	const char *key = r->part_key ? r->part_key : "cpu";
	const char *label = line->part;
	if (strcmp(key, "cpu") == 0 && strncmp(label, "CPU", 3) == 0)
		label += 3;
	member_string(out, key, label);
	if (r->show_nr_cpus)
		fprintf(out, "\"aggregate-number\" : %u, ", line->nr_cpus);
}

static void print_object(struct output *o, const struct output_reading *reading, const struct output_line *line)
{
	const struct report *r = o->report;
	const struct report_event *e = &r->events[line->event];
	const struct report_count *c = line->count;
	FILE *out = o->out;
	fputc('{', out);
	if (reading->timestamp)
		fprintf(out, "\"interval\" : %s, ", reading->timestamp);
	if (line->part)
		print_part(out, r, line);
	const char *placeholder = output_status_placeholder(c->status);
	if (placeholder)
		fprintf(out, "\"counter-value\" : \"%s\", ", placeholder);
	else
		fprintf(out, "\"counter-value\" : \"%f\", ", output_display_value(e, c));
	member_string(out, "unit", e->unit);
	member_string(out, "event", line->name);
	if (r->cgroups) /* perf 6.1: the cgroup after the event */
		member_string(out, "cgroup", e->cgroup ? e->cgroup : "");
	/* perf 6.1 with -r: the relative stddev in %, the table's "+-" figure. */
	if (reading->stddev)
		fprintf(out, "\"variance\" : %.2f, ", c->scaled > 0 ? 100.0 * line->stddev / c->scaled : 0.0);
	fprintf(out, "\"event-runtime\" : %llu, \"pcnt-running\" : %.2f, ", (unsigned long long)c->running,
	        output_percent_running(c));
	struct tally_metric_value m;
	if (line->metric_counts && report_comment(r, line->metric_counts, line->event, reading->seconds, &m)) {
		fprintf(out, "\"metric-value\" : %f, ", m.value);
		fprintf(out, "\"metric-unit\" : \"");
		json_escape(out, m.unit, strlen(m.unit));
		fputs("\"}\n", out);
	} else {
		fputs("\"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n", out);
	}
}

/* A -M metric as perf prints one: an object of its own, the value and the metric's name as the unit;
 * none where it is not available (perf's JSON has no field for the reason). */
static void print_metric_object(struct output *o, const struct output_reading *reading, const char *name,
                                const char *cgroup, const struct tally_metric_value *m)
{
	if (!m->available)
		return;
	fputc('{', o->out);
	if (reading->timestamp)
		fprintf(o->out, "\"interval\" : %s, ", reading->timestamp);
	if (cgroup)
		member_string(o->out, "cgroup", cgroup);
	fprintf(o->out, "\"metric-value\" : %f, \"metric-unit\" : \"", m->value);
	json_escape(o->out, name, strlen(name));
	fputs("\"}\n", o->out);
}

static void perf_json_begin(struct output *o)
{
	(void)o;
}

static void perf_json_interval(struct output *o, const struct report_sample *s)
{
	o->intervals++;
	char timestamp[32];
	snprintf(timestamp, sizeof(timestamp), "%.9f", s->timestamp);
	struct output_reading reading = { s->counts, s->seconds, timestamp, NULL, s->pmu_counts, NULL };
	output_each_line(o, &reading, print_object);
	output_each_metric(o, &reading, print_metric_object);
}

static void perf_json_run(struct output *o, const struct report_sample *s)
{
	(void)s;
	o->runs++;
}

static void perf_json_finish(struct output *o, const struct report_totals *t)
{
	if (o->intervals && !o->report->summary)
		return;
	struct output_reading reading = { t->counts, t->elapsed, NULL, t->nr_runs > 1 ? t->stddev : NULL, t->pmu_counts,
		                          t->nr_runs > 1 ? t->pmu_stddev : NULL };
	output_each_line(o, &reading, print_object);
	output_each_metric(o, &reading, print_metric_object);
}

const struct output_ops output_perf_json_ops = {
	.begin = perf_json_begin,
	.interval = perf_json_interval,
	.run = perf_json_run,
	.finish = perf_json_finish,
};
