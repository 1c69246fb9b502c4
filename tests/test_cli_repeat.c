/* SPDX-License-Identifier: MIT */
/*
 * `tally stat -r N`'s statistics over the runs (tools/stat/repeat.c), driven with constructed counts:
 * an event multiplexed or not counted in some of the runs (which no machine shows on demand) closes with
 * the worst status of its runs, whichever run had it, never as exact; the means are of every run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "stat/session.h"

enum { NR_EVENTS = 4, NR_RUNS = 3 };

/* Each event's status in each run: the worst in the middle run, in the first, in none, in the last. */
static const enum report_status statuses[NR_EVENTS][NR_RUNS] = {
	{ REPORT_COUNTED, REPORT_NOT_COUNTED, REPORT_COUNTED },
	{ REPORT_SCALED, REPORT_COUNTED, REPORT_COUNTED },
	{ REPORT_COUNTED, REPORT_COUNTED, REPORT_COUNTED },
	{ REPORT_COUNTED, REPORT_SCALED, REPORT_NOT_COUNTED },
};

static void worst_status_of_the_runs(void)
{
	struct stat_session s;
	memset(&s, 0, sizeof(s));
	s.opt.repeat = NR_RUNS;
	s.opt.quiet = true; /* the model only: no writer */
	s.report.nr_events = NR_EVENTS;
	s.file = fopen("/dev/null", "w");
	CHECK(s.file != NULL);
	CHECK_INT(stat_alloc_statistics(&s), 0);
	struct report_count counts[NR_RUNS][NR_EVENTS];
	memset(counts, 0, sizeof(counts));
	for (unsigned run = 0; run < NR_RUNS; run++) {
		for (size_t i = 0; i < NR_EVENTS; i++) {
			struct report_count *c = &counts[run][i];
			c->status = statuses[i][run];
			bool counted = c->status == REPORT_COUNTED || c->status == REPORT_SCALED;
			c->value = counted ? 100 * (run + 1) : 0;
			c->scaled = c->status == REPORT_SCALED ? 2.0 * (double)c->value : (double)c->value;
			c->enabled = 1000;
			c->running = c->status == REPORT_SCALED ? 500 : counted ? 1000 : 0;
		}
		s.counts = counts[run];
		stat_record_run(&s, run + 1, 0.5, 0, 0, 0);
	}
	stat_finish(&s);
	static const enum report_status worst[NR_EVENTS] = { REPORT_NOT_COUNTED, REPORT_SCALED, REPORT_COUNTED,
	                                                     REPORT_NOT_COUNTED };
	for (size_t i = 0; i < NR_EVENTS; i++)
		CHECK_INT(s.mean_counts[i].status, worst[i]);
	/* The means of every run (a run that did not count adds 0): 100, 200 and 300 counted... */
	CHECK(s.mean_counts[2].scaled == 200.0);
	CHECK_INT((long long)s.mean_counts[2].value, 200);
	/* ...but the middle one: (100 + 300) / 3; the first scaled by 2: (200 + 200 + 300) / 3. */
	CHECK(s.mean_counts[0].scaled > 133.3 && s.mean_counts[0].scaled < 133.4);
	CHECK(s.mean_counts[1].scaled > 233.3 && s.mean_counts[1].scaled < 233.4);
	CHECK_INT((long long)s.mean_counts[1].running, 833);
	fclose(s.file);
	free(s.runs);
	free(s.pmu_runs);
	free(s.mean_counts);
	free(s.mean_pmu_counts);
	free(s.stddev);
	free(s.pmu_stddev);
	free(s.run_elapsed);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "worst_status_of_the_runs", worst_status_of_the_runs },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
