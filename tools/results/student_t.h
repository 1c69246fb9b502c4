/* SPDX-License-Identifier: MIT */
/* Student's t distribution, for the confidence intervals of tally compare (Welch's degrees of freedom are
 * not whole numbers, so no table of quantiles would do). */
#ifndef TALLY_TOOLS_STUDENT_T_H
#define TALLY_TOOLS_STUDENT_T_H

/* P(T <= t) for T of Student's t distribution with df > 0 degrees of freedom (not necessarily whole). */
double student_t_cdf(double t, double df);

/* The t with P(T <= t) = p, for 0.5 <= p < 1 and df > 0: 12.706 for p = 0.975, df = 1; 1.960 as df grows. */
double student_t_quantile(double p, double df);

#endif
