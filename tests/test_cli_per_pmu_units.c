/* SPDX-License-Identifier: MIT */
/*
 * Events summed over several core PMUs (issue 12), at unit level with constructed reports in both
 * vendors' layouts: an Alder Lake's cpu_atom and cpu_core (generic events, the PMU's type in config[63:32])
 * and an RK3399's armv8_cortex_a53 and armv8_cortex_a72 (each cluster's own type, PMUv3 event numbers).
 * readings_fill sums each spec item's PMUs into its first event's line and keeps each PMU's own count; the
 * table and CSV show the sum, and with --per-pmu each PMU's line after it with its own times, status and
 * metric (the P-cores' IPC and the E-cores'); JSON carries the PMUs always.
 */
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fixture_tree.h"
#include "harness.h"

#include "lib/json_writer.h"
#include "lib/text_escape.h"
#include "report/number_format.h"
#include "report/output.h"
#include "report/readings.h"
#include "report/report_metrics.h"

#define ATOM (10ULL << 32)
#define CORE (4ULL << 32)

/* The library's expansion order (PMUs by name): cpu_atom before cpu_core. Each item's first event
 * shows the line, named as written. */
enum { CYC_ATOM, CYC_CORE, INS_ATOM, INS_CORE, CLOCK, NR };

#define X86(nm, pmu_, id, upper, own, head)                                                        \
	{ .name = nm, .pmu = pmu_, .pmu_name = own, .type = PERF_TYPE_HARDWARE,                      \
	  .config = PERF_COUNT_HW_##id | (upper), .group = -1, .unit = "", .unit_scale = 1,         \
	  .line = head, .summed = (head) == (size_t)-1, .hidden = (head) != (size_t)-1 }

static struct report_event intel_events[NR] = {
	[CYC_ATOM] = X86("cycles", "cpu_atom", CPU_CYCLES, ATOM, "cpu_atom/cycles/", (size_t)-1),
	[CYC_CORE] = X86("cpu_core/cycles/", "cpu_core", CPU_CYCLES, CORE, "cpu_core/cycles/", CYC_ATOM),
	[INS_ATOM] = X86("instructions", "cpu_atom", INSTRUCTIONS, ATOM, "cpu_atom/instructions/", (size_t)-1),
	[INS_CORE] = X86("cpu_core/instructions/", "cpu_core", INSTRUCTIONS, CORE, "cpu_core/instructions/",
	                 INS_ATOM),
	[CLOCK] = { .name = "task-clock", .pmu = "software", .pmu_name = "task-clock", .type = PERF_TYPE_SOFTWARE,
		    .config = PERF_COUNT_SW_TASK_CLOCK, .group = -1, .unit = "msec", .unit_scale = 1e-6,
		    .line = CLOCK },
};

/* The X86 initializer marks a head with line -1; a head's line is itself. */
static void fix_heads(struct report_event *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (e[i].line == (size_t)-1)
			e[i].line = i;
}

static struct tally_result result(uint64_t value, uint64_t enabled, uint64_t running, enum tally_status status)
{
	double scaled = running ? (double)value * (double)enabled / (double)running : 0;
	return (struct tally_result){ .value = value, .enabled = enabled, .running = running,
		                      .scaled = (uint64_t)scaled, .status = status };
}

/* The counter a reading of spec on a machine's fixture tree comes from: the library sums a summed line's
 * PMUs by origin (tally_counter_sum_origins), so each result takes its event's origin from it. NULL, and
 * a failed check, where the spec does not give the n events the test lays out. */
static tally_counter *fixture_counter(const char *machine, const char *spec, size_t n)
{
	char root[4096];
	TALLY_OPTS(tally_counter_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), machine));
	tally_counter *c = NULL;
	if (tally_counter_new(spec, &opts, &c) != 0)
		fprintf(stderr, "%s on %s: %s\n", spec, machine, tally_last_error());
	CHECK(c && tally_counter_count(c) == n);
	return c;
}

