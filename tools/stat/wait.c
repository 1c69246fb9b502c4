/* SPDX-License-Identifier: MIT */
/* The waits of one run of tally stat: -D's delay, then until the command exits, -p/-t's tasks are gone,
 * --duration or --timeout pass or a signal comes (passed on to the command), printing -I's intervals
 * and polling --control's descriptor on the way. */
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

#include <tally/counter.h>

#include "lib/signals.h"
#include "stat/session.h"

uint64_t stat_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Prints the counts since the previous interval (or the start). Its length is measured, from the clock
 * read just after the previous interval's reads to the one just after these, never the nominal -I: a
 * late wake-up or the last, partial interval still gives true rates. */
int stat_print_interval(struct stat_session *s, uint64_t started, uint64_t *last_tick)
{
	int err = readings_interval(&s->rd);
	if (err < 0)
		return err;
	uint64_t now = stat_now_ns();
	struct report_sample sample = {
		.counts = stat_fill_counts(s),
		.pmu_counts = stat_pmu_counts(s),
		.timestamp = (double)(now - started) / 1e9,
		.seconds = (double)(now - *last_tick) / 1e9,
		.exit_status = -1,
	};
	*last_tick = now;
	if (s->clear_screen && !s->opt.quiet)
		fputs("\033[H\033[2J", s->file); /* perf's CONSOLE_CLEAR: the cursor home, then the screen cleared */
	if (!s->opt.quiet)
		s->out.ops->interval(&s->out, &sample);
	stat_flush_results(s);
	return 0;
}

/* A signal that ends tally: the first is the one tally exits with (128 + it). It is passed on to the
 * command, which would otherwise run on unsupervised (the terminal's Ctrl-C reaches it too; a signal
 * sent to tally alone, a hang-up or a closed output pipe do not); a second one insists (SIGKILL). */
static void on_signal(struct stat_session *s, int signo, pid_t child)
{
	if (!signals_ends_run(signo))
		return;
	if (!s->interrupted)
		s->interrupted = signo;
	if (child > 0)
		kill(child, s->forwarded++ ? SIGKILL : signo);
}

/* Waits up to timeout_ms for a signal and handles it; for a pid or tid target without a command, also for
 * its tasks to exit; with --control, also for its commands. Returns 1 when the tasks are all gone, 0
 * otherwise, or a negative code. */
static int wait_a_while(struct stat_session *s, pid_t child, int timeout_ms)
{
	int gone = 0;
	if (s->opt.control_fd >= 0 && !s->control_closed) {
		struct pollfd fds[2] = { { .fd = signals_fd(), .events = POLLIN },
			                 { .fd = s->opt.control_fd, .events = POLLIN } };
		if (poll(fds, 2, timeout_ms) > 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			int err = stat_control_read(s);
			if (err < 0)
				return err;
		}
		timeout_ms = 0;
	}
	if (!s->opt.argv && (s->opt.nr_pids || s->opt.nr_tids)) {
		gone = tally_counter_wait_tasks(s->counter, timeout_ms, signals_fd());
		if (gone < 0)
			return gone;
		timeout_ms = 0;
	}
	on_signal(s, signals_wait(timeout_ms), child);
	return gone;
}

/* Waits until the run ends (the command's exit, the exit of every counted task of -p/-t, --duration, a
 * signal), printing -I intervals on the way. The grid is in integer nanoseconds, so that a --duration that
 * is a multiple of -I ends exactly on a tick: that tick is printed as its own interval and *at_tick says
 * the run ended with it (no partial one after). */
int stat_wait_for_end(struct stat_session *s, pid_t child, uint64_t started, uint64_t *last_tick, bool *at_tick)
{
	const struct stat_options *o = &s->opt;
	/* Both fit: options.c bounds -I and --duration by poll's int timeout in ms. */
	uint64_t interval = (uint64_t)o->interval_ms * 1000000u;
	uint64_t next_tick = interval ? started + interval : UINT64_MAX;
	uint64_t deadline = o->duration > 0    ? started + (uint64_t)(o->duration * 1e9 + 0.5)
	                    : o->timeout_ms ? started + (uint64_t)o->timeout_ms * 1000000u
	                                    : UINT64_MAX;
	*at_tick = false;
	unsigned ticks = 0;
	for (;;) {
		if (child > 0 && signals_child_exited(child)) {
			/* A signal that came before the exit still ends the run as interrupted, however late
			 * tally got here (a command that exits at once, a loaded machine): its handler left it in
			 * the pipe. perf's handler records it the same way. */
			for (int signo; (signo = signals_wait(0)) != 0;)
				on_signal(s, signo, child);
			return 0;
		}
		if (child <= 0 && s->interrupted)
			return 0;
		uint64_t now = stat_now_ns();
		if (now >= next_tick) {
			int err = stat_print_interval(s, started, last_tick);
			if (err < 0)
				return err;
			while (next_tick <= now)
				next_tick += interval;
			if (now >= deadline || (o->interval_count && ++ticks == o->interval_count)) {
				*at_tick = true;
				return 0;
			}
			continue;
		}
		if (now >= deadline) {
			s->timed_out = o->timeout_ms && child > 0;
			return 0;
		}
		uint64_t until = next_tick < deadline ? next_tick : deadline;
		int timeout = until == UINT64_MAX ? -1 : (int)((until - now + 999999) / 1000000);
		/* A child that exits between the check above and the wait wakes it through SIGCHLD. */
		int gone = wait_a_while(s, child, timeout);
		if (gone != 0)
			return gone < 0 ? gone : 0;
	}
}

/* -D: the command runs unobserved for the delay, then the zero point is taken: the counter's reset
 * begins a new window (counts and enabled/running times from zero), which is what perf's -D gives by
 * enabling the events only then. *started_ns becomes the window's start. Returns 0, or the reset's
 * negative code. */
int stat_wait_delay(struct stat_session *s, pid_t child, uint64_t *started_ns)
{
	uint64_t end = *started_ns + (uint64_t)s->opt.delay_ms * 1000000u;
	for (uint64_t now = stat_now_ns(); now < end && !(child > 0 && signals_child_exited(child)) && !s->interrupted;
	     now = stat_now_ns())
		on_signal(s, signals_wait((int)((end - now + 999999) / 1000000)), child);
	int err = tally_counter_reset(s->counter);
	if (err < 0)
		return err;
	readings_restart(&s->rd);
	*started_ns = stat_now_ns();
	return 0;
}
