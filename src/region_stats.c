/* SPDX-License-Identifier: MIT */
/* Per-call statistics of a region's events: sums added call by call, made means and deviations and merged
 * over threads when read. */
#include "region.h"

#include "aggregate.h"

void tly_region_acc_init(struct tly_region_acc *acc, size_t n)
{
	for (size_t i = 0; i < n; i++)
		acc[i] = (struct tly_region_acc){ .min = UINT64_MAX, .status = TALLY_STATUS_NOT_COUNTED };
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

/* The scaled delta v of a call, less the overhead when asked. */
static inline uint64_t less_overhead(uint64_t v, uint64_t overhead, bool subtract)
{
	return subtract ? (v > overhead ? v - overhead : 0) : v;
}

/* One counted call of one event: v, less the overhead when asked; the squares are taken from the first
 * counted call's (acc->first, which the caller sets at that call). */
static inline __attribute__((always_inline)) void acc_count(struct tly_region_acc *acc, uint64_t v)
{
	int64_t d = (int64_t)(v - acc->first);
	acc->squares += (unsigned __int128)((__int128)d * d);
	acc->counted++;
	acc->sum = acc->sum + v < acc->sum ? UINT64_MAX : acc->sum + v;
	acc->min = v < acc->min ? v : acc->min;
	acc->max = v > acc->max ? v : acc->max;
}

/* A call of group gr that did not run all its window (or not at all): per member, tally_snapshot_delta's
 * scaling of one part (tally_count_scale, tly_sum_result's ratio). Out of the common path's way. */
static __attribute__((noinline)) void group_scaled(struct tly_region_acc *acc, const struct tly_raw_group *gr,
                                                   const uint64_t *begin, const uint64_t *end,
                                                   const uint64_t *overhead, bool subtract)
{
	uint64_t enabled = tly_window_since(end[gr->at + 1], begin[gr->at + 1]);
	uint64_t running = tly_window_since(end[gr->at + 2], begin[gr->at + 2]);
	if (running == 0)
		return; /* not counted: the weakest status, which changes no other */
	double ratio = running >= enabled ? (enabled ? 1.0 : 0.0) : (double)running / (double)enabled;
	enum tally_status status = running >= enabled ? TALLY_STATUS_EXACT : TALLY_STATUS_SCALED;
	for (size_t k = 0; k < gr->nr; k++) {
		size_t i = gr->members[k], at = gr->at + 3 + 2 * k;
		struct tally_count d = { .value = tly_window_since(end[at], begin[at]), .enabled = enabled,
			                 .running = running };
		uint64_t v;
		tally_count_scale(&d, &v);
		acc[i].status = status_merge(acc[i].status, status);
		v = less_overhead(v, overhead[i], subtract);
		bool first = acc[i].counted == 0;
		if (first)
			acc[i].first = v;
		acc_count(&acc[i], v);
		if (first || ratio < acc[i].ratio)
			acc[i].ratio = ratio;
	}
}

/* Per event, what tally_snapshot_delta gives for one part (tly_sum_add, tly_sum_result), fused with the
 * statistics so that the end of a region stores nothing in between. A group's members share its times,
 * so whether they ran all the window (exact, ratio 1: the common case) is decided once per group. */
void tly_region_acc_add(struct tly_region_acc *acc, const struct tly_raw_layout *l, const uint64_t *begin,
                        const uint64_t *end, const uint64_t *overhead, bool subtract)
{
	for (size_t u = 0; u < l->nr_unsupported; u++)
		acc[l->unsupported[u]].status = TALLY_STATUS_NOT_SUPPORTED;
	for (const struct tly_raw_group *gr = l->groups; gr < l->groups + l->nr_groups; gr++) {
		uint64_t enabled = tly_window_since(end[gr->at + 1], begin[gr->at + 1]);
		uint64_t running = tly_window_since(end[gr->at + 2], begin[gr->at + 2]);
		if (__builtin_expect(running != enabled || running == 0, 0)) {
			group_scaled(acc, gr, begin, end, overhead, subtract);
			continue;
		}
		const uint64_t *b = begin + gr->at + 3, *e = end + gr->at + 3;
		for (size_t k = 0; k < gr->nr; k++) {
			struct tly_region_acc *a = &acc[gr->members[k]];
			uint64_t v = less_overhead(tly_window_since(e[2 * k], b[2 * k]), overhead[gr->members[k]], subtract);
			/* Only the first counted call changes them: every ratio is at most 1, and an exact call
			 * changes no status but not counted (which a counted call never leaves). */
			if (__builtin_expect(a->counted == 0, 0)) {
				a->first = v;
				a->ratio = 1.0;
				a->status = status_merge(a->status, TALLY_STATUS_EXACT);
			}
			acc_count(a, v);
		}
	}
}

/* A thread's mean and sum of squared deviations from its sums: with D the sum of the calls' differences
 * from the first (sum - counted x first), m2 = squares - D^2 / counted, in 128 bits while the sum did not
 * saturate. */
static void acc_moments(const struct tly_region_acc *a, double *mean, double *m2)
{
	unsigned __int128 n = a->counted;
	__int128 diff = (__int128)a->sum - (__int128)(n * a->first);
	unsigned __int128 dd = (unsigned __int128)(diff * diff);
	*mean = (double)a->first + (double)diff / (double)n;
	*m2 = a->squares >= dd / n ? (double)(a->squares - dd / n) - (double)(dd % n) / (double)n : 0;
}

void tly_region_stats_add(struct tly_region_stats *total, const struct tly_region_acc *part)
{
	total->status = status_merge(total->status, part->status);
	if (part->counted == 0)
		return;
	double mean, m2;
	acc_moments(part, &mean, &m2);
	uint64_t n = total->counted + part->counted;
	double d = mean - total->mean;
	total->m2 += m2 + d * d * (double)total->counted * (double)part->counted / (double)n;
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
