/* SPDX-License-Identifier: MIT */
/* What the writers share: how a count is displayed. */
#include "lib/text_escape.h"
#include "report/output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *output_status_placeholder(enum report_status status)
{
	switch (status) {
	case REPORT_NOT_COUNTED: return "<not counted>";
	case REPORT_NOT_SUPPORTED: return "<not supported>";
	case REPORT_COUNTED:
	case REPORT_SCALED: break;
	}
	return NULL;
}

double output_display_value(const struct report_event *e, const struct report_count *c)
{
	return c->scaled * e->unit_scale;
}

int output_display_decimals(const struct report_event *e)
{
	return e->unit_scale != 1.0 ? 2 : 0;
}

void output_interval_header(FILE *out, const struct report *r)
{
	fprintf(out, "#%15s ", "time");
	const char *key = r->part_key ? r->part_key : "cpu";
	if (r->show_parts)
		fprintf(out, "%-16s", strcmp(key, "cpu") == 0 ? "CPU" : strcmp(key, "thread") == 0 ? "comm-tid" : key);
	if (r->show_nr_cpus)
		fprintf(out, "%4s ", "cpus");
	fprintf(out, "%18s %-4s %s\n", "counts", "unit", "events");
}

void output_rank_line(FILE *out, const struct report *r)
{
	if (r->rank < 0)
		return;
	fprintf(out, "# rank %ld", r->rank);
	if (r->size >= 0)
		fprintf(out, " of %ld", r->size);
	fputs(" on ", out);
	text_escape_write(out, r->host ? r->host : "");
	if (r->job && *r->job) {
		fputs(", job ", out);
		text_escape_write(out, r->job);
	}
	fputc('\n', out);
}

double output_percent_running(const struct report_count *c)
{
	if (c->enabled == 0)
		return 100.0;
	return 100.0 * (double)c->running / (double)c->enabled;
}

/* The part labelled `label` of count c, as a count of its own, or a count with no value when c has no such
 * part. */
static struct report_count part_count(const struct report_count *c, const char *label, size_t hint)
{
	for (size_t n = 0; n < c->nr_parts; n++) {
		/* Every event's parts usually come in the same order: the hint's position first. */
		const struct report_part *p = &c->parts[(hint + n) % c->nr_parts];
		if (strcmp(p->label, label) == 0)
			return (struct report_count){
				.value = p->value, .scaled = p->scaled, .enabled = p->enabled,
				.running = p->running, .status = p->status, .group = c->group, .run = c->run,
			};
	}
	return (struct report_count){ .status = c->nr_parts ? REPORT_NOT_COUNTED : c->status };
}

void output_part_counts(const struct report *r, const struct report_count *counts, const char *label, size_t hint,
                        struct report_count *into)
{
	for (size_t j = 0; j < r->nr_events; j++)
		into[j] = part_count(&counts[j], label, hint);
}

/* The line of one event's part: its count of that part, with the metric of the part. */
static void each_part_line(struct output *o, const struct output_reading *reading, output_line_fn fn,
                           size_t i, const struct report_part *part, size_t k, struct report_count *scratch)
{
	const char *label = part->label;
	if (scratch)
		output_part_counts(o->report, reading->counts, label, k, scratch);
	struct report_count own = part_count(&reading->counts[i], label, k);
	struct output_line line = { .event = i, .name = o->report->events[i].name, .count = &own, .part = label,
		                    .nr_cpus = part->nr_cpus, .metric_counts = scratch };
	fn(o, reading, &line);
}

/* --per-pmu: the lines of the PMUs a summed line adds up, each with its own count, times and status, and
 * the metric of its PMU's events (the P-cores' IPC from cpu_core's instructions and cycles). */
static void each_pmu_line(struct output *o, const struct output_reading *reading, output_line_fn fn, size_t i)
{
	const struct report *r = o->report;
	for (size_t j = i; j < r->nr_events; j++) {
		if (r->events[j].line != i)
			continue;
		struct output_line line = {
			.event = j, .name = r->events[j].pmu_name, .count = &reading->pmu_counts[j],
			.metric_counts = reading->pmu_counts, .stddev = reading->pmu_stddev ? reading->pmu_stddev[j] : 0,
		};
		fn(o, reading, &line);
	}
}

