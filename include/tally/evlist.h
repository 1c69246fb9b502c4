/* SPDX-License-Identifier: MIT */
/*
 * tally: the lower layer of the counting engine, for callers who build their own perf_event_attr values
 * (the interface libperf's counting man page describes, plus group reads and errors that explain). One
 * header per concept, as libperf splits them; this one includes the others:
 *
 *   tally/cpumap.h     tally_cpus: a list of CPUs to open on (or the "any CPU" dummy, -1)
 *   tally/threadmap.h  tally_threads: a list of tids/pids to open on (or the dummy "calling thread", 0)
 *   tally/evsel.h      tally_evsel: one event, a perf_event_attr opened over cpus x threads, one fd per
 *                      (cpu, thread); struct tally_count and its scaling
 *   tally/evlist.h     tally_evlist: evsels with shared maps and groups: open, enable, disable, reset,
 *                      read, close
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
 * leaves in tally_last_error() a text naming the event (tally_evsel_set_name), the call, the errno, the
 * CPU and the tid, and reads nothing more. The likely cause and its fix on this machine (which reads the
 * machine's facts: PMUs, perf_event_paranoid, capabilities, limits) come from tally_evsel_explain(),
 * called by whoever gives up on the failure; tally_counter explains its own.
 *
 * Thread-safety, unless a function says otherwise: maps (tally_cpus, tally_threads) are immutable once
 * made, so any number of threads may query one concurrently; an evsel or evlist may be used by one thread
 * at a time (reads share a buffer sized at open time); distinct handles may be used concurrently.
 */
#ifndef TALLY_EVLIST_H
#define TALLY_EVLIST_H

#include <tally/cpumap.h>
#include <tally/evsel.h>
#include <tally/threadmap.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tally_evlist tally_evlist;

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
