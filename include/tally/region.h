/* SPDX-License-Identifier: MIT */
/*
 * tally: named regions of a program's own code, counted per thread, with their own cost reported.
 *
 * Zero-configuration form (the common case): no init call, any thread, any number of times, nestable.
 *
 *   #include <tally/region.h>
 *   tally_region_begin("solve");  ...work...;  tally_region_end("solve");
 *
 * The first call makes a process-wide session (up to 1024 region names) from the environment: TALLY_EVENTS
 * (an event spec; unset: "cycles,instructions,branches,branch-misses", or
 * "task-clock,page-faults,context-switches" when none of those counts here), TALLY_METRICS (metrics to
 * compute per region, as tally_region_opts.metrics; a list that cannot be used leaves the session not
 * counting, which the output says, and a line on stderr at exit when the output is a file) and
 * TALLY_OUTPUT (a path expanded as tally_path_expand does, tally/rank.h: %p the pid, %h the host name, %r the MPI or Slurm rank, %s the number of ranks, %j the
 * job id, %% a %; a name ending in .json is written as JSON (docs/json-schema.json, "regions"), .csv as CSV,
 * anything else as a table; unset: a table on stderr; one that cannot be used at exit, such as %r where no
 * launcher sets a rank, is said in a line on stderr and the table follows there). The results are written
 * at exit (atexit) and whenever tally_regions_write()
 * is called. A forked child starts with no region open and a session of its own (its own %p output),
 * made on its first region call. TALLY_REGION_BEGIN/END compile to nothing unless TALLY_REGIONS is
 * defined, so that markers stay in release builds at no cost.
 *
 * Handle form (libraries that must not rely on process globals): a region set made from a spec, names
 * registered to ids once, begin/end by id on the hot path, results read through the API:
 *
 *   tally_region_set *s;
 *   tally_region_set_new("{task-clock,page-faults}", NULL, &s);
 *   int solve = tally_region_id(s, "solve");
 *   tally_region_begin_id(s, solve);  ...work...;  tally_region_end_id(s, solve);
 *   tally_region_set_write(s, stderr, TALLY_REGION_TABLE);
 *   tally_region_set_free(s);
 *
 * Each thread gets its own counter (the calling-thread target, so user-space reads apply where the
 * machine allows them) on its first region call. After a name's first use in a thread, begin and end
 * allocate nothing, take no lock and make no system call beyond the counter's read (a clock_gettime
 * through the vDSO gives the wall time). A begin reads each group of the counter once, the end reads
 * them again and adds their scaled difference (as tally_snapshot_delta's), so multiplexed events scale
 * per call.
 *
 * Per region and thread: calls, wall time, and per event sum, min, max, mean and standard deviation of
 * the per-call deltas with their status; the same summed over threads. Counts are inclusive: a region's
 * include those of the regions opened inside it. A region begun again while open (recursion) counts once,
 * from its outermost begin to its outermost end. A begin without an end is reported as open, an end
 * without a begin as a stray end, by name; neither changes the counts of the region's other calls.
 * Threads that exit keep their results (their counter closes at their exit). A set made before fork(2)
 * counts the parent's threads: a child makes a set of its own (the zero-configuration form does so itself).
 *
 * Overhead: the set measures an empty region (begin immediately followed by end) per event when it is
 * made, on the making thread, and reports it with the results. It is subtracted from each call's delta
 * only with tally_region_opts.subtract_overhead. A region whose mean count per call of an event is below
 * TALLY_REGION_LOW_MULTIPLE (10) times the event's overhead is flagged "low" in every output: its counts
 * are mostly tally's own.
 *
 * When counting cannot start (a spec that cannot open, no PMU, perf_event_paranoid, no descriptors left),
 * the set is still made: region calls do nothing and tally_region_set_error() says why, as every output
 * does. The measured program is never harmed: no output on stdout, no change of exit status (an output
 * whose reader is gone fails with EPIPE, raising no SIGPIPE).
 */
#ifndef TALLY_REGION_H
#define TALLY_REGION_H

#include <stdio.h>
#include <sys/types.h>
#include <tally/counter.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef TALLY_REGIONS
#define TALLY_REGION_BEGIN(name) tally_region_begin(name)
#define TALLY_REGION_END(name) tally_region_end(name)
#else
#define TALLY_REGION_BEGIN(name) ((void)0)
#define TALLY_REGION_END(name) ((void)0)
#endif

/* ---- zero-configuration form -------------------------------------------------------------------- */

/* Begins / ends region `name` on the calling thread in the process-wide session (made from the
 * environment by the first call). Never fail, never print; a NULL name is ignored. */
TALLY_API void tally_region_begin(const char *name);
TALLY_API void tally_region_end(const char *name);

/* Writes the session's results to TALLY_OUTPUT now (as at exit). 0, or a negative code: no session
 * yet: -TALLY_ESTATE; the output cannot be opened: its errno. */
TALLY_API int tally_regions_write(void);

/* ---- handle form --------------------------------------------------------------------------------- */

typedef struct tally_region_set tally_region_set;

/* Events whose mean count per call is below this many times their calibrated overhead are flagged. */
#define TALLY_REGION_LOW_MULTIPLE 10

