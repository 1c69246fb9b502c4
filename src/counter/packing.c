/* SPDX-License-Identifier: MIT */
#include "counter/packing.h"

#include "core/error.h"
#include "machine/pmu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A PMU known from the snapshot is its type; else hybrid x86 names the PMU in config[63:32] (5.13+). */
uint32_t tly_pack_pmu(const struct perf_event_attr *attr, const tally_pmu *pmu)
{
	/* The type only: the PMU's other files are not read for it. */
	if (pmu && tly_pmu_read(pmu, TLY_PMU_TYPE) == 0)
		return pmu->type;
	bool generic = attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_HW_CACHE;
	if (generic && attr->config >> PERF_PMU_TYPE_SHIFT)
		return (uint32_t)(attr->config >> PERF_PMU_TYPE_SHIFT);
	return attr->type;
}

/* Kuhn's augmenting path: event e takes a counter of its set that is free, or whose owner can move to
 * another of its own; seen marks the counters this search has tried. */
static bool assign(const uint64_t *counters, size_t e, size_t *owner, uint64_t *seen)
{
	for (unsigned bit = 0; bit < 64; bit++) {
		uint64_t b = 1ULL << bit;
		if (!(counters[e] & b) || (*seen & b))
			continue;
		*seen |= b;
		if (owner[bit] == SIZE_MAX || assign(counters, owner[bit], owner, seen)) {
			owner[bit] = e;
			return true;
		}
	}
	return false;
}

bool tly_counters_fit(const uint64_t *counters, size_t n)
{
	size_t owner[64], taking = 0;
	for (size_t bit = 0; bit < 64; bit++)
		owner[bit] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		uint64_t seen = 0;
		if (counters[i] && (++taking > 64 || !assign(counters, i, owner, &seen)))
			return false;
	}
	return true;
}

/* The groups made so far: group g's first event, and its events that take counters, from head[g] on
 * through next[] (SIZE_MAX: none). */
struct takers {
	size_t *first, *head, *tail, *next;
};

static void takers_free(struct takers *t)
{
	free(t->first);
	free(t->head);
	free(t->tail);
	free(t->next);
}

static void takers_add(struct takers *t, const struct tly_pack_event *events, size_t g, size_t i, bool new_group)
{
	if (new_group) {
		t->first[g] = i;
		t->head[g] = SIZE_MAX;
	}
	if (!events[i].counters)
		return;
	t->next[i] = SIZE_MAX;
	if (t->head[g] == SIZE_MAX)
		t->head[g] = i;
	else
		t->next[t->tail[g]] = i;
	t->tail[g] = i;
}

/* Whether event i can join group g: every event that takes a counter still has one of its own. */
static bool fits_with(const struct takers *t, const struct tly_pack_event *events, size_t g, size_t i)
{
	if (!events[i].counters)
		return true;
	uint64_t sets[65];
	size_t k = 0;
	for (size_t j = t->head[g]; j != SIZE_MAX; j = t->next[j]) {
		if (k == 64)
			return false;
		sets[k++] = events[j].counters;
	}
	sets[k++] = events[i].counters;
	return tly_counters_fit(sets, k);
}

/* The group an event outside braces joins: the first packed group of its PMU with room left whose
 * counters it fits, if any (not a topdown group, which is not packed). */
static size_t packed_group_for(const struct tly_plan *plan, const struct tly_pack_event *events,
                               const size_t *group_size, const struct takers *t, size_t max_group, size_t i)
{
	for (size_t g = 0; g < plan->nr_groups; g++) {
		const struct tly_pack_event *first = &events[t->first[g]];
		if (first->spec_group < 0 && first->pmu == events[i].pmu && plan->packed[g] && group_size[g] < max_group &&
		    fits_with(t, events, g, i))
			return g;
	}
	return plan->nr_groups;
}

/* The group event i of a {...} group joins: its group's, or for a weak one the first of the groups its
 * group became that it fits; nr_groups (a new group) for its first event or one that fits none. A weak
 * group's topdown events stay together (the parser put slots first: its metric events follow it), as
 * perf 6.12 keeps them grouped when it breaks up a weak group that failed (evlist__reset_weak_group). */
static size_t brace_group_for(const struct tly_plan *plan, const struct tly_pack_event *events,
                              const size_t *group_of, const struct takers *t, size_t i)
{
	bool split = events[i].weak, topdown = events[i].topdown != TLY_TOPDOWN_NONE;
	for (size_t j = 0; j < i && split && topdown; j++)
		if (events[j].spec_group == events[i].spec_group && events[j].topdown != TLY_TOPDOWN_NONE)
			return group_of[j];
	for (size_t g = 0; g < plan->nr_groups; g++)
		if (events[t->first[g]].spec_group == events[i].spec_group && (!split || fits_with(t, events, g, i)))
			return g;
	return plan->nr_groups;
}

/* The event that leads event i's topdown group outside braces (the first slots event outside braces of
 * its PMU, when metric events of that PMU are there too), or n when event i is in none. */
