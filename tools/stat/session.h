/* SPDX-License-Identifier: MIT */
/* One `tally stat` as its files share it (docs/design.md, CLI): the session, and what each file does for the
 * others. stat.c runs the steps: prepare.c (everything refused before the command starts: spec.c's
 * spec and counter, report_lines.c's report model, the results' stream of report_file.c), then each run of
 * run.c (waiting in wait.c, --control in control.c), or with --no-multiplex group_sets.c's runs of one
 * set of groups each, then repeat.c's totals over the runs (-r, or the sets' combined reading). */
#ifndef TALLY_TOOLS_STAT_SESSION_H
#define TALLY_TOOLS_STAT_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <tally/counter.h>
#include <tally/events.h>
#include <tally/pmu.h>
#include <tally/rank.h>

#include "report/machine.h"
#include "report/metric_list.h"
#include "report/output.h"
#include "report/readings.h"
#include "stat/cgroup_lines.h"
#include "stat/group_sets.h"
#include "stat/options.h"
#include "stat/regions.h"
#include "stat/run_stats.h"

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
	size_t *metrics;              /* -M: catalogue indices (tally_counter_metrics), then the vendor's */
	struct metric_list mlist;     /* -M split: the vendor table's metrics, the catalogue's names */
	struct cgroup_lines cgroups;  /* -G, --for-each-cgroup: a line per (event, cgroup) */
	struct group_sets sets;       /* --no-multiplex: the sets of groups, their runs, the readings kept */
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

/* stat.c: a failure said on stderr, "tally stat: " and context first, the library's text escaped. */
void stat_say_failure(const char *context, const char *text);

/* prepare.c: everything that can be refused, checked before the command starts. Returns -1 to go on,
 * or an exit status. */
int stat_prepare(struct stat_session *s);

/* spec.c: the spec (-e's or the defaults, -d's, --cputype's rewriting) and the counter made of it (with
 * -M's metrics). Returns -1 to go on, or an exit status. */
int stat_make_counter(struct stat_session *s);

/* report_lines.c: the report model of what is counted. */
int stat_describe_events(struct stat_session *s);
int stat_describe_metrics(struct stat_session *s);
void stat_describe_target(struct stat_session *s);
int stat_describe_rank(struct stat_session *s);
/* -a or -C. */
bool stat_system_wide(const struct stat_options *o);
/* Whether the command is the events' target (not only how long -a/-C/-p/-t count). */
bool stat_counts_command(const struct stat_options *o);

/* report_file.c: the results' stream (-o, --log-fd, stderr): every write flushed, a loss said once. */
FILE *stat_report_stream(int fd);
void stat_begin_results(struct stat_session *s);
void stat_flush_results(struct stat_session *s);
void stat_close_results(struct stat_session *s);

/* run.c: one run, open to print. Returns an exit status that stops the runs (>= 0), or -1 to go on. */
int stat_count_once(struct stat_session *s, unsigned run);
/* The shown lines' counts of the latest reading, and each event's own where lines sum PMUs. */
const struct report_count *stat_fill_counts(struct stat_session *s);
const struct report_count *stat_pmu_counts(const struct stat_session *s);

/* wait.c: the waits of a run. */
uint64_t stat_now_ns(void);
int stat_print_interval(struct stat_session *s, uint64_t started, uint64_t *last_tick);
int stat_wait_delay(struct stat_session *s, pid_t child, uint64_t *started_ns);
int stat_wait_for_end(struct stat_session *s, pid_t child, uint64_t started, uint64_t *last_tick, bool *at_tick);

/* control.c: --control's commands. */
int stat_control_switch(struct stat_session *s, bool enable);
int stat_control_read(struct stat_session *s);

/* repeat.c: the statistics over the runs (-r) and the totals. */
int stat_alloc_statistics(struct stat_session *s);
void stat_record_run(struct stat_session *s, unsigned run, double seconds, double user, double sys,
                     int exit_status);
void stat_finish(struct stat_session *s);

#endif