void output_each_line(struct output *o, const struct output_reading *reading, output_line_fn fn)
{
	const struct report *r = o->report;
	const struct report_count *model = NULL;
	for (size_t i = 0; r->show_parts && i < r->nr_events && !model; i++)
		if (reading->counts[i].nr_parts)
			model = &reading->counts[i];
	/* Without memory for it, a part's line goes without its metric rather than not at all. */
	struct report_count *scratch = r->show_parts ? calloc(r->nr_events ? r->nr_events : 1, sizeof(*scratch)) : NULL;
	for (size_t i = 0; i < r->nr_events; i++) {
		const struct report_count *c = &reading->counts[i];
		if (r->events[i].hidden)
			continue;
		if (!r->show_parts) {
			struct output_line line = {
				.event = i, .name = r->events[i].name, .count = c, .metric_counts = reading->counts,
				.stddev = reading->stddev ? reading->stddev[i] : 0,
			};
			fn(o, reading, &line);
			if (r->show_pmus && r->events[i].summed && reading->pmu_counts)
				each_pmu_line(o, reading, fn, i);
			continue;
		}
		const struct report_count *labels = c->nr_parts ? c : model;
		if (!labels) {
			struct output_line line = { .event = i, .name = r->events[i].name, .count = c, .part = "" };
			fn(o, reading, &line);
			continue;
		}
		for (size_t k = 0; k < labels->nr_parts; k++)
			each_part_line(o, reading, fn, i, &labels->parts[k], k, scratch);
	}
	free(scratch);
}

void output_each_metric(struct output *o, const struct output_reading *reading, output_metric_fn fn)
{
	const struct report *r = o->report;
	const struct report_count *counts = report_metric_counts(r, reading->counts, reading->pmu_counts);
	for (size_t g = 0; g < report_metric_cgroups(r); g++) {
		const char *cgroup = r->cgroups ? r->cgroup_names[g] : NULL;
		for (size_t k = 0; k < r->nr_metrics; k++) {
			struct tally_metric_value m;
			if (!report_metric(r, counts, reading->seconds, k, NULL, g, &m))
				continue;
			o->window = report_metric_window(r, counts, g, &m);
			fn(o, reading, m.name, cgroup, &m);
			const char *pmus[8];
			size_t nr = r->show_pmus ? report_metric_parts(r, counts, k, pmus, 8) : 0;
			for (size_t p = 0; nr > 1 && p < nr && p < 8; p++) {
				char name[96];
				report_metric(r, counts, reading->seconds, k, pmus[p], g, &m);
				o->window = report_metric_window(r, counts, g, &m);
				snprintf(name, sizeof(name), "%s [%s]", m.name, pmus[p]);
				fn(o, reading, name, cgroup, &m);
			}
		}
	}
}

/* The width of a metric's column in the table: its name's, at least a value's. */
static int metric_width(const char *name)
{
	int n = (int)strlen(name);
	return n > 15 ? n : 15;
}

static void metric_cell(struct output *o, const struct output_reading *reading, const char *name,
                        const char *cgroup, const struct tally_metric_value *m)
{
	(void)cgroup; /* --metric-only is refused with cgroups */
	const char *sep = o->report->separator;
	(void)reading;
	bool header = o->row_header;
	if (sep) {
		fputs(o->row_cells++ ? sep : "", o->out);
		if (header)
			text_escape_field(o->out, name, sep);
		else if (m->available)
			fprintf(o->out, "%.3f", m->value);
		return;
	}
	if (header)
		fprintf(o->out, " %*s", metric_width(name), name);
	else if (m->available)
		fprintf(o->out, " %*s", metric_width(name),
		        number_format_fixed(m->value, 3, &o->report->numbers, (char[NUMBER_FORMAT_MAX]){ 0 }, NUMBER_FORMAT_MAX));
	else
		fprintf(o->out, " %*s", metric_width(name), "-");
}

void output_metric_row(struct output *o, const struct output_reading *reading, bool header)
{
	const char *sep = o->report->separator;
	o->row_header = header;
	o->row_cells = 0;
	if (reading->timestamp) {
		if (sep)
			fprintf(o->out, "%s", header ? "time" : reading->timestamp);
		else
			fprintf(o->out, "%16s", header ? "#           time" : reading->timestamp);
		o->row_cells = 1;
	}
	output_each_metric(o, reading, metric_cell);
	fputc('\n', o->out);
}
