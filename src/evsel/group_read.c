/* SPDX-License-Identifier: MIT */
#include "evsel/group_read.h"

#include "core/error.h"

#include <linux/perf_event.h>

#define U64 sizeof(uint64_t)

static size_t has(uint64_t read_format, uint64_t flag)
{
	return (read_format & flag) ? 1 : 0;
}

/* u64s of the fixed part before the values: the times asked for (and nr, counted by the callers). */
static size_t times_u64s(uint64_t read_format)
{
	return has(read_format, PERF_FORMAT_TOTAL_TIME_ENABLED) + has(read_format, PERF_FORMAT_TOTAL_TIME_RUNNING);
}

/* u64s of one event's entry: value, then id and lost when asked. */
static size_t entry_u64s(uint64_t read_format)
{
	return 1 + has(read_format, PERF_FORMAT_ID) + has(read_format, PERF_FORMAT_LOST);
}

size_t tly_read_size(uint64_t read_format, size_t nr)
{
	if (read_format & PERF_FORMAT_GROUP)
		return U64 * (1 + times_u64s(read_format) + nr * entry_u64s(read_format));
	return U64 * (times_u64s(read_format) + entry_u64s(read_format));
}

size_t tly_read_max_group(uint64_t read_format)
{
	if (!(read_format & PERF_FORMAT_GROUP))
		return 1;
	size_t fixed = U64 * (1 + times_u64s(read_format));
	return (TLY_GROUP_READ_MAX - fixed) / (U64 * entry_u64s(read_format));
}

static int decode_single(const unsigned char *p, size_t len, uint64_t read_format, const uint64_t *ids,
                         struct tally_count *count)
{
	size_t need = tly_read_size(read_format, 1);
	if (len < need)
		return tly_error(-EIO, "short read: %zu of %zu bytes", len, need);
	/* Walked field by field in the order of the layout above: each present field is the next u64. */
	count->value = tly_load_u64(p);
	p += U64;
	count->enabled = has(read_format, PERF_FORMAT_TOTAL_TIME_ENABLED) ? tly_load_u64(p) : 0;
	p += U64 * has(read_format, PERF_FORMAT_TOTAL_TIME_ENABLED);
	count->running = has(read_format, PERF_FORMAT_TOTAL_TIME_RUNNING) ? tly_load_u64(p) : 0;
	p += U64 * has(read_format, PERF_FORMAT_TOTAL_TIME_RUNNING);
	count->id = ids[0];
	if (read_format & PERF_FORMAT_ID) {
		uint64_t id = tly_load_u64(p);
		p += U64;
		if (id != ids[0])
			return tly_error(-EPROTO, "read returned id %#llx, expected %#llx",
			                 (unsigned long long)id, (unsigned long long)ids[0]);
	}
	count->lost = has(read_format, PERF_FORMAT_LOST) ? tly_load_u64(p) : 0;
	return 0;
}

/* The slot whose id is `id`: the entry's own position first (the kernel's order is the order the
 * members were opened in, so this almost always hits), then a scan. -1 when absent. */
static long find_slot(const uint64_t *ids, size_t n, size_t position, uint64_t id)
{
	if (position < n && ids[position] == id)
		return (long)position;
	for (size_t k = 0; k < n; k++)
		if (ids[k] == id)
			return (long)k;
	return -1;
}

/* Entries (struct tly_group_entry, then lost when has_lost) matched to their slots by id, whatever their
 * order: the kernel's order is not part of its ABI. */
static int decode_by_id(const unsigned char *p, size_t entry_size, uint64_t enabled, uint64_t running,
                        const uint64_t *ids, size_t n, struct tally_count *counts)
{
	bool has_lost = entry_size > sizeof(struct tly_group_entry);
	/* counts[k].id stays 0 until slot k is filled: that is how a repeated id is caught. */
	for (size_t k = 0; k < n; k++)
		counts[k].id = 0;
	for (size_t i = 0; i < n; i++, p += entry_size) {
		uint64_t id = tly_load_u64(p + offsetof(struct tly_group_entry, id));
		long k = find_slot(ids, n, i, id);
		if (k < 0)
			return tly_error(-EPROTO, "group read: entry %zu has id %#llx, which belongs to no event of "
			                 "the group", i, (unsigned long long)id);
		if (counts[k].id != 0)
			return tly_error(-EPROTO, "group read: id %#llx appears twice", (unsigned long long)id);
		counts[k] = (struct tally_count){
			.value = tly_load_u64(p + offsetof(struct tly_group_entry, value)),
			.enabled = enabled,
			.running = running,
			.id = id,
			.lost = has_lost ? tly_load_u64(p + sizeof(struct tly_group_entry)) : 0,
		};
	}
	return 0;
}

static int decode_group(const unsigned char *p, size_t len, uint64_t read_format, const uint64_t *ids,
                        size_t n, struct tally_count *counts)
{
	if (len < U64)
		return tly_error(-EIO, "short read: %zu bytes, not even the group size", len);
	uint64_t nr = tly_load_u64(p);
	p += U64;
	if (nr != n)
		return tly_error(-EPROTO, "the group read has %llu events, expected %zu", (unsigned long long)nr,
		                 n);
	size_t need = tly_read_size(read_format, n);
	if (len < need)
		return tly_error(-EIO, "short read: %zu of %zu bytes for a group of %zu", len, need, n);
	uint64_t enabled = 0, running = 0;
	if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) {
		enabled = tly_load_u64(p);
		p += U64;
	}
	if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) {
		running = tly_load_u64(p);
		p += U64;
	}
	if (!(read_format & PERF_FORMAT_ID)) {
		/* A group of one needs no matching; a bigger group read without ids could only be matched by
		 * position, which is what this decoder exists to avoid. */
		if (n != 1)
			return tly_error(-EINVAL, "a group read of %zu events without PERF_FORMAT_ID", n);
		counts[0] = (struct tally_count){
			.value = tly_load_u64(p),
			.enabled = enabled,
			.running = running,
			.id = ids[0],
			.lost = has(read_format, PERF_FORMAT_LOST) ? tly_load_u64(p + U64) : 0,
		};
		return 0;
	}
	size_t entry_size = U64 * entry_u64s(read_format);
	if (tly_read_decode_in_order(p, entry_size, enabled, running, ids, n, counts))
		return 0;
	return decode_by_id(p, entry_size, enabled, running, ids, n, counts);
}

int tly_read_decode(const void *buf, size_t len, uint64_t read_format, const uint64_t *ids, size_t n,
                    struct tally_count *counts)
{
	if (!buf || !ids || !counts || n == 0)
		return tly_error(-EINVAL, "tly_read_decode: bad arguments");
	for (size_t k = 0; k < n; k++)
		if (ids[k] == 0)
			return tly_error(-EINVAL, "tly_read_decode: id of slot %zu is 0", k);
	if (read_format & PERF_FORMAT_GROUP)
		return decode_group(buf, len, read_format, ids, n, counts);
	if (n != 1)
		return tly_error(-EINVAL, "a read without PERF_FORMAT_GROUP returns one event, not %zu", n);
	return decode_single(buf, len, read_format, ids, counts);
}
