/* SPDX-License-Identifier: MIT */
/* Named regions: the set, its per-thread state and the per-call statistics (internal). */
#ifndef TLY_REGION_H
#define TLY_REGION_H

#include "counter/aggregate.h"
#include "counter/raw_read.h"

#include <tally/region.h>

#include <pthread.h>
#include <stdatomic.h>

/* One event of one region on one thread, as the calls add to it: sums only, so that a call costs a few
 * adds and compares per event; the read makes the mean and the standard deviation of them
 * (tly_region_stats_add). The squares are summed in 128 bits and the deviations made of them in integers
 * (squares - sum^2 / counted), exact, free of the cancellation a floating-point sum of squares suffers
 * where calls differ little from each other and much from zero (the same loop every call), as long as
 * the squares stay below 2^128 (a million calls of 2^44 events each, hours of counting apiece). The sum
 * is the thread's count of the event inside the region (or its estimate), which the kernel keeps in 64
 * bits as well: it does not saturate. The fields a call updates lie in pairs, for paired loads and
 * stores. An exact call, the common one, changes neither status nor ratio: status stays not counted
 * until a call scales (or the event has no descriptors), and a read takes a counted event's not counted
 * for exact; ratio starts at 1, the smallest of the calls' ratios. Nor does a counted call count itself:
 * the record counts the calls (tly_region_rec.calls), and an event the calls it did not count, which
 * are rare (its group did not run or could not be read). */
struct tly_region_acc {
	/* First, so that no field a call updates is at offset 0, which compilers address base + index
	 * (unpaired) where an acc is picked by index. */
	double ratio;
	enum tally_status status;
	unsigned __int128 squares;
	uint64_t min, max, sum;
	uint64_t uncounted;
};

/* Of a thread's calls of the region, those acc counted. */
static inline uint64_t tly_region_acc_counted(const struct tly_region_acc *acc, uint64_t calls)
{
	return acc->status == TALLY_STATUS_NOT_SUPPORTED ? 0 : calls - acc->uncounted;
}

/* The status acc's calls (calls of them) give. */
static inline enum tally_status tly_region_acc_status(const struct tly_region_acc *acc, uint64_t calls)
{
	return tly_region_acc_counted(acc, calls) && acc->status == TALLY_STATUS_NOT_COUNTED ? TALLY_STATUS_EXACT
	                                                                                      : acc->status;
}

/* What a read makes of the accs of one region's event: over threads, Chan et al.'s combination of their
 * means and sums of squared deviations, exact for any split of the calls. */
struct tly_region_stats {
	uint64_t sum, min, max, counted;
	double mean, m2, ratio;
	enum tally_status status;
};

/* One region on one thread. depth counts begins not yet ended: only the outermost pair is measured. */
struct tly_region_rec {
	uint64_t *begin; /* the outermost begin's reading (after acc, in one block); moment 0: not taken */
	uint64_t depth, calls, wall_ns, stray_ends;
	uint64_t passes; /* user-space passes taken again (begin_again) since the latest raw read */
	int id;          /* its region's */
	struct tly_region_acc acc[];
};

struct tly_region_thread {
	struct tly_region_thread *_Atomic next; /* the set's list, in the order of first calls */
	tally_region_set *set;
	pid_t tid;
	tally_counter *counter; /* NULL: not counting (error says why), or the thread exited */
	/* Decided at the thread's first call, so that begin and end only read and add: where each event
	 * lies in a reading, and the end's reading. */
	struct tly_raw_layout layout;
	uint64_t *end;
	struct tly_region_rec *_Atomic *recs; /* by region id; published by the owning thread */
	uint32_t nr_recs;                     /* max_regions + 1 (the calibration's id last) */
	bool subtract;                        /* the set's, at hand */
	char error[512];
};

struct tally_region_set {
	uint64_t serial; /* this process's number of the set, never 0 */
	char *spec;
	char *metrics; /* tally_region_opts.metrics, or NULL */
	char *sysfs_root;
	bool no_user_reads, subtract;
	tally_counter *names; /* never opened: the event names */
	size_t nr_events;
	uint64_t *overhead;
	size_t max_regions;
	_Atomic size_t nr_regions;
	/* The ids begin and end take: nr_regions, and while the set is calibrated, one more, max_regions, the
	 * calibration's own (each thread has max_regions + 1 record slots). */
	_Atomic size_t nr_ids;
	_Atomic uint64_t refused; /* tally_region_id calls refused for want of room: every output says so */
	char **region_names;
	_Atomic int *hash; /* region id + 1 by name hash, open addressing; 0: empty */
	size_t hash_mask;
	pthread_mutex_t lock; /* registrations and the thread list's tail */
	pthread_key_t key;
	struct tly_region_thread *_Atomic threads, *last;
	_Atomic size_t nr_threads;
	char error[512];
};

/* The thread's state, made on its first call (NULL when even that failed: calls do nothing). */
struct tly_region_thread *tly_region_thread(tally_region_set *set);
/* tally_region_set_read of region on thread (NULL: all threads), its arguments checked: the writers walk
 * the thread list once rather than find each thread by its number. */
