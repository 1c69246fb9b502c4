/* SPDX-License-Identifier: MIT */
#include "report/event_unit.h"

#include <linux/perf_event.h>

void event_unit(const struct tally_event_info *info, const char **unit, double *scale)
{
	*unit = "";
	*scale = 1.0;
	if (info->attr->type == PERF_TYPE_SOFTWARE &&
	    (info->attr->config == PERF_COUNT_SW_TASK_CLOCK || info->attr->config == PERF_COUNT_SW_CPU_CLOCK)) {
		*unit = "msec";
		*scale = 1e-6;
	} else if (info->unit) {
		*unit = info->unit;
		*scale = info->scale;
	}
}
