/* SPDX-License-Identifier: MIT */
/* Turning per-(CPU, thread) readings into one result per event, and results into one per spec item. */
#ifndef TLY_AGGREGATE_H
#define TLY_AGGREGATE_H

#include <stddef.h>
#include <tally/counter.h>
#include <tally/evlist.h>

/* Sums the parts of one event into r's value, enabled, running, scaled (each part scaled on its own, as
 * parts multiplex independently; sums saturate at 2^64-1), lost, ratio, status and nr_parts. Leaves the
 * other fields of r alone. */
void tly_aggregate_parts(const struct tally_count *parts, size_t n, struct tally_result *r);

/* One part as the public API shows it. */
void tly_aggregate_part(const struct tally_count *count, int cpu, pid_t tid, struct tally_part *out);

/* Adds result r into acc (two results of one spec item, e.g. the cpu_core and cpu_atom halves of a
 * hybrid "cycles"); with first, acc becomes a copy of r. A counted half outranks one that is not. */
void tly_aggregate_add(struct tally_result *acc, const struct tally_result *r, bool first);

#endif
