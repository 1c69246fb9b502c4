/* SPDX-License-Identifier: MIT */
/*
 * tally: the lower layer of the counting engine, for callers who build their own perf_event_attr values
 * (the interface libperf's counting man page describes, plus group reads and errors that explain).
 *
 *   tally_cpus     a list of CPUs to open on (or the "any CPU" dummy, -1)
 *   tally_threads  a list of tids/pids to open on (or the dummy "calling thread", 0)
 *   tally_evsel    one event: a perf_event_attr opened over cpus x threads, one fd per (cpu, thread)
 *   tally_evlist   a list of evsels with shared maps and groups: open, enable, disable, reset, read, close
 *
 * Flow (examples/counting.c):
 *   tally_evsel_new(&attr, &ev); tally_evlist_add(list, ev); tally_evlist_set_maps(list, NULL, threads);
 *   tally_evlist_open(list); tally_evlist_enable(list); ...work...; tally_evlist_disable(list);
 *   tally_evsel_read(ev, 0, 0, &count, sizeof(count)); tally_evlist_close(list); tally_evlist_free(list);
 *
 * Indexes: a (cpu_idx, thread_idx) pair names a position in the maps an evsel was opened on, not a CPU
 * number or a tid (tally_cpus_at/tally_threads_at translate).
 *
 * Errors: every function returning int gives 0 or a negative errno-style code; a failing system call
 * leaves in tally_last_error() a text naming the event (tally_evsel_set_name), the CPU, the tid, the
 * errno and, for perf_event_open, the likely cause.
 *
 * Thread-safety, unless a function says otherwise: maps (tally_cpus, tally_threads) are immutable once
 * made, so any number of threads may query one concurrently; an evsel or evlist may be used by one thread
 * at a time (reads share a buffer sized at open time); distinct handles may be used concurrently.
 */
#ifndef TALLY_EVLIST_H
#define TALLY_EVLIST_H

#include <linux/perf_event.h>
#include <sys/types.h>
#include <tally/common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tally_cpus tally_cpus;
typedef struct tally_threads tally_threads;
typedef struct tally_evsel tally_evsel;
typedef struct tally_evlist tally_evlist;

/* ---- CPU maps ------------------------------------------------------------------------------------ */
/* Thread-safety: every function below is thread-safe; a map never changes once made (free it once). */

/* Parses a CPU list as sysfs writes them: "0-3,8,10-11" (ranges, single CPUs, commas; white space around
 * items allowed). The result is sorted with duplicates removed. "" or a malformed list: -EINVAL. */
TALLY_API int tally_cpus_parse(const char *list, tally_cpus **out);

/* All online CPUs, from <sysfs_root>/devices/system/cpu/online. sysfs_root NULL means $TALLY_SYSFS_ROOT
 * when set, else "/sys". */
TALLY_API int tally_cpus_online(const char *sysfs_root, tally_cpus **out);

/* Where a CPU sits, for per-core and per-socket aggregation: from
 * <sysfs_root>/devices/system/cpu/cpu<N>/topology/{physical_package_id,die_id,core_id} (sysfs_root as for
 * tally_cpus_online). die is -1 where the kernel has no die_id (before 5.2). A CPU without topology
 * files: the read's negative errno (-ENOENT). */
struct tally_cpu_topology {
	size_t sz;
	int package;
	int die;
	int core;
};
#define tally_cpu_topology__last_field core
TALLY_API int tally_cpu_topology(const char *sysfs_root, int cpu, struct tally_cpu_topology *out);

/* The dummy map {-1}: events open on "any CPU" and follow their threads. */
TALLY_API int tally_cpus_any(tally_cpus **out);

/* The CPUs of `cpus` that a PMU's cpumask text (its sysfs `cpumask` file, a CPU list) names: uncore-style
 * PMUs count only there. The dummy map intersected with a mask gives the mask. An empty result is
 * -ENODEV (none of the requested CPUs can count this PMU). */
TALLY_API int tally_cpus_intersect_mask(const tally_cpus *cpus, const char *cpumask, tally_cpus **out);

/* Number of entries (1 for the dummy map). NULL counts as the dummy map. */
TALLY_API size_t tally_cpus_count(const tally_cpus *cpus);

/* The CPU number at index i, or -1 for the dummy map. i must be below tally_cpus_count(); beyond it, -1. */
TALLY_API int tally_cpus_at(const tally_cpus *cpus, size_t i);

/* The index of CPU `cpu` in the map, or -ENOENT. */
TALLY_API int tally_cpus_index(const tally_cpus *cpus, int cpu);

TALLY_API void tally_cpus_free(tally_cpus *cpus);

/* ---- thread maps --------------------------------------------------------------------------------- */
/* Thread-safety: every function below is thread-safe; a map never changes once made (free it once). */

