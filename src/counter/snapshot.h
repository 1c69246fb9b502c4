/* SPDX-License-Identifier: MIT */
/* A snapshot of a counter: what tally_counter_snapshot fills, and snapshot.c turns two of into deltas. */
#ifndef TLY_SNAPSHOT_H
#define TLY_SNAPSHOT_H

#include "counter/aggregate.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <tally/evsel.h>
#include <tally/snapshot.h>

/* One event in a snapshot: where its readings are and what it was at that moment. */
struct tly_snapshot_event {
	size_t counts_at;  /* its first reading in counts; slot s is at counts_at + s x stride */
	size_t stride;     /* the size of its group */
	size_t slots_at;   /* its group's first slot in slots */
	size_t nr_slots;   /* (CPU, thread) positions read; 0 when it has no descriptors */
	uint64_t epoch;    /* the counter's number for the window these readings belong to; 0: never taken */
	unsigned origin;
	int group;
	int error;
	bool user_only, has_note, supported;
};

/* One (CPU, thread) position of a group: the times of its window (a group read carries the leader's). */
struct tly_snapshot_slot {
	uint64_t enabled, running;
	int cpu;
	pid_t tid;
	int cgroup;      /* the target's cgroup (its index); -1: none */
};

struct tally_snapshot {
	const void *owner;               /* the counter it was made for */
	size_t nr_events, max_slots;
	size_t nr_cgroups;               /* a cgroup target's cgroups (slot.cgroup below it); 0 for any other */
	struct tly_snapshot_event *ev;   /* nr_events */
	struct tally_count *counts;      /* nr_events x max_slots, laid out as the counter's readings */
	struct tly_snapshot_slot *slots; /* nr_events x max_slots, at the leader's index x max_slots */
};

/* A snapshot of nr_events events with room for max_slots positions each, every epoch 0 (the beginning of
 * the window). */
int tly_snapshot_alloc(const void *owner, size_t nr_events, size_t max_slots, tally_snapshot **out);

#endif
