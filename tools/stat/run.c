/* SPDX-License-Identifier: MIT */
/* One run of tally stat: --pre, the open on the target, the start, the wait (wait.c), the reads, the
 * command reaped, the run recorded (repeat.c), --post. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tally/counter.h>

#include "lib/signals.h"
#include "stat/session.h"

/* What a run's end gives the record: tally's or the command's elapsed time, the command's CPU times and
 * exit status (0 without a command). */
struct run_end {
	double elapsed, user, sys;
	int exit_status;
};

static double now_seconds(void)
{
	return (double)stat_now_ns() / 1e9;
}

/* Whether the launched command, whose exit ends a run, has exited. */
static bool has_tool_events(const struct report *r)
{
	for (size_t i = 0; i < r->nr_events; i++)
		if (r->events[i].pmu && strcmp(r->events[i].pmu, "tool") == 0)
			return true;
	return false;
}

/* Each event's own count where a line sums several PMUs' (--per-pmu, JSON's pmus, the metrics of each
 * PMU); none with -G and --for-each-cgroup, whose lines are (event, cgroup) pairs. */
const struct report_count *stat_pmu_counts(const struct stat_session *s)
{
	return s->cgroups.nr_lines ? NULL : s->rd.pmu_counts;
}

/* The shown lines' counts of the latest reading: the counter's events, or with -G and --for-each-cgroup
 * one line per event and cgroup. */
const struct report_count *stat_fill_counts(struct stat_session *s)
{
	readings_fill(&s->rd);
	s->counts = s->cgroups.nr_lines ? cgroup_lines_fill(&s->cgroups, &s->rd, s->opt.aggregation == AGGR_NONE)
	                                : s->rd.counts;
	return s->counts;
}

/* --pre and --post: the shell command run with system(3), as perf runs it, the results written so far
 * flushed first so that its output follows them. A command that fails stops the runs (perf goes on
 * with a run it does not count). */
static int run_hook(struct stat_session *s, const char *option, const char *command)
{
	stat_flush_results(s);
	fflush(stdout);
	int status = system(command);
	if (status == 0)
		return 0;
	if (status > 0 && WIFEXITED(status))
		fprintf(stderr, "tally stat: %s '%s' exited with %d: the runs stop\n", option, command,
		        WEXITSTATUS(status));
	else
		fprintf(stderr, "tally stat: %s '%s' failed: the runs stop\n", option, command);
	return -1;
}

/* The target of a run: the command, or what -a/-C/-p/-t/-G name while the command only sets how long. */
static void set_target(const struct stat_session *s, struct tally_target *t)
{
	const struct stat_options *o = &s->opt;
	if (stat_counts_command(o)) {
		t->kind = TALLY_TARGET_COMMAND;
	} else if (o->aggregation == AGGR_THREAD && o->all_cpus) {
		t->kind = TALLY_TARGET_ALL_THREADS; /* perf stat -a --per-thread */
	} else if (s->cgroups.nr_lines) {
		t->kind = TALLY_TARGET_CGROUPS;
		t->cpus = o->all_cpus ? NULL : o->cpu_list;
		t->cgroups = s->cgroups.names;
		t->nr_cgroups = s->cgroups.nr_names;
	} else if (stat_system_wide(o)) {
		t->kind = TALLY_TARGET_CPUS;
		t->cpus = o->all_cpus ? NULL : o->cpu_list;
	} else if (o->nr_pids) {
		t->kind = TALLY_TARGET_PID;
		t->pids = o->pids;
		t->nr_pids = o->nr_pids;
	} else {
		t->kind = TALLY_TARGET_TIDS;
		t->tids = o->tids;
		t->nr_tids = o->nr_tids;
	}
}

/* --pre, -S, the open on the target, the readings over it, the signal handlers. Returns -1 to go on, or an
 * exit status. */
static int open_run(struct stat_session *s, const struct tally_target *t)
{
	const struct stat_options *o = &s->opt;
	if (o->pre_cmd && run_hook(s, "--pre", o->pre_cmd) < 0)
		return EXIT_FAILED;
	/* -S: the writes of earlier runs (or of whatever ran before) go to disk now, not while counting. */
	if (o->sync)
		sync();
	if (tally_counter_open(s->counter, t) < 0) {
		stat_say_failure("", tally_counter_last_error(s->counter));
		return EXIT_FAILED;
	}
	if (readings_open(&s->rd) < 0 || readings_name_parts(&s->rd) < 0) {
		stat_say_failure("", tally_last_error());
		tally_counter_close(s->counter);
		return EXIT_FAILED;
	}
	if (signals_install() < 0) {
		fprintf(stderr, "tally stat: cannot install signal handlers: %s\n", tally_strerror(errno));
		tally_counter_close(s->counter);
		return EXIT_FAILED;
	}
	return -1;
}

/* The start: the counter started (a command released), the output begun, -D -1's hold or -D's delay.
 * *started_ns is the window's start. Returns -1 to go on, or an exit status. */
