/* SPDX-License-Identifier: MIT */
/* tally stat --no-multiplex (group_sets.h): the runs, one set of groups each, and their combination.
 *
 * Why the kernel's answer rather than a count of the PMU's counters: how many groups fit together depends on
 * the counters each event may use (fixed and general ones, constraints such as "counter 0-3 only"), on what
 * else holds counters (the NMI watchdog takes one), and on the kernel; a group that was not multiplexed in
 * a run counted all of it, whatever the reason. So the first run counts everything, as tally stat does by
 * default, and where nothing was multiplexed it is the only run. A set of units with any multiplexed is
 * split in halves, each half a run of its own, down to units alone: a group always fits the PMU alone
 * (the kernel refuses to open one that cannot), so the splitting ends, in at most about 2 x units runs,
 * fewer where several units fit together (8 units of which 4 fit at once: 1 + 2 runs). */
#include "stat/group_sets.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/report_metrics.h"
#include "stat/session.h"

void group_sets_free(struct group_sets *gs)
{
	free(gs->unit);
	free(gs->kept);
	free(gs->reasons);
	free(gs->run);
	free(gs->selected);
	free(gs->multiplexed);
	free(gs->pool);
	free(gs->at);
	free(gs->run_exit);
	memset(gs, 0, sizeof(*gs));
}

/* Room for every event's state and every run's time and status: a set splits into two or leaves one
 * unit alone, so the runs are at most 3 x units (units <= events), and the first. */
static int group_sets_alloc(struct stat_session *s)
{
	struct group_sets *gs = &s->sets;
	size_t n = tally_counter_count(s->counter), room = n ? n : 1;
	gs->n = n;
	gs->cap_runs = 3 * room + 1;
	gs->unit = calloc(room, sizeof(*gs->unit));
	gs->kept = calloc(room, sizeof(*gs->kept));
	gs->reasons = calloc(room, sizeof(*gs->reasons));
	gs->run = calloc(room, sizeof(*gs->run));
	gs->selected = calloc(room, sizeof(*gs->selected));
	gs->multiplexed = calloc(room, sizeof(*gs->multiplexed));
	gs->run_exit = calloc(gs->cap_runs, sizeof(*gs->run_exit));
	free(s->run_elapsed);
	s->run_elapsed = calloc(gs->cap_runs, sizeof(*s->run_elapsed));
	for (size_t i = 0; gs->unit && i < n; i++)
		gs->unit[i] = i;
	bool all = gs->unit && gs->kept && gs->reasons && gs->run && gs->selected && gs->multiplexed && gs->run_exit &&
	           s->run_elapsed;
	return all ? 0 : -ENOMEM;
}

static size_t unit_of(struct group_sets *gs, size_t i)
{
	while (gs->unit[i] != i)
		i = gs->unit[i] = gs->unit[gs->unit[i]];
	return i;
}

static void join(struct group_sets *gs, size_t a, size_t b)
{
	a = unit_of(gs, a);
	b = unit_of(gs, b);
	if (a != b)
		gs->unit[a > b ? a : b] = a < b ? a : b;
}

/* The units, from the first run, which opened every event: each {...} group of the spec and each kernel
 * group that ran (tally_result.group; a group tally packed of events outside braces that never ran is left
 * in its events, which the next opens pack again into fewer at a time), joined with the groups of the
 * other events each -M metric reads (a hybrid input's every PMU: the events of its origin), so that a
 * metric's events are counted in one run. The events a metric reads are those its evaluation takes over
 * a reading where every event counted (a value of its own each, none zero): the first run's may have left
 * some not counted, and an evaluation stops at an input it cannot use. */