static size_t topdown_lead(const struct tly_pack_event *events, size_t n, size_t i)
{
	if (events[i].spec_group >= 0 || events[i].topdown == TLY_TOPDOWN_NONE)
		return n;
	size_t slots = n;
	bool metrics = false;
	for (size_t j = 0; j < n; j++) {
		if (events[j].spec_group >= 0 || events[j].pmu != events[i].pmu)
			continue;
		if (events[j].topdown == TLY_TOPDOWN_SLOTS && slots == n)
			slots = j;
		metrics |= events[j].topdown == TLY_TOPDOWN_METRIC;
	}
	if (!metrics || (events[i].topdown == TLY_TOPDOWN_SLOTS && slots != i))
		return n;
	return slots;
}

int tly_plan_init(struct tly_plan *plan, const struct tly_pack_event *events, size_t n, bool packing,
                  size_t max_group)
{
	memset(plan, 0, sizeof(*plan));
	size_t *group_of = calloc(n ? n : 1, sizeof(*group_of));
	size_t *group_size = calloc(n ? n : 1, sizeof(*group_size));
	size_t *lead = calloc(n ? n : 1, sizeof(*lead)); /* per group: the event laid out first, or n */
	struct takers t = { calloc(n ? n : 1, sizeof(size_t)), calloc(n ? n : 1, sizeof(size_t)),
		            calloc(n ? n : 1, sizeof(size_t)), calloc(n ? n : 1, sizeof(size_t)) };
	plan->order = calloc(n ? n : 1, sizeof(*plan->order));
	plan->first = calloc(n + 1, sizeof(*plan->first));
	plan->packed = calloc(n ? n : 1, sizeof(*plan->packed));
	if (!group_of || !group_size || !lead || !t.first || !t.head || !t.tail || !t.next || !plan->order ||
	    !plan->first || !plan->packed) {
		free(group_of);
		free(group_size);
		free(lead);
		takers_free(&t);
		tly_plan_fini(plan);
		return tly_error(-ENOMEM, "planning the groups of %zu events: out of memory", n);
	}

	/* First pass: a group number per event, numbered by first appearance. */
	bool any_topdown = false;
	for (size_t i = 0; i < n; i++)
		any_topdown |= events[i].topdown == TLY_TOPDOWN_METRIC && events[i].spec_group < 0;
	for (size_t i = 0; i < n; i++) {
		size_t g = plan->nr_groups;
		size_t td = any_topdown ? topdown_lead(events, n, i) : n;
		if (events[i].spec_group >= 0) {
			g = brace_group_for(plan, events, group_of, &t, i);
		} else if (td < n) {
			for (size_t j = 0; j < i && g == plan->nr_groups; j++)
				if (lead[group_of[j]] == td)
					g = group_of[j];
		} else if (packing) {
			g = packed_group_for(plan, events, group_size, &t, max_group, i);
		}
		bool new_group = g == plan->nr_groups;
		if (new_group) {
			plan->packed[g] = events[i].spec_group < 0 ? td == n : events[i].weak;
			lead[g] = td;
			plan->nr_groups++;
		}
		group_of[i] = g;
		group_size[g]++;
		takers_add(&t, events, g, i, new_group);
	}
	free(group_size);
	takers_free(&t);
	/* A weak group (perf's {...}:W: its leader's W, as perf reads it) may be split as tally's own are,
	 * unless it holds a topdown event. */
	for (size_t i = 0; i < n; i++)
		if (events[i].spec_group >= 0 && events[i].topdown != TLY_TOPDOWN_NONE)
			plan->packed[group_of[i]] = false;

	/* Second pass: lay the events out group after group, spec order kept inside each but for a topdown
	 * group's slots, which goes first. */
	size_t pos = 0;
	for (size_t g = 0; g < plan->nr_groups; g++) {
		plan->first[g] = pos;
		if (lead[g] < n)
			plan->order[pos++] = lead[g];
		for (size_t i = 0; i < n; i++)
			if (group_of[i] == g && i != lead[g])
				plan->order[pos++] = i;
	}
	plan->first[plan->nr_groups] = pos;
	plan->nr = n;
	free(group_of);
	free(lead);
	return 0;
}

void tly_plan_fini(struct tly_plan *plan)
{
	free(plan->order);
	free(plan->first);
	free(plan->packed);
	memset(plan, 0, sizeof(*plan));
}

void tly_plan_split(struct tly_plan *plan, size_t g, size_t at)
{
	/* Group numbers after g move up by one; order[] itself does not change. */
	memmove(plan->first + g + 2, plan->first + g + 1, (plan->nr_groups - g) * sizeof(*plan->first));
	memmove(plan->packed + g + 2, plan->packed + g + 1, (plan->nr_groups - g - 1) * sizeof(*plan->packed));
	plan->first[g + 1] = plan->first[g] + at;
	plan->packed[g + 1] = true;
	plan->nr_groups++;
}

void tly_plan_remove(struct tly_plan *plan, size_t g, size_t k)
{
	size_t pos = plan->first[g] + k;
	memmove(plan->order + pos, plan->order + pos + 1, (plan->nr - pos - 1) * sizeof(*plan->order));
	plan->nr--;
	for (size_t h = g + 1; h <= plan->nr_groups; h++)
		plan->first[h]--;
	if (plan->first[g] == plan->first[g + 1]) {
		memmove(plan->first + g, plan->first + g + 1, (plan->nr_groups - g) * sizeof(*plan->first));
		memmove(plan->packed + g, plan->packed + g + 1,
		        (plan->nr_groups - g - 1) * sizeof(*plan->packed));
		plan->nr_groups--;
	}
}
