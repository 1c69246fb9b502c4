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
 * Everything here is thread-safe: the catalogue is static and evaluation only reads its inputs; the vendor
 * metrics' evaluations of one tally_vendor_metrics run one at a time (they share its memo).
 */
#ifndef TALLY_METRICS_H
#define TALLY_METRICS_H

#include <tally/common.h>
#include <tally/counter.h>
#include <tally/events.h>
#include <tally/pmu.h>

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
	/* (0.5) A vendor metric's MetricThreshold: 1 when the value is over it (worth a look), 0 when not, -1
	 * without a threshold or when it cannot be evaluated; -1 for the catalogue's metrics. */
	int threshold;
};
#define tally_metric_value__last_field threshold

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

/* ---- the vendors' metrics (0.5) ------------------------------------------------------------------------
 *
 * The metrics the vendor publishes for the machine's CPU, from the table the vendor events come from
 * (perf's pmu-events, TALLY_PMU_EVENTS; chosen by the CPU's id or TALLY_CPUID): perf's MetricName,
 * MetricExpr (in perf's expression language: + - * / %, comparisons, | & ^, `a if c else b`, min, max,
 * d_ratio, #literals such as #smt_on from the machine, source_count, has_event, strcmp_cpuid_str, events
 * as names, "cpu@EVENT\,cmask\=1@" and other metrics by name), MetricGroup, MetricThreshold, ScaleUnit and
 * MetricConstraint. A metric that uses what this machine cannot provide (an event it cannot name, an
 * unknown literal, a 0 divisor) is not available with the reason, never 0.
 *
 *   tally_vendor_metrics *vm;
 *   TALLY_OPTS(tally_vendor_metrics_opts, o);
 *   tally_vendor_metrics_load(&o, &vm);                         (-ENOENT: no table for this CPU)
 *   size_t idx[512];
 *   int n = tally_vendor_metrics_select(vm, "TopdownL1", idx, 512);
 *   char spec[8192];
 *   tally_vendor_metrics_spec(vm, idx, n, 0, spec, sizeof(spec)); (each metric's events, one group each)
 *   ... a counter of spec, read into a tally_metric_sample s ...
 *   tally_vendor_metric_eval(vm, &s, idx[0], &v);               (v.value in v.unit, v.threshold)
 */
typedef struct tally_vendor_metrics tally_vendor_metrics;

struct tally_vendor_metrics_opts {
	size_t sz;
	const char *sysfs_root; /* NULL: $TALLY_SYSFS_ROOT, else /sys */
	const tally_pmus *pmus; /* a snapshot to use (it must outlive the metrics; sysfs_root is then its
	                         * own), shared with the counter that counts the events: the table is chosen
	                         * once; NULL: the library loads one */
};
#define tally_vendor_metrics_opts__last_field pmus

/* Loads the metrics of the table of the machine's core PMU. -ENOENT (with why in tally_last_error())
 * when there is no core PMU, no table for its CPU or no metrics in it; -ENOMEM. */
TALLY_API int tally_vendor_metrics_load(const struct tally_vendor_metrics_opts *opts, tally_vendor_metrics **out);
TALLY_API void tally_vendor_metrics_free(tally_vendor_metrics *vm);
TALLY_API size_t tally_vendor_metrics_count(const tally_vendor_metrics *vm);
/* The table's model ("icelakex"); where system PMUs' tables add their metrics, theirs after it
 * ("arm-cortex-a53, arm-cmn-sys"). */
TALLY_API const char *tally_vendor_metrics_model(const tally_vendor_metrics *vm);

struct tally_vendor_metric_info {
	size_t sz;
	const char *name;        /* "tma_frontend_bound", "IpLoad" */
	const char *groups;      /* ';'-separated: "TmaL1;TopdownL1;tma_L1_group" */
	const char *expr;        /* MetricExpr */
	const char *threshold;   /* MetricThreshold, "" without */
	const char *unit;        /* of the value: ScaleUnit's unit ("%" of "100%"), "" without */
	double scale;            /* ScaleUnit's factor: the value is the expression times scale */
	const char *constraint;  /* MetricConstraint: "NO_GROUP_EVENTS", ... or "" */
	const char *description; /* BriefDescription */
};
#define tally_vendor_metric_info__last_field description

/* Fills info for metric i; the strings live as long as vm. -ERANGE past the end. */
TALLY_API int tally_vendor_metric_at(const tally_vendor_metrics *vm, size_t i, struct tally_vendor_metric_info *info);

/* Resolves a comma-separated list of metric names and group names (any case, as perf's -M) into indices,
 * each once, in table order within a group: indices[0 .. n). Returns how many (which may exceed n),
 * -ENOENT when an item names no metric nor group of the table (the caller may try the catalogue),
 * -EINVAL for an empty list or item. */
TALLY_API int tally_vendor_metrics_select(const tally_vendor_metrics *vm, const char *list, size_t *indices,
                                          size_t n);

/* (0.6) The items of a comma-separated list of metric names and groups that vm's table names (table true:
 * each item tally_vendor_metrics_select takes, any case) or that it does not (false: the ones left for the
 * catalogue, tally_metrics_select and tally_counter_opts.metrics), comma-separated in the list's order, as
 * snprintf writes: buf gets what fits of len bytes, NUL-terminated, and the return is the length of the
 * whole text ("" when none). vm NULL (a machine without a table): every item is the catalogue's. -EINVAL
 * for an empty item (",", "IPC,,x", "IPC,"), as both selections refuse it, a NULL list, or buf NULL with
 * len. This is how tally stat -M and the regions' TALLY_METRICS split their lists. */
TALLY_API int tally_vendor_metrics_filter(const tally_vendor_metrics *vm, const char *list, bool table, char *buf,
                                          size_t len);

enum tally_vendor_spec_flags {
	TALLY_VENDOR_NO_GROUP = 1 << 0, /* perf's --metric-no-group: no metric's events in a group */
	TALLY_VENDOR_NO_MERGE = 1 << 1, /* perf's --metric-no-merge: no group shared between metrics */
};

/* The events the metrics read, as a spec: each metric's events in one brace group (its ratio from one
 * window), a group shared by the metrics whose events it holds, except with TALLY_VENDOR_NO_MERGE; loose
 * (one each) with TALLY_VENDOR_NO_GROUP or where the MetricConstraint says (NO_GROUP_EVENTS;
 * NO_GROUP_EVENTS_NMI with the NMI watchdog on; NO_GROUP_EVENTS_SMT with SMT on); the tool events
 * (duration_time) outside groups. Metrics references are followed; an event this machine cannot name is
 * left out (its metric reads not available). Writes buf (NUL-terminated) and returns the length it
 * needs (may be >= size), or a negative code. */
TALLY_API int tally_vendor_metrics_spec(const tally_vendor_metrics *vm, const size_t *indices, size_t n,
                                        unsigned flags, char *buf, size_t size);

/* Computes metric i from the sample (events matched by their attrs: "INST_RETIRED.ANY" to the event
 * that counts its encoding); value->unit is the ScaleUnit's, value->threshold the MetricThreshold's
 * verdict. Returns 0 whether or not the metric is available, or a negative code as tally_metric_eval. */
TALLY_API int tally_vendor_metric_eval(const tally_vendor_metrics *vm, const struct tally_metric_sample *sample,
                                       size_t i, struct tally_metric_value *value);

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
