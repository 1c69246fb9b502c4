/* SPDX-License-Identifier: MIT */
/* Thread map internals: the layout evsels copy and iterate. */
#ifndef TLY_THREADMAP_H
#define TLY_THREADMAP_H

#include <tally/threadmap.h>

struct tally_threads {
	size_t nr;
	pid_t tid[];         /* {0} for the dummy "calling thread" map */
};

/* A copy of threads (NULL: the dummy map). */
int tly_threads_dup(const tally_threads *threads, tally_threads **out);

/* Sorts tids[0 .. n) and drops repeats; returns how many distinct tids remain at the front. */
size_t tly_tids_sort_unique(pid_t *tids, size_t n);

#endif
