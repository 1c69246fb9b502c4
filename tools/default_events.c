/* SPDX-License-Identifier: MIT */
#include "default_events.h"

#include <stddef.h>

const char *default_events_spec(bool with_hardware, bool system_wide)
{
	/* Software events stay outside braces: the counter packs them, and cycles/instructions share one
	 * group so that IPC comes from one time window. */
	static const char *const specs[2][2] = {
		{ "task-clock,context-switches,cpu-migrations,page-faults",
		  "cpu-clock,context-switches,cpu-migrations,page-faults" },
		{ "task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions,branches,branch-misses",
		  "cpu-clock,context-switches,cpu-migrations,page-faults,cycles,instructions,branches,branch-misses" },
	};
	return specs[with_hardware][system_wide];
}

const char *default_events_note(bool has_core_pmu)
{
	return has_core_pmu ? NULL
	                    : "no hardware PMU here (a VM without a virtual PMU?): counting software events "
	                      "only; cycles, instructions and branches need one";
}
