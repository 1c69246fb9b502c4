/* SPDX-License-Identifier: MIT */
/*
 * Items expanded over the core PMUs of a hybrid machine (issue 12): on the Alder Lake fixture (cpu_core,
 * cpu_atom) and the RK3399 one (armv8_cortex_a53, armv8_cortex_a72), a generic event, a raw code and an
 * alias both core PMUs have become one attr per core PMU marked per_core_pmu, every one carrying the
 * item's own name (origin_name) while its display names the PMU; what was not expanded (a software event,
 * a one-PMU alias, a PMU family's instances, a bare alias of unrelated PMUs) is not marked, and its
 * origin_name is its display name. The metrics find their inputs on each cluster of the arm64 machine (its
 * own PMU type and PMUv3 event number, generic or raw): an IPC per cluster and summed.
 */
#include "fixture_tree.h"
#include "harness.h"

#include <string.h>
#include <tally/events.h>
#include <tally/metrics.h>

struct expected {
	const char *name, *origin_name, *pmu;
	bool per_core_pmu;
};

static void check_spec(const char *machine, const char *spec, const struct expected *want, size_t n)
{
	char root[4096];
	TALLY_OPTS(tally_parse_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), machine));
	tally_events *ev = NULL;
	CHECK_INT(tally_events_parse(spec, &opts, &ev), 0);
	if (!ev) {
		fprintf(stderr, "%s on %s: %s\n", spec, machine, tally_last_error());
		return;
	}
	CHECK_INT(tally_events_count(ev), (int)n);
	for (size_t i = 0; i < n && i < tally_events_count(ev); i++) {
		TALLY_OPTS(tally_event_info, info);
		CHECK_INT(tally_events_at(ev, i, &info), 0);
		CHECK_STR(info.name, want[i].name);
		CHECK_STR(info.origin_name, want[i].origin_name);
		CHECK_STR(info.pmu, want[i].pmu);
		CHECK_INT(info.per_core_pmu, want[i].per_core_pmu);
	}
	tally_events_free(ev);
}

static void intel_hybrid_items(void)
{
	static const struct expected want[] = {
		{ "cpu_atom/cycles/", "cycles", "cpu_atom", true },
		{ "cpu_core/cycles/", "cycles", "cpu_core", true },
		{ "task-clock", "task-clock", "software", false },
		{ "cpu_atom/r1c2:u/", "r1c2:u", "cpu_atom", true },
		{ "cpu_core/r1c2:u/", "r1c2:u", "cpu_core", true },
		{ "cpu_atom/mem-loads/", "mem-loads", "cpu_atom", true },
		{ "cpu_core/mem-loads/", "mem-loads", "cpu_core", true },
		{ "slots", "slots", "cpu_core", false }, /* added by the parser: slots leads topdown metrics */
		{ "topdown-retiring", "topdown-retiring", "cpu_core", false }, /* cpu_core's alone */
		{ "cpu_core/cpu-cycles/", "cpu_core/cpu-cycles/", "cpu_core", false },
	};
	check_spec("hybrid", "cycles,task-clock,r1c2:u,mem-loads,topdown-retiring,cpu_core/cpu-cycles/", want,
	           sizeof(want) / sizeof(want[0]));
}

static void arm64_cluster_items(void)
{
	static const struct expected want[] = {
		{ "armv8_cortex_a53/cycles/", "cycles", "armv8_cortex_a53", true },
		{ "armv8_cortex_a72/cycles/", "cycles", "armv8_cortex_a72", true },
		{ "armv8_cortex_a53/inst_retired/", "inst_retired", "armv8_cortex_a53", true },
		{ "armv8_cortex_a72/inst_retired/", "inst_retired", "armv8_cortex_a72", true },
		{ "armv8_cortex_a53/r11/", "r11", "armv8_cortex_a53", true },
		{ "armv8_cortex_a72/r11/", "r11", "armv8_cortex_a72", true },
		{ "inst_spec", "inst_spec", "armv8_cortex_a72", false }, /* the A72's alone */
	};
	check_spec("arm64-biglittle", "cycles,inst_retired,r11,inst_spec", want, sizeof(want) / sizeof(want[0]));
}