/* Points rd at counter c (n events) and gives each result its event's origin. */
static void from_counter(struct readings *rd, struct event_reading *ev, tally_counter *c, size_t n)
{
	static struct tally_result scratch[8], sums[8];
	rd->counter = c;
	rd->results = scratch;
	rd->origin_sums = sums;
	for (size_t i = 0; c && i < n && i < 8; i++) {
		TALLY_OPTS(tally_event_info, info);
		if (tally_events_at(tally_counter_events(c), i, &info) == 0)
			ev[i].result.origin = info.origin;
	}
}

static tally_counter *intel_counter;

/* One reading as readings_fill makes it: the P-cores ran 3e9 cycles and 6e9 instructions (IPC 2), the
 * E-cores 1e9 cycles over half their enabled time (scaled to 2e9) and 1e9 instructions (IPC 0.5); 1 s of
 * task-clock. */
static void intel_reading(struct readings *rd, struct event_reading *ev, struct report_count *counts,
                          struct report_count *pmu_counts, const size_t *line)
{
	memset(ev, 0, NR * sizeof(*ev));
	ev[CYC_ATOM].result = result(1000000000, 2000, 1000, TALLY_STATUS_SCALED);
	ev[CYC_CORE].result = result(3000000000, 2000, 2000, TALLY_STATUS_EXACT);
	ev[INS_ATOM].result = result(1000000000, 2000, 2000, TALLY_STATUS_EXACT);
	ev[INS_CORE].result = result(6000000000, 2000, 2000, TALLY_STATUS_EXACT);
	ev[CLOCK].result = result(1000000000, 2000, 2000, TALLY_STATUS_EXACT);
	*rd = (struct readings){ .n = NR, .aggregation = AGGR_GLOBAL, .line = line, .events = ev, .counts = counts,
		                 .pmu_counts = pmu_counts };
	if (!intel_counter)
		intel_counter = fixture_counter("hybrid", "cycles,instructions,task-clock", NR);
	from_counter(rd, ev, intel_counter, NR);
	readings_fill(rd);
}

static void free_reading(struct event_reading *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(ev[i].report_parts);
		free(ev[i].labels);
	}
}

static const size_t intel_lines[NR] = { CYC_ATOM, CYC_ATOM, INS_ATOM, INS_ATOM, CLOCK };

/* The sums, and each PMU's own count beside them, with the sum's status and times. */
static void readings_sum_each_item(void)
{
	struct readings rd;
	struct event_reading ev[NR];
	struct report_count counts[NR], pmu[NR];
	intel_reading(&rd, ev, counts, pmu, intel_lines);
	CHECK(counts[CYC_ATOM].scaled == 5e9); /* 2e9 (scaled) + 3e9 */
	CHECK_U64(counts[CYC_ATOM].value, 4000000000);
	CHECK_U64(counts[CYC_ATOM].enabled, 4000);
	CHECK_U64(counts[CYC_ATOM].running, 3000);
	CHECK_INT(counts[CYC_ATOM].status, REPORT_SCALED);
	CHECK(counts[INS_ATOM].scaled == 7e9);
	CHECK_INT(counts[INS_ATOM].status, REPORT_COUNTED);
	CHECK(pmu[CYC_ATOM].scaled == 2e9);
	CHECK_INT(pmu[CYC_ATOM].status, REPORT_SCALED);
	CHECK(pmu[CYC_CORE].scaled == 3e9);
	CHECK_INT(pmu[CYC_CORE].status, REPORT_COUNTED);
	CHECK_INT(counts[CYC_ATOM].nr_parts, 0);
	/* A PMU that never ran adds nothing and leaves the sum counted: the command stayed on P-cores. */
	ev[CYC_ATOM].result = result(0, 2000, 0, TALLY_STATUS_NOT_COUNTED);
	from_counter(&rd, ev, intel_counter, NR);
	readings_fill(&rd);
	CHECK(counts[CYC_ATOM].scaled == 3e9);
	CHECK_INT(counts[CYC_ATOM].status, REPORT_COUNTED);
	CHECK_INT(pmu[CYC_ATOM].status, REPORT_NOT_COUNTED);
	CHECK(pmu[CYC_ATOM].reason != NULL);
	free_reading(ev, NR);
}

