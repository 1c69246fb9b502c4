/* SPDX-License-Identifier: MIT */
/* Reading a counter: one read per group and (CPU, thread) through the read backend, relative to the
 * window, scaled part by part into results; parts and origins. */
#include "counter/counter.h"

#include "core/error.h"
#include "core/out_array.h"
#include "evsel/threadmap.h"

#include <stdalign.h>
#include <stddef.h>

/* The output structs as they are now are the first versions: a field added later (at the end) makes these
 * fail, and then the code that fills the struct writes the new field only where elem_sz has room. */
_Static_assert(sizeof(struct tally_result) == TLY_RESULT_SZ_V1, "tally_result grew: see out_array.h");
_Static_assert(sizeof(struct tally_part) == TLY_PART_SZ_V1, "tally_part grew: see out_array.h");
_Static_assert(sizeof(struct tally_exit) == TLY_EXIT_SZ_V1, "tally_exit grew: see out_array.h");

/* Reads group g at every (cpu, thread) with one read(2) each, decoded in place into its events' counts,
 * and the times of its windows. Notes in the leader whether the group was enabled in its window but
 * never ran, and then sets *any_idle; sets *counted_anew where its events' number of readings changed
 * (the first read after an open), for one tly_counter_lean_refresh after every group is read. */
static inline __attribute__((always_inline)) int read_group(tally_counter *c, size_t g, bool *any_idle,
                                                            bool *counted_anew)
{
	const size_t *m = tly_plan_members(&c->plan, g);
	struct tly_counter_event *leader = &c->ev[m[0]];
	size_t size = leader->stride, slots = leader->ncpus * leader->nthreads;
	uint64_t enabled = 0, running = 0;
	for (size_t slot = 0; slot < slots; slot++) {
		struct tly_window *w = &leader->window[slot];
		int err = tly_counter_read_slot(c, leader, slot, leader->counts + slot * size, &w->enabled,
		                                &w->running);
		if (err)
			return err;
		enabled += w->enabled;
		running += w->running;
	}
	/* Only the first read after an open changes it (from 0). */
	if (leader->nr_counts != slots) {
		for (size_t k = 0; k < size; k++)
			c->ev[m[k]].nr_counts = slots;
		*counted_anew = true;
	}
	leader->idle_enabled = running == 0 ? enabled : 0;
	*any_idle |= leader->idle_enabled != 0;
	return 0;
}

/* fill_exact copies the event's fields from `group` on as the result's from `group` on. */
#define TLY_SAME_PLACE(f)                                                                                  \
	(offsetof(struct tly_counter_event, f) - offsetof(struct tly_counter_event, group) ==                                        \
	 offsetof(struct tally_result, f) - offsetof(struct tally_result, group))
_Static_assert(TLY_SAME_PLACE(origin) && TLY_SAME_PLACE(user_only) && TLY_SAME_PLACE(has_note) &&
	               offsetof(struct tly_counter_event, result_padding) - offsetof(struct tly_counter_event, group) ==
	                       TLY_KNOWN_SIZE(tally_result) - offsetof(struct tally_result, group) &&
	               offsetof(struct tly_counter_event, result_padding) + sizeof(((struct tly_counter_event *)0)->result_padding) -
	                               offsetof(struct tly_counter_event, group) ==
	                       sizeof(struct tally_result) - offsetof(struct tally_result, group) &&
	               offsetof(struct tally_result, has_note) + 1 == TLY_KNOWN_SIZE(tally_result),
               "struct tly_counter_event's result fields are laid out as struct tally_result's");

/* The result of an event that ran all its window in one part: fill_result's common case, without the
 * decisions made once for its group (supported, one part, ran all the window). Exact, and with no error
 * (an event that opened has none); the event's fields from its group on are copied as they lie, with
 * the zeros after them. */
static inline __attribute__((always_inline)) void fill_exact(const struct tly_counter_event *restrict e, uint64_t value,
                                                             uint64_t time, struct tally_result *restrict r)
{
	/* The ratio 1.0 by its bits, so that it is stored in a pair with nr_parts, as each field is with
	 * its neighbour. */
	const uint64_t one = 0x3ff0000000000000; /* 1.0 in IEEE 754 binary64 */
	_Static_assert(sizeof(double) == sizeof(one), "double is binary64");
	r->value = value;
	r->enabled = time;
	r->running = time;
	r->scaled = value;
	memcpy(&r->ratio, &one, sizeof(one));
	r->nr_parts = 1;
	r->status = TALLY_STATUS_EXACT;
	r->error = 0;
	memcpy(&r->group, &e->group, sizeof(*r) - offsetof(struct tally_result, group));
}

