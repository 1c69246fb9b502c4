/* SPDX-License-Identifier: MIT */
/* Per-call statistics of a region's events: sums added call by call (inline in region_stats.h, but for
 * the calls that scale, subtract or count first), made means and deviations and merged over threads when
 * read. */
#include "region/region_stats.h"

#include "counter/aggregate.h"

void tly_region_acc_init(struct tly_region_acc *acc, size_t n, const size_t *unsupported, size_t nr_unsupported)
{
	for (size_t i = 0; i < n; i++)
		acc[i] = (struct tly_region_acc){ .min = UINT64_MAX, .ratio = 1.0, .status = TALLY_STATUS_NOT_COUNTED };
	for (size_t u = 0; u < nr_unsupported; u++)
		acc[unsupported[u]].status = TALLY_STATUS_NOT_SUPPORTED;
}

void tly_region_stats_init(struct tly_region_stats *stats, size_t n)
{
	for (size_t i = 0; i < n; i++)
		stats[i] = (struct tly_region_stats){ .min = UINT64_MAX, .status = TALLY_STATUS_NOT_COUNTED };
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

void tly_region_group_call(struct tly_region_acc *acc, const struct tly_raw_group *gr, const uint64_t *begin,
                           const uint64_t *end, const uint64_t *overhead, bool subtract)
{
	uint64_t enabled = tly_window_since(end[gr->at + 1], begin[gr->at + 1]);
	uint64_t running = tly_window_since(end[gr->at + 2], begin[gr->at + 2]);
	if (running == 0 && enabled != 0) {
		tly_region_group_uncounted(acc, gr); /* the weakest status, which changes no other */
		return;
	}
	double ratio = running >= enabled ? 1.0 : (double)running / (double)enabled;
	enum tally_status status = running >= enabled ? TALLY_STATUS_EXACT : TALLY_STATUS_SCALED;
	for (size_t k = 0; k < gr->nr; k++) {
		size_t i = gr->members[k], at = gr->at + 3 + gr->stride * k;
		struct tally_count d = { .value = tly_window_since(end[at], begin[at]), .enabled = enabled,
			                 .running = running };
		uint64_t v;
		tally_count_scale(&d, &v);
		if (subtract)
			v = v > overhead[i] ? v - overhead[i] : 0;
		acc[i].status = status_merge(acc[i].status, status);
		if (ratio < acc[i].ratio)
			acc[i].ratio = ratio;
		tly_region_acc_count(&acc[i], v);
	}
}

void tly_region_group_uncounted(struct tly_region_acc *acc, const struct tly_raw_group *gr)
{
	for (size_t k = 0; k < gr->nr; k++)
		acc[gr->members[k]].uncounted++;
}

/* A thread's mean and sum of squared deviations from its sums over counted calls: m2 = squares - sum^2 /
 * counted, in integers (sum^2 fits 128 bits). */
static void acc_moments(const struct tly_region_acc *a, uint64_t counted, double *mean, double *m2)
{
	unsigned __int128 q = (unsigned __int128)a->sum * a->sum;
	*mean = (double)a->sum / (double)counted;
	*m2 = a->squares >= q / counted ? (double)(a->squares - q / counted) - (double)(q % counted) / (double)counted
	                                : 0;
}

void tly_region_stats_add(struct tly_region_stats *total, const struct tly_region_acc *part, uint64_t calls)
{
	uint64_t counted = tly_region_acc_counted(part, calls);
	total->status = status_merge(total->status, tly_region_acc_status(part, calls));
	if (counted == 0)
		return;
	double mean, m2;
	acc_moments(part, counted, &mean, &m2);
	uint64_t n = total->counted + counted;
	double d = mean - total->mean;
	total->m2 += m2 + d * d * (double)total->counted * (double)counted / (double)n;
	total->mean += d * (double)counted / (double)n;
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
