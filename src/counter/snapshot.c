/* SPDX-License-Identifier: MIT */
/* Snapshots of a counter (taken through the counter's own slot reads) and the scaled counts between two. */
#include "counter/snapshot.h"
#include "evsel/threadmap.h"

#include "counter/counter.h"

#include "core/error.h"
#include "core/out_array.h"
#include "counter/aggregate.h"

#include <stdlib.h>
#include <string.h>

int tly_snapshot_alloc(const void *owner, size_t nr_events, size_t max_slots, tally_snapshot **out)
{
	tally_snapshot *s = calloc(1, sizeof(*s));
	size_t room = nr_events * max_slots;
	if (room == 0)
		room = 1;
	if (s) {
		s->owner = owner;
		s->nr_events = nr_events;
		s->max_slots = max_slots;
		s->ev = calloc(nr_events ? nr_events : 1, sizeof(*s->ev));
		s->counts = calloc(room, sizeof(*s->counts));
		s->slots = calloc(room, sizeof(*s->slots));
	}
	if (!s || !s->ev || !s->counts || !s->slots) {
		tally_snapshot_free(s);
		return tly_error(-ENOMEM, "out of memory");
	}
	*out = s;
	return 0;
}

void tally_snapshot_free(tally_snapshot *s)
{
	if (!s)
		return;
	free(s->ev);
	free(s->counts);
	free(s->slots);
	free(s);
}

static int check_pair(const tally_snapshot *before, const tally_snapshot *after, const char *fn)
{
	if (!before || !after)
		return tly_error(-EINVAL, "%s: NULL snapshot", fn);
	if (before->owner != after->owner || before->nr_events != after->nr_events)
		return tly_error(-EINVAL, "%s: the two snapshots are of different counters", fn);
	return 0;
}

/* Part s of event i: the difference of its raw readings and times between the two snapshots. Readings of
 * another window (a reopened group, a start or reset in between) are not comparable: the event counted
 * from zero since, so `before` is taken as zero. */
static struct tally_count part_delta(const tally_snapshot *before, const tally_snapshot *after, size_t i,
                                     size_t s, const struct tly_snapshot_slot **where)
{
	const struct tly_snapshot_event *a = &after->ev[i], *b = &before->ev[i];
	const struct tally_count *va = &after->counts[a->counts_at + s * a->stride];
	const struct tly_snapshot_slot *ta = &after->slots[a->slots_at + s];
	struct tally_count d = { .value = va->value, .enabled = ta->enabled, .running = ta->running, .id = va->id };
	if (b->epoch == a->epoch && s < b->nr_slots) {
		const struct tally_count *vb = &before->counts[b->counts_at + s * b->stride];
		const struct tly_snapshot_slot *tb = &before->slots[b->slots_at + s];
		d.value = tly_window_since(va->value, vb->value);
		d.enabled = tly_window_since(ta->enabled, tb->enabled);
		d.running = tly_window_since(ta->running, tb->running);
	}
	*where = ta;
	return d;
}

/* The deltas of the first n events into out, each summed over its parts in cgroup `cgroup`, or over every
 * part when cgroup is -1 (-1 is also the cgroup of a part of any other target). */
static int deltas(const tally_snapshot *before, const tally_snapshot *after, int cgroup, struct tally_result *out,
                  size_t n, size_t elem_sz)
{
	size_t count = n < after->nr_events ? n : after->nr_events;
	for (size_t i = 0; i < count; i++) {
		const struct tly_snapshot_event *a = &after->ev[i];
		struct tly_sum sum = { 0 };
		for (size_t s = 0; s < a->nr_slots; s++) {
			const struct tly_snapshot_slot *at;
			struct tally_count d = part_delta(before, after, i, s, &at);
			if (cgroup < 0 || at->cgroup == cgroup)
				tly_sum_add(&sum, &d);
		}
		struct tally_result r;
		tly_sum_result(&sum, &r);
		if (!a->supported)
			r.status = TALLY_STATUS_NOT_SUPPORTED;
		r.origin = a->origin;
		r.group = a->group;
		r.error = a->error;
		r.user_only = a->user_only;
		r.has_note = a->has_note;
		tly_out_put(tly_out_at(out, i, elem_sz), elem_sz, &r, TLY_KNOWN_SIZE(tally_result));
	}
	return (int)count;
}

static int check_out(const tally_snapshot *before, const tally_snapshot *after, const struct tally_result *out,
                     size_t n, size_t elem_sz, const char *fn)
{
	int err = check_pair(before, after, fn);
	if (err)
		return err;
	if (n && !out)
		return tly_error(-EINVAL, "%s: NULL out", fn);
	if (!tly_out_valid(elem_sz, TLY_RESULT_SZ_V1, alignof(struct tally_result), "tally_result"))
		return -TALLY_EOPTS;
	return 0;
}

int tally_snapshot_delta(const tally_snapshot *before, const tally_snapshot *after, struct tally_result *out,
                         size_t n, size_t elem_sz)
{
	int err = check_out(before, after, out, n, elem_sz, "tally_snapshot_delta");
	return err ? err : deltas(before, after, -1, out, n, elem_sz);
}

