/* SPDX-License-Identifier: MIT */
#include "evsel/fdgrid.h"

#include "core/error.h"
#include "core/sys.h"

#include <stdlib.h>

int tly_fdgrid_alloc(struct tly_fdgrid *g, size_t ncpus, size_t nthreads)
{
	*g = (struct tly_fdgrid){ 0 };
	if (ncpus == 0 || nthreads == 0 || ncpus > SIZE_MAX / sizeof(uint64_t) / nthreads)
		return tly_error(-EINVAL, "descriptor grid of %zu CPUs x %zu threads", ncpus, nthreads);
	size_t n = ncpus * nthreads;
	g->fd = malloc(n * sizeof(*g->fd));
	g->id = calloc(n, sizeof(*g->id));
	if (!g->fd || !g->id) {
		tly_fdgrid_free(g);
		return tly_error(-ENOMEM, "descriptor grid of %zu CPUs x %zu threads: out of memory", ncpus,
		                 nthreads);
	}
	for (size_t i = 0; i < n; i++)
		g->fd[i] = -1;
	g->ncpus = ncpus;
	g->nthreads = nthreads;
	return 0;
}

size_t tly_fdgrid_close(struct tly_fdgrid *g)
{
	size_t closed = 0;
	for (size_t i = 0; i < g->ncpus * g->nthreads; i++) {
		if (g->fd[i] >= 0) {
			tly_sys->close(g->fd[i]);
			g->fd[i] = -1;
			closed++;
		}
		g->id[i] = 0;
	}
	return closed;
}

void tly_fdgrid_free(struct tly_fdgrid *g)
{
	if (g->fd && g->id)
		tly_fdgrid_close(g);
	free(g->fd);
	free(g->id);
	*g = (struct tly_fdgrid){ 0 };
}
