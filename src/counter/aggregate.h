/* SPDX-License-Identifier: MIT */
/* Turning per-(CPU, thread) readings into one result per event, and results into one per spec item. */
#ifndef TLY_AGGREGATE_H
#define TLY_AGGREGATE_H

#include <stddef.h>
#include <tally/counter.h>
#include <tally/evsel.h>

/* A group's counting window at one (cpu, thread) slot. The kernel's PERF_EVENT_IOC_RESET zeroes the
 * counts but not total_time_enabled / total_time_running (perf_event_reset, unchanged since 2.6.31), so
 * the times of a reading are taken relative to those at the window's start; without that, a second
 * start would scale one window's count by the times of every window since open. */
struct tly_window {
	uint64_t start_enabled, start_running; /* the kernel's times when the window began */
	uint64_t enabled, running;             /* the window's own, as of the latest read (one pair for
	                                        * every member: a group read carries the leader's times) */
};

/* now - then; a time below its window's start (which only new descriptors could give, and their window
 * starts at zero) is taken whole. Counts too: one descriptor's never go down (the kernel's grow, and
 * tally's user-space topdown reads, whose 8-bit metric fractions may shrink, are clamped where they are
 * made: the delta of two is never negative, as the kernel applies a topdown difference only where it
 * grew; user_group.h td_high), so a count below `then` is a new descriptor's, counted whole. */
static inline uint64_t tly_window_since(uint64_t now, uint64_t then)
{
	return now >= then ? now - then : now;
}

/* A sum over the parts of one event: each part scaled on its own (parts multiplex independently), sums
 * saturating at 2^64-1. Zero-initialise, add every part, then tly_sum_result. */
struct tly_sum {
	uint64_t value, enabled, running, scaled;
	size_t n;
	bool any_counted, any_scaled;
};

/* Adds one part: a value with its times. */
void tly_sum_add(struct tly_sum *sum, const struct tally_count *part);

/* Adds one raw reading with the times of its window (a slot of a counter's latest read). */
void tly_sum_add_in(struct tly_sum *sum, const struct tally_count *count, const struct tly_window *window);

/* r's value, enabled, running, scaled, ratio, status and nr_parts from the sum; the rest of r untouched. */
void tly_sum_result(const struct tly_sum *sum, struct tally_result *r);

/* Sums the n parts of one event into r (tly_sum_result's fields). Part s is the value of
 * counts[s * stride] (the layout of group reads, one block per slot) with the times of windows[s]. */
void tly_aggregate_sum_parts(const struct tally_count *counts, size_t stride, const struct tly_window *windows,
                             size_t n, struct tally_result *r);

/* tly_aggregate_sum_parts, with the common case inline: one part that ran all its window needs no
 * scaling arithmetic. Inline because the read path is held to the cost of a bare read(2): out of line,
 * the call and the reload of r->scaled after it (from the middle of a 16-byte store) cost more than the
 * rest. */
static inline void tly_aggregate_parts(const struct tally_count *counts, size_t stride,
                                       const struct tly_window *windows, size_t n, struct tally_result *r)
{
	if (n == 1 && windows->running == windows->enabled && windows->running) {
		r->value = r->scaled = counts->value;
		r->enabled = r->running = windows->running;
		r->status = TALLY_STATUS_EXACT;
		r->ratio = 1.0;
		r->nr_parts = 1;
		return;
	}
	tly_aggregate_sum_parts(counts, stride, windows, n, r);
}

/* One part (a raw reading in its window) as the public API shows it. */
void tly_aggregate_part(const struct tally_count *count, const struct tly_window *window, int cpu, pid_t tid, int cgroup,
                        struct tally_part *out);

/* Adds result r into acc (two results of one spec item, e.g. the cpu_core and cpu_atom halves of a
 * hybrid "cycles"); with first, acc becomes a copy of r. A counted half outranks one that is not. */
void tly_aggregate_add(struct tally_result *acc, const struct tally_result *r, bool first);

#endif
