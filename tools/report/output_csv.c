/* SPDX-License-Identifier: MIT */
/*
 * CSV in perf stat -x's field order: [time,] [part,] value, unit, event, [stddev%,] run time, % running,
 * metric value, metric unit. Numbers are never grouped and always use '.' (the "C" locale), so scripts
 * that read perf's CSV read tally's.
 */
#include <math.h>
#include <string.h>

#include "lib/text_escape.h"
#include "report/output.h"
#include "report/report_metrics.h"

static void print_record(struct output *o, const struct output_reading *reading, const struct output_line *line)
{
	const struct report *r = o->report;
	const struct report_event *e = &r->events[line->event];
	const struct report_count *c = line->count;
	const char *sep = r->separator;
	FILE *out = o->out;
	if (reading->timestamp)
		fprintf(out, "%s%s", reading->timestamp, sep);
	if (line->part) {
		text_escape_field(out, line->part, sep);
		fputs(sep, out);
	}
	if (line->part && r->show_nr_cpus)
		fprintf(out, "%u%s", line->nr_cpus, sep);
	const char *placeholder = output_status_placeholder(c->status);
	if (placeholder)
		fputs(placeholder, out);
	else if (output_display_decimals(e))
		fprintf(out, "%.2f", output_display_value(e, c));
	else
		fprintf(out, "%.0f", c->scaled);
	/* Escaped: a newline in a name would end the record, a separator in it would split the field. */
	fprintf(out, "%s", sep);
	text_escape_field(out, e->unit, sep);
	fputs(sep, out);
	text_escape_field(out, line->name, sep);
	if (r->cgroups) { /* perf 6.1: the cgroup after the event, empty for an event without one */
		fputs(sep, out);
		text_escape_field(out, e->cgroup ? e->cgroup : "", sep);
	}
	if (reading->stddev)
		fprintf(out, "%s%.2f%%", sep, c->scaled > 0 ? 100.0 * line->stddev / c->scaled : 0.0);
	fprintf(out, "%s%llu%s%.2f%s", sep, (unsigned long long)c->running, sep, output_percent_running(c), sep);
	struct tally_metric_value m;
	if (line->metric_counts && report_comment(r, line->metric_counts, line->event, reading->seconds, &m))
		fprintf(out, "%.3f%s%s", m.value, sep, m.unit);
	else
		fputs(sep, out);
	fputc('\n', out);
}

/* One metric's record (-M): its name in the event column, its value (or <not available>) and unit in the
 * metric columns, the count columns empty. */
static void print_metric_record(struct output *o, const struct output_reading *reading, const char *name,
                                const char *cgroup, const struct tally_metric_value *m)
{
	const struct report *r = o->report;
	const char *sep = r->separator;
	if (reading->timestamp)
		fprintf(o->out, "%s%s", reading->timestamp, sep);
	if (r->show_parts)
		fputs(sep, o->out);
	if (r->show_nr_cpus)
		fputs(sep, o->out);
	fprintf(o->out, "%s%s", sep, sep);
	text_escape_field(o->out, name, sep);
	if (cgroup) { /* the events' cgroup field */
		fputs(sep, o->out);
		text_escape_field(o->out, cgroup, sep);
	}
	if (reading->stddev)
		fputs(sep, o->out);
	fprintf(o->out, "%s%s%s", sep, sep, sep);
	if (m->available)
		fprintf(o->out, "%.3f", m->value);
	else
		fputs("<not available>", o->out);
	fprintf(o->out, "%s%s", sep, m->unit);
	/* a vendor metric with a MetricThreshold: one field more, whether the value is over it */
	if (m->threshold >= 0)
		fprintf(o->out, "%s%s", sep, m->threshold ? "over-threshold" : "under-threshold");
	/* and one more where its events were counted over different windows (report_metric_window) */
	if (m->available && o->window.mixed)
		fprintf(o->out, "%smixed-windows", sep);
	fputc('\n', o->out);
}

static void print_header(struct output *o, bool interval, bool with_stddev)
{
	const struct report *r = o->report;
	const char *sep = r->separator;
	if (interval)
		fprintf(o->out, "time%s", sep);
	if (r->show_parts)
		fprintf(o->out, "part%s", sep);
	if (r->show_nr_cpus)
		fprintf(o->out, "cpus%s", sep);
	fprintf(o->out, "value%sunit%sevent%s%s", sep, sep, sep, r->cgroups ? "cgroup" : "");
	if (r->cgroups)
		fputs(sep, o->out);
	if (with_stddev)
		fprintf(o->out, "stddev%s", sep);
	fprintf(o->out, "run_time_ns%spercent_running%smetric_value%smetric_unit\n", sep, sep, sep);
}

static void csv_begin(struct output *o)
{
	if (o->report->csv_header)
		output_rank_line(o->out, o->report);
}

/* A reading's records: the events' and the -M metrics', or with --metric-only one record of the metrics
 * (their names first when header). */
static void print_reading(struct output *o, const struct output_reading *reading, bool header)
{
	if (o->report->metric_only) {
		if (header)
			output_metric_row(o, reading, true);
		output_metric_row(o, reading, false);
		return;
	}
	output_each_line(o, reading, print_record);
	output_each_metric(o, reading, print_metric_record);
}

static void csv_interval(struct output *o, const struct report_sample *s)
{
	bool first = o->intervals++ == 0;
	if (o->report->interval_headers && !o->report->metric_only)
		output_interval_header(o->out, o->report); /* perf's --interval-clear, a # line */
	if (first && o->report->csv_header && !o->report->metric_only)
		print_header(o, true, false);
	char timestamp[32];
	snprintf(timestamp, sizeof(timestamp), "%16.9f", s->timestamp); /* padded as perf pads it */
	struct output_reading reading = { s->counts, s->seconds, timestamp, NULL, s->pmu_counts, NULL };
	print_reading(o, &reading, first && o->report->csv_header);
}

static void csv_run(struct output *o, const struct report_sample *s)
{
	(void)s;
	o->runs++;
}

static void csv_finish(struct output *o, const struct report_totals *t)
{
	const struct report *r = o->report;
	if (o->intervals && !r->summary)
		return;
	/* perf's --summary: the totals in the time field's place, padded as its timestamps are; perf 6.1 puts
	 * it there without -I too. */
	const char *timestamp = r->summary && r->csv_summary_field ? "         summary" : NULL;
	if (r->csv_header && !o->intervals && !r->metric_only)
		print_header(o, timestamp != NULL, t->nr_runs > 1 && t->stddev);
	struct output_reading reading = { t->counts, t->elapsed, timestamp, t->nr_runs > 1 ? t->stddev : NULL,
		                          t->pmu_counts, t->nr_runs > 1 ? t->pmu_stddev : NULL };
	print_reading(o, &reading, r->csv_header && !o->intervals);
}

const struct output_ops output_csv_ops = {
	.begin = csv_begin,
	.interval = csv_interval,
	.run = csv_run,
	.finish = csv_finish,
};
