/* SPDX-License-Identifier: MIT */
#include "stat/run_stats.h"

#include <math.h>

void run_stats_add(struct run_stats *s, double x)
{
	s->n++;
	double delta = x - s->mean;
	s->mean += delta / s->n;
	s->m2 += delta * (x - s->mean);
}

double run_stats_stddev(const struct run_stats *s)
{
	return s->n < 2 ? 0 : sqrt(s->m2 / (s->n - 1));
}
