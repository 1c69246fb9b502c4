/* SPDX-License-Identifier: MIT */
/*
 * tally: one event (a perf_event_attr) opened over CPUs x threads, one fd per (cpu, thread), its group
 * membership, ioctls and reads; and the counts a read gives, with their scaling. Part of the lower layer
 * (see tally/evlist.h for the flow, indexes and errors). An evsel is used by one thread at a time (reads
 * share a buffer sized at open time); distinct evsels may be used concurrently.
 */
#ifndef TALLY_EVSEL_H
#define TALLY_EVSEL_H

#include <linux/perf_event.h>
#include <tally/common.h>
#include <tally/cpumap.h>
#include <tally/threadmap.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tally_evsel tally_evsel;

/* ---- counts and scaling -------------------------------------------------------------------------- */

/* One reading of one event at one (cpu, thread). Times are in nanoseconds. lost is 0 unless the evsel's
 * caller asked for PERF_FORMAT_LOST (6.0+) in read_format: tally's counting reads never do. Every function
 * that fills tally_counts takes their size (pass sizeof(struct tally_count)); new fields come at the end
 * (see "Caller-allocated output" in libtally(3)). */
struct tally_count {
	uint64_t value;
	uint64_t enabled;   /* time the event was enabled */
	uint64_t running;   /* time it was actually on a counter (< enabled when multiplexed) */
	uint64_t id;        /* the kernel's id of the event (PERF_EVENT_IOC_ID) */
	uint64_t lost;      /* lost samples (PERF_FORMAT_LOST); 0 for counting */
};
#define tally_count__last_field lost

enum tally_count_status {
	TALLY_COUNT_EXACT,       /* running == enabled: the value is the count */
	TALLY_COUNT_SCALED,      /* 0 < running < enabled: the value was extrapolated (multiplexing) */
	TALLY_COUNT_NOT_COUNTED, /* running == 0: the event never ran, there is no value */
};

/* The value extrapolated to the whole enabled time: value x enabled / running, computed in 128 bits so
 * that it never overflows on the way; a result beyond 2^64-1 saturates to UINT64_MAX. running == 0 gives
 * 0 and TALLY_COUNT_NOT_COUNTED; running >= enabled gives value unchanged and TALLY_COUNT_EXACT (the
 * kernel never reports running > enabled, but a sum over CPUs may round that way). scaled may be NULL.
 * Reads only value, enabled and running (fields of every version). Thread-safe. */
TALLY_API enum tally_count_status tally_count_scale(const struct tally_count *count, uint64_t *scaled);

/* after - before, field by field (id copied); all three of count_sz bytes. Readings of different events
 * (ids differ) or one that went backwards (a reset in between): -EINVAL. A difference of raw readings; to
 * scale it, pass it to tally_count_scale (never subtract two scaled values). Thread-safe. */
TALLY_API int tally_count_delta(const struct tally_count *before, const struct tally_count *after,
                                struct tally_count *delta, size_t count_sz);

/* ---- evsel: one event over cpus x threads -------------------------------------------------------- */
/* Thread-safety: not thread-safe per group: a leader and its members share state (ids, read buffer), so
 * one thread at a time may call any of these on the evsels of one group; different groups may be used
 * from different threads. tally_evsel_new is thread-safe. */

/* A new, closed event from a copy of attr. attr->size is set by tally; read_format becomes
 * attr->read_format | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID (no LOST unless attr asks for it), and
 * GROUP is added when the event leads a group with members. The name defaults to "<type>:<config>". */
TALLY_API int tally_evsel_new(const struct perf_event_attr *attr, tally_evsel **out);

/* Closes the event if open and frees it. An evsel added to an evlist belongs to it: do not free it. */
TALLY_API void tally_evsel_free(tally_evsel *evsel);

/* The name used in error and log messages ("page-faults", "cpu/cycles/u"). Copied. */
TALLY_API int tally_evsel_set_name(tally_evsel *evsel, const char *name);
TALLY_API const char *tally_evsel_name(const tally_evsel *evsel);

/* The attr as tally will open it (size and read_format filled in; everything else as the caller set it,
 * disabled included). For a group, disable the leader and leave the members enabled, as perf does: a
 * member opened into a group that is already counting stays off the PMU until the group is next
 * scheduled in (a context switch), and misses what happens before. */
