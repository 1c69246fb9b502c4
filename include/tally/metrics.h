/* SPDX-License-Identifier: MIT */
/*
 * tally: derived metrics, the ratios a user wants from raw counts (IPC, miss rates, topdown fractions).
 * Metrics sit above the counter and below regions and the CLI: a metric is a formula over events, and it is
 * evaluated from readings keyed by the events of a parsed list (tally_events), whoever made the readings
 * (tally_counter_read, tally_snapshot_delta, a mean over runs, a region's sums).
 *
 * The catalogue. Each metric has perf's name where perf has one (IPC, CPI, tma_retiring, ...), perf's metric
 * groups (TopdownL1, TopdownL2, ...), a unit, a description, its formula as text, the events it needs as a
 * spec of one group ("{instructions,cycles}", so that the ratio comes from one time window) and where it
 * applies. Names and groups are matched case-insensitively; an unknown name fails with the closest names in
 * tally_last_error() ("did you mean IPC?").
 *
 *   TALLY_OPTS(tally_counter_opts, o, .metrics = "IPC,TopdownL1");
 *   tally_counter_new("task-clock", &o, &c);        (each metric's events are appended as one group)
 *   ... open, start, stop, tally_counter_read(c, r, n, sizeof(r[0])) ...
 *   TALLY_OPTS(tally_metric_sample, s, .events = tally_counter_events(c), .results = r, .n = n,
 *              .elem_sz = sizeof(r[0]), .seconds = wall);
 *   TALLY_OPTS(tally_metric_value, v);
 *   tally_metric_eval(&s, tally_metric_find("IPC"), &v);
 *   v.available ? printf("%.2f %s\n", v.value, v.unit) : printf("IPC: %s\n", v.reason);
 *
 * Inputs are matched to events by what they count, not by how they were written: a generic event by its
 * type and config (cycles, cpu-cycles and cpu_core/cycles/ are one input), a topdown event by its config on
 * the core PMU (slots, topdown-retiring, ...), and only events with the same exclude_user/exclude_kernel
 * modifiers as each other make one metric. When an input is present several times, the copy in the brace
 * group that holds every input of the metric is taken (the group tally_counter_new appended), else the first.
 *
 * Parts. On a hybrid machine each generic event expands once per core PMU (cpu_core, cpu_atom; arm64
 * clusters): a sample's `pmu` names the part to compute ("cpu_core": the IPC of the P-cores), NULL sums every
 * part's inputs first (summed instructions over summed cycles). Software events (task-clock) belong to
 * every part. tally_metric_parts lists the parts a metric has in a sample.
 *
 * "Not available". A metric is never 0, infinite or NaN for want of data: a missing input, an input that
 * was not counted or not supported, or a zero denominator makes it not available, with the reason in the
 * value ("cycles: not supported", "cycles is 0"). A multiplexed (scaled) input gives a value, flagged.
 *
 * Everything here is thread-safe: the catalogue is static and evaluation only reads its inputs.
 */
#ifndef TALLY_METRICS_H
#define TALLY_METRICS_H

#include <tally/common.h>
#include <tally/counter.h>
#include <tally/events.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the catalogue ------------------------------------------------------------------------------------ */

struct tally_metric_info {
	size_t sz;
	const char *name;        /* "IPC", "tma_retiring", "branch_miss_rate" */
	const char *groups;      /* perf's metric groups, ';'-separated: "Summary", "TopdownL1;tma_L1_group" */
	const char *unit;        /* of the value: "insn per cycle", "%", "GHz", "CPUs utilized", "/sec" */
	const char *description; /* one sentence */
	const char *formula;     /* as text, over the spec's names: "instructions / cycles" */
	const char *events;      /* the events it needs, a spec of one group: "{instructions,cycles}" */
	const char *applies;     /* where it can be computed: "any CPU with a hardware PMU", "Intel Icelake and later
	                          * (PERF_METRICS)", ... */
	bool needs_seconds;      /* it also needs the sample's wall-clock seconds (CPUs_utilized) */
};
#define tally_metric_info__last_field needs_seconds

/* Number of metrics in the catalogue. */
TALLY_API size_t tally_metric_count(void);

/* Fills info (declared with TALLY_OPTS) for metric i; the strings are static. -ERANGE past the end. */
TALLY_API int tally_metric_at(size_t i, struct tally_metric_info *info);

/* The index of the metric named `name` (case-insensitive), or -ENOENT with "unknown metric 'X'" and the
 * closest names ("did you mean IPC?") in tally_last_error(); NULL: -EINVAL. */
TALLY_API int tally_metric_find(const char *name);

/* Resolves a comma-separated list of metric names and metric group names ("IPC,TopdownL1"; perf's -M) into
 * catalogue indices, in catalogue order within a group and list order otherwise, each once: indices[0 ..
 * n) receives them. Returns how many there are (which may exceed n), -ENOENT for an unknown name (with the
 * "did you mean" text), -EINVAL for an empty list or item. */
TALLY_API int tally_metrics_select(const char *list, size_t *indices, size_t n);

