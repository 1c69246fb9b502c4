/* SPDX-License-Identifier: MIT */
/*
 * Student's t through the regularized incomplete beta function: P(|T| > t) = I_x(df/2, 1/2) with
 * x = df / (df + t^2); I_x by its continued fraction (Lentz's method, as in Numerical Recipes 6.4), which
 * converges in a few dozen terms where x < (a + 1) / (a + b + 2), and by the symmetry I_x(a, b) =
 * 1 - I_{1-x}(b, a) elsewhere. The quantile is found by bisection on the CDF: slow by numerical standards
 * (~100 CDFs), instant for the few events tally compare prints.
 */
#include "results/student_t.h"

#include <float.h>
#include <math.h>

/* The continued fraction of I_x(a, b) (without its prefactor). */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1);
	d = 1 / (fabs(d) < tiny ? tiny : d);
	double h = d;
	for (int m = 1; m <= 500; m++) {
		for (int odd = 0; odd < 2; odd++) {
			double num = odd ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
			                 : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
			d = 1 + num * d;
			d = 1 / (fabs(d) < tiny ? tiny : d);
			c = 1 + num / c;
			c = fabs(c) < tiny ? tiny : c;
			h *= d * c;
			if (odd && fabs(d * c - 1) < 4 * DBL_EPSILON)
				return h;
		}
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double incomplete_beta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double student_t_cdf(double t, double df)
{
	double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df)
{
	double lo = 0, hi = 1;
	while (student_t_cdf(hi, df) < p && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (student_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}
