/* SPDX-License-Identifier: MIT */
/*
 * The result model of `tally stat`: what the counting produced, in the shape the writers (table, CSV,
 * JSON) print. stat.c fills it from the library's results; the writers read nothing else, so each can be
 * tested and changed without the counting engine.
 */
#ifndef TALLY_TOOLS_REPORT_H
#define TALLY_TOOLS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/number_format.h"

#include <tally/counter.h>
#include <tally/events.h>
#include <tally/metrics.h>

/* How lines are aggregated: perf stat's --per-* options, which the readings follow. */
enum stat_aggregation {
	AGGR_GLOBAL,     /* one figure per event (the default) */
	AGGR_NONE,       /* -A: one per CPU */
	AGGR_THREAD,     /* --per-thread */
	AGGR_CORE,       /* --per-core */
	AGGR_SOCKET,     /* --per-socket */
	AGGR_DIE,        /* --per-die */
	AGGR_NODE,       /* --per-node */
	AGGR_CACHE,      /* --per-cache */
};

enum report_status {
	REPORT_COUNTED,       /* ran the whole time it was enabled: the value is exact */
	REPORT_SCALED,        /* ran part of the time (multiplexed): the scaled value is an estimate */
	REPORT_NOT_COUNTED,   /* enabled but never scheduled on the PMU */
	REPORT_NOT_SUPPORTED, /* could not be opened on this machine */
};

/* The worse of two statuses (they are listed from best to worst): with -r an event shows the worst status
 * any of its runs had, so that one run's <not counted> is never hidden by the others. */
static inline enum report_status report_status_worse(enum report_status a, enum report_status b)
{
	return a > b ? a : b;
}

/* The library's status a report status stands for (the words, the metrics' inputs). */
static inline enum tally_status report_status_library(enum report_status status)
{
	switch (status) {
	case REPORT_COUNTED: return TALLY_STATUS_EXACT;
	case REPORT_SCALED: return TALLY_STATUS_SCALED;
	case REPORT_NOT_COUNTED: return TALLY_STATUS_NOT_COUNTED;
	case REPORT_NOT_SUPPORTED: return TALLY_STATUS_NOT_SUPPORTED;
	}
	return TALLY_STATUS_NOT_SUPPORTED;
}

/* The status's word in tally stat -j (docs/json-schema.json, $defs/status), which tally merge reads back:
 * the library's, so that the region writers and the CLI write the same words. */
static inline const char *report_status_name(enum report_status status)
{
	return tally_status_name(report_status_library(status));
}

/* What one event is; fixed for the whole session. */
struct report_event {
	const char *name;
	const char *canonical;
	const char *pmu;           /* PMU name, or NULL */
	uint32_t pmu_type;
	const char *encoding;      /* "type=1,config=0x2,..." */
	uint32_t type;
	uint64_t config, config1, config2;
	bool exclude_user, exclude_kernel;
	int group;                 /* -1 outside braces */
	const char *unit;          /* display unit ("msec" for the clock events, a sysfs .unit), or "" */
	double unit_scale;         /* display value = scaled count × unit_scale */
	bool hidden;               /* a PMU of a summed line: counted in its first PMU's line, not shown */
	/* A spec item counted on several PMUs (cpu_core and cpu_atom, arm64 clusters, a PMU family's
	 * instances) is one line, the sum of its events; `line` is the event whose line shows this one (its
	 * own index when it is not summed into another's). */
	size_t line;
	bool summed;               /* this line sums several PMUs' events: those whose `line` is this one */
	const char *pmu_name;      /* the name on its PMU's own line (--per-pmu, --no-merge, -A):
	                            * "cpu_core/cycles/", "uncore_imc_0/cas_count_read/"; else its name */
	bool optional;             /* one of the default events: the table leaves it out where it is not
	                            * supported (report.note says why), CSV and JSON print it as perf does */
	const char *cgroup;        /* -G, --for-each-cgroup: the cgroup the line counts ("" every task) */
};

/* One piece of an aggregated count: a CPU, a thread, a core, die or socket, or one PMU of a merged family
 * (uncore_imc_0 of uncore_imc/cas_count_read/). */
struct report_part {
	char label[48];            /* as printed in the first column: "CPU3", "sleep-1234", "S0-D0-C1", "S1",
	                            * "S0-D1"; a family's PMU: "uncore_imc_0" */
	unsigned nr_cpus;          /* CPUs summed under the label (--per-core, --per-socket, --per-die, --per-node) */
	int cpu;                   /* -1 when not per CPU */
	int tid;                   /* -1 when not per thread */
	uint64_t value;
	double scaled;
	uint64_t enabled, running;
	enum report_status status;
};

struct report_count {
	uint64_t value;            /* raw count (summed over parts) */
	double scaled;             /* value × enabled / running, or value with --no-scale */
	uint64_t enabled, running; /* ns */
	enum report_status status;
	const char *reason;        /* why not counted or not supported, or NULL */
	size_t nr_parts;
	const struct report_part *parts;
	/* The kernel group it was counted in (tally_result.group: its leader's event index), -1 for none:
	 * events of one group share their window even when multiplexed, events of two do not. */
	int group;
	unsigned run;              /* --no-multiplex: the run it was counted in (1-based); 0 otherwise */
};

