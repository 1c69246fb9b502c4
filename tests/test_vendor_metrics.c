/* SPDX-License-Identifier: MIT */
/*
 * The vendors' metrics (tally_vendor_metrics_*): the intel-server fixture with Ice Lake server's table
 * (TALLY_CPUID=GenuineIntel-6-6A-0, the tree's data/pmu-events): selection by name and group in any case, several
 * items adding up, an unknown item; a list split between the table and the catalogue (any case, the list's order,
 * snprintf's short buffer, no table, an empty item refused); the spec's groups (one per metric, merged where one
 * holds another's events, apart with NO_MERGE, loose with NO_GROUP and MetricConstraint NO_GROUP_EVENTS, the tool
 * events outside); the evaluation from constructed values (references, ScaleUnit, thresholds, an event not read, a
 * 0 divisor). On arm64, strcmp_cpuid_str compares MIDRs by part and version (perf 6.12).
 */
#include "harness.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <tally/events.h>
#include <tally/metrics.h>
#include <tally/pmu.h>

static char root[4096];

/* The vendor metrics of a fixture tree as the CPU cpuid (TALLY_CPUID) has them. */
static tally_vendor_metrics *load_as(const char *fixture, const char *cpuid)
{
	const char *fixtures = getenv("TALLY_FIXTURES");
	if (!fixtures)
		return NULL;
	snprintf(root, sizeof(root), "%s/sysfs/%s", fixtures, fixture);
	setenv("TALLY_CPUID", cpuid, 1);
	TALLY_OPTS(tally_vendor_metrics_opts, o, .sysfs_root = root);
	tally_vendor_metrics *vm = NULL;
	int err = tally_vendor_metrics_load(&o, &vm);
	if (err)
		fprintf(stderr, "load: %d %s\n", err, tally_last_error());
	return vm;
}

static tally_vendor_metrics *load(void)
{
	return load_as("intel-server", "GenuineIntel-6-6A-0");
}

static void test_select(void)
{
	tally_vendor_metrics *vm = load();
	if (!vm)
		SKIP("no fixture or no table (TALLY_FIXTURES, data/pmu-events)");
	CHECK_STR(tally_vendor_metrics_model(vm), "icelakex");
	CHECK(tally_vendor_metrics_count(vm) > 200);
	size_t idx[512];
	CHECK_INT(tally_vendor_metrics_select(vm, "TopdownL1", idx, 512), 4);
	CHECK_INT(tally_vendor_metrics_select(vm, "topdownl1", idx, 512), 4);          /* any case */
	CHECK_INT(tally_vendor_metrics_select(vm, "TopdownL1,tma_retiring", idx, 512), 4); /* each once */
	int l2 = tally_vendor_metrics_select(vm, "TopdownL2", idx, 512);
	CHECK(l2 > 4);
	CHECK_INT(tally_vendor_metrics_select(vm, "TopdownL1,TopdownL2", idx, 512), 4 + l2); /* add up */
	CHECK_INT(tally_vendor_metrics_select(vm, "TMA_INFO_THREAD_IPC", idx, 512), 1);
	TALLY_OPTS(tally_vendor_metric_info, info);
	CHECK_INT(tally_vendor_metric_at(vm, idx[0], &info), 0);
	CHECK_STR(info.name, "tma_info_thread_ipc");
	CHECK_STR(info.expr, "INST_RETIRED.ANY / tma_info_thread_clks");
	CHECK_INT(tally_vendor_metrics_select(vm, "tma_retiring", idx, 1), 1);
	CHECK_INT(tally_vendor_metric_at(vm, idx[0], &info), 0);
	CHECK_STR(info.unit, "%");
	CHECK(info.scale == 100);
	CHECK_STR(info.threshold, "tma_retiring > 0.7 | tma_heavy_operations > 0.1");
	CHECK_INT(tally_vendor_metrics_select(vm, "no_such_metric", idx, 1), -ENOENT);
	CHECK_CONTAINS(tally_last_error(), "no_such_metric");
	CHECK_INT(tally_vendor_metrics_select(vm, "tma_retiring,,x", idx, 1), -EINVAL);
	CHECK_INT(tally_vendor_metric_at(vm, 100000, &info), -ERANGE);
	tally_vendor_metrics_free(vm);
}

