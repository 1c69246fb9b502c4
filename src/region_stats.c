/* SPDX-License-Identifier: MIT */
/* Per-call statistics of a region's events: added call by call, merged over threads. */
#include "region.h"

void tly_region_acc_init(struct tly_region_acc *acc, size_t n)
{
	for (size_t i = 0; i < n; i++)
		acc[i] = (struct tly_region_acc){ .min = UINT64_MAX, .status = TALLY_STATUS_NOT_COUNTED };
}

/* A status over several calls or threads: not supported wins (the event never opened), then scaled (one
 * multiplexed call makes the whole an estimate), then exact; not counted only when nothing counted. */
static enum tally_status status_merge(enum tally_status a, enum tally_status b)
{
	if (a == TALLY_STATUS_NOT_SUPPORTED || b == TALLY_STATUS_NOT_SUPPORTED)
		return TALLY_STATUS_NOT_SUPPORTED;
	if (a == TALLY_STATUS_SCALED || b == TALLY_STATUS_SCALED)
		return TALLY_STATUS_SCALED;
	if (a == TALLY_STATUS_EXACT || b == TALLY_STATUS_EXACT)
		return TALLY_STATUS_EXACT;
	return TALLY_STATUS_NOT_COUNTED;
}

void tly_region_acc_add(struct tly_region_acc *acc, const struct tally_result *delta, uint64_t overhead,
                        bool subtract)
{
	acc->status = status_merge(acc->status, delta->status);
	if (delta->status != TALLY_STATUS_EXACT && delta->status != TALLY_STATUS_SCALED)
		return;
	uint64_t v = delta->scaled;
	if (subtract)
		v = v > overhead ? v - overhead : 0;
	double prev_mean = acc->mean;
	acc->counted++;
	acc->mean += ((double)v - prev_mean) / (double)acc->counted;
	acc->m2 += ((double)v - prev_mean) * ((double)v - acc->mean);
	acc->sum = acc->sum + v < acc->sum ? UINT64_MAX : acc->sum + v;
	if (v < acc->min)
		acc->min = v;
	if (v > acc->max)
		acc->max = v;
	if (acc->counted == 1 || delta->ratio < acc->ratio)
		acc->ratio = delta->ratio;
}

void tly_region_acc_merge(struct tly_region_acc *total, const struct tly_region_acc *part)
{
	total->status = status_merge(total->status, part->status);
	if (part->counted == 0)
		return;
	uint64_t n = total->counted + part->counted;
	double d = part->mean - total->mean;
	total->m2 += part->m2 + d * d * (double)total->counted * (double)part->counted / (double)n;
	total->mean += d * (double)part->counted / (double)n;
	total->ratio = total->counted == 0 || part->ratio < total->ratio ? part->ratio : total->ratio;
	total->counted = n;
	total->sum = total->sum + part->sum < total->sum ? UINT64_MAX : total->sum + part->sum;
	if (part->min < total->min)
		total->min = part->min;
	if (part->max > total->max)
		total->max = part->max;
}

/* Newton's iteration from above, which decreases to the root: no libm for one square root (every
 * program of the library and the CLI would load it at start; tools/CMakeLists.txt says what that costs). */
double tly_region_sqrt(double x)
{
	if (!(x > 0))
		return 0;
	double r = 1;
	while (r * r < x)
		r *= 2;
	for (double next = 0.5 * (r + x / r); next < r; next = 0.5 * (r + x / r))
		r = next;
	return r;
}