struct tally_region_opts {
	size_t sz;
	/* Root of sysfs, as tally_counter_opts.sysfs_root. */
	const char *sysfs_root;
	/* The most region names the set registers (0: 256); tally_region_id past it is -ENOSPC. */
	size_t max_regions;
	/* Subtract the calibrated overhead of each event from every call's delta (saturating at 0). */
	bool subtract_overhead;
	/* Every read through read(2) (tally_counter_opts.no_user_reads). */
	bool no_user_reads;
	/* (0.4) Metrics to compute for every region (tally/metrics.h: "IPC", "TopdownL1"): their events are
	 * counted too, and every output gives each region's value from its sums, or why it is not available.
	 * (0.6) Split as tally stat -M splits it (tally_vendor_metrics_filter): the names and groups of the
	 * machine's vendor table, any case, are the table's (their events as tally_vendor_metrics_spec groups
	 * them, the value tally_vendor_metric_eval's, its MetricThreshold marked in every output), the others
	 * the catalogue's (as tally_counter_opts.metrics); an item neither names leaves the set not counting,
	 * with the reason. NULL: none (the zero-configuration session takes TALLY_METRICS). */
	const char *metrics;
};
#define tally_region_opts__last_field metrics

/* Makes a set counting spec (NULL: the default of TALLY_EVENTS above) and calibrates it on the calling
 * thread. A spec that does not parse or cannot open still gives a set (0 returned) whose calls do
 * nothing: tally_region_set_error() tells why. -EINVAL (out NULL), -TALLY_EOPTS, -ENOMEM, or -EAGAIN
 * when no thread key is left. Thread-safe. */
TALLY_API int tally_region_set_new(const char *spec, const struct tally_region_opts *opts,
                                   tally_region_set **out);

/* Frees the set and every thread's counter and results. No thread may be in a call on it. NULL: no-op. */
TALLY_API void tally_region_set_free(tally_region_set *set);

/* Why the set does not count ("" when it does). Valid until free. */
TALLY_API const char *tally_region_set_error(const tally_region_set *set);

/* The id of region `name`, registered on its first request (the name is copied). Thread-safe; a name
 * already registered takes no lock. -EINVAL (NULL), -ENOSPC (max_regions reached: counted, and every
 * output says how many calls were refused so), -ENOMEM. */
TALLY_API int tally_region_id(tally_region_set *set, const char *name);

/* Begins / ends region `id` on the calling thread. 0, or -EINVAL for an id the set never gave. A thread's
 * first call makes its counter; when that fails, the thread's calls do nothing and its results say why
 * (tally_region_info.error; the table names the thread). Thread-safe (each thread has its own state);
 * not async-signal-safe (a thread's first call of a name allocates, and a handler's call would interleave
 * with the one it interrupted): no region call in a signal handler. */
TALLY_API int tally_region_begin_id(tally_region_set *set, int id);
TALLY_API int tally_region_end_id(tally_region_set *set, int id);

/* Regions registered, threads that made a region call, events of the spec. */
TALLY_API size_t tally_region_set_regions(const tally_region_set *set);
TALLY_API size_t tally_region_set_threads(const tally_region_set *set);
TALLY_API size_t tally_region_set_events(const tally_region_set *set);
/* Names of region i and event i; NULL out of range. Valid until free. */
TALLY_API const char *tally_region_set_name(const tally_region_set *set, size_t region);
TALLY_API const char *tally_region_set_event_name(const tally_region_set *set, size_t event);
/* The calibrated count of an empty region (begin + end) for event i; 0 when not measured. */
TALLY_API uint64_t tally_region_set_overhead(const tally_region_set *set, size_t event);

/* All threads together, as the thread argument of tally_region_set_read. */
#define TALLY_REGION_ALL_THREADS ((size_t)-1)

/* A region on one thread, or on all. New fields come at the end. */
struct tally_region_info {
	size_t sz;
	const char *name;
	pid_t tid;           /* the thread's id; 0 for all threads */
	uint64_t calls;      /* completed calls (outermost begin to outermost end) */
	uint64_t wall_ns;    /* their wall time, summed */
	uint64_t open;       /* begins without an end when read (the region is still open) */
	uint64_t stray_ends; /* ends without a begin */
	const char *error;   /* why this thread does not count ("" when it does; all threads: the first) */
};
#define tally_region_info__last_field error

/* One event of a region, over its calls. New fields come at the end. */
struct tally_region_event {
	uint64_t sum;            /* of the per-call deltas (scaled where multiplexed) */
	uint64_t min, max;       /* the smallest and largest per-call delta */
	double mean, stddev;     /* per call (population standard deviation) */
	uint64_t counted;        /* calls in which the event counted (the statistics are over these) */
	double ratio;            /* the lowest running / enabled of those calls: 1 exact */
	enum tally_status status; /* EXACT, SCALED (ratio < 1), NOT_COUNTED (no call counted), NOT_SUPPORTED */
	bool low;                /* mean < TALLY_REGION_LOW_MULTIPLE x overhead: mostly tally's own count */
};
#define tally_region_event__last_field low

/* Results of region `region` on thread number `thread` (0 .. tally_region_set_threads(), in the order of
 * their first call) or TALLY_REGION_ALL_THREADS: info (info->sz set, as TALLY_OPTS does) and events[0 ..
 * n) (elements of elem_sz bytes: pass sizeof(events[0])). Returns the number of events of the set, or a
 * negative code (-ERANGE: no such region or thread). A thread that has not used the region reads zero
 * calls. Results of a thread that is in a call at that moment are those of its latest end. */
TALLY_API int tally_region_set_read(const tally_region_set *set, size_t region, size_t thread,
                                    struct tally_region_info *info, struct tally_region_event *events, size_t n,
                                    size_t elem_sz);

enum tally_region_format {
	TALLY_REGION_TABLE, /* aligned columns for people */
	TALLY_REGION_CSV,   /* one line per region, thread and event, with a header line */
	TALLY_REGION_JSON,  /* one object, the "regions" object of docs/json-schema.json */
};

/* Writes every region's results (all threads, then each thread) to f. 0 or -EIO. */
TALLY_API int tally_region_set_write(const tally_region_set *set, FILE *f, enum tally_region_format format);

#ifdef __cplusplus
}
#endif
#endif