/* Writes the closing result of a reading in one format into a string (free it). */
static char *render(const struct output_ops *ops, const struct report *r, const struct report_count *counts,
                    const struct report_count *pmu_counts)
{
	double stddev[NR] = { 0 };
	struct report_totals t = { .nr_runs = 1, .counts = counts, .stddev = stddev, .pmu_counts = pmu_counts,
		                   .pmu_stddev = stddev, .elapsed = 1 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct output o = { .ops = ops, .out = f, .report = r };
	o.ops->begin(&o);
	o.ops->finish(&o, &t);
	fclose(f);
	return text;
}

/* The events the counts are keyed by, as the library parses them on a machine's fixture tree (the
 * metrics' inputs are matched by what each event counts). */
static tally_events *fixture_list(const char *machine, const char *spec)
{
	char root[4096];
	TALLY_OPTS(tally_parse_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), machine));
	tally_events *list = NULL;
	if (tally_events_parse(spec, &opts, &list) != 0)
		fprintf(stderr, "%s on %s: %s\n", spec, machine, tally_last_error());
	return list;
}

static tally_events *intel_list;

static struct report intel_report(bool show_pmus)
{
	fix_heads(intel_events, NR);
	if (!intel_list)
		intel_list = fixture_list("hybrid", "cycles,instructions,task-clock");
	return (struct report){ .nr_events = NR, .events = intel_events, .target = "'x'", .target_kind = "command",
		                .separator = ",", .show_pmus = show_pmus, .list = intel_list,
		                .numbers = { ",", "." } };
}

/* The table: the sums alone, or each followed by its PMUs with their own figures. */
static void intel_table(void)
{
	struct readings rd;
	struct event_reading ev[NR];
	struct report_count counts[NR], pmu[NR];
	intel_reading(&rd, ev, counts, pmu, intel_lines);
	struct report r = intel_report(false);
	char *text = render(&output_table_ops, &r, counts, pmu);
	CHECK_CONTAINS(text, "     5,000,000,000      cycles ");
	CHECK_CONTAINS(text, "     7,000,000,000      instructions                     #    1.400 insn per cycle");
	CHECK(text && !strstr(text, "cpu_core"));
	free(text);
	r = intel_report(true);
	text = render(&output_table_ops, &r, counts, pmu);
	/* In order: the sum, then cpu_atom's (scaled: ran half its time), then cpu_core's. */
	const char *sum = text ? strstr(text, "5,000,000,000      cycles") : NULL;
	const char *atom = text ? strstr(text, "2,000,000,000      cpu_atom/cycles/") : NULL;
	const char *core = text ? strstr(text, "3,000,000,000      cpu_core/cycles/") : NULL;
	CHECK(sum && atom && core && sum < atom && atom < core);
	CHECK(atom && strstr(atom, "(50.00%)") && strstr(atom, "(50.00%)") < core);
	/* The E-cores' IPC and the P-cores', each from its own PMU's events. */
	CHECK_CONTAINS(text, "cpu_atom/instructions/           #    0.500 insn per cycle");
	CHECK_CONTAINS(text, "cpu_core/instructions/           #    2.000 insn per cycle");
	free(text);
	/* A PMU that never ran: <not counted> on its line, and its reason under the table. */
	ev[CYC_ATOM].result = result(0, 2000, 0, TALLY_STATUS_NOT_COUNTED);
	from_counter(&rd, ev, intel_counter, NR);
	readings_fill(&rd);
	text = render(&output_table_ops, &r, counts, pmu);
	CHECK_CONTAINS(text, "<not counted>      cpu_atom/cycles/");
	CHECK_CONTAINS(text, " <not counted> cpu_atom/cycles/: it never ran while enabled");
	CHECK_CONTAINS(text, "     3,000,000,000      cycles ");
	free(text);
	free_reading(ev, NR);
}

