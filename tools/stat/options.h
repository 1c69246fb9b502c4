/* SPDX-License-Identifier: MIT */
/* The options of `tally stat`: perf stat's flags, with perf's meanings. */
#ifndef TALLY_TOOLS_OPTIONS_H
#define TALLY_TOOLS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <tally/events.h>
#include <tally/evlist.h>

#include "report/report.h"

struct stat_options {
	char *events;            /* the -e specs joined with ',' (malloc'd), NULL for the defaults */
	const char **specs;      /* each -e as given (malloc'd array into argv): each must parse alone */
	size_t nr_specs;
	char *metrics;           /* the -M lists joined with ',', the top-down groups added (malloc'd), NULL for
	                          * none */
	unsigned repeat;         /* -r, at least 1 */
	bool no_multiplex;       /* --no-multiplex: the command run once per set of groups that count together
	                          * without multiplexing (group_sets.c) */
	unsigned interval_ms;    /* -I, 0 when off */
	unsigned interval_count; /* --interval-count, 0: no limit */
	bool summary;            /* --summary */
	bool no_csv_summary;     /* --no-csv-summary */
	const char *separator;   /* -x, NULL for the table */
	bool csv_header;         /* --csv-header */
	bool json;               /* -j, --json-format */
	bool perf_json;          /* --json-format=perf: perf stat -j's objects, one per line */
	bool no_big_num;         /* -B: no thousands separators */
	bool regions;            /* --regions */
	const char *output;      /* -o */
	bool append;             /* --append */
	int *pids;               /* -p (malloc'd) */
	size_t nr_pids;
	int *tids;               /* -t (malloc'd) */
	size_t nr_tids;
	bool all_cpus;           /* -a */
	const char *cpu_list;    /* -C as written (the library parses it again when it opens the events) */
	enum stat_aggregation aggregation;
	bool no_inherit;         /* -i */
	bool no_scale;           /* --no-scale */
	bool no_merge;           /* --no-merge: each PMU of a summed event (cpu_core, cpu_atom; uncore_imc_0,
	                          * _1, ...) on its own line */
	int cache_level;         /* --per-cache=LEVEL: 1 to 4, 0 for the highest a CPU has */
	bool metric_no_group;    /* --metric-no-group: the vendor metrics' events not grouped */
	bool metric_no_merge;    /* --metric-no-merge: no group shared between vendor metrics */
	bool drilldown;          /* --drilldown: the top-down tree of the vendor table's metrics */
	bool metric_only;        /* --metric-only: the metrics alone, one column each */
	bool per_pmu;            /* --per-pmu: a summed event's PMUs on lines of their own under the sum */
	/* --topdown (1), --td-level N: how many top-down levels (perf's TopdownL1, TopdownL2) to add to -M;
	 * 0 for none. */
	unsigned topdown_levels;
	unsigned delay_ms;       /* -D */
	bool quiet;              /* -q */
	bool verbose;            /* -v */
	bool no_group;           /* --no-group */
	tally_cpus *pin;         /* --pin */
	double duration;         /* --duration, seconds; 0 when unset */
	char **argv;             /* the command, NULL-terminated (points into the caller's argv), or NULL */
	/* -G: every name of every -G in order ("" for an empty one, perf's -G a,,b), malloc'd copies; the
	 * j-th names the cgroup of the j-th event. nr_specs_before_g: when the first -G names one cgroup,
	 * the number of -e specs before it, every event of which it names (perf's rule for -e a,b -G x);
	 * else 0. cgroup_name_specs[j]: the number of -e specs before the -G of name j, whose events alone
	 * it may name (perf refuses a name past them). */
	char **cgroup_names;
	size_t *cgroup_name_specs;
	size_t nr_cgroup_names;
	size_t nr_specs_before_g;
	const char *for_each_cgroup; /* --for-each-cgroup, as written */
	unsigned detailed;       /* -d, -dd, -ddd: how many of perf's detailed event sets to add (0 to 3) */
	bool null_run;           /* -n: no default events, only the elapsed time */
	bool sync;               /* -S: sync(2) before each run */
	enum tally_space space;  /* --all-user, --all-kernel (TALLY_SPACE_AS_WRITTEN without either) */
	bool interval_clear;     /* --interval-clear */
	int log_fd;              /* --log-fd: the results to this descriptor; -1 when unset */
	unsigned timeout_ms;     /* --timeout: the command is ended (SIGTERM) after it, as perf's; 0 when unset */
	const char *pre_cmd;     /* --pre: a shell command run before each run (system(3), as perf) */
	const char *post_cmd;    /* --post: after each run */
	bool table;              /* --table: with -r, each run's elapsed time under the counts */
	/* --control fd:CTL[,ACK] or fifo:CTL[,ACK]: perf's protocol, "enable" and "disable" read from
	 * control_fd, "ack\n" written to ack_fd after each; -1 when unset. */
	int control_fd, ack_fd;
	bool control_fifo;       /* fifo:: tally opened control_fd and ack_fd, and closes them */
	bool start_disabled;     /* -D -1: the events start disabled (with --control, enabled by "enable") */
	char *cputype;           /* --cputype: the core PMU ("cpu_core") the events are kept to (malloc'd), or
	                          * NULL */
};

/* The deepest top-down level tally's catalogue has (perf's TopdownL2). */
#define TOPDOWN_MAX_LEVEL 6
/* perf's -ddd: the most detailed event sets (default_events.h). */
#define DETAILED_MAX_LEVEL 3

/* What options_parse_stat decided. */
enum options_result {
	OPTIONS_RUN,            /* go on and count */
	OPTIONS_DONE,           /* --help or --version was printed: exit 0 */
	OPTIONS_USAGE_ERROR,    /* a message was printed to stderr: exit 2 */
};

/* Parses argv of `tally stat` (argv[0] is "stat"). Stops at the first non-option or "--": the rest is the
 * command. Checks the combinations (-x with -j, -r without a command, ...) before anything runs. */
enum options_result options_parse_stat(int argc, char **argv, struct stat_options *o);
void options_free(struct stat_options *o);

/* The usage text of `tally stat`. */
void options_print_stat_usage(FILE *out);

#endif
