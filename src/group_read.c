/* SPDX-License-Identifier: MIT */
#include "group_read.h"

#include "error.h"

#include <linux/perf_event.h>
#include <string.h>

/* Buffers may come from anywhere (tests build them byte by byte): load each u64 without assuming
 * alignment. The compiler turns this into one load. */
static inline uint64_t load_u64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static size_t has(uint64_t read_format, uint64_t flag)
{
	return (read_format & flag) ? 1 : 0;
}

size_t tly_read_size(uint64_t read_format, size_t nr)
{
	size_t times = has(read_format, PERF_FORMAT_TOTAL_TIME_ENABLED) +
	               has(read_format, PERF_FORMAT_TOTAL_TIME_RUNNING);
	size_t per_event = 1 + has(read_format, PERF_FORMAT_ID) + has(read_format, PERF_FORMAT_LOST);
	if (read_format & PERF_FORMAT_GROUP)
		return sizeof(uint64_t) * (1 + times + nr * per_event);
	return sizeof(uint64_t) * (times + per_event);
}

static int decode_single(const unsigned char *p, size_t len, uint64_t read_format, const uint64_t *ids,
                         struct tally_count *count)
{
	size_t need = tly_read_size(read_format, 1);
	if (len < need)
		return tly_error(-EIO, "short read: %zu of %zu bytes", len, need);
	count->value = load_u64(p);
	p += 8;
	count->enabled = has(read_format, PERF_FORMAT_TOTAL_TIME_ENABLED) ? load_u64(p) : 0;
	p += 8 * has(read_format, PERF_FORMAT_TOTAL_TIME_ENABLED);
	count->running = has(read_format, PERF_FORMAT_TOTAL_TIME_RUNNING) ? load_u64(p) : 0;
	p += 8 * has(read_format, PERF_FORMAT_TOTAL_TIME_RUNNING);
	count->id = ids[0];
	if (read_format & PERF_FORMAT_ID) {
		uint64_t id = load_u64(p);
		p += 8;
		if (id != ids[0])
			return tly_error(-EPROTO, "read returned id %#llx, expected %#llx",
			                 (unsigned long long)id, (unsigned long long)ids[0]);
	}
	count->lost = has(read_format, PERF_FORMAT_LOST) ? load_u64(p) : 0;
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

static int decode_group(const unsigned char *p, size_t len, uint64_t read_format, const uint64_t *ids,
                        size_t n, struct tally_count *counts)
{
	if (len < sizeof(uint64_t))
		return tly_error(-EIO, "short read: %zu bytes, not even the group size", len);
	uint64_t nr = load_u64(p);
	p += 8;
	if (nr != n)
		return tly_error(-EPROTO, "the group read has %llu events, expected %zu", (unsigned long long)nr,
		                 n);
	size_t need = tly_read_size(read_format, n);
	if (len < need)
		return tly_error(-EIO, "short read: %zu of %zu bytes for a group of %zu", len, need, n);
	uint64_t enabled = 0, running = 0;
	if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) {
		enabled = load_u64(p);
		p += 8;
	}
	if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) {
		running = load_u64(p);
		p += 8;
	}
	if (!(read_format & PERF_FORMAT_ID)) {
		/* A group of one needs no matching; a bigger group read without ids could only be matched by
		 * position, which is what this decoder exists to avoid. */
		if (n != 1)
			return tly_error(-EINVAL, "a group read of %zu events without PERF_FORMAT_ID", n);
		counts[0] = (struct tally_count){ .value = load_u64(p), .enabled = enabled, .running = running,
		                                  .id = ids[0],
		                                  .lost = has(read_format, PERF_FORMAT_LOST) ? load_u64(p + 8) : 0 };
		return 0;
	}
	size_t has_lost = has(read_format, PERF_FORMAT_LOST), stride = 8 * (2 + has_lost);
	/* The kernel lists a group in the order its members joined, which is the order of ids[]: when every
	 * entry carries the id of its own position (ids are never 0), each slot is filled exactly once and
	 * the read is decoded in one pass. Anything else goes through matching by id below. */
	size_t i = 0;
	while (i < n && ids[i] != 0 && load_u64(p + i * stride + 8) == ids[i])
		i++;
	if (i == n) {
		for (i = 0; i < n; i++, p += stride)
			counts[i] = (struct tally_count){ .value = load_u64(p), .enabled = enabled, .running = running,
				                          .id = ids[i], .lost = has_lost ? load_u64(p + 16) : 0 };
		return 0;
	}
	for (size_t k = 0; k < n; k++)
		if (ids[k] == 0)
			return tly_error(-EINVAL, "tly_read_decode: id of slot %zu is 0", k);
	/* counts[k].id stays 0 until slot k is filled: that is how a repeated id is caught. */
	for (size_t k = 0; k < n; k++)
		counts[k].id = 0;
	for (i = 0; i < n; i++) {
		uint64_t value = load_u64(p), id = load_u64(p + 8);
		uint64_t lost = has_lost ? load_u64(p + 16) : 0;
		p += stride;
		long k = find_slot(ids, n, i, id);
		if (k < 0)
			return tly_error(-EPROTO, "group read: entry %zu has id %#llx, which belongs to no event of "
			                 "the group", i, (unsigned long long)id);
		if (counts[k].id != 0)
			return tly_error(-EPROTO, "group read: id %#llx appears twice", (unsigned long long)id);
		counts[k] = (struct tally_count){ .value = value, .enabled = enabled, .running = running,
		                                  .id = id, .lost = lost };
	}
	return 0;
}

int tly_read_decode(const void *buf, size_t len, uint64_t read_format, const uint64_t *ids, size_t n,
                    struct tally_count *counts)
{
	if (!buf || !ids || !counts || n == 0)
		return tly_error(-EINVAL, "tly_read_decode: bad arguments");
	/* A group read with ids checks them as it matches entries (the hot path, where a loop more counts). */
	bool checked_later = (read_format & PERF_FORMAT_GROUP) && (read_format & PERF_FORMAT_ID);
	for (size_t k = 0; k < n && !checked_later; k++)
		if (ids[k] == 0)
			return tly_error(-EINVAL, "tly_read_decode: id of slot %zu is 0", k);
	if (read_format & PERF_FORMAT_GROUP)
		return decode_group(buf, len, read_format, ids, n, counts);
	if (n != 1)
		return tly_error(-EINVAL, "a read without PERF_FORMAT_GROUP returns one event, not %zu", n);
	return decode_single(buf, len, read_format, ids, counts);
}
