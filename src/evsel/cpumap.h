/* SPDX-License-Identifier: MIT */
/* CPU map internals: the layout evsels copy and iterate. */
#ifndef TLY_CPUMAP_H
#define TLY_CPUMAP_H

#include <tally/cpumap.h>

struct tally_cpus {
	size_t nr;
	int cpu[];           /* sorted, unique; {-1} for the dummy "any CPU" map */
};

/* A copy of cpus (NULL: the dummy map). */
int tly_cpus_dup(const tally_cpus *cpus, tally_cpus **out);

#endif
