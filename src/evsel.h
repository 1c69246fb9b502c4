/* SPDX-License-Identifier: MIT */
/* Evsel internals shared with the evlist (and readable by the engine above it). */
#ifndef TLY_EVSEL_H
#define TLY_EVSEL_H

#include "fdgrid.h"
#include "sys.h"

#include <stdbool.h>
#include <tally/evlist.h>

struct tally_evsel {
	struct perf_event_attr attr;     /* read_format kept as tally opens it (tly_evsel_read_format) */
	uint64_t caller_read_format;     /* what the caller asked for, before tally's additions */
	char *name;
	struct tally_evsel *leader;      /* itself when it leads or stands alone */
	struct tally_evsel **members;    /* a leader's members, in the order they joined */
	size_t nr_members;
	size_t member_index;             /* a member's position in leader->members */

	/* While open. */
	bool open;
	tally_cpus *cpus;
	tally_threads *threads;
	struct tly_fdgrid grid;
	/* The read path, sized at open time so that reads allocate nothing. */
	uint64_t *read_buf;
	size_t read_size;                /* bytes */
	size_t group_entry_u64s;         /* u64s per member in a read with GROUP, ID and both times (so nr,
	                                  * enabled, running, then the entries); 0 for any other layout */
	uint64_t *group_ids;             /* a leader's: per (cpu, thread) slot, 1 + nr_members ids, leader first */
	struct tally_count *group_counts; /* a leader's: 1 + nr_members, for tally_evsel_read */
	size_t evlist_slot;              /* the first tally_evlist_read slot of this evsel, while its list is open */
	/* Facts to explain failures with, shared by the events of one open (set by the counter); NULL:
	 * each failure probes the machine itself. */
	struct tly_facts_cache *facts_cache;
};

/* The end of tly_evsel_read_group_slot when its read(2) returned `got` (or -1 with errno) and that was
 * not a whole group in the kernel's usual order: retries EINTR, decodes by id or explains the failure. */
int tly_evsel_read_group_rest(tally_evsel *leader, size_t slot, ssize_t got, struct tally_count *counts);

/* A whole group read in the layout the kernel nearly always gives: every entry in the order the members
 * joined (the order of ids[], perf_read_group's sibling list), so each entry is checked against its own
 * position's id while it is copied, with none of tly_read_decode's generality (read_format tests, a search
 * by id). False for anything else, which tly_read_decode then matches by id or explains. restrict: counts
 * never overlap the buffer or the ids, so nothing is loaded again after a store. */
static inline bool tly_evsel_decode_in_order(const tally_evsel *leader, const uint64_t *restrict ids, size_t n,
                                             struct tally_count *restrict counts)
{
	const uint64_t *restrict buf = leader->read_buf;
	size_t per = leader->group_entry_u64s;
	if (per == 0 || buf[0] != n)
		return false;
	uint64_t enabled = buf[1], running = buf[2];
	bool has_lost = per > 2;
	const uint64_t *entry = buf + 3;
	for (size_t k = 0; k < n; k++, entry += per) {
		if (entry[1] != ids[k])
			return false;
		counts[k] = (struct tally_count){ .value = entry[0], .enabled = enabled, .running = running,
			                          .id = ids[k], .lost = has_lost ? entry[2] : 0 };
	}
	return true;
}

/* tally_evsel_read_group at fd-grid slot `slot` (cpu_idx x nthreads + thread_idx) of an open leader,
 * without checking its arguments: for the counter's read path, which opened the group itself and is held
 * to the cost of a bare read(2) (so inline: one read(2) and a one-pass decode, nothing else, in the common
 * case). counts has room for 1 + nr_members. */
static inline int tly_evsel_read_group_slot(tally_evsel *leader, size_t slot, struct tally_count *counts)
{
	size_t group = 1 + leader->nr_members;
	ssize_t got = tly_sys->read(leader->grid.fd[slot], leader->read_buf, leader->read_size);
	if (got == (ssize_t)leader->read_size &&
	    tly_evsel_decode_in_order(leader, &leader->group_ids[slot * group], group, counts))
		return 0;
	return tly_evsel_read_group_rest(leader, slot, got, counts);
}

/* Whether the running kernel accepts PERF_FORMAT_LOST (6.0+): probed once per process. */
bool tly_read_format_has_lost(void);

#endif
