/* SPDX-License-Identifier: MIT */
/* What the writers share: how a count is displayed. */
#include "output.h"

const char *output_status_placeholder(enum report_status status)
{
	switch (status) {
	case REPORT_NOT_COUNTED: return "<not counted>";
	case REPORT_NOT_SUPPORTED: return "<not supported>";
	case REPORT_COUNTED:
	case REPORT_SCALED: break;
	}
	return NULL;
}

double output_display_value(const struct report_event *e, const struct report_count *c)
{
	return c->scaled * e->unit_scale;
}

int output_display_decimals(const struct report_event *e)
{
	return e->unit_scale != 1.0 ? 2 : 0;
}

double output_percent_running(const struct report_count *c)
{
	if (c->enabled == 0)
		return 100.0;
	return 100.0 * (double)c->running / (double)c->enabled;
}
