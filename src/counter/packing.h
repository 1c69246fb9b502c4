/* SPDX-License-Identifier: MIT */
/*
 * Automatic grouping: which events of a counter open together as one group, and in which order. The plan
 * is decided from the spec (braces, PMU types) and the counters the vendor tables say each event may take
 * (machine/pmu_counters.h), then reshaped by what the kernel says: a member that does not fit splits its
 * group, an unsupported event leaves its group, a group that never runs is halved. Every reshaping works
 * inside the arrays made at init, so the read path can split without allocating.
 */
#ifndef TLY_PACKING_H
#define TLY_PACKING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <tally/pmu.h>

#include "machine/topdown.h"

/* What packing needs to know of one event. */
struct tly_pack_event {
	uint32_t pmu;      /* type of the PMU that counts it (not attr.type): automatic groups never mix PMUs */
	int spec_group;    /* index of its {...} group in the spec, -1 outside braces */
	enum tly_topdown_kind topdown; /* slots or a metric on a PMU with PERF_METRICS (spec_topdown.c) */
	bool weak;         /* its {...} group has perf's W modifier */
	uint64_t counters; /* the PMU counters it may take (bit i generic counter i, 32 + i fixed counter i:
	                    * machine/pmu_counters.h); 0: none known, so it takes none that packing counts */
};

/* Whether events with these counter sets (n of them) can each have a counter of its own at once: the
 * kernel's x86 scheduling question (x86_schedule_events), answered as a matching, so that two events that
 * fit only counter 0 do not fit together while "0" and "0,1" do. Sets of 0 take no counter. */
bool tly_counters_fit(const uint64_t *counters, size_t n);

/* The type of the PMU that counts an event (pmu: its PMU in the snapshot, NULL when none was named):
 * the key automatic groups share. Not attr.type: generic, cache, raw and sysfs events of one core PMU
 * share it, and hybrid expansions of one generic event do not. */
uint32_t tly_pack_pmu(const struct perf_event_attr *attr, const tally_pmu *pmu);

struct tly_plan {
	size_t *order;     /* event indices, group after group */
	size_t *first;     /* group g is order[first[g] .. first[g + 1]); first[nr_groups] == nr */
	bool *packed;      /* group g may be split: made by tally, or a {...}:W (weak) group, rather than
	                    * by braces or the topdown rule (a metric follows slots, so a group with one
	                    * is never split, weak or not) */
	size_t nr;         /* events still in the plan */
	size_t nr_groups;
};

/* Groups n events: each {...} group of the spec as written, but a weak one ({...}:W, as every vendor
 * metric's) in as many groups as its events' counters need (each event in the first of them it fits, by
 * tly_counters_fit); the events outside braces, in spec order, into groups of one PMU type of at most
 * max_group events each (packing: the kernel refuses a group whose read passes its limit, see
 * tly_read_max_group), each event in the first such group whose counters it fits with, or each alone
 * (!packing); but the topdown metric events outside braces, with or without packing, into one group per
 * PMU led by the first slots event outside braces of that PMU (the parser adds one where the spec has
 * none), never packed with other events nor split: the kernel opens a metric event only after slots.
 * Groups are ordered by their first event. -ENOMEM. */
int tly_plan_init(struct tly_plan *plan, const struct tly_pack_event *events, size_t n, bool packing,
                  size_t max_group);
void tly_plan_fini(struct tly_plan *plan);

/* Inline: every read of a counter asks them once per group. */
static inline size_t tly_plan_size(const struct tly_plan *plan, size_t g)
{
	return plan->first[g + 1] - plan->first[g];
}

static inline const size_t *tly_plan_members(const struct tly_plan *plan, size_t g)
{
	return plan->order + plan->first[g];
}

/* Members at .. of group g become a new group g + 1 (a packed one: tally made it). 0 < at < size. */
void tly_plan_split(struct tly_plan *plan, size_t g, size_t at);

/* Removes member k of group g from the plan (the event will not be opened); a group left empty goes. */
void tly_plan_remove(struct tly_plan *plan, size_t g, size_t k);

#endif
