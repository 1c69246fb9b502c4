/* SPDX-License-Identifier: MIT */
/*
 * Decoding what read(2) of a counting event returns, as include/uapi/linux/perf_event.h lays it out for
 * read_format:
 *
 *   without PERF_FORMAT_GROUP           with PERF_FORMAT_GROUP
 *   { u64 value;                        { u64 nr;
 *     u64 time_enabled;  if ENABLED       u64 time_enabled;  if ENABLED
 *     u64 time_running;  if RUNNING       u64 time_running;  if RUNNING
 *     u64 id;            if ID            { u64 value;
 *     u64 lost;          if LOST (6.0+)     u64 id;      if ID
 *   }                                       u64 lost;    if LOST
 *                                         } values[nr]; }
 *
 * Pure functions of their inputs (no system call), so that tests feed them constructed buffers.
 */
#ifndef TLY_GROUP_READ_H
#define TLY_GROUP_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <tally/evsel.h>

/* The head of a group read with both times, the layout every group read of tally asks for
 * (PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID). */
struct tly_group_head {
	uint64_t nr;
	uint64_t time_enabled;
	uint64_t time_running;
};

/* One entry of values[nr] with PERF_FORMAT_ID; u64 lost follows it only when PERF_FORMAT_LOST is asked,
 * which tally's counting reads never do (lost counts samples: always 0 when counting). */
struct tly_group_entry {
	uint64_t value;
	uint64_t id;
};

/* The most bytes the read of any event of a group may take: perf_event_open fails with E2BIG when a new
 * member would make the group's read larger (kernel/events/core.c, perf_event_validate_size() with
 * __perf_event_read_size(); 16*1024 since commit 382c27f4ed28, Linux 6.7 and the stable kernels that took
 * it, checked on 6.18). Older kernels checked only the joining event's own read, which tally's members
 * (without PERF_FORMAT_GROUP) never came near: this limit is the strictest one. */
#define TLY_GROUP_READ_MAX ((size_t)16 * 1024)

/* Buffers may come from anywhere (tests build them byte by byte): each u64 is loaded without assuming
 * alignment. The compiler turns this into one load. */
static inline uint64_t tly_load_u64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* Bytes read(2) returns for read_format and nr events (nr is 1 without PERF_FORMAT_GROUP): the kernel's
 * __perf_event_read_size(). */
size_t tly_read_size(uint64_t read_format, size_t nr);

/* The most events (leader included) a group whose leader reads with read_format may have: its read
 * stays within TLY_GROUP_READ_MAX. */
size_t tly_read_max_group(uint64_t read_format);

/* Decodes n entries of a group read (each entry_size bytes, struct tly_group_entry first) when they come
 * in the order of ids[], the order the members joined and so the order the kernel lists them
 * (perf_read_group walks the sibling list): each entry is checked against its own position's id while it
 * is copied. False at the first entry out of order (counts then partly written), for the caller to match
 * by id instead. restrict: counts never overlap the buffer or the ids, so nothing is loaded again after a
 * store. Inline: the counter's read path runs it on every read and is held to the cost of a bare read(2). */
static inline bool tly_read_decode_in_order(const unsigned char *restrict entries, size_t entry_size,
                                            uint64_t enabled, uint64_t running, const uint64_t *restrict ids,
                                            size_t n, struct tally_count *restrict counts)
{
	bool has_lost = entry_size > sizeof(struct tly_group_entry);
	for (size_t k = 0; k < n; k++, entries += entry_size) {
		if (tly_load_u64(entries + offsetof(struct tly_group_entry, id)) != ids[k])
			return false;
		counts[k] = (struct tally_count){
			.value = tly_load_u64(entries + offsetof(struct tly_group_entry, value)),
			.enabled = enabled,
			.running = running,
			.id = ids[k],
			.lost = has_lost ? tly_load_u64(entries + sizeof(struct tly_group_entry)) : 0,
		};
	}
	return true;
}

/* A whole group read of n events in tally's layout (struct tly_group_head, then entries of entry_size
 * bytes) decoded by tly_read_decode_in_order. False when the group has another size or is out of order. */
static inline bool tly_read_decode_group_in_order(const void *buf, size_t entry_size, const uint64_t *restrict ids,
                                                  size_t n, struct tally_count *restrict counts)
{
	const unsigned char *p = buf;
	if (tly_load_u64(p + offsetof(struct tly_group_head, nr)) != n)
		return false;
	return tly_read_decode_in_order(p + sizeof(struct tly_group_head), entry_size,
	                                tly_load_u64(p + offsetof(struct tly_group_head, time_enabled)),
	                                tly_load_u64(p + offsetof(struct tly_group_head, time_running)), ids, n,
	                                counts);
}

/* Whether buf, a group read of n members in tally's layout without PERF_FORMAT_LOST (struct
 * tly_group_head, then struct tly_group_entry each), lists them in the order of ids[]: its count and each
 * entry's id compared in place, one test at the end, so that a read kept where it lies needs no decode
 * (the lean read(2) paths: counter_read.c, raw_read.h). n a constant where the caller knows it. */
static inline __attribute__((always_inline)) bool tly_read_group_in_order(const uint64_t *buf,
                                                                       const uint64_t *ids, size_t n)
{
	uint64_t differ = buf[0] ^ n;
#pragma GCC unroll 4
	for (size_t k = 0; k < n; k++)
		differ |= buf[4 + 2 * k] ^ ids[k];
	return differ == 0;
}

/* Decodes buf[0 .. len) into counts[0 .. n). ids[k] is the kernel id of the event that counts[k]
 * describes (ids of the kernel are never 0); with PERF_FORMAT_ID every entry is matched to its slot by id,
 * never by position, and every id must appear exactly once. Without PERF_FORMAT_ID only n == 1 can be
 * decoded (nothing to match by); counts[0].id is then ids[0]. Fields absent from read_format read as 0.
 * Errors, with a last-error text: -EIO for a buffer shorter than its layout (a short read), -EPROTO when
 * the group has another size than n or an id is unknown, repeated or missing, -EINVAL for bad arguments.
 * Allocates nothing. */
int tly_read_decode(const void *buf, size_t len, uint64_t read_format, const uint64_t *ids, size_t n,
                    struct tally_count *counts);

#endif
