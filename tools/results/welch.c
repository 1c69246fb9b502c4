/* SPDX-License-Identifier: MIT */
/* Welch's t interval for a difference of means, and the exact comparison without spread (welch.h). */
#include <math.h>
#include <stdbool.h>

#include "results/student_t.h"
#include "results/welch.h"

static struct welch_sample describe(const double *x, size_t n)
{
	struct welch_sample s = { .n = n };
	for (size_t i = 0; i < n; i++)
		s.mean += x[i] / (double)n;
	double sq = 0;
	for (size_t i = 0; i < n; i++)
		sq += (x[i] - s.mean) * (x[i] - s.mean);
	s.stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	return s;
}

/* Every value equal: the mean is that value exactly (the division above may round it). */
static bool without_spread(const double *x, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (x[i] != x[0])
			return false;
	return n > 0;
}

void welch_compare(const double *a, size_t na, const double *b, size_t nb, double level, struct welch *out)
{
	*out = (struct welch){ .a = describe(a, na), .b = describe(b, nb) };
	/* One value has no measured spread, it only lacks one: an exact verdict needs every run of each side
	 * to agree, and a side of one run is too few for either kind of verdict. */
	out->exact = na >= 2 && nb >= 2 && without_spread(a, na) && without_spread(b, nb);
	if (out->exact) {
		out->a.mean = a[0];
		out->b.mean = b[0];
	}
	out->diff = out->b.mean - out->a.mean;
	if (out->exact) {
		out->lo = out->hi = out->diff;
		out->verdict = out->diff > 0 ? WELCH_MORE : out->diff < 0 ? WELCH_LESS : WELCH_SAME;
	} else if (na < 2 || nb < 2) {
		out->lo = out->hi = NAN;
		out->verdict = WELCH_TOO_FEW;
	} else {
		double va = out->a.stddev * out->a.stddev / (double)na, vb = out->b.stddev * out->b.stddev / (double)nb;
		out->se = sqrt(va + vb);
		/* One side without spread contributes nothing: df is then the other side's n - 1. */
		out->df = (va + vb) * (va + vb) / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
		out->t = student_t_quantile(1 - (1 - level) / 2, out->df);
		out->lo = out->diff - out->t * out->se;
		out->hi = out->diff + out->t * out->se;
		out->verdict = out->lo > 0 ? WELCH_MORE : out->hi < 0 ? WELCH_LESS : WELCH_NO_EVIDENCE;
	}
	/* Relative to A's mean, taken as exact: the interval is the difference's over it. */
	double base = out->a.mean;
	out->rel = base != 0 ? out->diff / base : NAN;
	out->rel_lo = base != 0 ? out->lo / base : NAN;
	out->rel_hi = base != 0 ? out->hi / base : NAN;
	if (base < 0) {
		double lo = out->rel_lo;
		out->rel_lo = out->rel_hi;
		out->rel_hi = lo;
	}
}

const char *welch_verdict_name(enum welch_verdict v)
{
	switch (v) {
	case WELCH_MORE: return "more";
	case WELCH_LESS: return "less";
	case WELCH_SAME: return "same";
	case WELCH_NO_EVIDENCE: return "no evidence";
	case WELCH_TOO_FEW: return "too few runs";
	}
	return "?";
}