/* restrict: the result and the event never overlap, and without saying so every store into the result
 * (uint64_t fields, as the event's) would make the compiler load the event's fields again. Every field
 * written lies within the first version's size, which every caller's element has; a newer caller's bytes
 * past the fields known here read zero. */
static inline __attribute__((always_inline)) void fill_result(const struct tly_counter_event *restrict e,
                                                             struct tally_result *restrict r)
{
	/* The common case of every path (one part that ran all its window) as the lean path writes it; the
	 * rest summed and scaled part by part. */
	const struct tly_window *w = e->window;
	if (e->evsel && e->nr_counts == 1 && w->running == w->enabled && w->running) {
		fill_exact(e, e->counts->value, w->running, r);
		return;
	}
	r->origin = e->origin;
	r->group = e->group;
	r->user_only = e->user_only;
	r->has_note = e->has_note;
	r->error = e->error;
	/* An event that is not supported has no parts: zero counts, then its own status. */
	tly_aggregate_parts(e->counts, e->stride, e->window, e->nr_counts, r);
	if (!e->evsel)
		r->status = e->left_out || e->gone ? TALLY_STATUS_NOT_COUNTED : TALLY_STATUS_NOT_SUPPORTED;
	/* Our padding after the last field, where a newer version may have put one (it then reads 0): a
	 * constant size, so a store or two, not a memset call. */
	memset((char *)r + TLY_KNOWN_SIZE(tally_result), 0, sizeof(*r) - TLY_KNOWN_SIZE(tally_result));
}

/* After the results: zero what a newer caller's larger elements have past the fields this library knows,
 * and reshape the groups that never ran (their results above already say NOT_COUNTED). */
static int finish_read(tally_counter *c, void *results, size_t count, size_t elem_sz, bool any_idle)
{
	for (size_t i = 0; elem_sz > sizeof(struct tally_result) && i < count; i++)
		memset((char *)tly_out_at(results, i, elem_sz) + sizeof(struct tally_result), 0,
		       elem_sz - sizeof(struct tally_result));
	for (size_t g = 0; any_idle && g < c->plan.nr_groups;) {
		uint64_t enabled = c->ev[tly_plan_members(&c->plan, g)[0]].idle_enabled;
		size_t next = g + 1;
		if (enabled) {
			int err = tly_counter_split_idle_group(c, g, enabled, &next);
			for (size_t i = 0; i < count; i++)
				((struct tally_result *)tly_out_at(results, i, elem_sz))->has_note = c->ev[i].has_note;
			if (err)
				return tly_counter_fail(c, err);
		}
		g = next;
	}
	return (int)count;
}

/* The read of any counter: every group read, then every result. */
static inline __attribute__((always_inline)) int read_groups(tally_counter *c, void *results, size_t count,
                                                             size_t elem_sz)
{
	bool any_idle = false, counted_anew = false;
	int err = 0;
	size_t g;
	for (g = 0; g < c->plan.nr_groups && !err; g++)
		err = read_group(c, g, &any_idle, &counted_anew);
	if (__builtin_expect(counted_anew, 0))
		tly_counter_lean_refresh(c);
	if (err)
		return tly_counter_fail(c, tly_counter_explain_group_failure(c, g - 1, err));
	for (size_t i = 0; i < count; i++)
		fill_result(&c->ev[i], tly_out_at(results, i, elem_sz));
	if (elem_sz > sizeof(struct tally_result) || any_idle)
		return finish_read(c, results, count, elem_sz, any_idle);
	return (int)count;
}

/* The lean path's way out for what it does not decide itself: groups g0 on, group g0 already read into
 * its counts and window when `read`, with every result of the groups before g0 filled, each of which ran
 * all its window. Out of line, so that the lean path makes no call and keeps its values in registers. */
