/* SPDX-License-Identifier: MIT */
/*
 * A target's metrics' interval (--metrics): the scaled differences of every update from one --interval's
 * end to the next added per event (and per part), and at that end each metric computed from them, for the
 * target and, with --per-cpu, for each CPU, over the interval's wall-clock seconds. A scrape's update in
 * between adds to the interval without ending it, so that a metric is always one whole --interval's, not
 * the moments since the latest scrape.
 */
#ifndef TALLY_EXPORTER_FLEET_METRICS_H
#define TALLY_EXPORTER_FLEET_METRICS_H

#include "exporter/fleet.h"

/* Allocates t's interval and values for its nr_parts (0, or -ENOMEM) and starts its first interval. */
int fleet_metrics_open(const struct fleet *f, struct fleet_target *t);
void fleet_metrics_close(struct fleet_target *t);

/* Adds event i's difference: whole (tally_snapshot_delta's) and its n parts. */
void fleet_metrics_add(struct fleet_target *t, size_t i, const struct tally_result *whole,
                       const struct tally_part *parts, size_t n);

/* The interval's end: every metric computed from it (none for a target opened during it), the next
 * begun at the target's latest snapshot. */
void fleet_metrics_interval_end(const struct fleet *f, struct fleet_target *t);

/* CLOCK_MONOTONIC in seconds. */
double fleet_now(void);

#endif