/* One reading of every event: one run's totals, or one interval's deltas. */
struct report_sample {
	const struct report_count *counts; /* one per event, in event order */
	const struct report_count *pmu_counts; /* one per event: its own count on its PMU, what a summed line
	                                        * adds up (the same as counts for an event not summed) */
	double timestamp;          /* seconds from the start of counting to this reading */
	double seconds;            /* wall time the counts cover */
	unsigned run;              /* 1-based run number */
	double user, sys;          /* CPU time of the command in this run, seconds (0 when none) */
	int exit_status;           /* the command's exit status in this run, -1 when none */
};

/* The closing result: the only run, or the mean over runs with -r. */
struct report_totals {
	unsigned nr_runs;
	const struct report_count *counts; /* means (scaled) over runs; statuses of the worst run */
	const double *stddev;      /* per event, of the scaled value over runs (0 for one run) */
	const struct report_count *pmu_counts; /* each event's own count on its PMU, as counts */
	const double *pmu_stddev;  /* of pmu_counts, as stddev */
	double elapsed, elapsed_stddev;
	double user, sys;          /* summed over runs */
	int exit_status;           /* what tally exits with */
	int interrupted;           /* the signal that stopped tally (SIGINT, SIGTERM, ...), 0 when none */
	unsigned killed_runs;      /* runs whose command was killed by a signal (their counts are in the means) */
	const double *run_elapsed; /* --table: each run's elapsed time (nr_runs of them), NULL without */
	/* --no-multiplex: each run counted a set of groups alone, and counts[i].run says which run event i
	 * comes from; the counts are those runs' (no means, no stddev), elapsed is the mean over the runs and
	 * elapsed_stddev their spread; run_elapsed and run_exit give each run's. */
	bool sets;
	const int *run_exit;       /* with sets: each run's exit status */
};

/* The session: what was counted on what. */
struct report {
	size_t nr_events;
	const struct report_event *events;
	const char *target;        /* "'sleep 0.1'", "process 1234", "system wide", ... for headings */
	char *const *argv;         /* the command, NULL-terminated, or NULL */
	const char *target_kind;   /* "command", "pid", "tid", "cpus" */
	const char *note;          /* one line shown before the results (e.g. why hardware events are missing) */
	bool show_parts;           /* -A, --per-thread, --per-core/-socket/-die/-node */
	bool show_nr_cpus;         /* --per-core/-socket/-die/-node: a part's CPU count after its label */
	bool metric_only;          /* --metric-only: the -M metrics alone, a column each, no event lines */
	bool show_pmus;            /* --per-pmu: a summed line's PMUs, each on a line of its own, follow it */
	bool verbose;
	struct number_style numbers; /* the table's: the locale's thousands separator (none with -B) and point */
	bool summary;              /* --summary: the totals are printed after the intervals too */
	bool interval_headers;     /* --interval-clear: the table's header over every interval, not the first
	                            * only, as perf repeats it on the cleared screen */
	bool csv_summary_field;    /* with summary, CSV's totals carry "summary" in the time field */
	const char *part_key;      /* what a part is, as perf's JSON names it: "cpu", "core", "socket", "die",
	                            * "thread"; NULL without parts */
	bool csv_header;
	const char *separator;     /* CSV field separator */
	/* The events the counts are keyed by, for the library's metrics (NULL: none are computed), and the
	 * metrics asked for with -M (catalogue indices of tally/metrics.h, then the vendor table's). */
	const tally_events *list;
	size_t nr_metrics;
	const size_t *metrics;
	/* Of them, those from nr_catalog on are the vendor table's (indices of vendor). */
	size_t nr_catalog;
	const tally_vendor_metrics *vendor;
	bool drilldown;            /* --drilldown: the vendor's top-down metrics as a tree after the totals */
	unsigned td_level;         /* with it, every node's children down to this level (0: by threshold) */
	bool cgroups;              /* -G or --for-each-cgroup: every line has a cgroup field, as perf's */
	const size_t *line_event;  /* with cgroups: line -> the counter's event (list's index) */
	const size_t *line_cgroup; /* with cgroups: line -> its cgroup's number */
	const char *const *cgroup_names; /* with cgroups: each number's name ("" every task) */
	size_t nr_cgroups;
	/* --regions: the command's regions object (JSON text, "" when it wrote none); NULL without --regions. */
	const char *regions;
	/* Machine metadata for JSON. */
	const char *kernel, *cpu_model;
	int paranoid;
	size_t nr_pmus;
	const char *const *pmu_names;
	const uint32_t *pmu_types;
	size_t nr_core_pmus;
	const char *const *core_pmu_names;
	/* Where tally ran in a parallel job (tally/rank.h): rank and size -1 when no launcher says them, job
	 * "" when none; the host always. */
	long rank, size;
	const char *host, *job;
};

#endif
