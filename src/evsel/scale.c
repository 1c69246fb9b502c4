/* SPDX-License-Identifier: MIT */
/* Extrapolating multiplexed counts to their enabled time, and differences between readings. */
#include "core/error.h"
#include "core/out_array.h"

#include <tally/evlist.h>

enum tally_count_status tally_count_scale(const struct tally_count *count, uint64_t *scaled)
{
	uint64_t result;
	enum tally_count_status status;
	if (!count || count->running == 0) {
		result = 0;
		status = TALLY_COUNT_NOT_COUNTED;
	} else if (count->running >= count->enabled) {
		result = count->value;
		status = TALLY_COUNT_EXACT;
	} else {
		/* value x enabled needs up to 128 bits (a 2^63 count over a multiplexing ratio of 3 already
		 * overflows 64); the quotient fits in 64 unless value x enabled / running really exceeds 2^64-1,
		 * in which case saturating is the honest answer. */
		unsigned __int128 product = (unsigned __int128)count->value * count->enabled;
		unsigned __int128 quotient = product / count->running;
		result = quotient > UINT64_MAX ? UINT64_MAX : (uint64_t)quotient;
		status = TALLY_COUNT_SCALED;
	}
	if (scaled)
		*scaled = result;
	return status;
}

int tally_count_delta(const struct tally_count *before_in, const struct tally_count *after_in,
                      struct tally_count *delta, size_t count_sz)
{
	if (!before_in || !after_in || !delta)
		return tly_error(-EINVAL, "tally_count_delta: NULL argument");
	if (!tly_out_valid(count_sz, TLY_COUNT_SZ_V1, _Alignof(struct tally_count), "tally_count"))
		return -TALLY_EOPTS;
	struct tally_count b, a;
	tly_in_get(&b, sizeof(b), before_in, count_sz);
	tly_in_get(&a, sizeof(a), after_in, count_sz);
	const struct tally_count *before = &b, *after = &a;
	if (before->id != after->id)
		return tly_error(-EINVAL, "tally_count_delta: readings of different events (ids %#llx, %#llx)",
		                 (unsigned long long)before->id, (unsigned long long)after->id);
	if (after->value < before->value || after->enabled < before->enabled ||
	    after->running < before->running || after->lost < before->lost)
		return tly_error(-EINVAL, "tally_count_delta: the later reading is smaller (was the event "
		                 "reset in between?)");
	struct tally_count d = {
		.value = after->value - before->value,
		.enabled = after->enabled - before->enabled,
		.running = after->running - before->running,
		.id = after->id,
		.lost = after->lost - before->lost,
	};
	tly_out_put(delta, count_sz, &d, sizeof(d));
	return 0;
}
