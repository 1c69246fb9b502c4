/* SPDX-License-Identifier: MIT */
/*
 * tally: thread maps, the tids/pids an event is opened on (or the "calling thread" dummy, 0). Part of the
 * lower layer (see tally/evlist.h). Maps are immutable once made: any number of threads may query one
 * concurrently.
 */
#ifndef TALLY_THREADMAP_H
#define TALLY_THREADMAP_H

#include <sys/types.h>
#include <tally/common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tally_threads tally_threads;

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

/* The tid/pid at index i (0 for the dummy map). i must be below tally_threads_count(); beyond it, -1.
 * An evsel open on a cgroup target (TALLY_TARGET_CGROUPS) has one entry per cgroup, each -1 (every task). */
TALLY_API pid_t tally_threads_at(const tally_threads *threads, size_t i);

TALLY_API void tally_threads_free(tally_threads *threads);

#ifdef __cplusplus
}
#endif
#endif
