/* SPDX-License-Identifier: MIT */
/* The table for people, laid out as perf stat's, so eyes used to perf find things where they expect. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/text_escape.h"
#include "report/number_format.h"
#include "report/output.h"
#include "report/drilldown.h"
#include "report/report_metrics.h"

/* A default event this machine cannot count: left out, the note said why (see report_event.optional). */
static bool left_out(const struct report_event *e, const struct report_count *c)
{
	return e->optional && c->status == REPORT_NOT_SUPPORTED;
}

static void print_value(FILE *out, const struct report *r, const struct report_event *e, const char *name,
                        const struct report_count *c)
{
	char text[NUMBER_FORMAT_MAX];
	const char *placeholder = output_status_placeholder(c->status);
	if (placeholder)
		snprintf(text, sizeof(text), "%s", placeholder);
	else if (output_display_decimals(e))
		number_format_grouped_double(output_display_value(e, c), output_display_decimals(e), &r->numbers,
		                             text, sizeof(text));
	else
		number_format_grouped(count_of(c->scaled), &r->numbers, text, sizeof(text));
	fprintf(out, "%18s ", text);
	text_escape_pad(out, e->unit, 4);
	fputc(' ', out);
	text_escape_pad(out, name, 32);
}

/* One line: value, unit, event, then "# metric", the relative stddev with -r, and the share of time the
 * event ran when it was multiplexed. */
static void print_line(struct output *o, const struct output_reading *reading, const struct output_line *line)
{
	const struct report *r = o->report;
	const struct report_event *e = &r->events[line->event];
	const struct report_count *c = line->count;
	char text[NUMBER_FORMAT_MAX];
	if (left_out(e, &reading->counts[line->event]))
		return;
	if (reading->timestamp)
		fprintf(o->out, "%16s ", reading->timestamp);
	if (line->part)
		text_escape_pad(o->out, line->part, 16);
	if (line->part && r->show_nr_cpus && *line->part)
		fprintf(o->out, "%4u ", line->nr_cpus);
	else if (line->part && r->show_nr_cpus)
		fprintf(o->out, "%4s ", "");
	print_value(o->out, r, e, line->name, c);
	if (r->cgroups) { /* perf prints the cgroup after the event's name */
		fputc(' ', o->out);
		text_escape_write(o->out, e->cgroup ? e->cgroup : "");
	}
	struct tally_metric_value m;
	bool mixed = false;
	if (line->metric_counts && report_comment(r, line->metric_counts, line->event, reading->seconds, &m)) {
		fprintf(o->out, " # %8s %-20s", number_format_fixed(m.value, 3, &r->numbers, text, sizeof(text)), m.unit);
		mixed = report_metric_window(r, line->metric_counts, r->line_cgroup ? r->line_cgroup[line->event] : 0, &m)
		                .mixed;
	} else if (output_status_placeholder(c->status) == NULL) {
		fprintf(o->out, "   %8s %-20s", "", "");
	}
	if (reading->stddev && !line->part)
		fprintf(o->out, " ( +- %5s%% )", number_format_fixed(c->scaled > 0 ? 100.0 * line->stddev / c->scaled : 0.0,
		                                                      2, &r->numbers, text, sizeof(text)));
	if (c->status == REPORT_SCALED)
		fprintf(o->out, "  (%s%%)", number_format_fixed(output_percent_running(c), 2, &r->numbers, text, sizeof(text)));
	if (mixed)
		fputs("  (mixed windows)", o->out);
	o->mixed_seen |= mixed;
	if (r->verbose && e->encoding)
		fprintf(o->out, "  [%s]", e->encoding);
	fputc('\n', o->out);
}

/* One metric's line: value, name, "# unit"; "<not available>" where there is none (the reason is under
 * the table). */