/* ---- evaluation --------------------------------------------------------------------------------------- */

/* Readings of the events of a list, one per event, in the list's order: either `results` (as
 * tally_counter_read or tally_snapshot_delta wrote them: the scaled value and status are used) or
 * `values` (scaled counts, e.g. means over runs or a region's sums) with `statuses` (NULL: every value is
 * TALLY_STATUS_EXACT). Declare with TALLY_OPTS. */
struct tally_metric_sample {
	size_t sz;
	const tally_events *events;         /* what each reading is */
	const struct tally_result *results; /* one per event, elements of elem_sz bytes; or NULL and: */
	const double *values;               /* one scaled count per event */
	const enum tally_status *statuses;  /* one per value, or NULL */
	size_t n;                           /* readings (fewer than the events: the rest are missing) */
	size_t elem_sz;                     /* sizeof(results[0]) with results */
	double seconds;                     /* wall-clock time the readings cover (rates, CPUs utilized); 0:
	                                     * unknown */
	const char *pmu;                    /* the part: a core PMU's name ("cpu_core"); NULL sums the parts */
};
#define tally_metric_sample__last_field pmu

/* The most inputs a value reports (a topdown level-2 metric has 6). */
#define TALLY_METRIC_MAX_INPUTS 8

/* One input of a metric as the evaluation found it: summed over the parts taken. */
struct tally_metric_input {
	const char *event;           /* the input's name in the formula ("cycles"), static; for
	                              * tally_metric_comment the event's display name (valid while the
	                              * sample's events are) */
	double value;                /* its scaled count (0 when not found or not counted) */
	enum tally_status status;    /* the worst status of the events taken */
	bool found;                  /* an event of the sample counts it */
	size_t nr_events;            /* how many events were summed (one per part) */
	size_t first_event;          /* the index of the first of them in the sample */
};

/* A metric's value (or why there is none). Declare with TALLY_OPTS. */
struct tally_metric_value {
	size_t sz;
	const char *name;            /* the metric's name; static */
	bool available;              /* value holds the metric; else reason says why not */
	bool scaled;                 /* some input was multiplexed: the value comes from estimates */
	double value;                /* in unit; 0 when not available */
	char unit[24];               /* the catalogue's unit; a rate beside an event scales it ("K/sec") */
	char reason[160];            /* why not available: "cycles: not supported", "cycles is 0", ... */
	size_t nr_inputs;
	struct tally_metric_input inputs[TALLY_METRIC_MAX_INPUTS];
};
#define tally_metric_value__last_field inputs

/* Computes metric `metric` (a catalogue index) from the sample into value. Returns 0 whether or not the
 * metric is available (value->available says which), -EINVAL for a NULL or bad sample, -ERANGE for an
 * unknown index, -TALLY_EOPTS for a struct with a bad size. */
TALLY_API int tally_metric_eval(const struct tally_metric_sample *sample, size_t metric,
                                struct tally_metric_value *value);

/* The figure perf stat prints beside event `event` (index in the sample), computed the way perf 6.1 does:
 * IPC ("insn per cycle") beside instructions, GHz beside cycles (over task-clock's seconds), "% of all
 * branches" beside branch-misses, "% of all cache refs" beside cache-misses, "CPUs utilized" beside
 * task-clock and cpu-clock (over the sample's seconds), and a rate per second ("K/sec", "M/sec", ...)
 * beside any other counted event except perf's tool events (per second of task-clock when the sample has
 * one, else of wall time). The partner event is one of the same modifiers and core PMU. The sample's pmu
 * is ignored: the event itself names its part. Returns 1 when value holds a figure, 0 when the event has
 * none (not counted, its partner missing or zero: perf prints nothing then either), or a negative code as
 * tally_metric_eval. */
TALLY_API int tally_metric_comment(const struct tally_metric_sample *sample, size_t event,
                                   struct tally_metric_value *value);

/* The parts (core PMU names, valid while sample->events is) under which the sample has events of the
 * hardware inputs of metric `metric`, into pmus[0 .. n), in event order. Returns how many (which may exceed
 * n): 2 on a hybrid machine (cpu_core, cpu_atom), 1 on another (its core PMU, e.g. "cpu"), 0 when no
 * hardware input is among the events (or the metric has none), or a negative code. A metric is worth
 * showing per part when there are 2 or more. */
TALLY_API int tally_metric_parts(const struct tally_metric_sample *sample, size_t metric, const char **pmus,
                                 size_t n);

/* ---- metrics of a counter ----------------------------------------------------------------------------- */

/* The catalogue indices of the metrics requested through tally_counter_opts.metrics, in the order
 * tally_metrics_select gave them, into indices[0 .. n). Returns how many (which may exceed n). A metric
 * whose events this machine cannot even name (topdown-* without PERF_METRICS) is still listed: it evaluates
 * as not available, with the reason. */
TALLY_API int tally_counter_metrics(const tally_counter *counter, size_t *indices, size_t n);

#ifdef __cplusplus
}
#endif
#endif
