/* SPDX-License-Identifier: MIT */
/*
 * tally: snapshots of a counter and the counts between two of them (intervals, regions). A snapshot holds
 * the raw reading of every event at every (CPU, thread): value, enabled and running times of the current
 * window. Taking one costs one read(2) per group and (CPU, thread), allocates nothing, explains nothing and
 * reopens nothing (a never-run group is split only by tally_counter_read).
 *
 *   tally_snapshot *a, *b;
 *   tally_snapshot_new(c, &a); tally_snapshot_new(c, &b);      (after tally_counter_open)
 *   tally_counter_snapshot(c, a);  ...work...;  tally_counter_snapshot(c, b);
 *   struct tally_result d[2];
 *   tally_snapshot_delta(a, b, d, 2, sizeof(d[0]));
 *
 * Why not subtract two tally_counter_read results: a scaled value is an estimate, and the difference of
 * two estimates is not the estimate of the difference. With (value, enabled, running) = (100, 10, 1) then
 * (110, 20, 10), the scaled values are 1000 and 220; the interval itself counted 10 in 9 of its 10 ns, so
 * about 11. tally_snapshot_delta scales the difference of the raw values by the difference of the times,
 * part by part: delta_value x delta_enabled / delta_running (128-bit, saturating). A part that was enabled
 * in the interval but never ran is TALLY_STATUS_NOT_COUNTED for it (no value), and so is one with no time
 * at all (a task that slept the whole interval).
 */
#ifndef TALLY_SNAPSHOT_H
#define TALLY_SNAPSHOT_H

#include <tally/counter.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tally_snapshot tally_snapshot;

/* A snapshot with room for every event of the counter at every (CPU, thread) it is open on: call it after
 * tally_counter_open (room for that open's target). A snapshot never taken stands for the beginning of
 * the window (every count and time zero): tally_snapshot_delta from it gives the counts since the latest
 * start or reset. Not open: -TALLY_ESTATE. */
TALLY_API int tally_snapshot_new(const tally_counter *counter, tally_snapshot **out);

/* NULL is a no-op. */
TALLY_API void tally_snapshot_free(tally_snapshot *snapshot);

/* Reads every group into the snapshot: one read(2) per group and (CPU, thread); no allocation. A snapshot
 * made for an earlier open with a smaller target: -ENOSPC (make a new one). Not open: -TALLY_ESTATE. */
TALLY_API int tally_counter_snapshot(tally_counter *counter, tally_snapshot *snapshot);

/* The counts of every event between two snapshots of one counter into out[0 .. n), elements of elem_sz
 * bytes (pass sizeof(out[0]); see "Caller-allocated output" in libtally(3)). Each result's value, enabled
 * and running are the differences summed over parts, scaled the sum of every part's scaled difference,
 * status and ratio those of the interval; origin, group, error, user_only and has_note are as of `after`.
 * An event whose group was reopened, or whose window began anew (start, reset) between the two, counts from
 * that moment (`before` counts as zero for it). Returns the number of results written, or a negative code
 * (snapshots of different counters: -EINVAL). */
TALLY_API int tally_snapshot_delta(const tally_snapshot *before, const tally_snapshot *after,
                                   struct tally_result *out, size_t n, size_t elem_sz);

/* The parts of event i between two snapshots into parts[0 .. n) (elements of elem_sz bytes), each with its
 * own difference, scaled difference and status. Returns the number of parts the event has in `after`
 * (which may exceed n: call again with more room), or a negative code. */
TALLY_API int tally_snapshot_delta_parts(const tally_snapshot *before, const tally_snapshot *after, size_t i,
                                         struct tally_part *parts, size_t n, size_t elem_sz);

/* (0.4) tally_snapshot_delta restricted to one cgroup of a TALLY_TARGET_CGROUPS counter: each event's
 * delta summed over its parts in cgroup `cgroup` only (the index into tally_target.cgroups, as
 * tally_part.cgroup), by the same sum (statuses, scaling, ratio) as tally_snapshot_delta. Returns the number
 * of results written, or a negative code: snapshots of a counter of another target, or cgroup out of range,
 * -EINVAL with the explanation in tally_last_error(). Reads only the two snapshots: thread-safe for
 * snapshots no other thread is taking into. */
TALLY_API int tally_snapshot_delta_cgroup(const tally_snapshot *before, const tally_snapshot *after, size_t cgroup,
                                          struct tally_result *out, size_t n, size_t elem_sz);

#ifdef __cplusplus
}
#endif
#endif
