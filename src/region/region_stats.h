/* SPDX-License-Identifier: MIT */
/* A region's per-call statistics (internal): each thread's sums of its calls' counts, added at every end
 * (inline, the common case) or scaled (region_stats.c), and made means and deviations over threads when
 * read. */
#ifndef TLY_REGION_STATS_H
#define TLY_REGION_STATS_H

#include "counter/aggregate.h"
#include "counter/raw_read.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tally/counter.h>

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

/* An exact call of group gr in a layout that is not lean (its readings the kernel's counts, which may be
 * of another window: tly_window_since), n members (gr->nr, a constant where the caller knows it), its
 * readings at the begin b and the end e: each member's difference counted, into the accs of its members
 * side by side where they are (gr->first), else member by member. */
static inline __attribute__((always_inline)) void tly_region_raw_count(struct tly_region_acc *acc,
                                                                     const struct tly_raw_group *gr, size_t n,
                                                                     const uint64_t *e, const uint64_t *b)
{
	size_t stride = gr->stride;
	if (__builtin_expect(gr->first != SIZE_MAX, 1)) {
		acc += gr->first;
#pragma GCC unroll 4
		for (size_t k = 0; k < n; k++)
			tly_region_acc_count(&acc[k], tly_window_since(e[3 + stride * k], b[3 + stride * k]));
		return;
	}
	for (size_t k = 0; k < n; k++)
		tly_region_acc_count(&acc[gr->members[k]], tly_window_since(e[3 + stride * k], b[3 + stride * k]));
}

/* Adds one call of groups [gr, last), read at its begin and its end (laid out as tly_counter_read_raw
 * says), to the events' statistics: per event the scaled difference of the readings
 * (tally_snapshot_delta's of one part: tly_sum_add, tly_sum_result), overhead[i] taken off when
 * subtract. A group that ran all the call (exact, ratio 1: the common case, which changes no status nor
 * ratio; its running time grew as much as its enabled time) counts its members' differences; any other
 * call, or any with the overhead subtracted, is tly_region_group_call's. lean: the layout is
 * (tly_raw_layout.lean: tly_region_lean_exact, tly_region_lean_count), else the kernel's times and
 * counts, which may be of another window (tly_region_raw_count, with the group's size a constant up to
 * 4: TLY_GROUP_SIZED). */
static inline void tly_region_acc_add(struct tly_region_acc *acc, const struct tly_raw_group *gr,
                                      const struct tly_raw_group *last, const uint64_t *begin, const uint64_t *end,
                                      const uint64_t *overhead, bool subtract, bool lean)
{
	for (; gr < last; gr++) {
		const uint64_t *b = begin + gr->at, *e = end + gr->at;
		bool exact = lean ? tly_region_lean_exact(e[1], e[2], b)
		                  : tly_window_since(e[1], b[1]) == tly_window_since(e[2], b[2]);
		if (!exact || subtract) {
			tly_region_group_call(acc, gr, begin, end, overhead, subtract);
		} else if (lean) {
			tly_region_lean_count(acc + gr->first, gr->nr, e + 3, 1, b);
		} else {
			size_t n = gr->nr;
#define TLY_RAW_COUNT_OF(size) tly_region_raw_count(acc, gr, size, e, b)
			TLY_GROUP_SIZED(n, TLY_RAW_COUNT_OF, TLY_RAW_COUNT_OF(n));
#undef TLY_RAW_COUNT_OF
		}
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

#endif
