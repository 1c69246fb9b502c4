/* SPDX-License-Identifier: MIT */
#include "report/default_events.h"

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

const char *default_events_detailed(unsigned level)
{
	/* Each level is the one before with its own set appended, in perf's order. Outside braces, as perf
	 * adds them: the counter packs them as any events of one PMU, and one the PMU lacks leaves its group
	 * while the others count. */
#define LEVEL1 "L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses"
#define LEVEL2 LEVEL1 ",L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,iTLB-loads,iTLB-load-misses"
#define LEVEL3 LEVEL2 ",L1-dcache-prefetches,L1-dcache-prefetch-misses"
	static const char *const specs[] = { NULL, LEVEL1, LEVEL2, LEVEL3 };
#undef LEVEL1
#undef LEVEL2
#undef LEVEL3
	return specs[level < sizeof(specs) / sizeof(specs[0]) ? level : 0];
}

const char *default_events_note(bool has_core_pmu, unsigned detailed)
{
	if (has_core_pmu)
		return NULL;
	return detailed ? "no hardware PMU here (a VM without a virtual PMU?): counting software events only; "
	                  "cycles, instructions, branches and -d's cache events need one"
	                : "no hardware PMU here (a VM without a virtual PMU?): counting software events only; "
	                  "cycles, instructions and branches need one";
}