static void print_metric(struct output *o, const struct output_reading *reading, const char *name,
                         const char *cgroup, const struct tally_metric_value *m)
{
	const struct report *r = o->report;
	char text[NUMBER_FORMAT_MAX];
	if (m->available)
		number_format_grouped_double(m->value, 2, &r->numbers, text, sizeof(text));
	else
		snprintf(text, sizeof(text), "<not available>");
	if (reading->timestamp)
		fprintf(o->out, "%16s ", reading->timestamp);
	if (r->show_parts)
		fprintf(o->out, "%16s", ""); /* the part's column, as text_escape_pad fills it on the events' lines */
	if (r->show_nr_cpus)
		fprintf(o->out, "%4s ", "");
	fprintf(o->out, "%18s %-4s ", text, "");
	text_escape_pad(o->out, name, 32);
	if (cgroup) { /* after the name, as on the events' lines */
		fputc(' ', o->out);
		text_escape_write(o->out, cgroup);
	}
	/* a vendor metric over its MetricThreshold: worth a look (perf 6.12 colours it) */
	bool mixed = m->available && o->window.mixed;
	fprintf(o->out, " # %s%s%s\n", m->unit, m->threshold == 1 ? "  (over its threshold)" : "",
	        mixed ? "  (mixed windows)" : "");
	o->mixed_seen |= mixed;
}

/* What "(mixed windows)" means, once under a table that has one. */
static void print_mixed_note(struct output *o)
{
	if (!o->mixed_seen)
		return;
	fputs("\n (mixed windows): the figure's events were not counted over one window: in different groups of "
	      "which\n some were multiplexed (each counted a different part of the run), or in different runs of\n"
	      " --no-multiplex; --no-multiplex counts each -M metric's events in one run, none multiplexed\n", o->out);
}

/* --no-multiplex: what each run counted, its time and any failing status. */
static void print_set_runs(struct output *o, const struct report_totals *t)
{
	const struct report *r = o->report;
	char a[NUMBER_FORMAT_MAX];
	fprintf(o->out, "\n --no-multiplex: %u run%s, each counting a set of groups alone:\n", t->nr_runs,
	        t->nr_runs == 1 ? "" : "s");
	for (unsigned run = 1; run <= t->nr_runs; run++) {
		fprintf(o->out, "   run %-3u %12s s:", run,
		        number_format_fixed(t->run_elapsed ? t->run_elapsed[run - 1] : 0, 6, &r->numbers, a, sizeof(a)));
		size_t shown = 0;
		bool multiplexed = false;
		for (size_t i = 0; i < r->nr_events; i++) {
			if (r->events[i].hidden || t->counts[i].run != run)
				continue;
			fputs(shown++ ? ", " : " ", o->out);
			text_escape_write(o->out, r->events[i].name);
			multiplexed |= t->counts[i].status == REPORT_SCALED || t->counts[i].status == REPORT_NOT_COUNTED;
		}
		/* A unit alone that was multiplexed (a metric's events are more than the PMU counts at once), or
		 * one the runs stopped before counting alone. */
		if (multiplexed)
			fputs(t->interrupted ? "  (multiplexed: the runs stopped before it was counted alone)"
			                     : "  (multiplexed still: a set that cannot be split further)", o->out);
		if (!shown)
			fputs(" none kept (its groups were multiplexed: counted again in smaller sets)", o->out);
		if (t->run_exit && t->run_exit[run - 1])
			fprintf(o->out, "  (exit status %d)", t->run_exit[run - 1]);
		fputc('\n', o->out);
	}
}

static void table_begin(struct output *o)
{
	output_rank_line(o->out, o->report);
}

static void table_interval(struct output *o, const struct report_sample *s)
{
	if (o->report->metric_only) {
		char timestamp[32];
		number_format_fixed(s->timestamp, 9, &o->report->numbers, timestamp, sizeof(timestamp));
		struct output_reading reading = { s->counts, s->seconds, timestamp, NULL, s->pmu_counts, NULL };
		if (o->intervals++ == 0 || o->report->interval_headers)
			output_metric_row(o, &reading, true);
		output_metric_row(o, &reading, false);
		return;
	}
	if (o->intervals++ == 0 || o->report->interval_headers)
		output_interval_header(o->out, o->report);
	char timestamp[32];
	number_format_fixed(s->timestamp, 9, &o->report->numbers, timestamp, sizeof(timestamp));
	struct output_reading reading = { s->counts, s->seconds, timestamp, NULL, s->pmu_counts, NULL };
	output_each_line(o, &reading, print_line);
	output_each_metric(o, &reading, print_metric);
}

static void table_run(struct output *o, const struct report_sample *s)
{
	(void)s;
	o->runs++;
}

/* With -G, the line before line i of the same event whose <not supported> says the same, or NULL: an
 * event's own failure is the same in every cgroup, and its explanation (three lines from the kernel's
 * errno) is given once, not once per cgroup (fifty with --for-each-cgroup of fifty). */
