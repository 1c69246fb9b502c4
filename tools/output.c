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

void output_each_line(struct output *o, const struct output_reading *reading, output_line_fn fn)
{
	const struct report *r = o->report;
	for (size_t i = 0; i < r->nr_events; i++) {
		const struct report_count *c = &reading->counts[i];
		if (!r->show_parts || c->nr_parts == 0) {
			struct output_line line = {
				.event = i, .count = c, .has_metric = true,
				.stddev = reading->stddev ? reading->stddev[i] : 0,
			};
			fn(o, reading, &line);
			continue;
		}
		for (size_t k = 0; k < c->nr_parts; k++) {
			const struct report_part *p = &c->parts[k];
			struct report_count part = {
				.value = p->value, .scaled = p->scaled, .enabled = p->enabled,
				.running = p->running, .status = p->status,
			};
			struct output_line line = { .event = i, .count = &part, .part = p->label };
			fn(o, reading, &line);
		}
	}
}