/* The name= term names the item, as it names a one-PMU event. */
static void name_term_names_the_item(void)
{
	static const struct expected want[] = {
		{ "armv8_cortex_a53/c/", "c", "armv8_cortex_a53", true },
		{ "armv8_cortex_a72/c/", "c", "armv8_cortex_a72", true },
	};
	check_spec("arm64-biglittle", "cycles/name=c/", want, 2);
}

/* Not core expansions: a PMU family's instances (summed, but by `family`) and a bare alias of PMUs that
 * are no family (cstate_core, cstate_pkg would be; the server tree's power is one PMU). */
static void families_are_not_core_splits(void)
{
	TALLY_OPTS(tally_parse_opts, opts);
	char root[4096];
	opts.sysfs_root = fixture_sysfs(root, sizeof(root), "intel-server");
	tally_events *ev = NULL;
	CHECK_INT(tally_events_parse("uncore_imc/cas_count_read/,cycles", &opts, &ev), 0);
	for (size_t i = 0; ev && i < tally_events_count(ev); i++) {
		TALLY_OPTS(tally_event_info, info);
		CHECK_INT(tally_events_at(ev, i, &info), 0);
		CHECK(!info.per_core_pmu);
		CHECK_STR(info.origin_name, info.name);
	}
	tally_events_free(ev);
}

/* IPC on each cluster of the RK3399: the A53s ran 1000 cycles and 500 instructions (0.5), the A72s 1000
 * and 2000 (2); summed 2500 / 2000. The same from raw codes (r8 INST_RETIRED, r11 CPU_CYCLES), and the
 * figure beside each cluster's instructions from its own cycles. */
static void arm64_cluster_ipc(void)
{
	static const char *const specs[] = { "instructions,cycles", "r8,r11" };
	for (size_t k = 0; k < 2; k++) {
		char root[4096];
		TALLY_OPTS(tally_parse_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), "arm64-biglittle"));
		tally_events *ev = NULL;
		CHECK_INT(tally_events_parse(specs[k], &opts, &ev), 0);
		if (!ev)
			continue;
		/* a53 instructions, a72 instructions, a53 cycles, a72 cycles */
		static const double values[4] = { 500, 2000, 1000, 1000 };
		TALLY_OPTS(tally_metric_sample, sample, .events = ev, .values = values, .n = 4);
		int ipc = tally_metric_find("IPC");
		CHECK(ipc >= 0);
		static const struct {
			const char *pmu;
			double ipc;
		} parts[] = { { NULL, 1.25 }, { "armv8_cortex_a53", 0.5 }, { "armv8_cortex_a72", 2 } };
		for (size_t p = 0; p < 3; p++) {
			sample.pmu = parts[p].pmu;
			TALLY_OPTS(tally_metric_value, v);
			CHECK_INT(tally_metric_eval(&sample, (size_t)ipc, &v), 0);
			if (!v.available || v.value != parts[p].ipc)
				fprintf(stderr, "  %s %s: %g (%s)\n", specs[k], parts[p].pmu ? parts[p].pmu : "summed", v.value,
				        v.reason);
			CHECK(v.available && v.value == parts[p].ipc);
		}
		const char *pmus[4];
		CHECK_INT(tally_metric_parts(&sample, (size_t)ipc, pmus, 4), 2);
		sample.pmu = NULL;
		for (size_t i = 0; i < 2; i++) {
			TALLY_OPTS(tally_metric_value, beside);
			CHECK_INT(tally_metric_comment(&sample, i, &beside), 1);
			CHECK(beside.value == (i ? 2.0 : 0.5));
		}
		tally_events_free(ev);
	}
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "intel_hybrid_items", intel_hybrid_items },
		{ "arm64_cluster_items", arm64_cluster_items },
		{ "name_term_names_the_item", name_term_names_the_item },
		{ "families_are_not_core_splits", families_are_not_core_splits },
		{ "arm64_cluster_ipc", arm64_cluster_ipc },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