static const struct report_event *said_before(const struct report *r, const struct report_count *counts, size_t i)
{
	const struct report_count *c = &counts[i];
	if (!r->cgroups || c->status != REPORT_NOT_SUPPORTED || !c->reason)
		return NULL;
	for (size_t j = 0; j < i; j++)
		if (!r->events[j].hidden && counts[j].status == REPORT_NOT_SUPPORTED && counts[j].reason &&
		    strcmp(r->events[j].name, r->events[i].name) == 0 && strcmp(counts[j].reason, c->reason) == 0)
			return &r->events[j];
	return NULL;
}

/* The reason behind one line's <not counted> or <not supported>. */
static void print_footnote(struct output *o, bool *any, const struct report_event *e, const char *name,
                           const struct report_count *c, const struct report_event *same_as)
{
	const char *placeholder = output_status_placeholder(c->status);
	if (!placeholder)
		return;
	if (!*any)
		fputc('\n', o->out);
	*any = true;
	fprintf(o->out, " %s ", placeholder);
	text_escape_write(o->out, name);
	if (o->report->cgroups) { /* the line's cgroup, which tells apart the lines of one event */
		fputs(" in ", o->out);
		text_escape_write(o->out, e->cgroup && *e->cgroup ? e->cgroup : "every cgroup");
	}
	fputs(": ", o->out);
	if (same_as) {
		fputs("as in ", o->out);
		text_escape_write(o->out, same_as->cgroup && *same_as->cgroup ? same_as->cgroup : "every cgroup");
		fputs(" above\n", o->out);
		return;
	}
	/* A reason quotes the event's name (and the kernel's words): escaped as the name is. */
	text_escape_lines(o->out, c->reason ? c->reason : "no reason given");
	fputc('\n', o->out);
}

/* The reasons behind <not counted> and <not supported>, once per line, under the table (with --per-pmu
 * also a PMU's: cpu_atom's cycles when the command never ran on an E-core), and behind a metric's <not
 * available>. */
static void print_footnotes(struct output *o, const struct report_totals *t)
{
	const struct report *r = o->report;
	bool any = false;
	/* --metric-only: no event is shown, so only the metrics say why they are not available. */
	for (size_t i = 0; !r->metric_only && i < r->nr_events; i++) {
		const struct report_event *e = &r->events[i];
		if (!e->hidden && !left_out(e, &t->counts[i]))
			print_footnote(o, &any, e, e->name, &t->counts[i], said_before(r, t->counts, i));
		for (size_t j = i; r->show_pmus && e->summed && j < r->nr_events; j++)
			if (r->events[j].line == i)
				print_footnote(o, &any, &r->events[j], r->events[j].pmu_name, &t->pmu_counts[j], NULL);
	}
	const struct report_count *counts = report_metric_counts(r, t->counts, t->pmu_counts);
	for (size_t g = 0; g < report_metric_cgroups(r); g++)
		for (size_t k = 0; k < r->nr_metrics; k++) {
			struct tally_metric_value m;
			if (!report_metric(r, counts, t->elapsed, k, NULL, g, &m) || m.available)
				continue;
			if (!any)
				fputc('\n', o->out);
			any = true;
			fprintf(o->out, " <not available> %s", m.name);
			if (r->cgroups) { /* as an event's footnote names its cgroup */
				fputs(" in ", o->out);
				text_escape_write(o->out, *r->cgroup_names[g] ? r->cgroup_names[g] : "every cgroup");
			}
			fputs(": ", o->out);
			text_escape_lines(o->out, m.reason); /* it names events */
			fputc('\n', o->out);
		}
}

/* --table: each run's elapsed time, its difference from the mean and a bar of '#', one per 5% of the
 * difference, as perf's table; the headings indented to the mean's digits. */
