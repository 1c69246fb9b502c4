/* SPDX-License-Identifier: MIT */
/*
 * tally: cgroups to count in. A TALLY_TARGET_CGROUPS target (tally/counter.h) names cgroups of the
 * hierarchy that perf_event counts on: the cgroup v2 (unified) hierarchy, or a cgroup v1 hierarchy
 * mounted with the perf_event controller where the machine binds perf_event there. A cgroup counts the
 * tasks in it and in every cgroup below it (the kernel matches a task's cgroup against the event's and
 * its ancestors), while they run on the counted CPUs.
 *
 * Names follow perf stat -G: a name is relative to the mount point of that hierarchy ("system.slice",
 * "/" its root), unless it begins with the mount point itself ("/sys/fs/cgroup/unified/a"), which is
 * taken as the path it is. A cgroup that does not exist, a path in a hierarchy without perf_event and a
 * machine with no such hierarchy mounted each fail the open with an explanation.
 */
#ifndef TALLY_CGROUP_H
#define TALLY_CGROUP_H

#include <tally/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The mount point of the hierarchy perf_event counts on, from /proc/self/mountinfo: a cgroup v1 mount
 * with the perf_event controller when there is one (perf_event is then bound there, not to v2), else
 * the cgroup2 mount. Writes it into buf (len bytes, cut and NUL-terminated) and returns its length, or
 * a negative code: -ENOENT when no such hierarchy is mounted, -ENAMETOOLONG when its mount point is
 * PATH_MAX bytes or longer (no path under it could be opened), each with the explanation. */
TALLY_API int tally_cgroup_mount(char *buf, size_t len);

/* The one name of the cgroup that name designates, as the rules above read it: relative to the mount
 * point, without "." components, ".." resolved, without repeated or trailing slashes; "/" for the root.
 * "a", "/sys/fs/cgroup/a/" and "/sys/fs/cgroup//a" are all "a" where the hierarchy is mounted at
 * /sys/fs/cgroup. Lexical (cgroupfs has no symbolic links): the cgroup need not exist. Writes it into
 * buf (len bytes, cut and NUL-terminated) and returns its length, or a negative code: -EINVAL for an
 * empty name or one that climbs out of the hierarchy, -ENOENT when no hierarchy is mounted, each with
 * the explanation. Reads /proc/self/mountinfo; safe from any thread. */
TALLY_API int tally_cgroup_name(const char *name, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
