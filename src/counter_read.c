/* SPDX-License-Identifier: MIT */
/* Reading a counter: one read per group and (CPU, thread) through the read backend, relative to the
 * window, scaled part by part into results; parts and origins. */
#include "counter.h"

#include "error.h"
#include "out_array.h"

#include <stdalign.h>

/* The output structs as they are now are the first versions: a field added later (at the end) makes these
 * fail, and then the code that fills the struct writes the new field only where elem_sz has room. */
_Static_assert(sizeof(struct tally_result) == TLY_RESULT_SZ_V1, "tally_result grew: see out_array.h");
_Static_assert(sizeof(struct tally_part) == TLY_PART_SZ_V1, "tally_part grew: see out_array.h");
_Static_assert(sizeof(struct tally_exit) == TLY_EXIT_SZ_V1, "tally_exit grew: see out_array.h");

/* Reads group g at every (cpu, thread) with one read(2) each, decoded in place into its events' counts,
 * and the times of its windows. Notes in the leader whether the group was enabled in its window but
 * never ran, and then sets *any_idle. */
static int read_group(tally_counter *c, size_t g, bool *any_idle)
{
	const size_t *m = tly_plan_members(&c->plan, g);
	struct event *leader = &c->ev[m[0]];
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
	if (leader->nr_counts != slots)
		for (size_t k = 0; k < size; k++)
			c->ev[m[k]].nr_counts = slots;
	leader->idle_enabled = running == 0 ? enabled : 0;
	*any_idle |= leader->idle_enabled != 0;
	return 0;
}

/* restrict: the result and the event never overlap, and without saying so every store into the result
 * (uint64_t fields, as the event's) would make the compiler load the event's fields again. Every field
 * written lies within the first version's size, which every caller's element has; a newer caller's bytes
 * past the fields known here read zero. */
static void fill_result(const struct event *restrict e, struct tally_result *restrict r)
{
	r->origin = e->origin;
	r->group = e->group;
	r->user_only = e->user_only;
	r->has_note = e->has_note;
	r->error = e->error;
	/* An event that is not supported has no parts: zero counts, then its own status. */
	tly_aggregate_parts(e->counts, e->stride, e->window, e->nr_counts, r);
	if (!e->evsel)
		r->status = TALLY_STATUS_NOT_SUPPORTED;
	/* Our padding after the last field, where a newer version may have put one (it then reads 0): a
	 * constant size, so a store or two, not a memset call. */
	memset((char *)r + TLY_KNOWN_SIZE(tally_result), 0, sizeof(*r) - TLY_KNOWN_SIZE(tally_result));
}

int tally_counter_read(tally_counter *c, struct tally_result *results, size_t n, size_t elem_sz)
{
	if (!c || (n && !results))
		return tly_error(-EINVAL, "tally_counter_read: NULL counter or results");
	if (!tly_out_valid(elem_sz, TLY_RESULT_SZ_V1, alignof(struct tally_result), "tally_result"))
		return tly_counter_fail(c, -TALLY_EOPTS);
	if (!c->open)
		return tly_counter_not_open(c, "tally_counter_read");
	bool any_idle = false;
	for (size_t g = 0; g < c->plan.nr_groups; g++) {
		int err = read_group(c, g, &any_idle);
		if (err)
			return tly_counter_fail(c, tly_counter_explain_group_failure(c, g, err));
	}
	size_t count = n < c->nr ? n : c->nr;
	for (size_t i = 0; i < count; i++)
		fill_result(&c->ev[i], tly_out_at(results, i, elem_sz));
	/* A newer caller's larger elements: the fields this library does not know read zero. */
	for (size_t i = 0; elem_sz > sizeof(struct tally_result) && i < count; i++)
		memset((char *)tly_out_at(results, i, elem_sz) + sizeof(struct tally_result), 0,
		       elem_sz - sizeof(struct tally_result));

	/* Only now reshape never-run groups: the results above already say NOT_COUNTED for them. */
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

int tally_counter_parts(const tally_counter *c, size_t i, struct tally_part *parts, size_t n, size_t elem_sz)
{
	if (!c || i >= c->nr || (n && !parts))
		return tly_error(-EINVAL, "tally_counter_parts: NULL counter or event %zu out of range", i);
	if (!tly_out_valid(elem_sz, TLY_PART_SZ_V1, alignof(struct tally_part), "tally_part"))
		return -TALLY_EOPTS;
	const struct event *e = &c->ev[i];
	if (!c->open || !e->evsel)
		return 0;
	const tally_cpus *cpus = tally_evsel_cpus(e->evsel);
	const tally_threads *threads = tally_evsel_threads(e->evsel);
	size_t nthreads = tally_threads_count(threads);
	for (size_t s = 0; s < e->nr_counts && s < n; s++) {
		struct tally_part p;
		tly_aggregate_part(&e->counts[s * e->stride], &e->window[s], tally_cpus_at(cpus, s / nthreads),
		                   tally_threads_at(threads, s % nthreads), &p);
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
