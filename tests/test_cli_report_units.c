/* SPDX-License-Identifier: MIT */
/*
 * The CLI's result model at unit level, compiled here from tools/ with constructed counts, for
 * behaviours no machine without a PMU (or without multiplexing) shows: the derived ratios beside an
 * event (IPC = instructions / cycles, miss % = misses / references × 100, GHz, CPUs utilized, rates),
 * JSON's enabled and running where they differ, -r's worst status over runs, and parts summed under one
 * label (--per-core's SMT siblings) where only some of them counted.
 */
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

#include "lib/json_writer.h"
#include "lib/text_escape.h"
#include "report/number_format.h"
#include "report/output.h"
#include "report/readings.h"
#include "report/report_metrics.h"

#define HW(id) { .name = #id, .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_##id, .group = -1 }
#define SW(id) { .name = #id, .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_##id, .group = -1 }

enum { INSNS, CYCLES, BRANCHES, BRANCH_MISSES, CACHE_REFS, CACHE_MISSES, TASK_CLOCK, FAULTS, NR };

static const struct report_event events[NR] = {
	[INSNS] = HW(INSTRUCTIONS),         [CYCLES] = HW(CPU_CYCLES),
	[BRANCHES] = HW(BRANCH_INSTRUCTIONS), [BRANCH_MISSES] = HW(BRANCH_MISSES),
	[CACHE_REFS] = HW(CACHE_REFERENCES),  [CACHE_MISSES] = HW(CACHE_MISSES),
	[TASK_CLOCK] = SW(TASK_CLOCK),        [FAULTS] = SW(PAGE_FAULTS),
};

/* Counts chosen so that every ratio differs from its inverse: IPC 0.5, 2.5 % of branches, 25 % of cache
 * references, 2 CPUs utilized over one second, 1.5 GHz, 2 K faults per CPU second. */
static void fill_counts(struct report_count *c)
{
	static const double scaled[NR] = {
		[INSNS] = 1.5e9,  [CYCLES] = 3e9,        [BRANCHES] = 200,   [BRANCH_MISSES] = 5,
		[CACHE_REFS] = 120, [CACHE_MISSES] = 30, [TASK_CLOCK] = 2e9, [FAULTS] = 4000,
	};
	for (int i = 0; i < NR; i++)
		c[i] = (struct report_count){ .value = (uint64_t)scaled[i], .scaled = scaled[i], .enabled = 1000,
			                      .running = 1000, .status = REPORT_COUNTED };
}

/* The events list the library's metrics are keyed by: the same events, parsed (main). */
static struct report report = { .nr_events = NR, .events = events };

static void check_metric(const struct report_count *c, int i, double want, const char *unit)
{
	struct tally_metric_value m;
	CHECK(report_comment(&report, c, (size_t)i, 1.0, &m));
	if (fabs(m.value - want) > 1e-9 * fabs(want))
		fprintf(stderr, "  %s: metric %g %s, expected %g %s\n", events[i].name, m.value, m.unit, want, unit);
	CHECK(fabs(m.value - want) <= 1e-9 * fabs(want));
	CHECK_STR(m.unit, unit);
}

static void derived_ratios(void)
{
	struct report_count c[NR];
	fill_counts(c);
	check_metric(c, INSNS, 0.5, "insn per cycle");
	check_metric(c, BRANCH_MISSES, 2.5, "% of all branches");
	check_metric(c, CACHE_MISSES, 25, "% of all cache refs");
	check_metric(c, TASK_CLOCK, 2, "CPUs utilized");
	check_metric(c, CYCLES, 1.5, "GHz");
	check_metric(c, FAULTS, 2, "K/sec");
}

static void ratio_without_partner(void)
{
	struct report_count c[NR];
	struct tally_metric_value m;
	fill_counts(c);
	c[CYCLES].status = REPORT_NOT_COUNTED;
	c[BRANCHES].scaled = 0;
	CHECK(!report_comment(&report, c, INSNS, 1.0, &m));
	CHECK(!report_comment(&report, c, BRANCH_MISSES, 1.0, &m));
	/* A partner that counted for part of the time (scaled) still gives the ratio. */
	c[CACHE_REFS].status = REPORT_SCALED;
	CHECK(report_comment(&report, c, CACHE_MISSES, 1.0, &m));
	c[CACHE_MISSES].status = REPORT_NOT_SUPPORTED;
	CHECK(!report_comment(&report, c, CACHE_MISSES, 1.0, &m));
}

/* The closing JSON record of one multiplexed event (enabled 2000 ns, running 500 ns) and its one part
 * (3000 and 700). */
