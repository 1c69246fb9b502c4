/* SPDX-License-Identifier: MIT */
/* The results of one cgroup of a cgroup target: every event's latest reading summed over the parts of
 * that cgroup only, by the sum that makes tally_counter_read's results. */
#include "counter/counter.h"

#include "core/error.h"
#include "core/out_array.h"
#include "evsel/threadmap.h"

#include <stdalign.h>
#include <string.h>

/* Event e's result over the slots of its latest read whose cgroup is `cgroup`. */
static void cgroup_result(const struct tly_counter_event *e, int cgroup, struct tally_result *r)
{
	struct tly_sum sum = { 0 };
	if (e->evsel) {
		const tally_threads *threads = tally_evsel_threads(e->evsel);
		size_t nthreads = tally_threads_count(threads);
		for (size_t s = 0; s < e->nr_counts; s++) {
			pid_t tid;
			int at;
			tly_threads_place(threads, s % nthreads, &tid, &at);
			if (at == cgroup)
				tly_sum_add_in(&sum, &e->counts[s * e->stride], &e->window[s]);
		}
	}
	memset(r, 0, sizeof(*r));
	tly_sum_result(&sum, r);
	if (!e->evsel)
		r->status = TALLY_STATUS_NOT_SUPPORTED;
	r->origin = e->origin;
	r->group = e->group;
	r->error = e->error;
	r->user_only = e->user_only;
	r->has_note = e->has_note;
}

int tally_counter_cgroup_results(const tally_counter *c, size_t cgroup, struct tally_result *results, size_t n,
                                 size_t elem_sz)
{
	if (!c || (n && !results))
		return tly_error(-EINVAL, "tally_counter_cgroup_results: NULL counter or results");
	if (!tly_out_valid(elem_sz, TLY_RESULT_SZ_V1, alignof(struct tally_result), "tally_result"))
		return -TALLY_EOPTS;
	if (!c->open)
		return tly_error(-TALLY_ESTATE, "tally_counter_cgroup_results: the counter is not open");
	if (c->target.kind != TALLY_TARGET_CGROUPS)
		return tly_error(-EINVAL, "tally_counter_cgroup_results: the counter's target is not "
		                          "TALLY_TARGET_CGROUPS (its results are tally_counter_read's)");
	if (cgroup >= c->target.nr_cgroups)
		return tly_error(-EINVAL, "tally_counter_cgroup_results: cgroup %zu out of range (the target has %zu)",
		                 cgroup, c->target.nr_cgroups);
	size_t count = n < c->nr ? n : c->nr;
	for (size_t i = 0; i < count; i++) {
		struct tally_result r;
		cgroup_result(&c->ev[i], (int)cgroup, &r);
		tly_out_put(tly_out_at(results, i, elem_sz), elem_sz, &r, TLY_KNOWN_SIZE(tally_result));
	}
	return (int)count;
}