/* CSV: the PMUs' records follow the sum's, named after their PMU, each with its own run time and share. */
static void intel_csv(void)
{
	struct readings rd;
	struct event_reading ev[NR];
	struct report_count counts[NR], pmu[NR];
	intel_reading(&rd, ev, counts, pmu, intel_lines);
	struct report r = intel_report(true);
	char *text = render(&output_csv_ops, &r, counts, pmu);
	CHECK_CONTAINS(text, "5000000000,,cycles,3000,75.00,5.000,GHz\n"
	                     "2000000000,,cpu_atom/cycles/,1000,50.00,2.000,GHz\n"
	                     "3000000000,,cpu_core/cycles/,2000,100.00,3.000,GHz\n"
	                     "7000000000,,instructions,4000,100.00,1.400,insn per cycle\n"
	                     "1000000000,,cpu_atom/instructions/,2000,100.00,0.500,insn per cycle\n"
	                     "6000000000,,cpu_core/instructions/,2000,100.00,2.000,insn per cycle\n");
	free(text);
	free_reading(ev, NR);
}

/* The JSON text without its layout's white space (no name here holds a space). */
static char *squeezed(char *text)
{
	size_t n = 0;
	for (size_t i = 0; text && text[i]; i++)
		if (text[i] != ' ' && text[i] != '\n')
			text[n++] = text[i];
	if (text)
		text[n] = '\0';
	return text;
}

/* JSON: the summed event has no one PMU, and its pmus whatever the table shows. */
static void intel_json(void)
{
	struct readings rd;
	struct event_reading ev[NR];
	struct report_count counts[NR], pmu[NR];
	intel_reading(&rd, ev, counts, pmu, intel_lines);
	struct report r = intel_report(false);
	char *text = squeezed(render(&output_json_ops, &r, counts, pmu));
	CHECK_CONTAINS(text, "{\"name\":\"cycles\",\"canonical\":null,\"pmu\":null,");
	CHECK_CONTAINS(text, "\"pmus\":[{\"pmu\":\"cpu_atom\",\"name\":\"cpu_atom/cycles/\",\"canonical\":null,"
	                     "\"encoding\":null,\"value\":1000000000,\"scaled\":2000000000,\"enabled\":2000,"
	                     "\"running\":1000,\"status\":\"scaled\"");
	CHECK_CONTAINS(text, "{\"pmu\":\"cpu_core\",\"name\":\"cpu_core/instructions/\"");
	CHECK_CONTAINS(text, "\"metric\":{\"value\":2,\"unit\":\"insnpercycle\",\"mixed_windows\":false}");
	/* The PMUs' events are no events of their own. */
	CHECK(text && !strstr(text, "{\"name\":\"cpu_core/cycles/\""));
	free(text);
	free_reading(ev, NR);
}

/* -M IPC: the sum over both core PMUs from their own counts (not the summed line's count once more), and
 * with --per-pmu each PMU's value on a line of its own; JSON has the PMUs' values always. */
static void intel_metric_per_pmu(void)
{
	struct readings rd;
	struct event_reading ev[NR];
	struct report_count counts[NR], pmu[NR];
	intel_reading(&rd, ev, counts, pmu, intel_lines);
	struct report r = intel_report(true);
	size_t ipc = (size_t)tally_metric_find("IPC");
	r.metrics = &ipc;
	r.nr_metrics = 1;
	char *text = render(&output_table_ops, &r, counts, pmu);
	CHECK_CONTAINS(text, "              1.40      IPC                              # insn per cycle\n"
	                     "              0.50      IPC [cpu_atom]                   # insn per cycle\n"
	                     "              2.00      IPC [cpu_core]                   # insn per cycle\n");
	free(text);
	text = render(&output_csv_ops, &r, counts, pmu);
	CHECK_CONTAINS(text, ",,IPC,,,1.400,insn per cycle\n,,IPC [cpu_atom],,,0.500,insn per cycle\n");
	free(text);
	r.show_pmus = false;
	text = squeezed(render(&output_json_ops, &r, counts, pmu));
	CHECK_CONTAINS(text, "\"metrics\":[{\"name\":\"IPC\",\"value\":1.4,");
	CHECK_CONTAINS(text, "\"pmus\":[{\"pmu\":\"cpu_atom\",\"value\":0.5,");
	CHECK_CONTAINS(text, "{\"pmu\":\"cpu_core\",\"value\":2,");
	free(text);
	free_reading(ev, NR);
}