TALLY_API const struct perf_event_attr *tally_evsel_attr(const tally_evsel *evsel);

/* Makes `member` a member of the group led by `leader` (both closed; leader not itself a member; member
 * not a leader). Members open with the leader's fd at the same (cpu, thread) as group_fd, on the leader's
 * maps, and are read with it in one read(2). Passing leader == member or NULL makes member stand alone
 * again. -TALLY_ESTATE when either is open. */
TALLY_API int tally_evsel_set_leader(tally_evsel *member, tally_evsel *leader);

/* The evsel's leader (itself when it leads or stands alone) and its number of members. */
TALLY_API tally_evsel *tally_evsel_leader(tally_evsel *evsel);
TALLY_API size_t tally_evsel_nr_members(const tally_evsel *evsel);

/* Opens one fd per (cpu, thread) with PERF_FLAG_FD_CLOEXEC and fetches each id (PERF_EVENT_IOC_ID).
 * cpus NULL means the dummy "any CPU" map, threads NULL the calling thread. A member opens on its
 * leader's maps (cpus and threads are then ignored) and needs the leader open. On failure nothing stays
 * open. Already open: -TALLY_ESTATE. */
TALLY_API int tally_evsel_open(tally_evsel *evsel, const tally_cpus *cpus, const tally_threads *threads);

/* Closes every fd of the event (its members, if it leads, are closed first). Closing a closed evsel is a
 * no-op. */
TALLY_API void tally_evsel_close(tally_evsel *evsel);

/* The maps the event is open on (NULL when closed). */
TALLY_API const tally_cpus *tally_evsel_cpus(const tally_evsel *evsel);
TALLY_API const tally_threads *tally_evsel_threads(const tally_evsel *evsel);

/* The fd and kernel id at (cpu_idx, thread_idx): -1 / 0 when closed or out of range. */
TALLY_API int tally_evsel_fd(const tally_evsel *evsel, size_t cpu_idx, size_t thread_idx);
TALLY_API uint64_t tally_evsel_id(const tally_evsel *evsel, size_t cpu_idx, size_t thread_idx);

/* PERF_EVENT_IOC_ENABLE / DISABLE / RESET on every fd of the event. On a group leader they act on the
 * whole group: DISABLE and RESET in one ioctl with PERF_IOC_FLAG_GROUP per (cpu, thread), so the group
 * stops at one instant; ENABLE turns the members on first and the leader last, which starts the group at
 * one instant (an ENABLE with the flag would start the leader first, and the kernel leaves members enabled
 * into a running group off the PMU until its next context switch). On a member they act on it alone. */
TALLY_API int tally_evsel_enable(tally_evsel *evsel);
TALLY_API int tally_evsel_disable(tally_evsel *evsel);
TALLY_API int tally_evsel_reset(tally_evsel *evsel);

/* Reads this event at (cpu_idx, thread_idx). For a leader the whole group comes in one read(2) and
 * this event's entry is picked by id. Allocates nothing. */
TALLY_API int tally_evsel_read(tally_evsel *evsel, size_t cpu_idx, size_t thread_idx,
                               struct tally_count *count, size_t count_sz);

/* Reads the group led by `leader` at (cpu_idx, thread_idx) with ONE read(2): counts[0] is the leader,
 * counts[1 + k] the k-th member in the order tally_evsel_set_leader added them; entries are matched to
 * events by id, never by position. n must be at least 1 + tally_evsel_nr_members(leader) (else
 * -ENOSPC). An event that stands alone is a group of one. Allocates nothing. */
TALLY_API int tally_evsel_read_group(tally_evsel *leader, size_t cpu_idx, size_t thread_idx,
                                     struct tally_count *counts, size_t n, size_t count_sz);

/* The explanation of the failure `err` that a call on evsel (or on an event of its group) returned: the
 * call, the errno, the likely cause on this machine and the fix, then where it happened, as tally_counter
 * reports its failures ("cannot open event 'cycles' (perf_event_open: ...):\n  this machine exposes no
 * hardware PMU ..."). Reads the machine's facts (sysfs, procfs, a probe event): call it when giving up,
 * not on a path that retries. Text by the snprintf rule (returns the length the whole text needs). No
 * failure with that code recorded: -ENOENT. */
TALLY_API int tally_evsel_explain(const tally_evsel *evsel, int err, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