static __attribute__((noinline)) int read_lean_rest(tally_counter *c, size_t g0, bool read,
                                                    struct tally_result *results)
{
	bool any_idle = false, counted_anew = false;
	int err = 0;
	size_t g;
	/* The groups before g0 ran: no idle time of an earlier read may split them in finish_read. */
	for (g = 0; g < g0; g++)
		c->ev[tly_plan_members(&c->plan, g)[0]].idle_enabled = 0;
	for (g = g0; g < c->plan.nr_groups && !err; g++) {
		const size_t *m = tly_plan_members(&c->plan, g);
		struct tly_counter_event *leader = &c->ev[m[0]];
		if (g == g0 && read) {
			const struct tly_window *w = leader->window;
			leader->idle_enabled = w->running == 0 ? w->enabled : 0;
			any_idle |= leader->idle_enabled != 0;
		} else if ((err = read_group(c, g, &any_idle, &counted_anew)) != 0) {
			continue;
		}
		for (size_t k = 0; k < tly_plan_size(&c->plan, g); k++)
			fill_result(&c->ev[m[k]], &results[m[k]]);
	}
	/* A group whose pages may no longer be read (revoked after faults: user_group.h) leaves the lean plan. */
	for (const struct tly_lean_group *lg = c->lean; lg < c->lean_end; lg++)
		counted_anew |= lg->reader != TLY_NO_READER && lg->reader != lg->user->reader;
	if (counted_anew)
		tly_counter_lean_refresh(c);
	if (err)
		return tly_counter_fail(c, tly_counter_explain_group_failure(c, g - 1, err));
	if (any_idle)
		return finish_read(c, results, c->nr, sizeof(*results), any_idle);
	return (int)c->nr;
}

/* tally_counter_read's checks: 0, or the failure. */
static inline __attribute__((always_inline)) int check_read(tally_counter *c, const struct tally_result *results,
                                                            size_t n, size_t elem_sz)
{
	if (!c || (n && !results))
		return tly_error(-EINVAL, "tally_counter_read: NULL counter or results");
	if (!tly_out_valid(elem_sz, TLY_RESULT_SZ_V1, alignof(struct tally_result), "tally_result"))
		return tly_counter_fail(c, -TALLY_EOPTS);
	if (!c->open)
		return tly_counter_not_open(c, "tally_counter_read");
	return 0;
}

/* tally_counter_read's general path: its checks, then every group read and every result. */
static __attribute__((noinline)) int read_checked(tally_counter *c, struct tally_result *results, size_t n,
                                                  size_t elem_sz)
{
	int err = check_read(c, results, n, elem_sz);
	if (err)
		return err;
	return read_groups(c, results, n < c->nr ? n : c->nr, elem_sz);
}

/* How a group of the lean path went. */
enum lean_outcome {
	LEAN_EXACT,    /* read from user space, ran all its window: its results are written */
	LEAN_NOT_READ, /* not read (another thread, a member off its counter...) */
	LEAN_READ,     /* read into its counts and window, but did not run all the window */
};

/* A lean group's read, its n members' values at values[k x stride] (in its readings already) and the
 * group's times as the kernel counts them: its window's times made of the group's, and where it ran all
 * its window (enabled and running grew alike since the window's start, and by something), its members'
 * exact results written from the values. */
static inline __attribute__((always_inline)) enum lean_outcome
lean_group_results(const struct tly_lean_group *lg, struct tally_result *results, size_t n, const uint64_t *values,
                   size_t stride, uint64_t enabled, uint64_t running)
{
	struct tly_window *w = lg->window;
	if (__builtin_expect(enabled - running != lg->start_gap || running <= lg->start_running, 0)) {
		w->enabled = tly_window_since(enabled, w->start_enabled);
		w->running = tly_window_since(running, w->start_running);
		return LEAN_READ;
	}
	uint64_t time = running - lg->start_running;
	w->enabled = time;
	w->running = time;
	const struct tly_counter_event *e = lg->events;
	struct tally_result *r = (struct tally_result *)((char *)results + lg->results_at);
#pragma GCC unroll 4
	for (size_t k = 0; k < n; k++, e++, r++)
		fill_exact(e, values[k * stride], time, r);
	return LEAN_EXACT;
}

/* One group of the lean path, of n members (a constant where inlined: its read is then straight-line
 * code): read from user space into its leader's counts, then lean_group_results. */
static inline __attribute__((always_inline)) enum lean_outcome
read_lean_group(const struct tly_lean_group *lg, uint64_t token, struct tally_result *results, size_t n)
{
	struct tly_user_group *u = lg->user;
	struct tally_count *counts = lg->counts;
	/* A group of up to 4 reads into locals, which stay in registers for its results; a larger one into
	 * its readings. */
	uint64_t local[4], *values = n <= 4 ? local : &counts->value;
	size_t stride = n <= 4 ? 1 : sizeof(*counts) / sizeof(counts->value);
	uint64_t enabled, running, now;
	if (token != lg->reader ||
	    !tly_user_group_read_plain(u, n, values, stride, true, 1, &enabled, &running, &now))
		return LEAN_NOT_READ;
	for (size_t k = 0; n <= 4 && k < n; k++)
		counts[k].value = local[k];
	return lean_group_results(lg, results, n, values, stride, enabled, running);
}

