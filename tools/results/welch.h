/* SPDX-License-Identifier: MIT */
/*
 * Two samples compared as tally compare does: the difference of their means with a confidence interval by
 * Welch's t (unequal variances, Welch-Satterthwaite degrees of freedom), and a verdict. Two samples without
 * any spread (an exact count, the same in each of 2 or more runs) are compared exactly: no interval is
 * needed to tell 1000 from 1001 when every run says so.
 */
#ifndef TALLY_TOOLS_WELCH_H
#define TALLY_TOOLS_WELCH_H

#include <stdbool.h>
#include <stddef.h>

enum welch_verdict {
	WELCH_MORE,        /* B's mean is above A's: the interval lies above 0 (or exactly, without spread) */
	WELCH_LESS,        /* below */
	WELCH_SAME,        /* no spread on either side and the same value */
	WELCH_NO_EVIDENCE, /* the interval holds 0 */
	WELCH_TOO_FEW,     /* fewer than 2 values on a side: no interval, and no exact comparison either */
};

struct welch_sample {
	size_t n;
	double mean;
	double stddev;             /* sample standard deviation (n - 1), 0 for n < 2 */
};

struct welch {
	struct welch_sample a, b;
	double diff;               /* mean B - mean A */
	double se;                 /* standard error of diff */
	double df;                 /* Welch-Satterthwaite degrees of freedom (0 when exact or too few) */
	double t;                  /* the t quantile used (0 when exact or too few) */
	double lo, hi;             /* the interval of diff (lo = hi = diff when exact) */
	double rel, rel_lo, rel_hi; /* the same over mean A (NaN when mean A is 0) */
	enum welch_verdict verdict;
	bool exact;                /* 2 or more values on each side, and neither side has any spread */
};

/* Compares b[0 .. nb) against a[0 .. na) at confidence `level` (0.95). */
void welch_compare(const double *a, size_t na, const double *b, size_t nb, double level, struct welch *out);

/* "more", "less", "same", "no evidence", "too few runs". */
const char *welch_verdict_name(enum welch_verdict v);

#endif
