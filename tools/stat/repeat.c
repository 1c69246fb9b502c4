/* SPDX-License-Identifier: MIT */
/* -r: each event's count over the runs (mean, deviation, worst status), the elapsed times, the exit
 * status a set of runs ends with, and the totals written at the end. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/number_format.h"
#include "stat/session.h"

static void add_run(struct event_runs *e, unsigned run, const struct report_count *c)
{
	run_stats_add(&e->value, c->scaled);
	run_stats_add(&e->raw, (double)c->value);
	run_stats_add(&e->enabled, (double)c->enabled);
	run_stats_add(&e->running, (double)c->running);
	e->worst = run == 1 ? c->status : report_status_worse(e->worst, c->status);
}

void stat_record_run(struct stat_session *s, unsigned run, double seconds, double user, double sys,
                       int exit_status)
{
	size_t n = s->report.nr_events;
	for (size_t i = 0; i < n; i++) {
		add_run(&s->runs[i], run, &s->counts[i]);
		if (stat_pmu_counts(s))
			add_run(&s->pmu_runs[i], run, &s->rd.pmu_counts[i]);
	}
	run_stats_add(&s->elapsed, seconds);
	s->user += user;
	s->sys += sys;
	if (s->run_signal) {
		s->killed_runs++;
		/* perf only names the signal; a run cut short is in the mean either way (as perf's), and this
		 * says so where the mean is read. */
		if (s->opt.repeat > 1)
			fprintf(stderr, "tally stat: run %u of %u: the command was killed by signal %d (%s); its "
			        "counts are in the mean\n", run, s->opt.repeat, s->run_signal, sigdescr_np(s->run_signal));
	}
	/* The last run's status, as perf exits with, unless a run was killed: then the last killed run's
	 * 128 + signal, so that a script does not take a mean over a cut-short run for a clean one. */
	if (s->run_signal || !s->killed_runs)
		s->exit_status = exit_status;
	struct report_sample sample = {
		.counts = s->counts, .pmu_counts = stat_pmu_counts(s), .timestamp = seconds, .seconds = seconds,
		.run = run, .user = user, .sys = sys, .exit_status = exit_status,
	};
	if (!s->opt.quiet)
		s->out.ops->run(&s->out, &sample);
	stat_flush_results(s);
}

/* The closing count of one event over the runs: the only run's, or the means with the worst status (the
 * last run's parts and reason). */
static void mean_count(const struct event_runs *e, unsigned runs, const struct report_count *last,
                       struct report_count *m, double *stddev)
{
	if (runs == 1) {
		*m = *last;
	} else {
		m->scaled = e->value.mean;
		m->value = count_of(e->raw.mean);
		m->enabled = count_of(e->enabled.mean);
		m->running = count_of(e->running.mean);
		m->status = e->worst;
		m->reason = last->reason;
		m->parts = last->parts;
		m->nr_parts = last->nr_parts;
		m->group = last->group;
		m->run = last->run;
	}
	*stddev = run_stats_stddev(&e->value);
}

void stat_finish(struct stat_session *s)
{
	size_t n = s->report.nr_events;
	unsigned runs = s->elapsed.n;
	/* --no-multiplex: the counts are the runs' combined reading (group_sets.c), no means. */
	bool sets = s->opt.no_multiplex;
	for (size_t i = 0; i < n; i++) {
		mean_count(&s->runs[i], sets ? 1 : runs, &s->counts[i], &s->mean_counts[i], &s->stddev[i]);
		if (stat_pmu_counts(s))
			mean_count(&s->pmu_runs[i], sets ? 1 : runs, &s->rd.pmu_counts[i], &s->mean_pmu_counts[i],
			           &s->pmu_stddev[i]);
	}
	struct report_totals totals = {
		.nr_runs = runs,
		.counts = s->mean_counts,
		.stddev = sets ? NULL : s->stddev,
		.pmu_counts = stat_pmu_counts(s) ? s->mean_pmu_counts : NULL,
		.pmu_stddev = sets ? NULL : s->pmu_stddev,
		.elapsed = s->elapsed.mean,
		.elapsed_stddev = run_stats_stddev(&s->elapsed),
		.user = s->user,
		.sys = s->sys,
		.exit_status = s->interrupted ? 128 + s->interrupted : s->exit_status,
		.interrupted = s->interrupted,
		.killed_runs = s->killed_runs,
		.run_elapsed = s->run_elapsed,
		.sets = sets,
		.run_exit = sets ? s->sets.run_exit : NULL,
	};
	if (s->regions.path[0]) {
		s->regions_text = regions_take(&s->regions);
		s->report.regions = s->regions_text ? s->regions_text : "";
	}
	if (!s->opt.quiet)
		s->out.ops->finish(&s->out, &totals);
	/* The table and CSV of the regions follow the command's counts as the command wrote them. */
	if (!s->opt.quiet && !s->opt.json && s->report.regions)
		fputs(s->report.regions, s->file);
	stat_flush_results(s);
}

int stat_alloc_statistics(struct stat_session *s)
{
	size_t n = s->report.nr_events ? s->report.nr_events : 1;
	s->runs = calloc(n, sizeof(*s->runs));
	s->pmu_runs = calloc(n, sizeof(*s->pmu_runs));
	s->mean_counts = calloc(n, sizeof(*s->mean_counts));
	s->mean_pmu_counts = calloc(n, sizeof(*s->mean_pmu_counts));
	s->stddev = calloc(n, sizeof(*s->stddev));
	if (s->opt.table && !(s->run_elapsed = calloc(s->opt.repeat, sizeof(*s->run_elapsed))))
		return -ENOMEM;
	s->pmu_stddev = calloc(n, sizeof(*s->pmu_stddev));
	return s->runs && s->pmu_runs && s->mean_counts && s->mean_pmu_counts && s->stddev && s->pmu_stddev
	               ? 0
	               : -ENOMEM;
}
