/* SPDX-License-Identifier: MIT */
/* Cgroups for PERF_FLAG_PID_CGROUP: the hierarchy perf_event counts on, and a cgroup's directory opened
 * for perf_event_open(2)'s pid argument. */
#ifndef TLY_CGROUP_H
#define TLY_CGROUP_H

#include <limits.h>
#include <stddef.h>
#include <tally/cgroup.h>

/* Opens the directory of cgroup `name` (see tally/cgroup.h for how names resolve) under the perf_event
 * hierarchy mounted at `mount`, O_RDONLY | O_DIRECTORY | O_CLOEXEC, into *fd. Failures explain: no such
 * cgroup, a path in another hierarchy (which has no perf_event), not a directory. */
int tly_cgroup_open(const char *mount, const char *name, int *fd);

#endif
