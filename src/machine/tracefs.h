/* SPDX-License-Identifier: MIT */
/*
 * Tracepoints as tracefs lays them out: <tracing>/events/<system>/<event>/id holds the number that
 * perf_event_attr.config takes for PERF_TYPE_TRACEPOINT. The tracing directory is looked for under the
 * sysfs root, so that $TALLY_SYSFS_ROOT and tally_pmus_opts.sysfs_root fixtures carry tracepoints too:
 * <root>/kernel/tracing (tracefs, Linux 4.1+), then <root>/kernel/debug/tracing (where older systems and
 * perf's own fallback find it through debugfs).
 */
#ifndef TLY_TRACEFS_H
#define TLY_TRACEFS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tly_tracefs {
	char events[PATH_MAX]; /* "<root>/kernel/tracing/events" or the debugfs one */
};

/* Finds the events directory under sysfs_root. Returns 0, or a negative code with a last error that
 * says what is wrong and how to fix it: -ENODEV when tracefs is not mounted (the mount command),
 * -EACCES when it is not readable (permissions), another code when it cannot be listed. */
int tly_tracefs_find(const char *sysfs_root, struct tly_tracefs *tfs);

/* Whether a name is a glob: perf expands those with '*' or '?'; '[' sets are taken too. */
bool tly_tracefs_is_glob(const char *name);

/* The id of system:event. -ENOENT, recording nothing, when tracefs has no such tracepoint; another
 * negative code with a last error when its id file cannot be read or is not a number. */
int tly_tracefs_id(const struct tly_tracefs *tfs, const char *system, const char *event, uint64_t *id);

/* Receives one tracepoint; non-zero stops the walk and is returned by it. */
typedef int (*tly_tracepoint_fn)(const char *system, const char *event, void *arg);

/* Calls fn for every tracepoint whose system and event match the fnmatch(3) patterns (a pattern without
 * glob characters matches itself only), in directory order, as perf walks tracefs; *matched (when not
 * NULL) counts the calls. Returns 0, fn's non-zero value (which stopped the walk), or a negative code
 * with a last error. With event NULL, fn gets each matching system once, with event NULL. */
int tly_tracefs_walk(const struct tly_tracefs *tfs, const char *system, const char *event, tly_tracepoint_fn fn,
                     void *arg, size_t *matched);

#endif