/* One group of the read(2) lean path (lg, a group of the lean plan read with read(2), n members: a
 * constant where inlined): one read(2) into its leader's buffer, kept where it is the whole group in the
 * order of its ids (else not read: the general path reads it again, matching by id or explaining); its
 * values into its readings, then lean_group_results straight from the buffer. */
static inline __attribute__((always_inline)) enum lean_outcome
read_syscall_group(const struct tly_lean_group *lg, struct tally_result *results, size_t n)
{
	uint64_t *buf = lg->buf;
	if (__builtin_expect(lg->fd < 0, 0) || tly_sys->read(lg->fd, buf, lg->bytes) != (ssize_t)lg->bytes ||
	    __builtin_expect(!tly_read_group_in_order(buf, lg->ids, n), 0))
		return LEAN_NOT_READ;
	/* buf: nr, enabled, running, then each member's value and id (struct tly_group_head, tly_group_entry). */
	struct tally_count *counts = lg->counts;
#pragma GCC unroll 4
	for (size_t k = 0; k < n; k++)
		counts[k].value = buf[3 + 2 * k];
	return lean_group_results(lg, results, n, buf + 3, 2, buf[1], buf[2]);
}

/* The walk of a lean plan (c->lean on), for a caller that takes every result in this version's elements:
 * group by group, the read and then its members' results (read_lean_group from user space, or with
 * syscall, a constant, read_syscall_group with read(2)). A group's members share its times (one slot, one
 * window), so whether they ran all the window, the one decision between the exact result and scaling,
 * is made once per group. Anything else (bases to subtract, another thread, a member off its counter, a
 * short read, a multiplexed or idle group, the first read after an open) goes to read_lean_rest from that
 * group on. */
static inline __attribute__((always_inline)) int read_lean_plan(tally_counter *c, struct tally_result *results,
                                                                bool syscall)
{
	uint64_t token = syscall ? 0 : tly_thread_token;
	const struct tly_lean_group *lg = c->lean, *end = syscall ? c->syscall_end : c->lean_end;
	do {
		size_t size = syscall ? lg->n : lg->user->n;
#define READ_GROUP_OF(n) (syscall ? read_syscall_group(lg, results, n) : read_lean_group(lg, token, results, n))
		enum lean_outcome got = TLY_GROUP_SIZED(size, READ_GROUP_OF, READ_GROUP_OF(size));
#undef READ_GROUP_OF
		if (__builtin_expect(got != LEAN_EXACT, 0))
			return read_lean_rest(c, (size_t)(lg - c->lean), got == LEAN_READ, results);
	} while (++lg < end);
	return (int)c->nr;
}

/* The lean path of tally_counter_read, over the groups as tly_counter_lean_refresh laid them out (every
 * group read from user space, every event in one, none topdown; one group at least). Out of line, as
 * read_other: tally_counter_read only chooses, and neither path pays for the other's registers. */
static __attribute__((noinline)) int read_lean(tally_counter *c, struct tally_result *results)
{
	return read_lean_plan(c, results, false);
}

/* tally_counter_read where its user-space lean path does not apply: through read(2), the read(2) lean
 * path (a read(2) lean plan, room for every result in this version's elements: the walk with one read(2)
 * a group, each group's results straight from its read, so that a read of one thread at one position
 * whose groups ran all their window costs what the bare read(2) and its decode cost, and the results);
 * every other read, and every error, the general path's. */
static __attribute__((noinline)) int read_other(tally_counter *c, struct tally_result *results, size_t n,
                                                size_t elem_sz)
{
	if (__builtin_expect(!c || n < c->nr || !results || elem_sz != sizeof(*results) || c->lean == c->syscall_end, 0))
		return read_checked(c, results, n, elem_sz);
	return read_lean_plan(c, results, true);
}

/* The lean path where it applies (a lean plan, room for every result in this version's elements), the
 * others for everything else, their own errors included. */
int tally_counter_read(tally_counter *c, struct tally_result *results, size_t n, size_t elem_sz)
{
	if (__builtin_expect(!c || n < c->nr || !results || elem_sz != sizeof(*results) || c->lean == c->lean_end, 0))
		return read_other(c, results, n, elem_sz);
	return read_lean(c, results);
}

/* tally_counter_read_values' way for what its lean path does not read: tally_counter_read into the
 * counter's results, their scaled values copied. Out of line, as read_lean_rest. */
static __attribute__((noinline)) int read_values_through_results(tally_counter *c, uint64_t *values, size_t n)
{
	int got = tally_counter_read(c, c->value_results, n < c->nr ? n : c->nr, sizeof(*c->value_results));
	for (int i = 0; i < got; i++)
		values[i] = c->value_results[i].scaled;
	return got;
}

