/* SPDX-License-Identifier: MIT */
/* The plan of an open shown without opening anything (tally_counter_plan): the groups every open starts
 * from and the attr each event would be opened with, made by the functions the open itself uses, so that
 * what `tally encode` prints is what `tally stat` passes to perf_event_open(2) on its first try. */
#include "counter/counter.h"

#include "core/error.h"
#include "core/opts.h"

#include <stdlib.h>

/* The attrs of the plan's events, in plan order, for a target of this kind. */
static void preview_attrs(tally_counter *c, enum tally_target_kind kind)
{
	bool inherit = tly_target_inherits(kind, c->no_inherit);
	bool enable_on_exec = tly_target_enables_on_exec(kind);
	for (size_t g = 0; g < c->preview.nr_groups; g++) {
		size_t size = tly_plan_size(&c->preview, g);
		const size_t *m = tly_plan_members(&c->preview, g);
		for (size_t k = 0; k < size; k++) {
			struct perf_event_attr *a = &c->preview_attrs[c->preview.first[g] + k];
			*a = tly_counter_attr(&c->ev[m[k]], k == 0, inherit, enable_on_exec);
			/* What tally_evsel_new and tally_evsel_set_leader add. */
			a->size = sizeof(*a);
			a->read_format = tly_evsel_read_format(a->read_format, k == 0 && size > 1);
		}
	}
	c->preview_kind = kind;
}

static int make_preview(tally_counter *c, enum tally_target_kind kind)
{
	if (!c->preview_attrs) {
		c->preview_attrs = calloc(c->nr ? c->nr : 1, sizeof(*c->preview_attrs));
		if (!c->preview_attrs)
			return tly_error(-ENOMEM, "tally_counter_plan: out of memory");
		int err = tly_counter_plan_init(c, &c->preview);
		if (err) {
			free(c->preview_attrs);
			c->preview_attrs = NULL;
			return err;
		}
		preview_attrs(c, kind);
	} else if (kind != c->preview_kind) {
		preview_attrs(c, kind);
	}
	return 0;
}

/* The group of plan position pos: the last g with first[g] <= pos (first[] ascends; binary search, so that
 * a walk over every position of 15,000 lone events stays linear-ish). */
static size_t group_of(const struct tly_plan *plan, size_t pos)
{
	size_t lo = 0, hi = plan->nr_groups;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (plan->first[mid] <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Whether the members of group g can each be on a counter of its own (packing.h tly_counters_fit). */
static bool group_fits(const tally_counter *c, const struct tly_plan *plan, size_t g)
{
	uint64_t sets[65];
	size_t k = 0;
	const size_t *m = tly_plan_members(plan, g);
	for (size_t i = 0; i < tly_plan_size(plan, g); i++) {
		if (!c->ev[m[i]].counters)
			continue;
		if (k == 64)
			return false;
		sets[k++] = c->ev[m[i]].counters;
	}
	return tly_counters_fit(sets, k);
}

int tally_counter_plan(tally_counter *c, enum tally_target_kind kind, size_t k, struct tally_planned_event *info)
{
	if (!c || !info)
		return tly_error(-EINVAL, "tally_counter_plan: counter and info must not be NULL");
	int err = tly_info_check(info, "tally_planned_event");
	if (err)
		return err;
	if (kind < TALLY_TARGET_THREAD || kind > TALLY_TARGET_ALL_THREADS)
		return tly_error(-EINVAL, "tally_counter_plan: unknown target kind %d", (int)kind);
	if (k >= c->nr)
		return tly_error(-ERANGE, "tally_counter_plan: index %zu is past the %zu events", k, c->nr);
	err = make_preview(c, kind);
	if (err)
		return err;
	const struct tly_plan *plan = &c->preview;
	size_t g = group_of(plan, k);
	const size_t *m = tly_plan_members(plan, g);
	size_t event = plan->order[k];
	bool braces = c->ev[event].spec_group >= 0;
	struct tally_planned_event full = {
		.sz = sizeof(full),
		.event = event,
		.attr = &c->preview_attrs[k],
		.group = g,
		.leader = m[0],
		.group_index = k - plan->first[g],
		.group_size = tly_plan_size(plan, g),
		/* Outside braces, a group tally did not pack is a topdown group (packing.h). */
		.grouping = c->ev[event].tool ? TALLY_GROUPING_TOOL
		            : braces          ? TALLY_GROUPING_BRACES
		            : !plan->packed[g] ? TALLY_GROUPING_TOPDOWN
		            : !c->no_packing  ? TALLY_GROUPING_PACKED
		                              : TALLY_GROUPING_ALONE,
		.pmu_type = c->ev[event].pmu,
		.max_group = tly_counter_max_group(),
		.cpus = c->ev[event].mask,
		.counters = c->ev[event].counters,
		.generic_counters = c->ev[event].nr_generic,
		.fixed_counters = c->ev[event].nr_fixed,
		.group_fits = group_fits(c, plan, g),
	};
	return TLY_INFO_COPY(info, &full, tally_planned_event);
}