/* A map of the given tids or pids (copied, order kept). n == 0 or a negative id: -EINVAL. */
TALLY_API int tally_threads_new(const pid_t *tids, size_t n, tally_threads **out);

/* The dummy map {0}: events count the thread that opens them (and, with attr.inherit, its later
 * children). */
TALLY_API int tally_threads_self(tally_threads **out);

/* The map {-1}: events count every task on their CPUs (CPU-wide, what perf calls system-wide); pair it
 * with a real CPU map, not the dummy one. */
TALLY_API int tally_threads_any(tally_threads **out);

/* Every thread of process `pid`, from /proc/<pid>/task, sorted by tid. A process that has exited:
 * -ESRCH. Threads created after the call are not in the map (open the pid with attr.inherit for them). */
TALLY_API int tally_threads_of_pid(pid_t pid, tally_threads **out);

/* The command name of thread `tid` (/proc/<tid>/comm, at most 15 characters), for per-thread labels,
 * written as snprintf would: returns the name's length, and a buf of len bytes receives as much as fits,
 * NUL-terminated (buf NULL with len 0 asks for the length only). A thread that has exited (or was
 * reaped): -ENOENT. */
TALLY_API int tally_thread_name(pid_t tid, char *buf, size_t len);

/* Number of entries (1 for the dummy map). NULL counts as the dummy map. */
TALLY_API size_t tally_threads_count(const tally_threads *threads);

/* The tid/pid at index i (0 for the dummy map). i must be below tally_threads_count(); beyond it, -1. */
TALLY_API pid_t tally_threads_at(const tally_threads *threads, size_t i);

TALLY_API void tally_threads_free(tally_threads *threads);

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

/* ---- evlist: evsels with shared maps ------------------------------------------------------------- */
/* Thread-safety: not thread-safe per list: one thread at a time may call these on one evlist (and its
 * evsels); different lists may be used from different threads. tally_evlist_new is thread-safe. */

TALLY_API int tally_evlist_new(tally_evlist **out);

/* Closes and frees every evsel of the list, the list's maps and the list. */
TALLY_API void tally_evlist_free(tally_evlist *evlist);

/* Appends an evsel; the list owns it from now on (also when this call fails with -TALLY_ESTATE because
 * the list is open; then it is freed). An evsel already in the list: -EINVAL, and it stays there. */
TALLY_API int tally_evlist_add(tally_evlist *evlist, tally_evsel *evsel);

TALLY_API size_t tally_evlist_count(const tally_evlist *evlist);
TALLY_API tally_evsel *tally_evlist_at(const tally_evlist *evlist, size_t i);

/* The maps every evsel opens on (copied; NULL: the dummy maps). -TALLY_ESTATE when open. */
TALLY_API int tally_evlist_set_maps(tally_evlist *evlist, const tally_cpus *cpus,
                                    const tally_threads *threads);

/* Makes every evsel of the list one group led by the first (libperf's perf_evlist__set_leader). For
 * several groups in one list, use tally_evsel_set_leader on its evsels. */
TALLY_API int tally_evlist_set_leader(tally_evlist *evlist);

/* Opens every evsel (leaders before their members). On any failure everything opened is closed again
 * and the error names the event that failed. */
TALLY_API int tally_evlist_open(tally_evlist *evlist);
TALLY_API void tally_evlist_close(tally_evlist *evlist);

/* Enable / disable / reset every evsel: tally_evsel_enable/disable/reset of each group leader and each
 * lone event (which covers the members). */
TALLY_API int tally_evlist_enable(tally_evlist *evlist);
TALLY_API int tally_evlist_disable(tally_evlist *evlist);
TALLY_API int tally_evlist_reset(tally_evlist *evlist);

/* Number of tally_count slots tally_evlist_read fills: the sum over evsels of cpus x threads. */
TALLY_API size_t tally_evlist_nr_counts(const tally_evlist *evlist);

/* The slot of (evsel i, cpu_idx, thread_idx) in tally_evlist_read's array: evsels in list order, each
 * taking cpus x threads slots, cpu-major. (size_t)-1 when out of range or closed. */
TALLY_API size_t tally_evlist_count_index(const tally_evlist *evlist, size_t i, size_t cpu_idx,
                                          size_t thread_idx);

/* Reads every evsel at every (cpu, thread) into counts[0 .. tally_evlist_nr_counts()): one read(2) per
 * group per (cpu, thread). n too small: -ENOSPC. Allocates nothing. */
TALLY_API int tally_evlist_read(tally_evlist *evlist, struct tally_count *counts, size_t n,
                                size_t count_sz);

#ifdef __cplusplus
}
#endif
#endif