static void json_enabled_running(void)
{
	static const struct report_event faults[1] = { SW(PAGE_FAULTS) };
	struct report r = { .nr_events = 1, .events = faults, .target = "'x'", .target_kind = "command",
		            .show_parts = true };
	struct report_part part = { .label = "CPU0", .cpu = 0, .tid = -1, .value = 70, .scaled = 300,
		                    .enabled = 3000, .running = 700, .status = REPORT_SCALED };
	struct report_count c = { .value = 100, .scaled = 400, .enabled = 2000, .running = 500,
		                  .status = REPORT_SCALED, .nr_parts = 1, .parts = &part };
	double stddev = 0;
	struct report_totals t = { .nr_runs = 1, .counts = &c, .stddev = &stddev, .elapsed = 1 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct output o = { .ops = &output_json_ops, .out = f, .report = &r };
	o.ops->begin(&o);
	o.ops->finish(&o, &t);
	fclose(f);
	CHECK_CONTAINS(text, "\"value\": 100,");
	CHECK_CONTAINS(text, "\"scaled\": 400,");
	CHECK_CONTAINS(text, "\"enabled\": 2000,");
	CHECK_CONTAINS(text, "\"running\": 500,");
	CHECK_CONTAINS(text, "\"status\": \"scaled\"");
	/* In that order, as docs/json-schema.json lists them. */
	const char *enabled = text ? strstr(text, "\"enabled\": 2000") : NULL;
	const char *running = text ? strstr(text, "\"running\": 500") : NULL;
	CHECK(enabled && running && enabled < running);
	CHECK_CONTAINS(text, "\"enabled\": 3000,");
	CHECK_CONTAINS(text, "\"running\": 700,");
	free(text);
}

/* -r: each event keeps the worst status of its runs, whichever run had it. */
static void worst_status_over_runs(void)
{
	CHECK_INT(report_status_worse(REPORT_COUNTED, REPORT_NOT_COUNTED), REPORT_NOT_COUNTED);
	CHECK_INT(report_status_worse(REPORT_NOT_COUNTED, REPORT_COUNTED), REPORT_NOT_COUNTED);
	CHECK_INT(report_status_worse(REPORT_SCALED, REPORT_COUNTED), REPORT_SCALED);
	CHECK_INT(report_status_worse(REPORT_COUNTED, REPORT_SCALED), REPORT_SCALED);
	CHECK_INT(report_status_worse(REPORT_NOT_SUPPORTED, REPORT_SCALED), REPORT_NOT_SUPPORTED);
	CHECK_INT(report_status_worse(REPORT_COUNTED, REPORT_COUNTED), REPORT_COUNTED);
	/* Folded over runs as stat/repeat.c folds them: one bad run in the middle decides. */
	static const enum report_status runs[] = { REPORT_COUNTED, REPORT_NOT_COUNTED, REPORT_SCALED,
		                                   REPORT_COUNTED };
	enum report_status worst = runs[0];
	for (size_t i = 1; i < sizeof(runs) / sizeof(runs[0]); i++)
		worst = report_status_worse(worst, runs[i]);
	CHECK_INT(worst, REPORT_NOT_COUNTED);
}

/* Parts that share a label are summed as the library sums an event's parts: one that did not count adds
 * nothing, so the label reads the others' value (scaled if any was), never <not counted> over a count.
 * Under multiplexing one SMT sibling may miss a whole interval while the other counts; the core's row read
 * <not counted>, hiding the count that the event's total includes. Two parts of one thread on two CPUs
 * share their label as two CPUs of one core do. */
static void parts_under_one_label(void)
{
	struct tally_part parts[2] = {
		{ .cpu = 0, .tid = getpid(), .value = 10, .enabled = 100, .running = 50, .scaled = 20,
		  .status = TALLY_STATUS_SCALED },
		{ .cpu = 1, .tid = getpid(), .value = 0, .enabled = 100, .running = 0, .scaled = 0,
		  .status = TALLY_STATUS_NOT_COUNTED },
	};
	for (int order = 0; order < 2; order++) {
		struct event_reading ev = { .result = { .status = TALLY_STATUS_SCALED, .nr_parts = 2 } };
		ev.parts = order ? (struct tally_part[]){ parts[1], parts[0] } : parts;
		ev.nr_parts = 2;
		struct report_count count;
		struct readings rd = { .n = 1, .aggregation = AGGR_THREAD, .events = &ev, .counts = &count };
		CHECK_INT(readings_fill_parts(&rd), 0);
		CHECK_INT(count.nr_parts, 1);
		CHECK_INT(count.parts[0].status, REPORT_SCALED);
		CHECK(count.parts[0].scaled == 20.0);
		CHECK_U64(count.parts[0].running, 50);
		free(ev.report_parts);
		free(ev.labels);
	}
	/* Only parts that did not count: the label does not count either. */
	struct tally_part idle[2] = { parts[1], parts[1] };
	idle[0].cpu = 0;
	struct event_reading ev = { .parts = idle, .nr_parts = 2 };
	struct report_count count;
	struct readings rd = { .n = 1, .aggregation = AGGR_THREAD, .events = &ev, .counts = &count };
	CHECK_INT(readings_fill_parts(&rd), 0);
	CHECK_INT(count.parts[0].status, REPORT_NOT_COUNTED);
	free(ev.report_parts);
	free(ev.labels);
}

int main(void)
{
	tally_events *list = NULL;
	if (tally_events_parse("instructions,cycles,branches,branch-misses,cache-references,cache-misses,task-clock,"
	                       "page-faults", NULL, &list)) {
		fprintf(stderr, "%s\n", tally_last_error());
		return 1;
	}
	report.list = list;
	static const struct harness_case cases[] = {
		{ "derived_ratios", derived_ratios },
		{ "ratio_without_partner", ratio_without_partner },
		{ "json_enabled_running", json_enabled_running },
		{ "worst_status_over_runs", worst_status_over_runs },
		{ "parts_under_one_label", parts_under_one_label },
		{ NULL, NULL },
	};
	int ret = harness_run(cases);
	tally_events_free(list);
	return ret;
}