static int make_units(struct stat_session *s)
{
	struct group_sets *gs = &s->sets;
	const struct event_reading *ev = s->rd.events;
	size_t *braces = malloc((gs->n ? gs->n : 1) * sizeof(*braces)); /* by spec group: its first event */
	struct report_count *counts = calloc(gs->n ? gs->n : 1, sizeof(*counts));
	if (!braces || !counts) {
		free(braces);
		free(counts);
		return -ENOMEM;
	}
	for (size_t i = 0; i < gs->n; i++)
		braces[i] = SIZE_MAX;
	for (size_t i = 0; i < gs->n; i++) {
		const struct tally_result *res = &ev[i].result;
		bool ran = res->status == TALLY_STATUS_EXACT || res->status == TALLY_STATUS_SCALED;
		if (ran && res->group >= 0 && (size_t)res->group < gs->n)
			join(gs, i, (size_t)res->group);
		int spec_group = s->events[i].group;
		if (spec_group >= 0 && (size_t)spec_group < gs->n && braces[spec_group] == SIZE_MAX)
			braces[spec_group] = i;
		if (spec_group >= 0 && (size_t)spec_group < gs->n)
			join(gs, braces[spec_group], i);
	}
	free(braces);
	const struct report *r = &s->report;
	for (size_t i = 0; i < gs->n; i++)
		counts[i] = (struct report_count){ .value = 1000 + i, .scaled = 1000.0 + (double)i, .enabled = 1,
			                           .running = 1, .status = REPORT_COUNTED, .group = -1 };
	for (size_t k = 0; k < r->nr_metrics; k++) {
		struct tally_metric_value m;
		report_metric(r, counts, 1.0, k, NULL, 0, &m);
		size_t first = SIZE_MAX;
		for (size_t j = 0; j < m.nr_inputs; j++) {
			const struct tally_metric_input *in = &m.inputs[j];
			if (!in->found || in->first_event >= gs->n)
				continue;
			if (first == SIZE_MAX)
				first = in->first_event;
			join(gs, first, in->first_event);
			for (size_t e = 0; in->nr_events > 1 && e < gs->n; e++)
				if (ev[e].result.origin == ev[in->first_event].result.origin)
					join(gs, first, e);
		}
	}
	free(counts);
	return 0;
}

/* Appends a set of units (roots[0 .. nr)) to the queue. */
static int push_set(struct group_sets *gs, const size_t *roots, size_t nr)
{
	if (gs->nr_pool + nr > gs->cap_pool) {
		size_t cap = 2 * (gs->nr_pool + nr);
		size_t *pool = realloc(gs->pool, cap * sizeof(*pool));
		if (!pool)
			return -ENOMEM;
		gs->pool = pool;
		gs->cap_pool = cap;
	}
	if (gs->nr_sets + 2 > gs->cap_sets) {
		size_t cap = 2 * (gs->nr_sets + 2);
		size_t *at = realloc(gs->at, cap * sizeof(*at));
		if (!at)
			return -ENOMEM;
		gs->at = at;
		gs->cap_sets = cap;
	}
	if (gs->nr_sets == 0)
		gs->at[0] = 0;
	memcpy(gs->pool + gs->nr_pool, roots, nr * sizeof(*roots));
	gs->nr_pool += nr;
	gs->at[++gs->nr_sets] = gs->nr_pool;
	return 0;
}

/* After the run of set k: its events' readings kept, and its units still multiplexed queued again, in
 * halves, or alone when one is left (a unit alone keeps what it read: it cannot be split). */
static int after_run(struct stat_session *s, size_t k, unsigned run)
{
	struct group_sets *gs = &s->sets;
	const struct event_reading *ev = s->rd.events;
	const size_t *set = gs->pool + gs->at[k];
	size_t nr = gs->at[k + 1] - gs->at[k], pending = 0;
	for (size_t i = 0; i < gs->n; i++)
		gs->multiplexed[i] = false;
	for (size_t i = 0; i < gs->n; i++) {
		if (!gs->selected[i])
			continue;
		gs->kept[i] = ev[i].result;
		const char *why = s->rd.pmu_counts[i].reason;
		snprintf(gs->reasons[i], sizeof(gs->reasons[i]), "%s", why ? why : "");
		gs->run[i] = run;
		/* A unit did not count all its run where one of its events was scaled or never ran (one not
		 * supported counts nothing in any run). */
		if (ev[i].result.status == TALLY_STATUS_SCALED || ev[i].result.status == TALLY_STATUS_NOT_COUNTED)
			gs->multiplexed[unit_of(gs, i)] = true;
	}
	size_t *left = malloc((nr ? nr : 1) * sizeof(*left));
	if (!left)
		return -ENOMEM;
	for (size_t u = 0; u < nr; u++)
		if (gs->multiplexed[set[u]])
			left[pending++] = set[u];
	int err = 0;
	if (nr > 1 && pending == 1)
		err = push_set(gs, left, 1);
	else if (nr > 1 && pending > 1 && (err = push_set(gs, left, pending / 2)) == 0)
		err = push_set(gs, left + pending / 2, pending - pending / 2);
	free(left);
	return err;
}

/* The events of set k selected for the next open (whole units). */
static void select_set(struct group_sets *gs, size_t k)
{
	for (size_t i = 0; i < gs->n; i++)
		gs->selected[i] = false;
	for (size_t u = gs->at[k]; u < gs->at[k + 1]; u++)
		gs->selected[gs->pool[u]] = true;
	for (size_t i = 0; i < gs->n; i++)
		gs->selected[i] = gs->selected[unit_of(gs, i)];
}

