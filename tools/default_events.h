/* SPDX-License-Identifier: MIT */
/* The events `tally stat` counts without -e, and `tally doctor` tries for real. */
#ifndef TALLY_TOOLS_DEFAULT_EVENTS_H
#define TALLY_TOOLS_DEFAULT_EVENTS_H

#include <stdbool.h>

/* perf stat's defaults: the software four (the clock is cpu-clock when counting CPUs, system wide, as
 * perf's is), then with_hardware the hardware four. tally stat asks for the hardware ones also where no
 * core PMU counts them, as perf does: CSV and JSON then carry their <not supported> rows as perf's do,
 * and the table leaves them out for the note. */
const char *default_events_spec(bool with_hardware, bool system_wide);

/* The one-line note shown when hardware events are left out, or NULL when they are not. */
const char *default_events_note(bool has_core_pmu);

#endif
