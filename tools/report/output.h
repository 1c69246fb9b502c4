/* SPDX-License-Identifier: MIT */
/*
 * The writers of `tally stat`'s results: a table for people, CSV in perf's field order, and one JSON
 * document. tally stat (tools/stat/) calls begin once, interval for each -I reading, run after each run,
 * finish once.
 */
#ifndef TALLY_TOOLS_OUTPUT_H
#define TALLY_TOOLS_OUTPUT_H

#include <stdio.h>

#include "lib/json_writer.h"
#include "report/report.h"
#include "report/report_metrics.h"

/* The JSON document's schema version (docs/json-schema.json): bumped on any incompatible change. */
#define OUTPUT_JSON_SCHEMA_VERSION 3

struct output;

struct output_ops {
	void (*begin)(struct output *o);
	void (*interval)(struct output *o, const struct report_sample *s);
	void (*run)(struct output *o, const struct report_sample *s);
	void (*finish)(struct output *o, const struct report_totals *t);
};

struct output {
	const struct output_ops *ops;
	FILE *out;
	const struct report *report;
	unsigned intervals;        /* interval readings written so far */
	unsigned runs;             /* run readings written so far */
	bool row_header;           /* output_metric_row: the names, not the values */
	unsigned row_cells;        /* output_metric_row: fields written on the line */
	struct metric_window window; /* output_each_metric: the windows of the metric fn is given */
	bool mixed_seen;           /* the table marked a figure "(mixed windows)" */
	struct json_writer json;   /* the JSON writer's state */
};

extern const struct output_ops output_table_ops;
extern const struct output_ops output_csv_ops;
extern const struct output_ops output_json_ops;
extern const struct output_ops output_perf_json_ops;

/* One reading as the table and CSV writers walk it. */
struct output_reading {
	const struct report_count *counts; /* one per event */
	double seconds;            /* wall time the counts cover (for rates) */
	const char *timestamp;     /* "%.9f" seconds for -I lines, else NULL */
	const double *stddev;      /* per event over runs, or NULL */
	const struct report_count *pmu_counts; /* per event, its own count on its PMU (report_sample) */
	const double *pmu_stddev;  /* of those over runs, or NULL */
};

/* One printed line: an event's count, or one part of it (with -A, --per-thread, --per-core). */
struct output_line {
	size_t event;
	const char *name;          /* the event's name, or its PMU's (report_event.pmu_name) on a PMU's line */
	const struct report_count *count;
	const char *part;          /* the part's label, NULL for the event's own line */
	unsigned nr_cpus;          /* CPUs summed under that label (report.show_nr_cpus) */
	/* The counts the metric is computed from: the reading's for an event's own line, the same part of
	 * every event for a part's line (CPU3's IPC is CPU3's instructions over CPU3's cycles, as perf
	 * computes it); NULL when there is none. */
	const struct report_count *metric_counts;
	double stddev;             /* 0 for parts and single runs */
};

typedef void (*output_line_fn)(struct output *o, const struct output_reading *reading,
                               const struct output_line *line);

/* Calls fn for every line of a reading, in event order (the hidden PMUs of a summed line have none: their
 * counts are in its line; with --per-pmu each follows the sum on a line of its own, its metric from its
 * PMU's counts), parts in the order the counter gave them. With
 * parts shown, an event that has none (it could not be opened) still gets one line per part of the
 * others, labelled alike, so that every CSV record has the part column (perf prints such an event on
 * every CPU); with no parts anywhere, one line with an empty label. */
void output_each_line(struct output *o, const struct output_reading *reading, output_line_fn fn);

typedef void (*output_metric_fn)(struct output *o, const struct output_reading *reading, const char *name,
                                 const char *cgroup, const struct tally_metric_value *m);

/* Calls fn for every metric asked for with -M (report.metrics), its windows in o->window, summed over a
 * hybrid machine's core PMUs,
 * and with --per-pmu then for each PMU's value of it, named "IPC [cpu_core]". With cgroups (-G,
 * --for-each-cgroup), cgroup after cgroup as perf orders the lines, each metric of a cgroup its events
 * count in (report_metric), cgroup its name; NULL without cgroups. */
void output_each_metric(struct output *o, const struct output_reading *reading, output_metric_fn fn);

/* --metric-only: one line of the metrics of a reading, a column each (the table: right-aligned under
 * their names; CSV: fields), or with header their names; after the reading's timestamp when it has one.
 * Not available: "-" in the table, an empty field in CSV. */
void output_metric_row(struct output *o, const struct output_reading *reading, bool header);

/* Every event's count of the part labelled `label` (a count with no value where an event has no such
 * part) into into[0 .. nr_events): what a part's metric is computed from. hint: the part's position in
 * its own event, where the others usually have it too. */
void output_part_counts(const struct report *r, const struct report_count *counts, const char *label, size_t hint,
                        struct report_count *into);

/* Text of a status as the table and CSV print it in the value column ("<not counted>"), or NULL when
 * the event has a value. */
const char *output_status_placeholder(enum report_status status);

/* Display value of a count: scaled × the event's unit_scale. */
double output_display_value(const struct report_event *e, const struct report_count *c);

/* Decimals a display value is printed with: 2 for scaled units (msec, sysfs .scale), 0 for counts. */
int output_display_decimals(const struct report_event *e);

/* The table's header line of -I, over the columns its lines fill, the part's named as perf names it;
 * perf prints it in CSV too with --interval-clear, a comment line over each interval. */
void output_interval_header(FILE *out, const struct report *r);

/* "# rank 3 of 4 on node1, job 812" when a launcher gave tally a rank (table, and CSV with its header);
 * nothing otherwise. */
void output_rank_line(FILE *out, const struct report *r);

/* Percentage of its enabled time an event ran (100 when it never was enabled). */
double output_percent_running(const struct report_count *c);

#endif
