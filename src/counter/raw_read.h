/* SPDX-License-Identifier: MIT */
/* The raw read layout: the readings of a counter at one position, the one interface regions read through
 * below the public API (region_set.c's begin and end; region_stats.c scales what it reads). */
#ifndef TLY_RAW_READ_H
#define TLY_RAW_READ_H

#include "core/sys.h"
#include "evsel/group_read.h"
#include "userread/user_group.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <tally/counter.h>

struct tly_counter_event;
struct tly_window;

/* A counter read at one (cpu, thread) position again and again (the regions' hot path), laid out once so
 * that each read is the group reads and nothing else. A reading is one block of u64s: its moment (u64
 * TLY_RAW_NOW, ns of the layout's clock), then every group as the kernel's group layout begins (nr;
 * enabled; running: PERF_FORMAT_GROUP | ID | both times) and its members' values, each followed by its id
 * where read(2) writes the group (tly_raw_group.stride), its times as the kernel counts them (not since the
 * window began: a region takes the difference of two readings, in which the window's start cancels). A
 * group read with read(2) lands there as it is, and one read from user space by the thread that opened it
 * writes its values and times there itself; any other (a tool event, a singleton, counts with bases, a
 * user-space read that falls back) is read through the counter's slot read and written there. */
struct tly_raw_group {
	const struct tly_counter_event *leader;
	const size_t *members; /* event indices, leader first (in tly_raw_layout.order) */
	size_t at;             /* its first u64 in a reading */
	size_t nr;             /* members, leader included */
	/* u64s from one member's value to the next's: 2 where read(2) writes the group (the kernel's
	 * layout, each value followed by its id), else 1 (values side by side, so that a region's end loads
	 * its begin's in pairs). */
	size_t stride;
	/* A group read with read(2) straight into the reading: its leader's descriptor (-1: not so), the
	 * bytes of its read, the kernel's ids of its members and its window. */
	int fd;
	size_t bytes;
	const uint64_t *ids;
	const struct tly_window *window;
	/* A group read from user space straight into the reading (NULL: not so): its values and times, as
	 * tally_counter_read's lean path reads them; the count and ids of the kernel's layout are not
	 * written there, which nothing reads. */
	struct tly_user_group *user;
	tly_page *const *pages; /* user's pages (NULL without user) */
	/* Its members are events first .. first + nr - 1 (leader first), else first is SIZE_MAX. */
	size_t first;
};

/* Where a reading holds its moment: ns of the kernel's perf clock (sched_clock, time_zero of the pages)
 * that a group's read from user space computes anyway, where the layout has such a group (then clock is
 * its leader's page, which gives the moment when the group's read falls back to read(2)); else of
 * CLOCK_MONOTONIC. One clock per layout, so that two readings' moments always compare. */
#define TLY_RAW_NOW 0

struct tly_raw_layout {
	size_t size;          /* u64s of a reading */
	tly_page *clock;      /* the page whose perf clock the moments are in, or NULL: CLOCK_MONOTONIC */
	struct tly_raw_group *groups, *groups_end; /* groups_end: one past the last */
	size_t *order;        /* the groups' members, group after group */
	size_t *unsupported;  /* events without descriptors (in no group) */
	size_t nr_unsupported;
	struct tally_count *block; /* room for the largest group's slot read */
	/* Every group is read from user space straight into the reading (.user, none topdown; so .stride
	 * is 1), its members side by side (.first), and every group's read gives the moment (clock: each
	 * leader's page has time_zero): a region reads each group with one pass over .pages alone, for the
	 * thread that opened the counter only (a region's thread state, found by that thread alone), which
	 * the user groups' owner check would only repeat, and counts it event by event. The groups' read
	 * statistics (user_reads, the latest read(2)'s reason) are left as they are, as nothing reports them
	 * for such a counter; a pass that cannot (a member off its counter, the pages moving...) leaves the
	 * group to tly_counter_read_raw_group, which retries. */
	bool lean;
};

/* The layout of open counter c when every group is read at one position (a thread's own counter); nothing
 * but an open, start or reset changes what it decides, and a region's counter has none after its start.
 * -EINVAL (another target), -ENOMEM. */
int tly_raw_layout_new(const struct tally_counter *c, struct tly_raw_layout *out);
void tly_raw_layout_free(struct tly_raw_layout *l);

/* Group gr through the counter's slot read, written at buf as a reading lays it out (the times as the
 * kernel's: the window's start added back to the slot read's): the other kinds of group, and a read(2)
 * that was not a whole group in order (the slot read retries, matches by id or explains). 0, or the
 * failure (as tally_counter_snapshot's). */
int tly_counter_read_raw_slot(struct tally_counter *c, const struct tly_raw_layout *l, const struct tly_raw_group *gr,
                              uint64_t *buf);

/* The moment of a reading in the layout's clock, read by itself: a reading whose groups did not give it. */
uint64_t tly_raw_now(const struct tly_raw_layout *l);

/* Group gr of c read once into buf (reading + gr->at), its moment into *now where its read gives one (a
 * read from user space; else *now is left as it is). 0, or the failure (as tally_counter_snapshot's). */
static inline __attribute__((always_inline)) int tly_counter_read_raw_group(struct tally_counter *c,
                                                                         const struct tly_raw_layout *l,
                                                                         const struct tly_raw_group *gr,
                                                                         uint64_t *buf, uint64_t *now)
{
	if (__builtin_expect(gr->fd >= 0, 1)) {
		ssize_t got = tly_sys->read(gr->fd, buf, gr->bytes);
		size_t n = gr->nr;
#define TLY_IN_ORDER_OF(size) tly_read_group_in_order(buf, gr->ids, size)
		bool in_order = TLY_GROUP_SIZED(n, TLY_IN_ORDER_OF, TLY_IN_ORDER_OF(n));
#undef TLY_IN_ORDER_OF
		if (__builtin_expect(got == (ssize_t)gr->bytes && in_order, 1))
			return 0;
	}
	if (gr->user && tly_user_group_read_outline(gr->user, buf + 3, gr->stride, &buf[1], &buf[2], now))
		return 0;
	return tly_counter_read_raw_slot(c, l, gr, buf);
}

/* The moment of a reading whose groups gave now (0: none did). Every user-space group read gives the
 * same clock (the perf clock is one per machine). */
static inline uint64_t tly_raw_moment(const struct tly_raw_layout *l, uint64_t now)
{
	return __builtin_expect(!l->clock || !now, 0) ? tly_raw_now(l) : now;
}

/* Every group of c read once into reading (l->size u64s). 0, or the failure (as tally_counter_snapshot's).
 * Inline: a region's begin is this where its lean read does not apply. */
static inline __attribute__((always_inline)) int tly_counter_read_raw(struct tally_counter *c,
                                                                   const struct tly_raw_layout *l,
                                                                   uint64_t *reading)
{
	reading[TLY_RAW_NOW] = 0;
	for (const struct tly_raw_group *gr = l->groups; gr < l->groups_end; gr++) {
		int err = tly_counter_read_raw_group(c, l, gr, reading + gr->at, &reading[TLY_RAW_NOW]);
		if (err)
			return err;
	}
	reading[TLY_RAW_NOW] = tly_raw_moment(l, reading[TLY_RAW_NOW]);
	return 0;
}

#endif
