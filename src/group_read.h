/* SPDX-License-Identifier: MIT */
/*
 * Decoding what read(2) of a counting event returns, as perf_event_open(2) lays it out for read_format:
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
 * A pure function of its inputs (no system call), so that tests feed it constructed buffers.
 */
#ifndef TLY_GROUP_READ_H
#define TLY_GROUP_READ_H

#include <stddef.h>
#include <stdint.h>
#include <tally/evlist.h>

/* Bytes read(2) returns for read_format and nr events (nr is 1 without PERF_FORMAT_GROUP). */
size_t tly_read_size(uint64_t read_format, size_t nr);

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