/* tally_vendor_metrics_filter: the table's items and the others, each in the list's order. */
static void test_filter(void)
{
	char buf[64];
	/* no table: every item is the catalogue's */
	CHECK_INT(tally_vendor_metrics_filter(NULL, "IPC,TopdownL1", true, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	CHECK_INT(tally_vendor_metrics_filter(NULL, "IPC,TopdownL1", false, buf, sizeof(buf)), 13);
	CHECK_STR(buf, "IPC,TopdownL1");
	CHECK_INT(tally_vendor_metrics_filter(NULL, NULL, false, buf, sizeof(buf)), -EINVAL);
	CHECK_INT(tally_vendor_metrics_filter(NULL, "IPC", false, NULL, 4), -EINVAL);
	tally_vendor_metrics *vm = load();
	if (!vm)
		SKIP("no fixture or no table (TALLY_FIXTURES, data/pmu-events)");
	const char *list = "IPC,topdownl1,no_such,TMA_Retiring,CPUs_utilized";
	CHECK_INT(tally_vendor_metrics_filter(vm, list, true, buf, sizeof(buf)), 22);
	CHECK_STR(buf, "topdownl1,TMA_Retiring");
	CHECK_INT(tally_vendor_metrics_filter(vm, list, false, buf, sizeof(buf)), 25);
	CHECK_STR(buf, "IPC,no_such,CPUs_utilized");
	/* as snprintf: what fits, terminated, and the length of the whole */
	CHECK_INT(tally_vendor_metrics_filter(vm, list, true, buf, 6), 22);
	CHECK_STR(buf, "topdo");
	CHECK_INT(tally_vendor_metrics_filter(vm, list, true, NULL, 0), 22);
	/* an empty item, refused by both selections, is refused here: neither half may drop it */
	CHECK_INT(tally_vendor_metrics_filter(vm, "tma_retiring,,tma_frontend_bound", false, buf, sizeof(buf)), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "an empty name");
	CHECK_INT(tally_vendor_metrics_filter(vm, "IPC,", true, buf, sizeof(buf)), -EINVAL);
	CHECK_INT(tally_vendor_metrics_filter(NULL, ",", false, buf, sizeof(buf)), -EINVAL);
	tally_vendor_metrics_free(vm);
}

static void spec_of(const tally_vendor_metrics *vm, const char *list, unsigned flags, char *buf, size_t size)
{
	size_t idx[512];
	int n = tally_vendor_metrics_select(vm, list, idx, 512);
	CHECK(n > 0);
	int len = tally_vendor_metrics_spec(vm, idx, n > 0 ? (size_t)n : 0, flags, buf, size);
	CHECK(len > 0 && (size_t)len < size);
}

static void test_spec(void)
{
	tally_vendor_metrics *vm = load();
	if (!vm)
		SKIP("no fixture or no table");
	char spec[8192];
	/* IPC's events (tma_info_thread_clks followed) in one weak group */
	spec_of(vm, "tma_info_thread_ipc", 0, spec, sizeof(spec));
	CHECK_STR(spec, "{INST_RETIRED.ANY,CPU_CLK_UNHALTED.THREAD}:W");
	/* CPI's events are IPC's: one group for both, whichever comes first; apart without merging */
	spec_of(vm, "tma_info_thread_clks,tma_info_thread_ipc", 0, spec, sizeof(spec));
	CHECK_STR(spec, "{INST_RETIRED.ANY,CPU_CLK_UNHALTED.THREAD}:W");
	spec_of(vm, "tma_info_thread_clks,tma_info_thread_ipc", TALLY_VENDOR_NO_MERGE, spec, sizeof(spec));
	CHECK_STR(spec, "{INST_RETIRED.ANY,CPU_CLK_UNHALTED.THREAD}:W,{CPU_CLK_UNHALTED.THREAD}:W");
	spec_of(vm, "tma_info_thread_ipc", TALLY_VENDOR_NO_GROUP, spec, sizeof(spec));
	CHECK_STR(spec, "INST_RETIRED.ANY,CPU_CLK_UNHALTED.THREAD");
	/* MetricConstraint NO_GROUP_EVENTS: loose */
	spec_of(vm, "tma_dram_bound", 0, spec, sizeof(spec));
	CHECK(spec[0] != '{');
	/* TopdownL1: one group (the largest holds the others') */
	spec_of(vm, "TopdownL1", 0, spec, sizeof(spec));
	CHECK(strchr(spec + 1, '{') == NULL);
	CHECK_CONTAINS(spec, "topdown-retiring");
	/* the length needed is returned when buf is small */
	size_t idx[1];
	CHECK_INT(tally_vendor_metrics_select(vm, "tma_info_thread_ipc", idx, 1), 1);
	CHECK_INT(tally_vendor_metrics_spec(vm, idx, 1, 0, spec, 4), (int)strlen("{INST_RETIRED.ANY,CPU_CLK_UNHALTED.THREAD}:W"));
	CHECK_STR(spec, "{IN");
	tally_vendor_metrics_free(vm);
}

/* Evaluates metric name from values given to the events of its own spec, by position. */
static struct tally_metric_value eval(const tally_vendor_metrics *vm, const char *name, const double *values,
                                      size_t nr)
{
	struct tally_metric_value v = { .sz = sizeof(v) };
	size_t idx[1];
	char spec[8192];
	CHECK_INT(tally_vendor_metrics_select(vm, name, idx, 1), 1);
	tally_vendor_metrics_spec(vm, idx, 1, 0, spec, sizeof(spec));
	TALLY_OPTS(tally_parse_opts, po, .sysfs_root = root);
	tally_events *ev = NULL;
	CHECK_INT(tally_events_parse(spec, &po, &ev), 0);
	if (!ev)
		return v;
	TALLY_OPTS(tally_metric_sample, s, .events = ev, .values = values, .n = nr);
	CHECK_INT(tally_vendor_metric_eval(vm, &s, idx[0], &v), 0);
	tally_events_free(ev);
	return v;
}

static void test_eval(void)
{
	tally_vendor_metrics *vm = load();
	if (!vm)
		SKIP("no fixture or no table");
	/* {INST_RETIRED.ANY, CPU_CLK_UNHALTED.THREAD} */
	struct tally_metric_value v = eval(vm, "tma_info_thread_ipc", (double[]){ 3000, 1000 }, 2);
	CHECK(v.available && v.value == 3);
	CHECK_STR(v.name, "tma_info_thread_ipc");
	CHECK_INT(v.nr_inputs, 2);
	CHECK_INT(v.threshold, -1); /* IPC has no threshold */
	v = eval(vm, "tma_info_thread_ipc", (double[]){ 3000, 0 }, 2);
	CHECK(!v.available);
	CHECK_CONTAINS(v.reason, "is 0");
	v = eval(vm, "tma_info_thread_ipc", (double[]){ 3000 }, 1);
	CHECK(!v.available);
	CHECK_CONTAINS(v.reason, "CPU_CLK_UNHALTED.THREAD: not among the events read");
	tally_vendor_metrics_free(vm);
}

/* strcmp_cpuid_str on arm64, as perf 6.12 compares MIDRs: Neoverse N2 and V2 share a table whose
 * topdown metrics take STALL_SLOT less CPU_CYCLES before N2 r0p3 ("strcmp_cpuid_str(0x410fd493) |
 * strcmp_cpuid_str(0x410fd490) ^ 1": r0p3 or later, or not an N2). frontend_bound = 100 x (stall slots
 * / (CPU_CYCLES x #slots) - BR_MIS_PRED / CPU_CYCLES), the arm64 fixture's caps/slots being 8. */
static void test_arm64_cpuid(void)
{
	static const struct {
		const char *midr;
		double value;
	} cases[] = {
		{ "0x00000000410fd490", 61.5 }, /* N2 r0p0: 100 x ((6000 - 1000) / 8000 - 10 / 1000) */
		{ "0x00000000410fd492", 61.5 }, /* N2 r0p2 */
		{ "0x00000000410fd493", 74 },   /* N2 r0p3: 100 x (6000 / 8000 - 10 / 1000) */
		{ "0x00000000411fd490", 74 },   /* N2 r1p0: a later variant */
		{ "0x00000000410fd4f0", 74 },   /* V2: not an N2 */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tally_vendor_metrics *vm = load_as("arm64", cases[i].midr);
		if (!vm)
			SKIP("no fixture or no table");
		CHECK_STR(tally_vendor_metrics_model(vm), "arm-neoverse-n2-v2");
		/* {STALL_SLOT_FRONTEND,CPU_CYCLES,BR_MIS_PRED} */
		struct tally_metric_value v = eval(vm, "frontend_bound", (double[]){ 6000, 1000, 10 }, 3);
		if (!v.available || fabs(v.value - cases[i].value) > 1e-9)
			fprintf(stderr, "%s: available %d, %g (want %g): %s\n", cases[i].midr, v.available, v.value,
			        cases[i].value, v.reason);
		CHECK(v.available && fabs(v.value - cases[i].value) < 1e-9);
		tally_vendor_metrics_free(vm);
	}
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "select", test_select },
		{ "filter", test_filter },
		{ "spec", test_spec },
		{ "eval", test_eval },
		{ "arm64_cpuid", test_arm64_cpuid },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