static void print_run_table(struct output *o, const struct report_totals *t, int digits)
{
	const struct number_style *ns = &o->report->numbers;
	char a[NUMBER_FORMAT_MAX], b[NUMBER_FORMAT_MAX];
	int indent = 1 + 17 - (int)strlen(number_format_fixed(t->elapsed, digits, ns, a, sizeof(a)));
	fprintf(o->out, "%*s# Table of individual measurements:\n", indent > 0 ? indent : 0, "");
	for (unsigned i = 0; i < t->nr_runs; i++) {
		double run = t->run_elapsed[i], diff = run - t->elapsed;
		int bars = 1 + abs(run > 0 ? (int)(100.0 * diff / run) / 5 : 0);
		fprintf(o->out, " %17s (%s%s) ", number_format_fixed(run, digits, ns, a, sizeof(a)), diff < 0 ? "-" : "+",
		        number_format_fixed(fabs(diff), digits, ns, b, sizeof(b)));
		for (int h = 0; h < bars; h++)
			fputc('#', o->out);
		fputc('\n', o->out);
	}
	fprintf(o->out, "\n%*s# Final result:\n", indent > 0 ? indent : 0, "");
}

static void table_finish(struct output *o, const struct report_totals *t)
{
	const struct report *r = o->report;
	bool totals = o->intervals == 0 || r->summary;
	if (totals) {
		fputs("\n Performance counter stats for ", o->out);
		text_escape_write(o->out, r->target); /* the command's argv, as written */
		if (t->nr_runs > 1)
			fprintf(o->out, t->sets ? " (%u runs, --no-multiplex)" : " (%u runs)", t->nr_runs);
		fputs(":\n\n", o->out);
		struct output_reading reading = { t->counts, t->elapsed, NULL, t->nr_runs > 1 ? t->stddev : NULL,
			                          t->pmu_counts, t->nr_runs > 1 ? t->pmu_stddev : NULL };
		if (r->metric_only) {
			output_metric_row(o, &reading, true);
			output_metric_row(o, &reading, false);
		} else {
			output_each_line(o, &reading, print_line);
			output_each_metric(o, &reading, print_metric);
			if (r->drilldown)
				drilldown_print(o, &reading, r->td_level);
		}
	}
	print_footnotes(o, t);
	if (totals)
		print_mixed_note(o);
	if (totals && t->sets)
		print_set_runs(o, t);
	if (totals) {
		const struct number_style *ns = &r->numbers;
		char a[NUMBER_FORMAT_MAX], b[NUMBER_FORMAT_MAX], c[NUMBER_FORMAT_MAX];
		/* The blank line under the events; with none (-n) the heading's blank line is the one, as in perf. */
		if (r->nr_events)
			fputc('\n', o->out);
		/* perf's digits: two past the deviation's first significant one (6 when it is 0). */
		double sd = t->elapsed_stddev;
		int digits = sd > 1 ? 2 : sd > 1e-9 ? (int)lround(ceil(-log10(sd))) + 2 : 6;
		if (t->nr_runs > 1 && t->run_elapsed && !t->sets)
			print_run_table(o, t, digits);
		if (t->nr_runs > 1)
			fprintf(o->out, " %17s +- %s seconds time elapsed  ( +- %5s%% )\n",
			        number_format_fixed(t->elapsed, digits, ns, a, sizeof(a)),
			        number_format_fixed(t->elapsed_stddev, digits, ns, b, sizeof(b)),
			        number_format_fixed(t->elapsed > 0 ? 100.0 * t->elapsed_stddev / t->elapsed : 0, 2, ns, c,
			                            sizeof(c)));
		else
			fprintf(o->out, " %17s seconds time elapsed\n", number_format_fixed(t->elapsed, 9, ns, a, sizeof(a)));
		/* The command's CPU times, as perf prints them: only when the command is what was counted (with
		 * -a, -C, -p or -t it only set the duration). */
		if (strcmp(r->target_kind, "command") == 0 && t->nr_runs == 1)
			fprintf(o->out, "\n %17s seconds user\n %17s seconds sys\n", number_format_fixed(t->user, 9, ns, a, sizeof(a)),
			        number_format_fixed(t->sys, 9, ns, b, sizeof(b)));
	}
	if (t->nr_runs > 1 && t->killed_runs)
		fprintf(o->out, "\n (%u of %u runs killed by a signal: their counts are %s)\n", t->killed_runs,
		        t->nr_runs, t->sets ? "kept" : "in the mean");
	if (t->interrupted)
		fprintf(o->out, "\n (interrupted by SIG%s: counts up to the signal)\n", sigabbrev_np(t->interrupted));
	fputc('\n', o->out);
}

const struct output_ops output_table_ops = {
	.begin = table_begin,
	.interval = table_interval,
	.run = table_run,
	.finish = table_finish,
};
