/* SPDX-License-Identifier: MIT */
/*
 * tally stat: counts events while a command runs (or on -p/-t/-a/-C targets until their tasks exit, a signal
 * or --duration) and prints the result as a table, CSV or JSON, with perf stat's flags and exit statuses:
 * the command's own status, 128 + signal when it was killed, 127 when it could not be executed, 2 for a
 * usage error or a bad event spec (found before anything runs), 128 + signal when tally itself was
 * ended by SIGINT, SIGTERM, SIGHUP or SIGPIPE (130 for Ctrl-C, after passing the signal on to the command,
 * waiting for it and printing what was counted), 1 when counting failed. Results that cannot be written
 * (-o on a full disk) are said lost on stderr, and the status stays the command's: a tally failure never
 * changes the measured program's exit status (perf 6.1 does not check its writes at all).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tally/counter.h>
#include <tally/events.h>
#include <tally/metrics.h>
#include <tally/rank.h>

#include "lib/id_list.h"
#include "lib/signals.h"
#include "lib/stream.h"
#include "lib/text_escape.h"
#include "report/default_events.h"
#include "report/event_unit.h"
#include "report/machine.h"
#include "report/number_format.h"
#include "report/output.h"
#include "report/readings.h"
#include "stat/cgroup_lines.h"
#include "stat/options.h"
#include "stat/regions.h"
#include "stat/run_stats.h"
#include "stat/stat.h"

#define EXIT_USAGE 2
#define EXIT_FAILED 1

/* -r: one event over the runs. */
struct event_runs {
	struct run_stats value;       /* of the scaled count */
	struct run_stats raw, enabled, running;
	enum report_status worst;     /* the worst status of any run */
};

struct stat_session {
	struct stat_options opt;
	tally_pmus *pmus;
	tally_counter *counter;
	struct readings rd;
	struct report report;
	struct report_event *events;
	char (*encodings)[256];
	size_t *lines;                /* the line each event is shown on (readings.h), NULL when none merges */
	char (*names)[256];           /* family PMUs' own names, "uncore_imc_0/cas_count_read/" */
	struct machine machine;
	char target[512];
	struct output out;
	FILE *file;                   /* -o, or a buffered copy of stderr (report_stream) */
	char output[4096];            /* -o with its placeholders expanded (%r, %h, ...) */
	struct tally_rank rank;       /* where tally stands in a parallel job, for the headers */
	int output_error;             /* 0, or the first failure writing file: its errno, -1 when unknown */
	int interrupted;              /* the signal that stopped tally, 0 when none */
	unsigned forwarded;           /* signals passed on to the command */
	char *pin;                    /* --pin as a CPU list for the library */
	/* -r statistics, one per event (of its line's count, and of its own on its PMU), and of the elapsed
	 * time; the totals' counts and deviations. */
	struct event_runs *runs, *pmu_runs;
	struct run_stats elapsed;
	struct report_count *mean_counts, *mean_pmu_counts;
	double *stddev, *pmu_stddev;
	double user, sys;
	int exit_status;
	int run_signal;               /* the signal that ended this run's command, 0 when it exited */
	unsigned killed_runs;         /* -r: runs whose command a signal ended */
	struct regions regions;       /* --regions: the file the command writes them to */
	char *regions_text;
	size_t *metrics;              /* -M: catalogue indices (tally_counter_metrics) */
	struct cgroup_lines cgroups;  /* -G, --for-each-cgroup: a line per (event, cgroup) */
	const struct report_count *counts; /* the shown lines' counts of the latest fill */
	char *spec;                   /* what the counter counts: -e's or the defaults, then -d's (malloc'd) */
	/* The origins (tally_event_info.origin) of the events tally added, the defaults and -d's: the table
	 * leaves out those this machine cannot count, for the note. */
	unsigned added_from, added_to;
	bool clear_screen;            /* --interval-clear on a terminal */
	/* --cputype: the composed spec as parsed, whose kept events' names the lines show (the counter
	 * counts them rewritten, each on its PMU); nr_kept of them lead the counter's events. */
	tally_events *cputype_list;
	const char **kept_names;
	size_t nr_kept;
	double *run_elapsed;          /* --table: each run's elapsed time */
	bool disabled;                /* --control's "disable" (or -D -1) holds the events stopped */
	bool held_from_start;         /* -D -1, and no "enable" yet: the window begins at the first */
	bool timed_out;               /* --timeout ended this run's command */
	char control_line[64];        /* --control: a command read in part */
	size_t control_used;
	bool control_closed;          /* --control's descriptor is at its end: no longer waited on */
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double now_seconds(void)
{
	return (double)now_ns() / 1e9;
}

/* A failure said on stderr, "tally stat: " and its context first: the library's explanation may carry
 * what the user gave (a cgroup name, an event as written, a path), so its control bytes are escaped as
 * every such text is (newlines pass). */
static void say_failure(const char *context, const char *text)
{
	fprintf(stderr, "tally stat: %s", context);
	text_escape_lines(stderr, text);
	fputc('\n', stderr);
}

static const char *results_name(const struct stat_session *s)
{
	return s->opt.output ? s->output : s->opt.log_fd >= 0 ? "--log-fd's descriptor" : "standard error";
}

/* Says once, at once, that the results are lost, and why. */
static void results_lost(struct stat_session *s, int err)
{
	if (s->output_error)
		return;
	s->output_error = err;
	/* EPIPE: the reader went away, and the SIGPIPE of the same write ends tally with 141 (command_stat). */
	fprintf(stderr, "tally stat: cannot write the results to %s: %s: the results are lost (%s)\n", results_name(s),
	        stream_strerror(err),
	        err == EPIPE ? "their reader went away: tally ends as a SIGPIPE ends it, with 141"
	                     : "the exit status stays the command's");
}

/* The results written so far go out now (they keep their order with the command's own output). A failure
 * is said once (results_lost); counting goes on, and the exit status stays the command's, since the
 * command must not be harmed by tally's loss. */
static void flush_results(struct stat_session *s)
{
	int err = stream_flush(s->file);
	if (err != 0)
		results_lost(s, err);
}

/* The last flush and the close of -o's file (where a network file system reports what the writes did
 * not). */
static void close_results(struct stat_session *s)
{
	if (!s->file)
		return;
	flush_results(s);
	if (s->file != stderr && fclose(s->file) != 0)
		results_lost(s, errno);
	s->file = NULL;
}

/* A spec item counted on several PMUs whose events sum to one thing is one line, the sum, named as written:
 * a PMU family's instances (tally_event_info.family: uncore_imc/cas_count_read/ on uncore_imc_0 ... _5, as
 * perf merges them) and a generic event, raw code or alias on each core PMU of a hybrid machine
 * (.per_core_pmu: cpu_core/cycles/ and cpu_atom/cycles/, arm64 clusters; perf 6.1 shows these apart unless
 * --hybrid-merge). --no-merge and -A show each PMU on its own line, and so does --per-pmu where other
 * parts are shown (--per-thread, --per-core, ...), named as perf's --no-merge names it: the PMU, then the
 * name from its first '/' ("uncore_imc_0/cas_count_read/"), or "name [pmu]" for a name without one (a
 * name= term); a core PMU's expansion is named so by the library already ("cpu_core/cycles/"). */
static int place_summed(struct stat_session *s, const tally_events *list, size_t n)
{
	const struct stat_options *o = &s->opt;
	bool merge = !o->no_merge && (o->aggregation == AGGR_GLOBAL || (o->aggregation != AGGR_NONE && !o->per_pmu));
	size_t *first = malloc((n ? n : 1) * sizeof(*first)); /* by origin: its first event */
	s->lines = merge ? malloc((n ? n : 1) * sizeof(*s->lines)) : NULL;
	s->names = calloc(n ? n : 1, sizeof(*s->names));
	if (!first || (merge && !s->lines) || !s->names) {
		free(first);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		first[i] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		TALLY_OPTS(tally_event_info, info);
		tally_events_at(list, i, &info); /* i is in range: describe_events read it already */
		struct report_event *e = &s->events[i];
		if (first[info.origin] == SIZE_MAX)
			first[info.origin] = i;
		size_t head = first[info.origin];
		e->line = i;
		e->pmu_name = e->name;
		if (s->lines)
			s->lines[i] = i;
		if (info.nr_origins < 2 || !(info.family || info.per_core_pmu))
			continue;
		if (info.family) {
			const char *slash = strchr(e->name, '/');
			if (slash)
				snprintf(s->names[i], sizeof(s->names[i]), "%s%s", e->pmu, slash);
			else
				snprintf(s->names[i], sizeof(s->names[i]), "%s [%s]", e->name, e->pmu);
			e->pmu_name = s->names[i];
		}
		if (!merge) {
			e->name = e->pmu_name;
			continue;
		}
		s->lines[i] = e->line = head;
		e->hidden = head != i;
		s->events[head].summed = true;
		s->events[head].name = info.origin_name;
	}
	free(first);
	return 0;
}

static int describe_events(struct stat_session *s)
{
	const tally_events *list = tally_counter_events(s->counter);
	size_t n = tally_counter_count(s->counter);
	s->events = calloc(n ? n : 1, sizeof(*s->events));
	s->encodings = calloc(n ? n : 1, sizeof(*s->encodings));
	if (!s->events || !s->encodings)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		TALLY_OPTS(tally_event_info, info);
		int err = tally_events_at(list, i, &info);
		if (err < 0)
			return err;
		struct report_event *e = &s->events[i];
		e->name = i < s->nr_kept ? s->kept_names[i] : tally_counter_name(s->counter, i);
		e->canonical = info.canonical;
		e->pmu = info.pmu;
		e->type = info.attr->type;
		e->config = info.attr->config;
		e->config1 = info.attr->config1;
		e->config2 = info.attr->config2;
		e->exclude_user = info.attr->exclude_user;
		e->exclude_kernel = info.attr->exclude_kernel;
		e->group = info.group;
		e->optional = s->added_from <= info.origin && info.origin < s->added_to;
		if (tally_events_encoding(list, i, s->encodings[i], sizeof(s->encodings[i])) >= 0)
			e->encoding = s->encodings[i];
		event_unit(&info, &e->unit, &e->unit_scale);
	}
	s->report.nr_events = n;
	s->report.events = s->events;
	return place_summed(s, list, n);
}

