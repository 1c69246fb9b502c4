/* SPDX-License-Identifier: MIT */
/* Mean and standard deviation over the runs of -r, updated run by run (Welford's method: no list kept,
 * and no catastrophic cancellation for large counts). */
#ifndef TALLY_TOOLS_RUN_STATS_H
#define TALLY_TOOLS_RUN_STATS_H

struct run_stats {
	unsigned n;
	double mean;
	double m2;       /* sum of squared distances from the mean */
};

void run_stats_add(struct run_stats *s, double x);

/* The sample standard deviation (n - 1 in the denominator); 0 for fewer than two runs. */
double run_stats_stddev(const struct run_stats *s);

#endif
