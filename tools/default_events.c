/* SPDX-License-Identifier: MIT */
#include "default_events.h"

#include <stddef.h>

const char *default_events_spec(bool has_core_pmu)
{
	/* Software events stay outside braces: the counter packs them, and cycles/instructions share one
	 * group so that IPC comes from one time window. */
	return has_core_pmu ? "task-clock,context-switches,cpu-migrations,page-faults,"
	                      "cycles,instructions,branches,branch-misses"
	                    : "task-clock,context-switches,cpu-migrations,page-faults";
}

const char *default_events_note(bool has_core_pmu)
{
	return has_core_pmu ? NULL
	                    : "no hardware PMU here (a VM without a virtual PMU?): counting software events "
	                      "only; cycles, instructions and branches need one";
}
