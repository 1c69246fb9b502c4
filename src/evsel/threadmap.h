/* SPDX-License-Identifier: MIT */
/* Thread map internals: the layout evsels copy and iterate. */
#ifndef TLY_THREADMAP_H
#define TLY_THREADMAP_H

#include <stdbool.h>
#include <tally/threadmap.h>

struct tally_threads {
	size_t nr;
	/* The entries are cgroup directory descriptors, not tids: events open on them with
	 * PERF_FLAG_PID_CGROUP, one per cgroup and CPU (the kernel takes cgroup events per CPU only). */
	bool cgroups;
	pid_t tid[];         /* {0} for the dummy "calling thread" map */
};

/* A map of cgroup directory descriptors fds[0 .. n) (not owned: the target closes them); -1 counts every
 * task, with no cgroup filter. */
int tly_threads_cgroups(const int *fds, size_t n, tally_threads **out);

/* Where entry i puts a part: its tid (-1, every task, for a cgroup) and its cgroup (the index in the
 * target's cgroups; -1 for a task map). */
void tly_threads_place(const tally_threads *threads, size_t i, pid_t *tid, int *cgroup);

/* A copy of threads (NULL: the dummy map). */
int tly_threads_dup(const tally_threads *threads, tally_threads **out);

/* Every thread of every process in /proc now, sorted (TALLY_TARGET_ALL_THREADS). A process that exits
 * while it is listed is left out. -ENOMEM, or the error of listing /proc itself. */
int tly_threads_system(tally_threads **out);

/* Sorts tids[0 .. n) and drops repeats; returns how many distinct tids remain at the front. */
size_t tly_tids_sort_unique(pid_t *tids, size_t n);

#endif
