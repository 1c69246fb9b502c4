/* SPDX-License-Identifier: MIT */
/*
 * --json-format=perf at unit level, with constructed counts no machine without multiplexing shows: an
 * event enabled 2000 ns and running 500 ns gives "event-runtime" 500 (the running time, as perf's
 * json-output does) and "pcnt-running" 25.00, never the enabled time or 100 %.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#include "report/output.h"

static const struct report_event faults[1] = {
	{ .name = "page-faults", .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS, .group = -1,
	  .unit = "", .unit_scale = 1 },
};

/* The closing perf JSON of one run whose one event has count c (a string to free). */
static char *perf_json_of(const struct report_count *c)
{
	struct report r = { .nr_events = 1, .events = faults, .target = "'x'", .target_kind = "command" };
	double stddev = 0;
	struct report_totals t = { .nr_runs = 1, .counts = c, .stddev = &stddev, .elapsed = 1 };
	char *text = NULL;
	size_t len = 0;
	struct output o = { .ops = &output_perf_json_ops, .out = open_memstream(&text, &len), .report = &r };
	if (!o.out)
		return NULL;
	o.ops->begin(&o);
	o.ops->finish(&o, &t);
	fclose(o.out);
	return text;
}

static void runtime_is_running_time(void)
{
	char *text = perf_json_of(&(struct report_count){ .value = 100, .scaled = 400, .enabled = 2000,
	                                                  .running = 500, .status = REPORT_SCALED });
	CHECK_CONTAINS(text, "\"event-runtime\" : 500, ");
	CHECK_CONTAINS(text, "\"pcnt-running\" : 25.00");
	CHECK_CONTAINS(text, "\"counter-value\" : \"400.000000\"");
	free(text);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "runtime_is_running_time", runtime_is_running_time },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
