/* SPDX-License-Identifier: MIT */
/*
 * The file descriptors of one event: one per (cpu index, thread index), with the kernel id of each
 * (PERF_EVENT_IOC_ID). One 2-D structure for every evsel, so that opening, closing and cleaning up after
 * a failure are written once.
 */
#ifndef TLY_FDGRID_H
#define TLY_FDGRID_H

#include <stddef.h>
#include <stdint.h>

struct tly_fdgrid {
	size_t ncpus;
	size_t nthreads;
	int *fd;             /* ncpus x nthreads, cpu-major; -1 where nothing is open */
	uint64_t *id;        /* same layout; 0 where unknown (the kernel never hands out id 0) */
};

/* Allocates an all-closed grid. -ENOMEM (with a last-error text) on failure; g is then empty. */
int tly_fdgrid_alloc(struct tly_fdgrid *g, size_t ncpus, size_t nthreads);

/* The position of (cpu_idx, thread_idx) in fd[] and id[]. */
static inline size_t tly_fdgrid_slot(const struct tly_fdgrid *g, size_t cpu_idx, size_t thread_idx)
{
	return cpu_idx * g->nthreads + thread_idx;
}

/* Closes every open descriptor through tly_sys (ignoring close errors: on Linux the descriptor is gone
 * whatever close returns) and marks it closed. Returns how many were closed. */
size_t tly_fdgrid_close(struct tly_fdgrid *g);

/* Closes what is open and frees the grid, leaving it empty (safe on an empty grid). */
void tly_fdgrid_free(struct tly_fdgrid *g);

#endif
