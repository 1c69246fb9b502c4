/* SPDX-License-Identifier: MIT */
/* The events `tally stat` counts without -e or adds with -d, and `tally doctor` tries for real. */
#ifndef TALLY_TOOLS_DEFAULT_EVENTS_H
#define TALLY_TOOLS_DEFAULT_EVENTS_H

#include <stdbool.h>

/* perf stat's defaults: the software four (the clock is cpu-clock when counting CPUs, system wide, as
 * perf's is), then with_hardware the hardware four. tally stat asks for the hardware ones also where no
 * core PMU counts them, as perf does: CSV and JSON then carry their <not supported> rows as perf's do,
 * and the table leaves them out for the note. */
const char *default_events_spec(bool with_hardware, bool system_wide);

/* perf stat -d's events, which it appends to the others (the defaults or -e's): level 1 the L1 data
 * and last-level caches' loads and misses, 2 the L1 instruction cache and the TLBs too, 3 the L1 data
 * prefetches too (perf 6.1's builtin-stat.c, add_default_attributes: detailed_attrs,
 * very_detailed_attrs, very_very_detailed_attrs). NULL for level 0. */
const char *default_events_detailed(unsigned level);

/* The one-line note shown when the events tally added (the defaults, -d's) leave hardware events out, or
 * NULL when they do not. */
const char *default_events_note(bool has_core_pmu, unsigned detailed);

#endif
