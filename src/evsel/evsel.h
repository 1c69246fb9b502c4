/* SPDX-License-Identifier: MIT */
/* Evsel internals shared with the evlist (and readable by the engine above it). */
#ifndef TLY_EVSEL_H
#define TLY_EVSEL_H

#include "core/sys.h"
#include "evsel/fdgrid.h"
#include "evsel/group_read.h"
#include "evsel/tool_events.h"

#include <stdbool.h>
#include <tally/evlist.h>

/* The call that failed. */
enum tly_diag_op { TLY_DIAG_OPEN, TLY_DIAG_IOCTL, TLY_DIAG_READ, TLY_DIAG_MMAP };

/* A failed system call on an evsel, as the evsel layer records it: it returns the code and leaves a
 * last-error text with the context (event, call, errno, CPU and thread), and explains nothing; the cause
 * and the fix come from the layer that gives up (the counter, through diagnose.c), which knows the target
 * and the machine's facts. */
struct tly_evsel_failure {
	enum tly_diag_op op;
	int err;                /* errno, positive; 0: nothing failed */
	const char *request;    /* TLY_DIAG_IOCTL: the request's name */
	/* Kept here because a failed open releases the maps: where, and the sizes that explain EMFILE and
	 * ENOSPC. */
	int cpu;                /* -1: any CPU */
	pid_t tid;              /* 0: the opening thread; -1: every thread (CPU-wide) */
	int cgroup;             /* the target's cgroup (its index) the slot counts; -1: none */
	size_t fds_needed;      /* descriptors the evsel's group needs over its maps */
	size_t read_size;       /* bytes a read of it offers */
};

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
	size_t group_entry_size;         /* bytes per member in a read with GROUP, ID and both times (struct
	                                  * tly_group_head, then the entries); 0 for any other layout */
	uint64_t *group_ids;             /* a leader's: per (cpu, thread) slot, 1 + nr_members ids, leader first */
	struct tally_count *group_counts; /* a leader's: 1 + nr_members, for tally_evsel_read */
	size_t evlist_slot;              /* the first tally_evlist_read slot of this evsel, while its list is open */
	/* The latest failed system call on it: the layer that gives up explains it (tly_diag_evsel). */
	struct tly_evsel_failure failed;
	/* A tool event (tly_evsel_new_tool): no descriptor, counted by tally; NULL for a kernel event. */
	struct tly_tool *tool;
};

/* An evsel for one of perf's tool events: opened on one (any CPU, first thread) position with no
 * descriptor, it stands alone (no leader, no members) and reads tally's own clocks (tool_events.h);
 * cpu_time(arg) gives the target's CPU time for user_time and system_time. */
int tly_evsel_new_tool(const struct perf_event_attr *attr, enum tly_tool_kind kind,
                       tly_tool_cpu_time_fn cpu_time, void *arg, tally_evsel **out);

/* Enables an open tool evsel; any other evsel is left as it is (0). */
int tly_evsel_enable_tool(tally_evsel *evsel);

/* The end of tly_evsel_read_group_slot when its read(2) returned `got` (or -1 with errno) and that was
 * not a whole group in the kernel's usual order: retries EINTR, decodes by id or explains the failure. */
int tly_evsel_read_group_rest(tally_evsel *leader, size_t slot, ssize_t got, struct tally_count *counts);

/* Whether a read(2) of open leader ev gives its whole group of n in tally's own layout, which a read may
 * keep where it lies (checking its count and ids: tly_read_group_in_order): a group of the kernel's (not
 * a tool event), n members, no PERF_FORMAT_LOST. */
static inline bool tly_evsel_reads_in_place(const tally_evsel *ev, size_t n)
{
	return !ev->tool && 1 + ev->nr_members == n && ev->group_entry_size == sizeof(struct tly_group_entry) &&
	       ev->read_size == sizeof(uint64_t) * (3 + 2 * n);
}

/* tally_evsel_read_group at fd-grid slot `slot` (cpu_idx x nthreads + thread_idx) of an open leader,
 * without checking its arguments: for the counter's read path, which opened the group itself and is held
 * to the cost of a bare read(2) (so inline: one read(2) and a one-pass decode, nothing else, in the common
 * case). counts has room for 1 + nr_members. */
static inline int tly_evsel_read_group_slot(tally_evsel *leader, size_t slot, struct tally_count *counts)
{
	if (__builtin_expect(leader->tool != NULL, 0))
		return tly_tool_read(leader->tool, counts);
	size_t group = 1 + leader->nr_members;
	ssize_t got = tly_sys->read(leader->grid.fd[slot], leader->read_buf, leader->read_size);
	if (got == (ssize_t)leader->read_size && leader->group_entry_size &&
	    tly_read_decode_group_in_order(leader->read_buf, leader->group_entry_size,
	                                   &leader->group_ids[slot * group], group, counts))
		return 0;
	return tly_evsel_read_group_rest(leader, slot, got, counts);
}

/* The read_format an evsel opens with for the caller's: both times and ids always (the reads match
 * members by id and scale), PERF_FORMAT_GROUP only on a leader of members (group), nothing else added. */
uint64_t tly_evsel_read_format(uint64_t caller_read_format, bool group);

/* Where a recorded failure happened, for messages: "cpu 3, tid 1234" (or "any CPU", "every thread", "the
 * opening thread"). snprintf's return. */
int tly_evsel_failure_position(const struct tly_evsel_failure *f, char *buf, size_t len);

#endif
