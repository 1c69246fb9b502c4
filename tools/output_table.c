/* SPDX-License-Identifier: MIT */
/* The table for people, laid out as perf stat's, so eyes used to perf find things where they expect. */
#include <math.h>
#include <string.h>

#include "metrics.h"
#include "number_format.h"
#include "output.h"

static void print_value(FILE *out, const struct report_event *e, const struct report_count *c)
{
	char text[NUMBER_FORMAT_MAX];
	const char *placeholder = output_status_placeholder(c->status);
	if (placeholder)
		snprintf(text, sizeof(text), "%s", placeholder);
	else if (output_display_decimals(e))
		number_format_grouped_double(output_display_value(e, c), output_display_decimals(e), text,
		                             sizeof(text));
	else
		number_format_grouped((uint64_t)llround(c->scaled), text, sizeof(text));
	fprintf(out, "%18s %-4s %-32s", text, e->unit, e->name);
}

/* One line: value, unit, event, then "# metric", the relative stddev with -r, and the share of time the
 * event ran when it was multiplexed. */
static void print_line(struct output *o, const char *prefix, size_t i, const struct report_count *counts,
                       const struct report_count *c, double seconds, double stddev)
{
	const struct report *r = o->report;
	const struct report_event *e = &r->events[i];
	fputs(prefix, o->out);
	print_value(o->out, e, c);
	struct metric m;
	if (c == &counts[i] && metrics_compute(r, counts, i, seconds, &m))
		fprintf(o->out, " # %8.3f %-20s", m.value, m.unit);
	else if (output_status_placeholder(c->status) == NULL)
		fprintf(o->out, "   %8s %-20s", "", "");
	if (stddev > 0 && c->scaled > 0)
		fprintf(o->out, " ( +- %5.2f%% )", 100.0 * stddev / c->scaled);
	if (c->status == REPORT_SCALED)
		fprintf(o->out, "  (%.2f%%)", output_percent_running(c));
	if (r->verbose && e->encoding)
		fprintf(o->out, "  [%s]", e->encoding);
	fputc('\n', o->out);
}

/* Every event of one reading; with parts, one line per part first-column-labelled as perf -A does. */
static void print_counts(struct output *o, const char *timestamp, const struct report_count *counts,
                         double seconds, const double *stddev)
{
	const struct report *r = o->report;
	for (size_t i = 0; i < r->nr_events; i++) {
		const struct report_count *c = &counts[i];
		if (r->show_parts && c->nr_parts) {
			for (size_t k = 0; k < c->nr_parts; k++) {
				const struct report_part *p = &c->parts[k];
				struct report_count part = {
					.value = p->value, .scaled = p->scaled, .enabled = p->enabled,
					.running = p->running, .status = p->status,
				};
				char prefix[96];
				snprintf(prefix, sizeof(prefix), "%s%-16s", timestamp, p->label);
				print_line(o, prefix, i, counts, &part, seconds, 0);
			}
			continue;
		}
		print_line(o, timestamp, i, counts, c, seconds, stddev ? stddev[i] : 0);
	}
}

static void table_begin(struct output *o)
{
	if (o->report->note)
		fprintf(o->out, "note: %s\n", o->report->note);
}

static void table_interval(struct output *o, const struct report_sample *s)
{
	if (o->intervals++ == 0)
		fprintf(o->out, "#%15s %18s %-4s %s\n", "time", "counts", "unit", "events");
	char timestamp[32];
	snprintf(timestamp, sizeof(timestamp), "%16.9f ", s->timestamp);
	print_counts(o, timestamp, s->counts, s->seconds, NULL);
	fflush(o->out);
}

static void table_run(struct output *o, const struct report_sample *s)
{
	(void)s;
	o->runs++;
}

/* The reasons behind <not counted> and <not supported>, once per event, under the table. */
static void print_footnotes(struct output *o, const struct report_count *counts)
{
	const struct report *r = o->report;
	bool any = false;
	for (size_t i = 0; i < r->nr_events; i++) {
		const char *placeholder = output_status_placeholder(counts[i].status);
		if (!placeholder)
			continue;
		if (!any)
			fputc('\n', o->out);
		any = true;
		fprintf(o->out, " %s %s: %s\n", placeholder, r->events[i].name,
		        counts[i].reason ? counts[i].reason : "no reason given");
	}
}

static void table_finish(struct output *o, const struct report_totals *t)
{
	const struct report *r = o->report;
	if (o->intervals == 0) {
		fprintf(o->out, "\n Performance counter stats for %s", r->target);
		if (t->nr_runs > 1)
			fprintf(o->out, " (%u runs)", t->nr_runs);
		fputs(":\n\n", o->out);
		print_counts(o, "", t->counts, t->elapsed, t->stddev);
	}
	print_footnotes(o, t->counts);
	if (o->intervals == 0) {
		if (t->nr_runs > 1)
			fprintf(o->out, "\n %17.6f +- %.6f seconds time elapsed  ( +- %5.2f%% )\n", t->elapsed,
			        t->elapsed_stddev, t->elapsed > 0 ? 100.0 * t->elapsed_stddev / t->elapsed : 0);
		else
			fprintf(o->out, "\n %17.9f seconds time elapsed\n", t->elapsed);
		if (r->argv && t->nr_runs == 1)
			fprintf(o->out, "\n %17.9f seconds user\n %17.9f seconds sys\n", t->user, t->sys);
	}
	if (t->interrupted)
		fputs("\n (interrupted: counts up to Ctrl-C)\n", o->out);
	fputc('\n', o->out);
}

const struct output_ops output_table_ops = {
	.begin = table_begin,
	.interval = table_interval,
	.run = table_run,
	.finish = table_finish,
};
