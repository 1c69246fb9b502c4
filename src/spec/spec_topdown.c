/* SPDX-License-Identifier: MIT */
/*
 * The kernel's rules for topdown groups applied to a parsed spec (spec_topdown.h): a metric event opens
 * only in a group led by slots (intel_pmu_hw_config returns EINVAL otherwise), so
 *
 *   - in a {...} group with metric events, slots moves first: {topdown-retiring,slots} is led by slots,
 *     as perf 6.1 does (arch_evlist__leader picks slots and the group's list starts with it);
 *   - a {...} group of metric events without slots gets one, first. perf 6.1 opens such a group as
 *     written and the kernel refuses it (checked: `perf stat -e '{topdown-retiring}'` on the Ice Lake
 *     fixture opens topdown-retiring as the leader); later perfs insert slots the same way;
 *   - metric events outside braces get a slots event outside braces, placed before the first of them, if
 *     the spec has none for their PMU: packing (packing.c) then puts them in one group led by it.
 *
 * An added slots event copies the first metric event's attr but for the config (so its modifiers) and
 * is an origin of its own, named "slots" (or "PMU/slots/" when the metric event named its PMU).
 */
#include "spec/spec_topdown.h"

#include "core/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The topdown kind of a parsed event: an event of its own PMU's type (or raw) on a PMU with
 * PERF_METRICS. Looks the PMU up only for an event whose config is a topdown one. */
static enum tly_topdown_kind kind_of(const struct tly_event *ev, const struct tally_pmus *pmus)
{
	if (!ev->pmu || ev->tool || ev->attr.type == PERF_TYPE_HARDWARE || ev->attr.type == PERF_TYPE_HW_CACHE ||
	    ev->attr.type == PERF_TYPE_SOFTWARE || ev->attr.type == PERF_TYPE_TRACEPOINT ||
	    ev->attr.type == PERF_TYPE_BREAKPOINT)
		return TLY_TOPDOWN_NONE;
	enum tly_topdown_kind kind = tly_topdown_kind(&ev->attr, NULL);
	return kind != TLY_TOPDOWN_NONE && tly_topdown_pmu(tally_pmus_find(pmus, ev->pmu)) ? kind : TLY_TOPDOWN_NONE;
}

/* Moves v[from] to v[to] (to <= from), shifting v[to .. from) up by one. */
static void move_back(struct tly_event *v, size_t from, size_t to)
{
	struct tly_event moving = v[from];
	memmove(v + to + 1, v + to, (from - to) * sizeof(*v));
	v[to] = moving;
}

/* "PMU/slots/", or NULL when out of memory. */
static char *pmu_slots(const char *pmu)
{
	char *text;
	return asprintf(&text, "%s/slots/", pmu) < 0 ? NULL : text;
}

/* Appends a slots event made from the metric event v[metric] (see the file's comment) and moves it to
 * position at. */
static int insert_slots(struct tally_events *list, size_t metric, size_t at, unsigned origin)
{
	const struct tly_event *m = &list->v[metric];
	struct tly_event ev = {
		.attr = m->attr,
		.name = strchr(m->name, '/') ? pmu_slots(m->pmu) : strdup("slots"),
		.base = pmu_slots(m->pmu),
		.pmu = strdup(m->pmu),
		.scale = 1.0,
		.group = m->group,
		.origin = origin,
		.nr_origins = 1,
		.pmu_form = true,
		.exclude_gh = m->exclude_gh,
		.topdown = TLY_TOPDOWN_SLOTS,
	};
	ev.attr.config = TLY_TOPDOWN_SLOTS_CONFIG;
	ev.attr.config1 = ev.attr.config2 = 0;
	if (!ev.name || !ev.base || !ev.pmu) {
		tly_event_release(&ev);
		return tly_error(-ENOMEM, "out of memory while parsing an event spec");
	}
	int err = tly_events_push(list, &ev);
	if (!err)
		move_back(list->v, list->nr - 1, at);
	return err;
}

/* The {...} group starting at v[first] (its events are contiguous): slots first, added when missing. */
static int arrange_group(struct tally_events *list, size_t first, size_t end, unsigned *next_origin)
{
	struct tly_event *v = list->v;
	size_t slots = end, metric = end;
	for (size_t i = first; i < end; i++) {
		if (v[i].topdown == TLY_TOPDOWN_SLOTS && slots == end)
			slots = i;
		if (v[i].topdown == TLY_TOPDOWN_METRIC && metric == end)
			metric = i;
	}
	if (metric == end || slots == first)
		return 0;
	/* What a group's modifiers gave its leader (pinned, exclusive) goes with the lead. */
	struct perf_event_attr old = v[first].attr;
	if (slots < end) {
		move_back(v, slots, first);
	} else {
		int err = insert_slots(list, metric, first, (*next_origin)++);
		if (err)
			return err;
		v = list->v;
	}
	v[first].attr.pinned |= old.pinned;
	v[first].attr.exclusive |= old.exclusive;
	v[first + 1].attr.pinned = 0;
	v[first + 1].attr.exclusive = 0;
	v[first].leader = true;
	v[first + 1].leader = false;
	return 0;
}

/* Outside braces: a slots event for the metric events of each PMU that has none there. */
static int add_loose_slots(struct tally_events *list, unsigned *next_origin)
{
	for (size_t i = 0; i < list->nr; i++) {
		const struct tly_event *m = &list->v[i];
		if (m->group >= 0 || m->topdown != TLY_TOPDOWN_METRIC)
			continue;
		bool has = false;
		for (size_t j = 0; j < list->nr && !has; j++)
			has = j != i && list->v[j].group < 0 && list->v[j].topdown != TLY_TOPDOWN_NONE &&
			      strcmp(list->v[j].pmu, m->pmu) == 0 && (j < i || list->v[j].topdown == TLY_TOPDOWN_SLOTS);
		if (has)
			continue;
		int err = insert_slots(list, i, i, (*next_origin)++);
		if (err)
			return err;
		i++; /* the metric event moved up by one */
	}
	return 0;
}

int tly_spec_topdown(struct tally_events *list, const struct tally_pmus *pmus, unsigned *next_origin)
{
	bool any = false;
	for (size_t i = 0; i < list->nr; i++) {
		list->v[i].topdown = kind_of(&list->v[i], pmus);
		any |= list->v[i].topdown == TLY_TOPDOWN_METRIC;
	}
	if (!any)
		return 0;
	for (size_t first = 0; first < list->nr;) {
		size_t end = first + 1;
		if (list->v[first].group >= 0) {
			while (end < list->nr && list->v[end].group == list->v[first].group)
				end++;
			size_t before = list->nr;
			int err = arrange_group(list, first, end, next_origin);
			if (err)
				return err;
			end += list->nr - before;
		}
		first = end;
	}
	return add_loose_slots(list, next_origin);
}