int tly_region_read(const tally_region_set *set, size_t region, const struct tly_region_thread *thread,
                    struct tally_region_info *info, struct tally_region_event *events, size_t n, size_t elem_sz);
/* A record with room for the set's events and the thread's reading (free() frees it). */
struct tly_region_rec *tly_region_rec_new(struct tly_region_thread *t);

/* One counted call of one event: its count v. */
static inline __attribute__((always_inline)) void tly_region_acc_count(struct tly_region_acc *acc, uint64_t v)
{
	acc->sum += v;
	acc->squares += (unsigned __int128)v * v;
	acc->min = v < acc->min ? v : acc->min;
	acc->max = v > acc->max ? v : acc->max;
}

/* A call of group gr that did not run all its window (or not at all: not counted), or any call with the overhead
 * subtracted: per member, tally_snapshot_delta's scaling of one part (tally_count_scale, tly_sum_result's
 * ratio), less the overhead when asked. Out of the common path's way. */
void tly_region_group_call(struct tly_region_acc *acc, const struct tly_raw_group *gr, const uint64_t *begin,
                           const uint64_t *end, const uint64_t *overhead, bool subtract);
/* A call that group gr's members did not count. */
void tly_region_group_uncounted(struct tly_region_acc *acc, const struct tly_raw_group *gr);

/* Whether a group of a lean layout (tly_raw_layout.lean) ran all of a call: its times at the end
 * (enabled, running) against its begin's reading b (laid out as tly_counter_read_raw's): both readings
 * are from user space (or the same read(2)'s kernel counts where one falls back: a region's counter
 * starts stopped, with no bases) and never reset, so that the time it was enabled but not running did
 * not grow (one subtraction a reading; the user-space pass extrapolates both times by the same amount).
 * A group's members share its times and are counted in the same calls: this is decided once a group. It
 * ran all of it also where neither time grew (a call shorter than a tick of the clock that extrapolates
 * them). */
static inline __attribute__((always_inline)) bool tly_region_lean_exact(uint64_t enabled, uint64_t running,
                                                                      const uint64_t *b)
{
	return enabled - running == b[1] - b[2];
}

/* An exact call of a lean layout's group of n members (their accs at acc): each member's value at the
 * end, values[k x stride], less its value in the begin's reading b (plain differences, as above; a
 * group read from user space has its values side by side: tly_raw_group.stride 1). */
static inline __attribute__((always_inline)) void tly_region_lean_count(struct tly_region_acc *acc, size_t n,
                                                                      const uint64_t *values, size_t stride,
                                                                      const uint64_t *b)
{
#pragma GCC unroll 4
	for (size_t k = 0; k < n; k++)
		tly_region_acc_count(&acc[k], values[k * stride] - b[3 + k]);
}

/* Adds one call of groups [gr, last), read at its begin and its end (laid out as tly_counter_read_raw
 * says), to the events' statistics: per event the scaled difference of the readings
 * (tally_snapshot_delta's of one part: tly_sum_add, tly_sum_result), overhead[i] taken off when
 * subtract. A group that ran all the call (exact, ratio 1: the common case, which changes no status nor
 * ratio; its running time grew as much as its enabled time) counts its members' differences; any other
 * call, or any with the overhead subtracted, is tly_region_group_call's. lean: the layout is
 * (tly_raw_layout.lean: tly_region_lean_exact, tly_region_lean_count), else the kernel's times and
 * counts, which may be of another window. */
static inline void tly_region_acc_add(struct tly_region_acc *acc, const struct tly_raw_group *gr,
                                      const struct tly_raw_group *last, const uint64_t *begin, const uint64_t *end,
                                      const uint64_t *overhead, bool subtract, bool lean)
{
	for (; gr < last; gr++) {
		const uint64_t *b = begin + gr->at, *e = end + gr->at;
		bool exact = lean ? tly_region_lean_exact(e[1], e[2], b)
		                  : tly_window_since(e[1], b[1]) == tly_window_since(e[2], b[2]);
		if (!exact || subtract)
			tly_region_group_call(acc, gr, begin, end, overhead, subtract);
		else if (lean)
			tly_region_lean_count(acc + gr->first, gr->nr, e + 3, 1, b);
		else
			for (size_t k = 0; k < gr->nr; k++)
				tly_region_acc_count(&acc[gr->members[k]],
				                     tly_window_since(e[3 + gr->stride * k], b[3 + gr->stride * k]));
	}
}

/* n events' accs before any call; unsupported (nr_unsupported of them, events without descriptors) never
 * count. */
void tly_region_acc_init(struct tly_region_acc *acc, size_t n, const size_t *unsupported, size_t nr_unsupported);
/* Adds a thread's acc (of its calls of the region) to the statistics over threads (from
 * tly_region_stats_init). */
void tly_region_stats_init(struct tly_region_stats *stats, size_t n);
void tly_region_stats_add(struct tly_region_stats *total, const struct tly_region_acc *part, uint64_t calls);
double tly_region_sqrt(double x);

/* The set's default spec when the caller gives none (documented in tally/region.h). */
const char *tly_region_default_spec(const char *sysfs_root, bool no_user_reads);

#endif