static int start_run(struct stat_session *s, unsigned run, pid_t child, uint64_t *started_ns)
{
	const struct stat_options *o = &s->opt;
	*started_ns = stat_now_ns();
	if (tally_counter_start(s->counter) < 0) {
		stat_say_failure("", tally_counter_last_error(s->counter));
		/* A command that could not run exits with 127 (the library's mapping); one that never started
		 * leaves nothing to wait for. */
		struct tally_exit ex;
		int status = tally_counter_wait(s->counter, &ex, sizeof(ex)) == 0 ? ex.code : EXIT_FAILED;
		tally_counter_close(s->counter);
		return status;
	}
	/* The output begins once counting has: a command that cannot run leaves no half document. */
	if (run == 1 && !o->quiet) {
		stat_begin_results(s);
		s->out.ops->begin(&s->out);
		stat_flush_results(s);
	}
	s->disabled = false;
	s->timed_out = false;
	s->held_from_start = o->start_disabled;
	if (o->start_disabled && stat_control_switch(s, false) < 0) {
		stat_say_failure("-D -1: ", tally_counter_last_error(s->counter));
		tally_counter_close(s->counter);
		return EXIT_FAILED;
	}
	if (o->delay_ms && stat_wait_delay(s, child, started_ns) < 0) {
		stat_say_failure("-D: ", tally_counter_last_error(s->counter));
		tally_counter_close(s->counter);
		return EXIT_FAILED;
	}
	return -1;
}

/* The end of the counting: the wait, the stop, --timeout's SIGTERM, the last interval, the reads.
 * *elapsed: tally's clock from the window's start. Returns 0, or a negative code. */
static int end_counting(struct stat_session *s, pid_t child, uint64_t started_ns, double *elapsed)
{
	const struct stat_options *o = &s->opt;
	uint64_t last_tick = started_ns;
	bool at_tick = false;
	int err = s->interrupted && child <= 0 ? 0 : stat_wait_for_end(s, child, started_ns, &last_tick, &at_tick);
	tally_counter_stop(s->counter);
	*elapsed = now_seconds() - (double)started_ns / 1e9;
	/* --timeout: perf ends the command with SIGTERM once the counts are taken. */
	if (s->timed_out)
		kill(child, SIGTERM);
	/* The last, partial interval: what was counted since the previous tick, unless the run ended on one. */
	if (err == 0 && o->interval_ms && !o->quiet && !at_tick)
		err = stat_print_interval(s, started_ns, &last_tick);
	return err == 0 ? readings_take(&s->rd) : err;
}

/* The command reaped: its status (0 for --timeout's SIGTERM, as perf's), its CPU times, the tool events
 * read again, and its own wall time as the elapsed one where that is what was counted. */
static void reap(struct stat_session *s, pid_t child, struct run_end *end)
{
	const struct stat_options *o = &s->opt;
	struct tally_exit ex;
	s->run_signal = 0;
	if (child <= 0 || tally_counter_wait(s->counter, &ex, sizeof(ex)) != 0)
		return;
	end->exit_status = ex.code;
	s->run_signal = WIFSIGNALED(ex.status) ? WTERMSIG(ex.status) : 0;
	/* The SIGTERM of --timeout is the end asked for, not a failure: the status is 0, as perf's. */
	if (s->timed_out && s->run_signal == SIGTERM) {
		s->run_signal = 0;
		end->exit_status = 0;
	}
	end->user = ex.user_s;
	end->sys = ex.sys_s;
	/* The tool events user_time and system_time of a command are exact (its rusage) only once it is
	 * reaped; read before, they had /proc's clock ticks. The other counts are stopped: unchanged. */
	if (has_tool_events(&s->report) && readings_take(&s->rd) == 0)
		stat_fill_counts(s);
	/* From the exec on, without tally's fork; with -D the window opened later, and tally's own clock,
	 * started at the delay's end, is the one that covers it (as perf's does). Another target's window
	 * opened before the command started: tally's clock covers it. */
	if (ex.wall_s > 0 && !o->delay_ms && stat_counts_command(o))
		end->elapsed = ex.wall_s;
}

/* One run: open on the target, start, wait, stop, read, print. Returns an exit status for tally when
 * the run cannot go on (>= 0 stops the runs), or -1 to go on. */
int stat_count_once(struct stat_session *s, unsigned run)
{
	const struct stat_options *o = &s->opt;
	/* Whatever the target, the library launches the command: with -a, -C, -p or -t it only sets how long
	 * the counting lasts. */
	/* Before tally's handlers are in place (the first run), the command inherits every disposition of
	 * tally's parent as it is, and the launcher sets none; later runs start with the ignored ones. */
	bool handlers = signals_installed();
	TALLY_OPTS(tally_target, t, .argv = o->argv, .pin = s->pin, .inherit_signals = !handlers,
	           .ignored = handlers ? signals_inherited_ignored() : 0);
	set_target(s, &t);
	int status = open_run(s, &t);
	if (status >= 0)
		return status;
	pid_t child = tally_counter_pid(s->counter);
	uint64_t started_ns;
	status = start_run(s, run, child, &started_ns);
	if (status >= 0)
		return status;
	struct run_end end = { 0 };
	if (end_counting(s, child, started_ns, &end.elapsed) < 0) {
		stat_say_failure("reading the counters failed: ", tally_counter_last_error(s->counter));
		tally_counter_close(s->counter);
		return EXIT_FAILED;
	}
	/* Before the command is reaped: --per-thread labels its threads with their /proc comm, which goes
	 * with the reaping. */
	stat_fill_counts(s);
	reap(s, child, &end);
	if (s->run_elapsed)
		s->run_elapsed[run - 1] = end.elapsed;
	stat_record_run(s, run, end.elapsed, end.user, end.sys, end.exit_status);
	tally_counter_close(s->counter);
	if (s->interrupted)
		return 128 + s->interrupted;
	return o->post_cmd && run_hook(s, "--post", o->post_cmd) < 0 ? EXIT_FAILED : -1;
}
