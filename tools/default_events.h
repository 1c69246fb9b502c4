/* SPDX-License-Identifier: MIT */
/* The events `tally stat` counts without -e, and `tally doctor` tries for real. */
#ifndef TALLY_TOOLS_DEFAULT_EVENTS_H
#define TALLY_TOOLS_DEFAULT_EVENTS_H

#include <stdbool.h>

/* perf stat's defaults: the software four, then the hardware four where a core PMU exists. */
const char *default_events_spec(bool has_core_pmu);

/* The one-line note shown when hardware events are left out, or NULL when they are not. */
const char *default_events_note(bool has_core_pmu);

#endif