/* The metrics the counter was asked for (-M), which the writers compute through the library. */
static int describe_metrics(struct stat_session *s)
{
	s->report.list = tally_counter_events(s->counter);
	int n = tally_counter_metrics(s->counter, NULL, 0);
	if (n <= 0)
		return 0;
	s->metrics = calloc((size_t)n, sizeof(*s->metrics));
	if (!s->metrics)
		return -ENOMEM;
	s->report.nr_metrics = (size_t)tally_counter_metrics(s->counter, s->metrics, (size_t)n);
	s->report.metrics = s->metrics;
	return 0;
}

static bool system_wide(const struct stat_options *o)
{
	return o->all_cpus || o->cpu_list;
}

/* The command is the events' target, unless they count something else (-a/-C, -p/-t) while the command
 * only sets how long, as in perf's `perf stat -p PID -- sleep 5`; the library launches it either way. */
static bool counts_command(const struct stat_options *o)
{
	return o->argv && !system_wide(o) && !o->nr_pids && !o->nr_tids;
}

/* Appends to the target's heading what fits: a long command line is cut, never overrun. */
static void target_append(struct stat_session *s, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void target_append(struct stat_session *s, size_t *used, const char *fmt, ...)
{
	if (*used >= sizeof(s->target))
		return;
	va_list ap;
	va_start(ap, fmt);
	*used += (size_t)vsnprintf(s->target + *used, sizeof(s->target) - *used, fmt, ap);
	va_end(ap);
}

/* "'1234,1235'": the tasks of -p or -t. */
static void target_append_ids(struct stat_session *s, size_t *used, const int *ids, size_t n)
{
	target_append(s, used, "'");
	for (size_t i = 0; i < n; i++)
		target_append(s, used, "%s%d", i ? "," : "", ids[i]);
	target_append(s, used, "'");
}

/* "'sleep 0.1'", "process id '1234'", "'system wide'", ... as perf heads its table. */
static void describe_target(struct stat_session *s)
{
	const struct stat_options *o = &s->opt;
	size_t used = 0;
	if (system_wide(o)) {
		s->report.target_kind = "cpus";
		if (o->all_cpus)
			target_append(s, &used, "'system wide'");
		else
			target_append(s, &used, "'CPU(s) %s'", o->cpu_list);
	} else if (counts_command(o)) {
		s->report.target_kind = "command";
		target_append(s, &used, "'");
		for (char **a = o->argv; *a; a++)
			target_append(s, &used, "%s%s", a == o->argv ? "" : " ", *a);
		target_append(s, &used, "'");
	} else if (o->nr_pids) {
		s->report.target_kind = "pid";
		target_append(s, &used, "process id ");
		target_append_ids(s, &used, o->pids, o->nr_pids);
	} else {
		s->report.target_kind = "tid";
		target_append(s, &used, "thread id ");
		target_append_ids(s, &used, o->tids, o->nr_tids);
	}
	s->report.target = s->target;
	s->report.argv = o->argv;
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
static const struct report_count *pmu_counts(const struct stat_session *s)
{
	return s->cgroups.nr_lines ? NULL : s->rd.pmu_counts;
}

/* The shown lines' counts of the latest reading: the counter's events, or with -G and --for-each-cgroup
 * one line per event and cgroup. */
static const struct report_count *fill_counts(struct stat_session *s)
{
	readings_fill(&s->rd);
	s->counts = s->cgroups.nr_lines ? cgroup_lines_fill(&s->cgroups, &s->rd, s->opt.aggregation == AGGR_NONE)
	                                : s->rd.counts;
	return s->counts;
}

/* Prints the counts since the previous interval (or the start). Its length is measured, from the clock
 * read just after the previous interval's reads to the one just after these, never the nominal -I: a
 * late wake-up or the last, partial interval still gives true rates. */
static int print_interval(struct stat_session *s, uint64_t started, uint64_t *last_tick)
{
	int err = readings_interval(&s->rd);
	if (err < 0)
		return err;
	uint64_t now = now_ns();
	struct report_sample sample = {
		.counts = fill_counts(s),
		.pmu_counts = pmu_counts(s),
		.timestamp = (double)(now - started) / 1e9,
		.seconds = (double)(now - *last_tick) / 1e9,
		.exit_status = -1,
	};
	*last_tick = now;
	if (s->clear_screen && !s->opt.quiet)
		fputs("\033[H\033[2J", s->file); /* perf's CONSOLE_CLEAR: the cursor home, then the screen cleared */
	if (!s->opt.quiet)
		s->out.ops->interval(&s->out, &sample);
	flush_results(s);
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

/* Enables or disables the events for --control, as perf's "enable" and "disable": said on stderr as perf
 * says it. The counts add up every stretch between an enable and a disable (tally_counter_resume), as
 * perf's do; under -D -1 the first enable begins the window (tally_counter_start), so that what ran
 * before it, from the command's exec to the disable at once after, is left out. */
static int control_switch(struct stat_session *s, bool enable)
{
	if (enable == !s->disabled)
		return 0;
	bool first = enable && s->held_from_start;
	int err = !enable ? tally_counter_stop(s->counter)
	          : first ? tally_counter_start(s->counter)
	                  : tally_counter_resume(s->counter);
	if (err < 0)
		return err;
	if (first)
		readings_restart(&s->rd);
	s->held_from_start &= !enable;
	s->disabled = !enable;
	fprintf(stderr, "Events %s\n", enable ? "enabled" : "disabled");
	return 0;
}

/* One line of --control: perf's commands. enable and disable act; snapshot, evlist, stop and ping have
 * nothing to do in stat; each known one is acknowledged with "ack\n" on the ACK descriptor. */
static int control_command(struct stat_session *s, const char *line)
{
	static const char *const known[] = { "enable", "disable", "snapshot", "evlist", "stop", "ping" };
	size_t k = 0;
	while (k < sizeof(known) / sizeof(known[0]) && strncmp(line, known[k], strlen(known[k])) != 0)
		k++;
	if (k == sizeof(known) / sizeof(known[0]))
		return 0;
	int err = k < 2 ? control_switch(s, k == 0) : 0;
	if (s->opt.ack_fd >= 0 && write(s->opt.ack_fd, "ack\n", 4) < 0)
		fprintf(stderr, "tally stat: --control: cannot write the ack: %s\n", tally_strerror(errno));
	return err;
}

/* Reads what the control descriptor holds and runs each whole line ('\n' or '\0' ends one, as in perf). */
static int control_read(struct stat_session *s)
{
	char buf[256];
	ssize_t got = read(s->opt.control_fd, buf, sizeof(buf));
	/* Its writers gone (a pipe's end closed): nothing more can come, and poll would report it forever. */
	if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR))
		s->control_closed = true;
	for (ssize_t i = 0; i < got; i++) {
		if (buf[i] != '\n' && buf[i] != '\0') {
			if (s->control_used < sizeof(s->control_line) - 1)
				s->control_line[s->control_used++] = buf[i];
			continue;
		}
		s->control_line[s->control_used] = '\0';
		s->control_used = 0;
		int err = control_command(s, s->control_line);
		if (err < 0)
			return err;
	}
	return 0;
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
			int err = control_read(s);
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
static int wait_for_end(struct stat_session *s, pid_t child, uint64_t started, uint64_t *last_tick,
                        bool *at_tick)
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
		uint64_t now = now_ns();
		if (now >= next_tick) {
			int err = print_interval(s, started, last_tick);
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

/* --pin's CPUs as a list for the library ("0,2,3"; malloc'd), NULL without --pin. */
static char *pin_list(const tally_cpus *cpus)
{
	if (!cpus)
		return NULL;
	size_t n = tally_cpus_count(cpus), used = 0;
	char *text = malloc(n * 12 + 1);
	if (!text)
		return NULL;
	text[0] = '\0';
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(text + used, 13, "%s%d", i ? "," : "", tally_cpus_at(cpus, i));
	return text;
}

/* What comes before the results: perf's "# started on" line at the top of a -o file (not in tally's JSON
 * document, which must stay one), and the table's note on stderr, never in the results. */
static void begin_results(struct stat_session *s)
{
	const struct stat_options *o = &s->opt;
	bool document = o->json && !o->perf_json;
	if (o->output && !document) {
		time_t now = time(NULL);
		char when[32];
		fprintf(s->file, "# started on %s\n", ctime_r(&now, when) ? when : "?\n");
	}
	if (s->out.ops == &output_table_ops && s->report.note)
		fprintf(stderr, "note: %s\n", s->report.note); /* tally's own text */
}

static void add_run(struct event_runs *e, unsigned run, const struct report_count *c)
{
	run_stats_add(&e->value, c->scaled);
	run_stats_add(&e->raw, (double)c->value);
	run_stats_add(&e->enabled, (double)c->enabled);
	run_stats_add(&e->running, (double)c->running);
	e->worst = run == 1 ? c->status : report_status_worse(e->worst, c->status);
}

static void record_run(struct stat_session *s, unsigned run, double seconds, double user, double sys,
                       int exit_status)
{
	size_t n = s->report.nr_events;
	for (size_t i = 0; i < n; i++) {
		add_run(&s->runs[i], run, &s->counts[i]);
		if (pmu_counts(s))
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
		.counts = s->counts, .pmu_counts = pmu_counts(s), .timestamp = seconds, .seconds = seconds, .run = run,
		.user = user, .sys = sys, .exit_status = exit_status,
	};
	if (!s->opt.quiet)
		s->out.ops->run(&s->out, &sample);
	flush_results(s);
}

/* --pre and --post: the shell command run with system(3), as perf runs it, the results written so far
 * flushed first so that its output follows them. A command that fails stops the runs (perf goes on
 * with a run it does not count). */
static int run_hook(struct stat_session *s, const char *option, const char *command)
{
	flush_results(s);
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

/* One run: open on the target, start, wait, stop, read, print. Returns an exit status for tally when
 * the run cannot go on (>= 0 stops the runs), or -1 to go on. */
static int count_once(struct stat_session *s, unsigned run)
{
	const struct stat_options *o = &s->opt;
	bool command_target = counts_command(o);
	/* Whatever the target, the library launches the command: with -a, -C, -p or -t it only sets how long
	 * the counting lasts. */
	/* Before tally's handlers are in place (the first run), the command inherits every disposition of
	 * tally's parent as it is, and the launcher sets none; later runs start with the ignored ones. */
	bool handlers = signals_installed();
	TALLY_OPTS(tally_target, t, .argv = o->argv, .pin = s->pin, .inherit_signals = !handlers,
	           .ignored = handlers ? signals_inherited_ignored() : 0);
	if (command_target) {
		t.kind = TALLY_TARGET_COMMAND;
	} else if (o->aggregation == AGGR_THREAD && o->all_cpus) {
		t.kind = TALLY_TARGET_ALL_THREADS; /* perf stat -a --per-thread */
	} else if (s->cgroups.nr_lines) {
		t.kind = TALLY_TARGET_CGROUPS;
		t.cpus = o->all_cpus ? NULL : o->cpu_list;
		t.cgroups = s->cgroups.names;
		t.nr_cgroups = s->cgroups.nr_names;
	} else if (system_wide(o)) {
		t.kind = TALLY_TARGET_CPUS;
		t.cpus = o->all_cpus ? NULL : o->cpu_list;
	} else if (o->nr_pids) {
		t.kind = TALLY_TARGET_PID;
		t.pids = o->pids;
		t.nr_pids = o->nr_pids;
	} else {
		t.kind = TALLY_TARGET_TIDS;
		t.tids = o->tids;
		t.nr_tids = o->nr_tids;
	}
	if (o->pre_cmd && run_hook(s, "--pre", o->pre_cmd) < 0)
		return EXIT_FAILED;
	/* -S: the writes of earlier runs (or of whatever ran before) go to disk now, not while counting. */
	if (o->sync)
		sync();
	if (tally_counter_open(s->counter, &t) < 0) {
		say_failure("", tally_counter_last_error(s->counter));
		return EXIT_FAILED;
	}
	if (readings_open(&s->rd) < 0 || readings_name_parts(&s->rd) < 0) {
		say_failure("", tally_last_error());
		tally_counter_close(s->counter);
		return EXIT_FAILED;
	}
	if (signals_install() < 0) {
		fprintf(stderr, "tally stat: cannot install signal handlers: %s\n", tally_strerror(errno));
		tally_counter_close(s->counter);
		return EXIT_FAILED;
	}
	pid_t child = tally_counter_pid(s->counter);
	uint64_t started_ns = now_ns();
	double started = (double)started_ns / 1e9;
	int err = tally_counter_start(s->counter);
	if (err < 0) {
		say_failure("", tally_counter_last_error(s->counter));
		/* A command that could not run exits with 127 (the library's mapping); one that never started
		 * leaves nothing to wait for. */
		struct tally_exit ex;
		int status = tally_counter_wait(s->counter, &ex, sizeof(ex)) == 0 ? ex.code : EXIT_FAILED;
		tally_counter_close(s->counter);
		return status;
	}
	/* The output begins once counting has: a command that cannot run leaves no half document. */
	if (run == 1 && !o->quiet) {
		begin_results(s);
		s->out.ops->begin(&s->out);
		flush_results(s);
	}
	s->disabled = false;
	s->timed_out = false;
	s->held_from_start = o->start_disabled;
	if (o->start_disabled && control_switch(s, false) < 0) {
		say_failure("-D -1: ", tally_counter_last_error(s->counter));
		tally_counter_close(s->counter);
		return EXIT_FAILED;
	}
	if (o->delay_ms) {
		/* -D: let the command run unobserved, then take the zero point. */
		uint64_t end = started_ns + (uint64_t)o->delay_ms * 1000000u;
		for (uint64_t now = now_ns(); now < end && !(child > 0 && signals_child_exited(child)) && !s->interrupted;
		     now = now_ns())
			on_signal(s, signals_wait((int)((end - now + 999999) / 1000000)), child);
		/* The counter's reset begins a new window (counts and enabled/running times from zero), which
		 * is what perf's -D gives by enabling the events only now. */
		if (tally_counter_reset(s->counter) < 0) {
			say_failure("-D: ", tally_counter_last_error(s->counter));
			tally_counter_close(s->counter);
			return EXIT_FAILED;
		}
		readings_restart(&s->rd);
		started_ns = now_ns();
		started = (double)started_ns / 1e9;
	}
	uint64_t last_tick = started_ns;
	bool at_tick = false;
	err = s->interrupted && child <= 0 ? 0 : wait_for_end(s, child, started_ns, &last_tick, &at_tick);
	tally_counter_stop(s->counter);
	double elapsed = now_seconds() - started;
	/* --timeout: perf ends the command with SIGTERM once the counts are taken. */
	if (s->timed_out)
		kill(child, SIGTERM);
	/* The last, partial interval: what was counted since the previous tick, unless the run ended on one. */
	if (err == 0 && o->interval_ms && !o->quiet && !at_tick)
		err = print_interval(s, started_ns, &last_tick);
	if (err == 0)
		err = readings_take(&s->rd);
	if (err < 0) {
		say_failure("reading the counters failed: ", tally_counter_last_error(s->counter));
		tally_counter_close(s->counter);
		return EXIT_FAILED;
	}
	/* Before the command is reaped: --per-thread labels its threads with their /proc comm, which goes
	 * with the reaping. */
	fill_counts(s);
	int exit_status = 0;
	double user = 0, sys = 0;
	s->run_signal = 0;
	struct tally_exit ex;
	if (child > 0 && tally_counter_wait(s->counter, &ex, sizeof(ex)) == 0) {
		exit_status = ex.code;
		s->run_signal = WIFSIGNALED(ex.status) ? WTERMSIG(ex.status) : 0;
		/* The SIGTERM of --timeout is the end asked for, not a failure: the status is 0, as perf's. */
		if (s->timed_out && s->run_signal == SIGTERM) {
			s->run_signal = 0;
			exit_status = 0;
		}
		user = ex.user_s;
		sys = ex.sys_s;
		/* The tool events user_time and system_time of a command are exact (its rusage) only once it is
		 * reaped; read before, they had /proc's clock ticks. The other counts are stopped: unchanged. */
		if (has_tool_events(&s->report) && readings_take(&s->rd) == 0)
			fill_counts(s);
		/* From the exec on, without tally's fork; with -D the window opened later, and tally's own
		 * clock, started at the delay's end, is the one that covers it (as perf's does). Another
		 * target's window opened before the command started: tally's clock covers it. */
		if (ex.wall_s > 0 && !o->delay_ms && command_target)
			elapsed = ex.wall_s;
	}
	if (s->run_elapsed)
		s->run_elapsed[run - 1] = elapsed;
	record_run(s, run, elapsed, user, sys, exit_status);
	tally_counter_close(s->counter);
	if (s->interrupted)
		return 128 + s->interrupted;
	return o->post_cmd && run_hook(s, "--post", o->post_cmd) < 0 ? EXIT_FAILED : -1;
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
	}
	*stddev = run_stats_stddev(&e->value);
}

static void finish(struct stat_session *s)
{
	size_t n = s->report.nr_events;
	unsigned runs = s->elapsed.n;
	for (size_t i = 0; i < n; i++) {
		mean_count(&s->runs[i], runs, &s->counts[i], &s->mean_counts[i], &s->stddev[i]);
		if (pmu_counts(s))
			mean_count(&s->pmu_runs[i], runs, &s->rd.pmu_counts[i], &s->mean_pmu_counts[i], &s->pmu_stddev[i]);
	}
	struct report_totals totals = {
		.nr_runs = runs,
		.counts = s->mean_counts,
		.stddev = s->stddev,
		.pmu_counts = pmu_counts(s) ? s->mean_pmu_counts : NULL,
		.pmu_stddev = s->pmu_stddev,
		.elapsed = s->elapsed.mean,
		.elapsed_stddev = run_stats_stddev(&s->elapsed),
		.user = s->user,
		.sys = s->sys,
		.exit_status = s->interrupted ? 128 + s->interrupted : s->exit_status,
		.interrupted = s->interrupted,
		.killed_runs = s->killed_runs,
		.run_elapsed = s->run_elapsed,
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
	flush_results(s);
}

static int alloc_statistics(struct stat_session *s)
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

static void session_free(struct stat_session *s)
{
	readings_free(&s->rd);
	cgroup_lines_free(&s->cgroups);
	tally_counter_free(s->counter);
	tally_pmus_free(s->pmus);
	close_results(s);
	free(s->events);
	free(s->encodings);
	free(s->lines);
	free(s->names);
	free(s->runs);
	free(s->pmu_runs);
	free(s->mean_counts);
	free(s->mean_pmu_counts);
	free(s->stddev);
	free(s->pmu_stddev);
	free(s->run_elapsed);
	free(s->regions_text);
	free(s->metrics);
	if (s->regions.path[0])
		unlink(s->regions.path);
	free(s->pin);
	free(s->spec);
	free(s->kept_names);
	tally_events_free(s->cputype_list);
	options_free(&s->opt);
}

/* The results go to stderr as perf's do (or to --log-fd's descriptor), but through a buffered stream of
 * their own: stderr is unbuffered, and the JSON document, written a token at a time, took 1,400 write(2)
 * calls (0.3 ms of `tally stat -j`). Every piece of output is flushed when written (begin, each interval,
 * each run, the end), so it keeps its order with tally's messages on stderr and with the command's own
 * output. Close-on-exec: the command does not inherit the copy, and inherits fd itself as it was given
 * (as under perf, which writes to --log-fd's descriptor itself). For stderr, plain stderr when no copy can
 * be made (fd 2 closed); for another fd NULL, errno set (EBADF: not open). */
static FILE *report_stream(int fd)
{
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	FILE *f = copy >= 0 ? fdopen(copy, "w") : NULL;
	if (f)
		return f;
	int err = errno;
	if (copy >= 0)
		close(copy);
	errno = err;
	return fd == STDERR_FILENO ? stderr : NULL;
}

/* -C names CPUs this machine has online, all of them: an event cannot be opened on the others (the kernel
 * says EINVAL or ENODEV), and one such CPU would fail the whole list. Refused before anything runs, with
 * the CPUs that can be counted. Returns -1 to go on, or an exit status. */
static int check_cpu_list(const char *list)
{
	tally_cpus *wanted = NULL, *online = NULL;
	int status = -1;
	if (tally_cpus_parse(list, &wanted) < 0 || tally_cpus_online(NULL, &online) < 0) {
		fprintf(stderr, "tally stat: -C %s: %s\n", list, tally_last_error());
		status = EXIT_FAILED;
		goto out;
	}
	size_t n = tally_cpus_count(wanted), nr_online = tally_cpus_count(online), nr_missing = 0;
	int *missing = calloc(n, sizeof(*missing)), *have = calloc(nr_online ? nr_online : 1, sizeof(*have));
	if (!missing || !have) {
		fprintf(stderr, "tally stat: out of memory\n");
		status = EXIT_FAILED;
	} else {
		for (size_t i = 0; i < n; i++)
			if (tally_cpus_index(online, tally_cpus_at(wanted, i)) < 0)
				missing[nr_missing++] = tally_cpus_at(wanted, i);
		for (size_t i = 0; i < nr_online; i++)
			have[i] = tally_cpus_at(online, i);
	}
	if (nr_missing) {
		char absent[256], present[256];
		fprintf(stderr, "tally stat: -C %s: not online here (absent or offline): %s; the online CPUs are %s\n"
		        "(see tally stat --help)\n", list, id_list_format(missing, nr_missing, absent, sizeof(absent)),
		        id_list_format(have, nr_online, present, sizeof(present)));
		status = EXIT_USAGE;
	}
	free(missing);
	free(have);
out:
	tally_cpus_free(wanted);
	tally_cpus_free(online);
	return status;
}

/* The parser's message quotes the spec as written: its control bytes are escaped on their way to the
 * terminal (the caret under them may then stand a little to the left). */
static void report_spec_error(const char *detail)
{
	fprintf(stderr, "tally stat: bad event spec%s:\n", detail);
	text_escape_lines(stderr, tally_last_error());
	fputc('\n', stderr);
}

/* Each -e is one spec, as in perf: '-e {a -e b}' must not become the group '{a,b}' once joined. Only
 * several -e are parsed one by one (the joined spec is parsed again by the counter). */
static int check_each_spec(const struct stat_session *s)
{
	for (size_t i = 0; s->opt.nr_specs > 1 && i < s->opt.nr_specs; i++) {
		TALLY_OPTS(tally_parse_opts, popts, .pmus = s->pmus);
		tally_events *alone = NULL;
		int err = tally_events_parse(s->opt.specs[i], &popts, &alone);
		tally_events_free(alone);
		if (err < 0) {
			report_spec_error(" (each -e is a spec of its own)");
			return EXIT_USAGE;
		}
	}
	return -1;
}

/* The rank, size, host and job for the headers, and -o's path made from them: a placeholder without a value
 * (%r outside mpirun) is a usage error that names the variables tried, before anything runs. */
static int describe_rank(struct stat_session *s)
{
	s->rank = (struct tally_rank){ .sz = sizeof(s->rank) };
	int len = tally_rank_get(&s->rank);
	if (len == 0 && s->opt.output)
		len = tally_path_expand(s->opt.output, s->output, sizeof(s->output));
	if (len < 0) {
		say_failure("", tally_last_error());
		return len;
	}
	if ((size_t)len >= sizeof(s->output)) {
		fprintf(stderr, "tally stat: -o %s: the path is %d bytes long once expanded\n", s->opt.output, len);
		return -ENAMETOOLONG;
	}
	s->report.rank = s->rank.rank;
	s->report.size = s->rank.size;
	s->report.host = s->rank.host;
	s->report.job = s->rank.job;
	return 0;
}

/* The origins a spec's events come from: its items, hybrid expansions and PMU families counted once. */
static unsigned count_origins(const char *spec, const tally_pmus *pmus)
{
	TALLY_OPTS(tally_parse_opts, popts, .pmus = pmus);
	tally_events *list = NULL;
	unsigned n = 0;
	size_t nr = 0;
	if (tally_events_parse(spec, &popts, &list) == 0 && (nr = tally_events_count(list)) > 0) {
		TALLY_OPTS(tally_event_info, last);
		if (tally_events_at(list, nr - 1, &last) == 0)
			n = last.origin + 1;
	}
	tally_events_free(list);
	return n;
}

/* The items of a plain comma list (no braces, no terms): one origin each. */
static unsigned count_items(const char *list)
{
	unsigned n = 1;
	for (const char *c = list; *c; c++)
		n += *c == ',';
	return n;
}

/* What the counter counts: -e's events, or perf's defaults without -e, -M and -n; then -d's, which perf
 * appends to either (not with -n). The metrics' events follow (the counter adds them). The table leaves
 * out the defaults this machine cannot count, for the note, and -d's where it has no core PMU (the note
 * then names them); on a machine with one, a -d event its PMU lacks (LLC-loads on AMD) shows its
 * <not supported> line, as in perf. */
static int compose_spec(struct stat_session *s)
{
	const struct stat_options *o = &s->opt;
	bool defaults = !o->events && !o->metrics && !o->null_run;
	const char *base = o->events ? o->events : defaults ? default_events_spec(true, system_wide(o)) : "";
	const char *detailed = o->null_run ? NULL : default_events_detailed(o->detailed);
	if (asprintf(&s->spec, "%s%s%s", base, *base && detailed ? "," : "", detailed ? detailed : "") < 0) {
		s->spec = NULL;
		return -ENOMEM;
	}
	bool has_core = tally_pmus_core_count(s->pmus) > 0;
	unsigned nr_base = 0; /* the origins before -d's; -e's are counted only where they matter */
	if (defaults)
		nr_base = count_items(base);
	else if (o->events && detailed && !has_core)
		nr_base = count_origins(base, s->pmus);
	s->added_from = defaults ? 0 : nr_base;
	s->added_to = nr_base + (detailed && !has_core ? count_items(detailed) : 0);
	if (defaults || detailed)
		s->report.note = default_events_note(has_core, o->detailed);
	return 0;
}

/* Appends to *spec (malloc'd, grown) the text of one item. */
static int spec_append(char **spec, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int spec_append(char **spec, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *item = NULL;
	int n = vasprintf(&item, fmt, ap);
	va_end(ap);
	char *grown = n < 0 ? NULL : realloc(*spec, *len + (size_t)n + 1);
	if (!grown) {
		free(item);
		return -ENOMEM;
	}
	memcpy(grown + *len, item, (size_t)n + 1);
	*spec = grown;
	*len += (size_t)n;
	free(item);
	return 0;
}

/* --cputype: the spec rewritten so that an event expanded over the core PMUs of a hybrid machine counts
 * only on the one named, as perf's PMU filter parses it: each kept expansion as its PMU's own item
 * ("cpu_core/cycles/" and the modifiers of its canonical text), every other event as its canonical text,
 * the groups kept. The lines keep the names as parsed. The -M metrics' events are added by the counter
 * afterwards, on every core PMU. Returns -1 to go on, or an exit status. */
static int keep_to_pmu(struct stat_session *s)
{
	const char *pmu = s->opt.cputype;
	if (!tally_pmus_find(s->pmus, pmu)) {
		fprintf(stderr, "tally stat: --cputype: this machine has no %s PMU (only hybrid CPUs have cpu_core "
		        "and cpu_atom)\n(see tally stat --help)\n", pmu);
		return EXIT_USAGE;
	}
	TALLY_OPTS(tally_parse_opts, popts, .pmus = s->pmus);
	if (tally_events_parse(s->spec, &popts, &s->cputype_list) < 0) {
		report_spec_error("");
		return EXIT_USAGE;
	}
	size_t n = tally_events_count(s->cputype_list), len = 0;
	char *spec = calloc(1, 1);
	s->kept_names = calloc(n ? n : 1, sizeof(*s->kept_names));
	if (!spec || !s->kept_names) {
		free(spec);
		fprintf(stderr, "tally stat: out of memory\n");
		return EXIT_FAILED;
	}
	int open_group = -1, err = 0;
	for (size_t i = 0; i < n && err == 0; i++) {
		TALLY_OPTS(tally_event_info, info);
		tally_events_at(s->cputype_list, i, &info); /* i is in range */
		if (info.per_core_pmu && (!info.pmu || strcmp(info.pmu, pmu) != 0))
			continue;
		if (open_group >= 0 && info.group != open_group)
			err = spec_append(&spec, &len, "}");
		const char *sep = len ? "," : "";
		if (err == 0 && info.group >= 0 && info.group != open_group)
			err = spec_append(&spec, &len, "%s{", sep), sep = "";
		open_group = info.group;
		const char *mods = strrchr(info.canonical, '/');
		if (err == 0 && info.per_core_pmu)
			err = spec_append(&spec, &len, "%s%s%s", sep, info.name, mods ? mods + 1 : "");
		else if (err == 0)
			err = spec_append(&spec, &len, "%s%s", sep, info.canonical);
		s->kept_names[s->nr_kept++] = info.name;
	}
	if (err == 0 && open_group >= 0)
		err = spec_append(&spec, &len, "}");
	if (err < 0) {
		free(spec);
		fprintf(stderr, "tally stat: out of memory\n");
		return EXIT_FAILED;
	}
	free(s->spec);
	s->spec = spec;
	return -1;
}

/* Everything that can be refused is checked here, before the command is started. */
static int prepare(struct stat_session *s)
{
	const struct stat_options *o = &s->opt;
	int status = o->cpu_list ? check_cpu_list(o->cpu_list) : -1;
	if (status >= 0)
		return status;
	/* The PMUs are loaded here only where tally itself asks them something (which default events can
	 * count, the machine of a JSON report): the library reads of them what a spec needs, and nothing of
	 * sysfs for one of software events. */
	if ((!o->events || o->json || o->detailed || o->cputype) && tally_pmus_load(NULL, &s->pmus) < 0) {
		say_failure("", tally_last_error());
		return EXIT_FAILED;
	}
	status = check_each_spec(s);
	if (status >= 0)
		return status;
	if (compose_spec(s) < 0) {
		fprintf(stderr, "tally stat: out of memory\n");
		return EXIT_FAILED;
	}
	status = o->cputype ? keep_to_pmu(s) : -1;
	if (status >= 0)
		return status;
	/* Like perf stat, a command runs even when none of its events can be counted here: the report then
	 * says <not supported> and why, and the exit status is still the command's. With -n and no -e there
	 * is no event at all: the counter measures the time alone. */
	TALLY_OPTS(tally_counter_opts, copts, .pmus = s->pmus, .no_packing = o->no_group,
	           .no_inherit = o->no_inherit, .open_without_events = true, .metrics = o->metrics,
	           .space = o->space);
	int err = tally_counter_new(s->spec, &copts, &s->counter);
	/* --topdown where the top-down events do not exist (no PERF_METRICS: a VM, AMD, arm64, an older
	 * Intel): the command still runs, with the default events, and each metric says why it is not
	 * available; perf 6.1 refuses to run. */
	if (err == -TALLY_ESPEC && o->topdown_levels && !o->events) {
		s->report.note = default_events_note(tally_pmus_core_count(s->pmus) > 0, 0);
		err = tally_counter_new(default_events_spec(true, system_wide(o)), &copts, &s->counter);
	}
	if (err == -ENOENT && o->metrics) {
		/* The message quotes the name as given: escaped, as the event spec's are. */
		fputs("tally stat: -M: ", stderr);
		text_escape_lines(stderr, tally_last_error());
		fputc('\n', stderr);
		return EXIT_USAGE;
	}
	if (err < 0) {
		report_spec_error("");
		return EXIT_USAGE;
	}
	if (describe_metrics(s) < 0 || describe_events(s) < 0) {
		fprintf(stderr, "tally stat: out of memory\n");
		return EXIT_FAILED;
	}
	int planned = cgroup_lines_plan(&s->cgroups, o, s->counter, s->events);
	if (planned == -1)
		return EXIT_USAGE;
	if (s->cgroups.nr_lines) {
		s->report.events = s->cgroups.events;
		s->report.nr_events = s->cgroups.nr_lines;
		s->report.cgroups = true;
		s->report.line_event = s->cgroups.event;
		s->report.line_cgroup = s->cgroups.cgroup;
		s->report.cgroup_names = s->cgroups.names;
		s->report.nr_cgroups = s->cgroups.nr_names;
	}
	if (planned < 0 || alloc_statistics(s) < 0 ||
	    readings_init(&s->rd, s->counter, o->aggregation, o->no_scale, s->lines) < 0) {
		fprintf(stderr, "tally stat: out of memory\n");
		return EXIT_FAILED;
	}
	describe_target(s);
	s->pin = pin_list(o->pin);
	if (o->pin && !s->pin) {
		fprintf(stderr, "tally stat: out of memory\n");
		return EXIT_FAILED;
	}
	if (describe_rank(s) < 0)
		return EXIT_USAGE;
	s->file = o->log_fd >= 0 ? report_stream(o->log_fd)
	          : o->output    ? fopen(s->output, o->append ? "ae" : "we")
	                         : report_stream(STDERR_FILENO);
	if (!s->file && o->log_fd >= 0)
		fprintf(stderr, "tally stat: --log-fd %d: %s%s\n", o->log_fd, tally_strerror(errno),
		        /* fdopen's answer to a descriptor open for reading, or to none at all */
		        errno == EINVAL ? ": it is not open for writing (open it so, e.g. `3>file` or `3>&1`)"
		        : errno == EBADF ? ": no such descriptor is open (open it in the shell, e.g. `3>file`)" : "");
	else if (!s->file)
		fprintf(stderr, "tally stat: cannot write %s: %s\n", s->output, tally_strerror(errno));
	if (!s->file)
		return EXIT_USAGE;
	/* perf 6.1 writes the clearing sequence to standard output whatever it is (6.2 asks isatty of the
	 * results' stream): tally writes it with the results, and only to a terminal, where it means
	 * something; in a file or a pipe it would be two stray escape sequences an interval. */
	s->clear_screen = o->interval_clear && isatty(fileno(s->file));
	s->report.interval_headers = o->interval_clear;
	s->rd.all_threads = o->aggregation == AGGR_THREAD && o->all_cpus;
	s->rd.cache_level = o->cache_level;
	s->report.show_parts = o->aggregation != AGGR_GLOBAL;
	s->report.show_nr_cpus = o->aggregation >= AGGR_CORE;
	s->report.show_pmus = o->per_pmu;
	s->report.verbose = o->verbose;
	number_style_of_locale(&s->report.numbers, !o->no_big_num);
	s->report.metric_only = o->metric_only;
	s->report.summary = o->summary;
	s->report.csv_summary_field = !o->no_csv_summary;
	static const char *const part_keys[] = { [AGGR_NONE] = "cpu", [AGGR_THREAD] = "thread", [AGGR_CORE] = "core",
		                                 [AGGR_SOCKET] = "socket", [AGGR_DIE] = "die",
		                                 [AGGR_NODE] = "node", [AGGR_CACHE] = "cache" };
	s->report.part_key = part_keys[o->aggregation];
	s->report.csv_header = o->csv_header;
	s->report.separator = o->separator;
	if (o->json)
		machine_describe(&s->machine, s->pmus, &s->report);
	err = o->regions ? regions_prepare(&s->regions, o->events, o->metrics, o->json, o->separator != NULL) : 0;
	if (err < 0) {
		fprintf(stderr, "tally stat: --regions: cannot make its temporary file: %s\n", tally_strerror(err));
		return EXIT_FAILED;
	}
	s->out.ops = o->perf_json  ? &output_perf_json_ops
	             : o->json     ? &output_json_ops
	             : o->separator ? &output_csv_ops
	                           : &output_table_ops;
	s->out.out = s->file;
	s->out.report = &s->report;
	return -1;
}

/* Whether a SIGPIPE reached tally's handler and was not handled yet (the signals noted since the last
 * wait; each is read once). */
static bool sigpipe_raised(void)
{
	for (int signo; (signo = signals_wait(0)) != 0;)
		if (signo == SIGPIPE)
			return true;
	return false;
}

int command_stat(int argc, char **argv)
{
	struct stat_session s;
	memset(&s, 0, sizeof(s));
	switch (options_parse_stat(argc, argv, &s.opt)) {
	case OPTIONS_DONE: options_free(&s.opt); return 0;
	case OPTIONS_USAGE_ERROR: options_free(&s.opt); return EXIT_USAGE;
	case OPTIONS_RUN: break;
	}
	int status = prepare(&s);
	if (status >= 0) {
		session_free(&s);
		return status;
	}
	for (unsigned run = 1; run <= s.opt.repeat && status < 0; run++)
		status = count_once(&s, run);
	if (s.elapsed.n > 0) {
		finish(&s);
		if (status < 0)
			status = s.exit_status;
	}
	if (status < 0)
		status = EXIT_FAILED;
	close_results(&s);
	/* The last writes, once the command had ended, raised SIGPIPE (the reader went away): that ends tally
	 * as it does while the command runs, with 141. Any other failure to write leaves the command's status
	 * (results_lost said it on stderr). */
	if (s.output_error && !s.interrupted && sigpipe_raised()) {
		s.interrupted = SIGPIPE;
		status = 128 + SIGPIPE;
	}
	session_free(&s);
	return status;
}