/* tally_counter_read_values' checks and, where its lean path does not apply, its read through results. */
static __attribute__((noinline)) int read_values_checked(tally_counter *c, uint64_t *values, size_t n)
{
	if (!c || (n && !values))
		return tly_error(-EINVAL, "tally_counter_read_values: NULL counter or values");
	if (!c->open)
		return tly_counter_not_open(c, "tally_counter_read_values");
	return read_values_through_results(c, values, n);
}

/* The lean path of tally_counter_read without results, over the groups as tly_counter_lean_refresh laid
 * them out (c->lean .. lean_end: every group read from user space, every event in one, none topdown):
 * each group read from user space straight into values (its members side by side there) by its opening thread, and
 * where each ran all its window, the values are the results' scaled values already. It ran all its
 * window when the difference of its enabled and running times is what it was at the window's start: a
 * difference that the times as of the page's latest update give as well as extrapolated ones, so the
 * read computes no time at all (a window of no time yet, which tally_counter_read calls not counted,
 * then reads the counts so far: the group is on its counters). Anything else (a group not ok now, fewer
 * values than events, another thread, a member off its counter, a multiplexed group) is read through
 * results, and so is a NULL counter or values, whose error that path gives. */
int tally_counter_read_values(tally_counter *c, uint64_t *values, size_t n)
{
	if (__builtin_expect(!c || c->lean == c->lean_end || n < c->nr || !values, 0))
		return read_values_checked(c, values, n);
	uint64_t token = tly_thread_token;
	for (const struct tly_lean_group *lg = c->lean, *end = c->lean_end; lg < end; lg++) {
		uint64_t enabled, running, now;
		bool read = token == lg->reader &&
		            tly_user_group_read_plain(lg->user, lg->user->n, values + lg->first, 1, false, 1, &enabled,
		                                      &running, &now);
		if (!read || enabled - running != lg->start_gap) {
			/* The read through results reads every group again, and counts each read once. */
			for (const struct tly_lean_group *done = c->lean; done < lg + read; done++)
				done->user->user_reads--;
			return read_values_checked(c, values, n);
		}
	}
	return (int)c->nr;
}

int tally_counter_parts(const tally_counter *c, size_t i, struct tally_part *parts, size_t n, size_t elem_sz)
{
	if (!c || i >= c->nr || (n && !parts))
		return tly_error(-EINVAL, "tally_counter_parts: NULL counter or event %zu out of range", i);
	if (!tly_out_valid(elem_sz, TLY_PART_SZ_V1, alignof(struct tally_part), "tally_part"))
		return -TALLY_EOPTS;
	const struct tly_counter_event *e = &c->ev[i];
	if (!c->open || !e->evsel)
		return 0;
	const tally_cpus *cpus = tally_evsel_cpus(e->evsel);
	const tally_threads *threads = tally_evsel_threads(e->evsel);
	size_t nthreads = tally_threads_count(threads);
	for (size_t s = 0; s < e->nr_counts && s < n; s++) {
		struct tally_part p;
		pid_t tid;
		int cgroup;
		tly_threads_place(threads, s % nthreads, &tid, &cgroup);
		tly_aggregate_part(&e->counts[s * e->stride], &e->window[s], tally_cpus_at(cpus, s / nthreads), tid,
		                   cgroup, &p);
		tly_out_put(tly_out_at(parts, s, elem_sz), elem_sz, &p, TLY_KNOWN_SIZE(tally_part));
	}
	return (int)e->nr_counts;
}

int tally_counter_sum_origins(const tally_counter *c, const struct tally_result *results, size_t n_results,
                              struct tally_result *out, size_t n_out, size_t elem_sz)
{
	if (!c || (n_results && !results) || (n_out && !out))
		return tly_error(-EINVAL, "tally_counter_sum_origins: NULL argument");
	if (!tly_out_valid(elem_sz, TLY_RESULT_SZ_V1, alignof(struct tally_result), "tally_result"))
		return -TALLY_EOPTS;
	const size_t known = TLY_KNOWN_SIZE(tally_result);
	for (unsigned o = 0; o < c->nr_origins && o < n_out; o++) {
		struct tally_result acc;
		memset(&acc, 0, sizeof(acc));
		bool first = true;
		for (size_t i = 0; i < n_results && i < c->nr; i++) {
			struct tally_result r;
			tly_in_get(&r, known, tly_out_at_const(results, i, elem_sz), elem_sz);
			if (r.origin != o)
				continue;
			tly_aggregate_add(&acc, &r, first);
			first = false;
		}
		tly_out_put(tly_out_at(out, o, elem_sz), elem_sz, &acc, known);
	}
	return (int)c->nr_origins;
}