/* arm64 big.LITTLE: each cluster its own type and CPUs; summed and shown per cluster alike. */
enum { A53, A72, NR_ARM };
static struct report_event arm_events[NR_ARM] = {
	[A53] = { .name = "cycles", .pmu = "armv8_cortex_a53", .pmu_name = "armv8_cortex_a53/cycles/", .type = 8,
		  .config = 0x11, .group = -1, .unit = "", .unit_scale = 1, .line = A53, .summed = true },
	[A72] = { .name = "armv8_cortex_a72/cycles/", .pmu = "armv8_cortex_a72",
		  .pmu_name = "armv8_cortex_a72/cycles/", .type = 9, .config = 0x11, .group = -1, .unit = "",
		  .unit_scale = 1, .line = A53, .hidden = true },
};

static void arm64_clusters(void)
{
	static const size_t lines[NR_ARM] = { A53, A53 };
	struct event_reading ev[NR_ARM];
	struct report_count counts[NR_ARM], pmu[NR_ARM];
	memset(ev, 0, sizeof(ev));
	ev[A53].result = result(400, 1000, 1000, TALLY_STATUS_EXACT);
	ev[A72].result = result(600, 1000, 1000, TALLY_STATUS_EXACT);
	struct readings rd = { .n = NR_ARM, .aggregation = AGGR_GLOBAL, .line = lines, .events = ev,
		               .counts = counts, .pmu_counts = pmu };
	tally_counter *c = fixture_counter("arm64-biglittle", "cycles", NR_ARM);
	from_counter(&rd, ev, c, NR_ARM);
	readings_fill(&rd);
	struct report r = { .nr_events = NR_ARM, .events = arm_events, .target = "'x'", .target_kind = "command",
		            .separator = ";", .show_pmus = true, .numbers = { ",", "." } };
	char *text = render(&output_csv_ops, &r, counts, pmu);
	CHECK_CONTAINS(text, "1000;;cycles;2000;100.00;");
	CHECK_CONTAINS(text, "400;;armv8_cortex_a53/cycles/;1000;100.00;");
	CHECK_CONTAINS(text, "600;;armv8_cortex_a72/cycles/;1000;100.00;");
	free(text);
	r.show_pmus = false;
	text = render(&output_csv_ops, &r, counts, pmu);
	CHECK(text && !strstr(text, "armv8"));
	free(text);
	text = squeezed(render(&output_json_ops, &r, counts, pmu));
	CHECK_CONTAINS(text, "{\"name\":\"cycles\",\"canonical\":null,\"pmu\":null,");
	CHECK_CONTAINS(text, "{\"pmu\":\"armv8_cortex_a72\",\"name\":\"armv8_cortex_a72/cycles/\",\"canonical\":null,"
	                     "\"encoding\":null,\"value\":600,\"scaled\":600,\"enabled\":1000,\"running\":1000,"
	                     "\"status\":\"counted\"");
	free(text);
	tally_counter_free(c);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "readings_sum_each_item", readings_sum_each_item },
		{ "intel_table", intel_table },
		{ "intel_csv", intel_csv },
		{ "intel_json", intel_json },
		{ "intel_metric_per_pmu", intel_metric_per_pmu },
		{ "arm64_clusters", arm64_clusters },
		{ NULL, NULL },
	};
	int status = harness_run(cases);
	tally_events_free(intel_list);
	tally_counter_free(intel_counter);
	return status;
}