static bool stdin_is_a_pipe(void)
{
	struct stat st;
	return fstat(STDIN_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

/* One run of the command, its exit status kept, a failing one said. Returns stat_count_once's answer;
 * *recorded: the run got as far as its readings. */
static int count_run(struct stat_session *s, unsigned run, bool *recorded)
{
	struct group_sets *gs = &s->sets;
	/* The command reads its standard input again from where the first run began (a file's `< input`); a
	 * pipe's is read once, by whichever runs get to it: said at the first run again. */
	if (run > 1 && gs->input >= 0)
		lseek(STDIN_FILENO, gs->input, SEEK_SET);
	else if (run == 2 && stdin_is_a_pipe())
		fprintf(stderr, "tally stat: --no-multiplex: standard input is a pipe, which cannot be rewound: the "
		        "runs after the first read only what it left (give the input as a file, < FILE, for each run "
		        "to read it whole)\n");
	unsigned killed = s->killed_runs, before = s->elapsed.n;
	s->killed_runs = 0; /* so that stat_record_run keeps this run's status */
	int status = stat_count_once(s, run);
	s->killed_runs += killed;
	*recorded = s->elapsed.n > before;
	if (!*recorded)
		return status;
	int exit_status = gs->run_exit[run - 1] = s->exit_status;
	if (exit_status && !gs->first_failure) {
		gs->first_failure = exit_status;
		fprintf(stderr, "tally stat: --no-multiplex: run %u: the command %s %d; its counts are kept, and tally "
		        "exits with this status\n", run, s->run_signal ? "was killed by signal" : "exited with",
		        s->run_signal ? s->run_signal : exit_status);
	}
	return status;
}

/* The runs' readings as one: each event's kept one (an event no run counted, the runs having stopped,
 * not counted), with its reason and run, through the report model as any reading. */
static void combine(struct stat_session *s)
{
	struct group_sets *gs = &s->sets;
	struct event_reading *ev = s->rd.events;
	for (size_t i = 0; i < gs->n; i++) {
		struct tally_result r = ev[i].result;
		if (gs->run[i]) {
			r = gs->kept[i];
		} else {
			r = (struct tally_result){ .status = TALLY_STATUS_NOT_COUNTED, .group = -1, .origin = r.origin };
			snprintf(gs->reasons[i], sizeof(gs->reasons[i]), "the runs stopped before the one that counts it");
		}
		r.has_note = false; /* the reason is the run's, kept: the counter's notes are the last open's */
		r.error = 0;
		ev[i].result = r;
	}
	stat_fill_counts(s);
	for (size_t i = 0; i < gs->n; i++) {
		const char *why = gs->reasons[i][0] ? gs->reasons[i] : NULL;
		s->rd.pmu_counts[i].reason = s->rd.counts[i].reason = why;
		s->rd.pmu_counts[i].run = s->rd.counts[i].run = gs->run[i];
	}
	if (gs->first_failure)
		s->exit_status = gs->first_failure;
}

/* The first run, which counts everything and makes the units, then the sets it leaves. */
static int count_sets(struct stat_session *s)
{
	struct group_sets *gs = &s->sets;
	bool recorded;
	unsigned run = 1;
	tally_counter_select(s->counter, NULL, 0);
	int status = count_run(s, run, &recorded);
	if (!recorded)
		return status;
	if (make_units(s) < 0)
		return -ENOMEM;
	size_t *roots = malloc((gs->n ? gs->n : 1) * sizeof(*roots)), nr = 0;
	if (!roots)
		return -ENOMEM;
	for (size_t i = 0; i < gs->n; i++)
		if (unit_of(gs, i) == i)
			roots[nr++] = i;
	int err = push_set(gs, roots, nr);
	free(roots);
	if (err < 0)
		return err;
	select_set(gs, 0);
	err = after_run(s, gs->next_set++, run);
	while (err == 0 && status < 0 && gs->next_set < gs->nr_sets) {
		select_set(gs, gs->next_set);
		if (tally_counter_select(s->counter, gs->selected, gs->n) < 0) {
			stat_say_failure("--no-multiplex: ", tally_counter_last_error(s->counter));
			return EXIT_FAILED;
		}
		status = count_run(s, ++run, &recorded);
		if (recorded)
			err = after_run(s, gs->next_set, run);
		gs->next_set++;
	}
	return err < 0 ? err : status;
}

int stat_count_group_sets(struct stat_session *s)
{
	struct group_sets *gs = &s->sets;
	gs->input = lseek(STDIN_FILENO, 0, SEEK_CUR);
	if (group_sets_alloc(s) < 0) {
		fprintf(stderr, "tally stat: out of memory\n");
		return EXIT_FAILED;
	}
	int status = count_sets(s);
	if (status == -ENOMEM) {
		fprintf(stderr, "tally stat: out of memory\n");
		status = EXIT_FAILED;
	}
	if (s->elapsed.n > 0)
		combine(s);
	return status;
}