int tally_snapshot_delta_cgroup(const tally_snapshot *before, const tally_snapshot *after, size_t cgroup,
                                struct tally_result *out, size_t n, size_t elem_sz)
{
	int err = check_out(before, after, out, n, elem_sz, "tally_snapshot_delta_cgroup");
	if (err)
		return err;
	if (!after->nr_cgroups)
		return tly_error(-EINVAL, "tally_snapshot_delta_cgroup: the snapshots are not of a "
		                          "TALLY_TARGET_CGROUPS counter (use tally_snapshot_delta)");
	if (cgroup >= after->nr_cgroups)
		return tly_error(-EINVAL, "tally_snapshot_delta_cgroup: cgroup %zu out of range (the target has %zu)",
		                 cgroup, after->nr_cgroups);
	return deltas(before, after, (int)cgroup, out, n, elem_sz);
}

int tally_snapshot_delta_parts(const tally_snapshot *before, const tally_snapshot *after, size_t i,
                               struct tally_part *parts, size_t n, size_t elem_sz)
{
	int err = check_pair(before, after, "tally_snapshot_delta_parts");
	if (err)
		return err;
	if (i >= after->nr_events || (n && !parts))
		return tly_error(-EINVAL, "tally_snapshot_delta_parts: NULL parts or event %zu out of range", i);
	if (!tly_out_valid(elem_sz, TLY_PART_SZ_V1, alignof(struct tally_part), "tally_part"))
		return -TALLY_EOPTS;
	const struct tly_snapshot_event *a = &after->ev[i];
	for (size_t s = 0; s < a->nr_slots && s < n; s++) {
		const struct tly_snapshot_slot *at;
		struct tally_count d = part_delta(before, after, i, s, &at);
		struct tly_window times = { .enabled = d.enabled, .running = d.running };
		struct tally_part p;
		tly_aggregate_part(&d, &times, at->cpu, at->tid, at->cgroup, &p);
		tly_out_put(tly_out_at(parts, s, elem_sz), elem_sz, &p, TLY_KNOWN_SIZE(tally_part));
	}
	return (int)a->nr_slots;
}

/* ---- taking snapshots --------------------------------------------------------------------------- */

int tally_snapshot_new(const tally_counter *c, tally_snapshot **out)
{
	if (!c || !out)
		return tly_error(-EINVAL, "tally_snapshot_new: NULL counter or out");
	*out = NULL;
	if (!c->open)
		return tly_error(-TALLY_ESTATE, "tally_snapshot_new: the counter is not open");
	int err = tly_snapshot_alloc(c, c->nr, c->max_slots, out);
	if (!err && c->target.kind == TALLY_TARGET_CGROUPS)
		(*out)->nr_cgroups = c->target.nr_cgroups;
	return err;
}

/* Reads group g into the snapshot, laid out as the counter's own readings, with the times of its window:
 * the counter's latest read (tally_counter_read, _parts) stays as it was. */
static int snapshot_group(const tally_counter *c, size_t g, tally_snapshot *snap)
{
	const struct tly_counter_event *leader = &c->ev[tly_plan_members(&c->plan, g)[0]];
	struct tally_count *counts = snap->counts + (leader->counts - c->counts);
	struct tly_snapshot_slot *slots = snap->slots + (leader->window - c->windows);
	const tally_cpus *cpus = tally_evsel_cpus(leader->evsel);
	const tally_threads *threads = tally_evsel_threads(leader->evsel);
	for (size_t slot = 0; slot < leader->ncpus * leader->nthreads; slot++) {
		struct tly_snapshot_slot *out = &slots[slot];
		int err = tly_counter_read_slot(c, leader, slot, counts + slot * leader->stride, &out->enabled,
		                                &out->running);
		if (err)
			return err;
		out->cpu = tally_cpus_at(cpus, slot / leader->nthreads);
		tly_threads_place(threads, slot % leader->nthreads, &out->tid, &out->cgroup);
	}
	return 0;
}

int tally_counter_snapshot(tally_counter *c, tally_snapshot *snap)
{
	if (!c || !snap)
		return tly_error(-EINVAL, "tally_counter_snapshot: NULL counter or snapshot");
	if (!c->open)
		return tly_counter_not_open(c, "tally_counter_snapshot");
	if (snap->owner != c || snap->nr_events != c->nr)
		return tly_counter_fail(c, tly_error(-EINVAL,
		                                     "tally_counter_snapshot: the snapshot was made for another counter"));
	if (snap->max_slots < c->max_slots)
		return tly_counter_fail(c, tly_error(-ENOSPC,
		                                     "tally_counter_snapshot: the snapshot was made for a smaller "
		                                     "target (%zu positions, now %zu): make a new one",
		                                     snap->max_slots, c->max_slots));
	for (size_t g = 0; g < c->plan.nr_groups; g++) {
		int err = snapshot_group(c, g, snap);
		if (err)
			return tly_counter_fail(c, err);
	}
	for (size_t i = 0; i < c->nr; i++) {
		const struct tly_counter_event *e = &c->ev[i];
		const struct tly_counter_event *leader = e->evsel ? &c->ev[e->group] : NULL;
		snap->ev[i] = (struct tly_snapshot_event){
			.counts_at = leader ? (size_t)(e->counts - c->counts) : 0,
			.stride = e->stride,
			.slots_at = leader ? (size_t)(e->window - c->windows) : 0,
			.nr_slots = leader ? leader->ncpus * leader->nthreads : 0,
			.epoch = e->epoch,
			.origin = e->origin,
			.group = e->group,
			.error = e->error,
			.user_only = e->user_only,
			.has_note = e->has_note,
			/* One left out (tally_counter_select) or closed with its tasks gone has no slots: its sum
			 * is not counted. */
			.supported = e->evsel != NULL || e->left_out || e->gone,
		};
	}
	return 0;
}
