/* SPDX-License-Identifier: MIT */
/* The unit an event's count is shown in (tally stat, tally compare). */
#ifndef TALLY_TOOLS_EVENT_UNIT_H
#define TALLY_TOOLS_EVENT_UNIT_H

#include <tally/events.h>

/* The display unit of event info and the factor from its count to it: the clocks count ns and are shown
 * in msec as perf does; a sysfs alias brings its own unit and scale; others are counts ("", 1). */
void event_unit(const struct tally_event_info *info, const char **unit, double *scale);

#endif
