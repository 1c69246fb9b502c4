/* SPDX-License-Identifier: MIT */
/*
 * The metrics of the library (tally/metrics.h) with constructed readings, for what no machine without a
 * PMU shows: every formula of the catalogue, zero, missing, not counted and not supported inputs, lookup
 * with "did you mean", the parts of a hybrid machine (the fixture tree of an Alder Lake), the choice of
 * the group that holds every input, perf's comment column, and how tally_counter_new groups the events of
 * the metrics it is asked for (tally_counter_plan).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fixture_tree.h"
#include "harness.h"

#include <tally.h>

static tally_pmus *intel, *hybrid;

static tally_events *parse(const tally_pmus *pmus, const char *spec)
{
	TALLY_OPTS(tally_parse_opts, o, .pmus = pmus);
	tally_events *ev = NULL;
	if (tally_events_parse(spec, &o, &ev))
		fprintf(stderr, "  parsing %s: %s\n", spec, tally_last_error());
	return ev;
}

static int metric(const char *name)
{
	int i = tally_metric_find(name);
	if (i < 0)
		fprintf(stderr, "  %s: %s\n", name, tally_last_error());
	return i;
}

/* Evaluates metric `name` over the events of spec (on pmus) with the given values and statuses (NULL:
 * exact). */
static struct tally_metric_value eval(const tally_pmus *pmus, const char *spec, const char *name,
                                      const double *values, const enum tally_status *statuses, double seconds,
                                      const char *pmu)
{
	TALLY_OPTS(tally_metric_value, v);
	tally_events *ev = parse(pmus, spec);
	CHECK(ev != NULL);
	int i = metric(name);
	CHECK(i >= 0);
	if (!ev || i < 0)
		return v;
	TALLY_OPTS(tally_metric_sample, s, .events = ev, .values = values, .statuses = statuses,
	           .n = tally_events_count(ev), .seconds = seconds, .pmu = pmu);
	CHECK_INT(tally_metric_eval(&s, (size_t)i, &v), 0);
	tally_events_free(ev);
	return v;
}

static void check_value(const struct tally_metric_value *v, double want)
{
	if (!v->available || fabs(v->value - want) > 1e-9 * fmax(fabs(want), 1))
		fprintf(stderr, "  %s: %s %g, expected %g (%s)\n", v->name, v->available ? "value" : "not available",
		        v->value, want, v->reason);
	CHECK(v->available);
	CHECK(fabs(v->value - want) <= 1e-9 * fmax(fabs(want), 1));
}

static void check_unavailable(const struct tally_metric_value *v, const char *reason)
{
	CHECK(!v->available);
	CHECK(v->value == 0);
	CHECK_CONTAINS(v->reason, reason);
}

#define TD_L1_EVENTS "slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound"
#define TD_L2_EVENTS TD_L1_EVENTS ",topdown-heavy-ops,topdown-br-mispredict,topdown-fetch-lat,topdown-mem-bound"

/* Every formula, from readings chosen so that each differs from its inverse and its neighbours. The topdown
 * readings are slots x fractions: retiring 40 %, bad speculation 10 %, frontend 20 %, backend 30 %; heavy
 * operations 15 %, mispredicts 6 %, fetch latency 12 %, memory 20 %. */
static const struct formula_case {
	const char *metric;
	tally_pmus **pmus;
	const char *spec;
	double values[9];
	double seconds;
	double want;
} formulas[] = {
	{ "IPC", &intel, "instructions,cycles", { 1.5e9, 3e9 }, 0, 0.5 },
	{ "CPI", &intel, "instructions,cycles", { 1.5e9, 3e9 }, 0, 2 },
	{ "cycles_frequency", &intel, "cycles,task-clock", { 3e9, 2e9 }, 0, 1.5 },
	{ "CPUs_utilized", &intel, "task-clock", { 2e9 }, 1, 2 },
	{ "cs_per_second", &intel, "context-switches,task-clock", { 4000, 2e9 }, 0, 2000 },
	{ "migrations_per_second", &intel, "cpu-migrations,task-clock", { 10, 5e8 }, 0, 20 },
	{ "page_faults_per_second", &intel, "page-faults,task-clock", { 300, 1e8 }, 0, 3000 },
	{ "branch_miss_rate", &intel, "branches,branch-misses", { 200, 5 }, 0, 2.5 },
	{ "cache_miss_rate", &intel, "cache-references,cache-misses", { 120, 30 }, 0, 25 },
	{ "l1d_miss_rate", &intel, "L1-dcache-loads,L1-dcache-load-misses", { 1000, 50 }, 0, 5 },
	{ "llc_miss_rate", &intel, "LLC-loads,LLC-load-misses", { 400, 100 }, 0, 25 },
	{ "dtlb_miss_rate", &intel, "dTLB-loads,dTLB-load-misses", { 1000, 1 }, 0, 0.1 },
	{ "frontend_cycles_idle", &intel, "cycles,stalled-cycles-frontend", { 1000, 250 }, 0, 25 },
	{ "backend_cycles_idle", &intel, "cycles,stalled-cycles-backend", { 1000, 400 }, 0, 40 },
	{ "tma_retiring", &hybrid, TD_L1_EVENTS, { 1000, 400, 100, 200, 300 }, 0, 40 },
	{ "tma_bad_speculation", &hybrid, TD_L1_EVENTS, { 1000, 400, 100, 200, 300 }, 0, 10 },
	{ "tma_frontend_bound", &hybrid, TD_L1_EVENTS, { 1000, 400, 100, 200, 300 }, 0, 20 },
	{ "tma_backend_bound", &hybrid, TD_L1_EVENTS, { 1000, 400, 100, 200, 300 }, 0, 30 },
	{ "tma_heavy_operations", &hybrid, TD_L2_EVENTS, { 1000, 400, 100, 200, 300, 150, 60, 120, 200 }, 0, 15 },
	{ "tma_light_operations", &hybrid, TD_L2_EVENTS, { 1000, 400, 100, 200, 300, 150, 60, 120, 200 }, 0, 25 },
	{ "tma_branch_mispredicts", &hybrid, TD_L2_EVENTS, { 1000, 400, 100, 200, 300, 150, 60, 120, 200 }, 0, 6 },
	{ "tma_machine_clears", &hybrid, TD_L2_EVENTS, { 1000, 400, 100, 200, 300, 150, 60, 120, 200 }, 0, 4 },
	{ "tma_fetch_latency", &hybrid, TD_L2_EVENTS, { 1000, 400, 100, 200, 300, 150, 60, 120, 200 }, 0, 12 },
	{ "tma_fetch_bandwidth", &hybrid, TD_L2_EVENTS, { 1000, 400, 100, 200, 300, 150, 60, 120, 200 }, 0, 8 },
	{ "tma_memory_bound", &hybrid, TD_L2_EVENTS, { 1000, 400, 100, 200, 300, 150, 60, 120, 200 }, 0, 20 },
	{ "tma_core_bound", &hybrid, TD_L2_EVENTS, { 1000, 400, 100, 200, 300, 150, 60, 120, 200 }, 0, 10 },
	/* Fractions that do not sum to slots (the hardware rounds each to 8 bits): ratios of their sum. */
	{ "tma_retiring", &hybrid, TD_L1_EVENTS, { 1000, 102, 25, 51, 77 }, 0, 100.0 * 102 / 255 },
	{ "tma_bad_speculation", &hybrid, TD_L1_EVENTS, { 1000, 102, 25, 51, 77 }, 0, 100.0 * 25 / 255 },
	/* A level-2 part larger than its parent (rounding): the remainder is 0, never negative. */
	{ "tma_fetch_bandwidth", &hybrid, TD_L2_EVENTS, { 1000, 400, 100, 200, 300, 0, 0, 210, 0 }, 0, 0 },
	{ "tma_machine_clears", &hybrid, TD_L2_EVENTS, { 1000, 400, 100, 200, 300, 0, 110, 0, 0 }, 0, 0 },
};

static void every_formula(void)
{
	bool covered[64] = { false };
	for (size_t k = 0; k < sizeof(formulas) / sizeof(formulas[0]); k++) {
		const struct formula_case *f = &formulas[k];
		harness_case = f->metric;
		struct tally_metric_value v = eval(*f->pmus, f->spec, f->metric, f->values, NULL, f->seconds, NULL);
		check_value(&v, f->want);
		CHECK(!v.scaled);
		int i = tally_metric_find(f->metric);
		if (i >= 0 && (size_t)i < sizeof(covered))
			covered[i] = true;
	}
	/* The table covers the whole catalogue. */
	for (size_t i = 0; i < tally_metric_count(); i++) {
		TALLY_OPTS(tally_metric_info, info);
		CHECK_INT(tally_metric_at(i, &info), 0);
		harness_case = info.name;
		CHECK(i < sizeof(covered) && covered[i]);
	}
}

/* Each metric's texts are there and its spec names exactly the inputs its formula takes: evaluated over
 * the events of its own spec, every input is found (topdown on the hybrid fixture's cpu_core). */
static void catalogue_is_consistent(void)
{
	CHECK(tally_metric_count() >= 26);
	for (size_t i = 0; i < tally_metric_count(); i++) {
		TALLY_OPTS(tally_metric_info, info);
		CHECK_INT(tally_metric_at(i, &info), 0);
		harness_case = info.name;
		CHECK(*info.name && *info.groups && *info.unit && *info.description && *info.formula && *info.applies);
		CHECK(info.events[0] == '{' && info.events[strlen(info.events) - 1] == '}');
		tally_events *ev = parse(hybrid, info.events);
		CHECK(ev != NULL);
		if (!ev)
			continue;
		double ones[32];
		for (size_t k = 0; k < 32; k++)
			ones[k] = 1;
		TALLY_OPTS(tally_metric_sample, s, .events = ev, .values = ones, .n = tally_events_count(ev),
		           .seconds = 1);
		TALLY_OPTS(tally_metric_value, v);
		CHECK_INT(tally_metric_eval(&s, i, &v), 0);
		CHECK(v.nr_inputs > 0 && v.nr_inputs <= TALLY_METRIC_MAX_INPUTS);
		for (size_t k = 0; k < v.nr_inputs; k++) {
			CHECK(v.inputs[k].found);
			CHECK_CONTAINS(info.events, v.inputs[k].event);
		}
		CHECK_STR(v.name, info.name);
		CHECK_STR(v.unit, info.unit);
		tally_events_free(ev);
	}
	TALLY_OPTS(tally_metric_info, info);
	CHECK_INT(tally_metric_at(tally_metric_count(), &info), -ERANGE);
}

/* Zero, missing, not counted and not supported inputs: not available, with the reason, and a value of 0,
 * never inf or NaN. */
static void not_available(void)
{
	struct tally_metric_value v;
	v = eval(intel, "instructions,cycles", "IPC", (double[]){ 100, 0 }, NULL, 0, NULL);
	check_unavailable(&v, "cycles is 0");
	v = eval(intel, "instructions,cycles", "CPI", (double[]){ 0, 100 }, NULL, 0, NULL);
	check_unavailable(&v, "instructions is 0");
	v = eval(intel, "instructions,task-clock", "IPC", (double[]){ 100, 100 }, NULL, 0, NULL);
	check_unavailable(&v, "needs cycles, which is not among the events");
	v = eval(intel, "instructions,cycles", "IPC", (double[]){ 100, 100 },
	         (enum tally_status[]){ TALLY_STATUS_EXACT, TALLY_STATUS_NOT_SUPPORTED }, 0, NULL);
	check_unavailable(&v, "cycles: not supported");
	v = eval(intel, "instructions,cycles", "IPC", (double[]){ 100, 100 },
	         (enum tally_status[]){ TALLY_STATUS_NOT_COUNTED, TALLY_STATUS_EXACT }, 0, NULL);
	check_unavailable(&v, "instructions: not counted");
	/* Scaled inputs give a value, flagged. */
	v = eval(intel, "instructions,cycles", "IPC", (double[]){ 100, 50 },
	         (enum tally_status[]){ TALLY_STATUS_SCALED, TALLY_STATUS_EXACT }, 0, NULL);
	check_value(&v, 2);
	CHECK(v.scaled);
	CHECK_INT(v.inputs[0].status, TALLY_STATUS_SCALED);
	v = eval(intel, "task-clock", "CPUs_utilized", (double[]){ 1e9 }, NULL, 0, NULL);
	check_unavailable(&v, "wall-clock time");
	v = eval(intel, "task-clock", "cs_per_second", (double[]){ 1e9 }, NULL, 0, NULL);
	check_unavailable(&v, "needs context-switches");
	v = eval(intel, "context-switches,task-clock", "cs_per_second", (double[]){ 10, 0 }, NULL, 0, NULL);
	check_unavailable(&v, "task-clock is 0");
	v = eval(hybrid, TD_L1_EVENTS, "tma_retiring", (double[]){ 0, 0, 0, 0, 0 }, NULL, 0, NULL);
	check_unavailable(&v, "sum to 0");
	v = eval(hybrid, TD_L1_EVENTS, "tma_heavy_operations", (double[]){ 1, 1, 1, 1, 1 }, NULL, 0, NULL);
	check_unavailable(&v, "needs topdown-heavy-ops");
	CHECK_CONTAINS(v.reason, "Sapphire Rapids");
	v = eval(intel, "instructions", "tma_retiring", (double[]){ 1 }, NULL, 0, NULL);
	check_unavailable(&v, "needs slots");
	/* Fewer readings than events: the rest are missing. */
	tally_events *ev = parse(intel, "instructions,cycles");
	TALLY_OPTS(tally_metric_sample, s, .events = ev, .values = (double[]){ 1, 1 }, .n = 1);
	TALLY_OPTS(tally_metric_value, out);
	CHECK_INT(tally_metric_eval(&s, (size_t)metric("IPC"), &out), 0);
	check_unavailable(&out, "needs cycles");
	tally_events_free(ev);
}

/* Readings as tally_counter_read writes them, with the caller's elem_sz; a wrong one and bad arguments
 * are refused. */
static void results_and_arguments(void)
{
	tally_events *ev = parse(intel, "instructions,cycles");
	struct tally_result r[2] = { { .scaled = 300, .status = TALLY_STATUS_EXACT },
		                     { .scaled = 100, .status = TALLY_STATUS_SCALED } };
	TALLY_OPTS(tally_metric_sample, s, .events = ev, .results = r, .n = 2, .elem_sz = sizeof(r[0]));
	TALLY_OPTS(tally_metric_value, v);
	size_t ipc = (size_t)metric("IPC");
	CHECK_INT(tally_metric_eval(&s, ipc, &v), 0);
	check_value(&v, 3);
	CHECK(v.scaled);
	CHECK_INT(v.nr_inputs, 2);
	CHECK_STR(v.inputs[0].event, "instructions");
	CHECK(v.inputs[0].value == 300 && v.inputs[1].value == 100);
	CHECK_INT(v.inputs[1].first_event, 1);
	s.elem_sz = 3;
	CHECK_INT(tally_metric_eval(&s, ipc, &v), -TALLY_EOPTS);
	CHECK_CONTAINS(tally_last_error(), "elem_sz");
	s.elem_sz = sizeof(r[0]);
	CHECK_INT(tally_metric_eval(&s, tally_metric_count(), &v), -ERANGE);
	CHECK_INT(tally_metric_eval(NULL, ipc, &v), -EINVAL);
	CHECK_INT(tally_metric_eval(&s, ipc, NULL), -EINVAL);
	s.events = NULL;
	CHECK_INT(tally_metric_eval(&s, ipc, &v), -EINVAL);
	tally_events_free(ev);
}

/* Names and groups, case-insensitively; an unknown one with the closest name. */
static void lookup(void)
{
	int ipc = tally_metric_find("IPC");
	CHECK(ipc >= 0);
	CHECK_INT(tally_metric_find("ipc"), ipc);
	CHECK_INT(tally_metric_find("Ipc"), ipc);
	CHECK_INT(tally_metric_find("IPCC"), -ENOENT);
	CHECK_CONTAINS(tally_last_error(), "unknown metric or metric group 'IPCC'");
	CHECK_CONTAINS(tally_last_error(), "did you mean 'IPC'?");
	CHECK_INT(tally_metric_find("tma_retirng"), -ENOENT);
	CHECK_CONTAINS(tally_last_error(), "did you mean 'tma_retiring'?");
	CHECK_INT(tally_metric_find("topdownl1"), -ENOENT); /* a group is no metric */
	CHECK_INT(tally_metric_find("zzzzzzzzzzzz"), -ENOENT);
	CHECK(strstr(tally_last_error(), "did you mean") == NULL);
	CHECK_INT(tally_metric_find(NULL), -EINVAL);

	size_t idx[32];
	int n = tally_metrics_select("topdownl1", idx, 32);
	CHECK_INT(n, 4);
	const char *l1[] = { "tma_retiring", "tma_bad_speculation", "tma_frontend_bound", "tma_backend_bound" };
	for (int k = 0; k < n && k < 4; k++)
		CHECK_INT(idx[k], tally_metric_find(l1[k]));
	CHECK_INT(tally_metrics_select("TopdownL2", idx, 32), 8);
	/* Each once, in the order of the list; a group's members in catalogue order. */
	n = tally_metrics_select(" CPI , ipc,Summary,IPC", idx, 32);
	CHECK_INT(n, 4);
	CHECK_INT(idx[0], tally_metric_find("CPI"));
	CHECK_INT(idx[1], ipc);
	CHECK_INT(idx[2], tally_metric_find("cycles_frequency"));
	CHECK_INT(idx[3], tally_metric_find("CPUs_utilized"));
	/* Without room: the count. */
	CHECK_INT(tally_metrics_select("TopdownL1,TopdownL2", NULL, 0), 12);
	CHECK_INT(tally_metrics_select("IPC,TopdownL9", idx, 32), -ENOENT);
	CHECK_CONTAINS(tally_last_error(), "did you mean 'TopdownL1'?");
	CHECK_INT(tally_metrics_select("", idx, 32), -EINVAL);
	CHECK_INT(tally_metrics_select("IPC,,CPI", idx, 32), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "empty name");
}

/* On the hybrid fixture, instructions and cycles count once per core PMU: the IPC of each part, and the
 * summed IPC (summed instructions over summed cycles). A part that never ran adds nothing. */
static void hybrid_parts(void)
{
	tally_events *ev = parse(hybrid, "instructions,cycles");
	CHECK_INT(tally_events_count(ev), 4);
	double values[4];
	const char *pmu_of[4];
	for (size_t i = 0; i < 4; i++) {
		TALLY_OPTS(tally_event_info, info);
		tally_events_at(ev, i, &info);
		pmu_of[i] = info.pmu;
		bool core = strcmp(info.pmu, "cpu_core") == 0;
		bool insn = strstr(info.name, "instructions") != NULL;
		values[i] = insn ? (core ? 300 : 100) : (core ? 100 : 200);
	}
	size_t ipc = (size_t)metric("IPC");
	TALLY_OPTS(tally_metric_sample, s, .events = ev, .values = values, .n = 4);
	const char *parts[4];
	CHECK_INT(tally_metric_parts(&s, ipc, parts, 4), 2);
	CHECK_STR(parts[0], pmu_of[0]);
	TALLY_OPTS(tally_metric_value, v);
	CHECK_INT(tally_metric_eval(&s, ipc, &v), 0);
	check_value(&v, 400.0 / 300);
	CHECK_INT(v.inputs[0].nr_events, 2);
	s.pmu = "cpu_core";
	CHECK_INT(tally_metric_eval(&s, ipc, &v), 0);
	check_value(&v, 3);
	CHECK_INT(v.inputs[0].nr_events, 1);
	s.pmu = "cpu_atom";
	CHECK_INT(tally_metric_eval(&s, ipc, &v), 0);
	check_value(&v, 0.5);
	/* The atom part never ran: the sum is the core part's; an unknown part has no inputs. */
	enum tally_status st[4];
	for (size_t i = 0; i < 4; i++)
		st[i] = strcmp(pmu_of[i], "cpu_atom") == 0 ? TALLY_STATUS_NOT_COUNTED : TALLY_STATUS_EXACT;
	s.statuses = st;
	s.pmu = NULL;
	CHECK_INT(tally_metric_eval(&s, ipc, &v), 0);
	check_value(&v, 3);
	s.pmu = "cpu_atom";
	CHECK_INT(tally_metric_eval(&s, ipc, &v), 0);
	check_unavailable(&v, "cpu_atom/");
	CHECK_CONTAINS(v.reason, "not counted");
	s.pmu = "cpu_big";
	CHECK_INT(tally_metric_eval(&s, ipc, &v), 0);
	check_unavailable(&v, "needs instructions");
	/* Software inputs count for every part, once in the sum. */
	tally_events_free(ev);
	ev = parse(hybrid, "cycles,task-clock");
	double cyc[3];
	for (size_t i = 0; i < 3; i++) {
		TALLY_OPTS(tally_event_info, info);
		tally_events_at(ev, i, &info);
		cyc[i] = strcmp(info.name, "task-clock") == 0 ? 1e9 : strstr(info.name, "cpu_core") ? 3e9 : 1e9;
	}
	s = (struct tally_metric_sample){ .sz = sizeof(s), .events = ev, .values = cyc, .n = 3 };
	size_t ghz = (size_t)metric("cycles_frequency");
	CHECK_INT(tally_metric_eval(&s, ghz, &v), 0);
	check_value(&v, 4);
	s.pmu = "cpu_core";
	CHECK_INT(tally_metric_eval(&s, ghz, &v), 0);
	check_value(&v, 3);
	tally_events_free(ev);
	/* On a machine with one core PMU: one part. */
	ev = parse(intel, "instructions,cycles");
	s = (struct tally_metric_sample){ .sz = sizeof(s), .events = ev, .values = values, .n = 2 };
	CHECK_INT(tally_metric_parts(&s, ipc, parts, 4), 1);
	CHECK_INT(tally_metric_parts(&s, (size_t)metric("CPUs_utilized"), parts, 4), 0);
	tally_events_free(ev);
}

/* When an input is there more than once, the brace group that holds every input gives the metric (one
 * window); else the first of each, with the modifiers of the first input found. */
static void group_and_modifiers(void)
{
	struct tally_metric_value v;
	v = eval(intel, "instructions,cycles,{instructions,cycles}", "IPC", (double[]){ 100, 100, 300, 100 }, NULL, 0,
	         NULL);
	check_value(&v, 3);
	CHECK_INT(v.inputs[0].first_event, 2);
	v = eval(intel, "instructions:u,cycles,cycles:u", "IPC", (double[]){ 100, 100, 50 }, NULL, 0, NULL);
	check_value(&v, 2);
	v = eval(intel, "{cycles,task-clock},{instructions,cycles}", "IPC", (double[]){ 10, 1, 300, 100 }, NULL, 0,
	         NULL);
	check_value(&v, 3);
}

/* perf's comment column, computed by the library (tally_metric_comment) for every consumer. */
static void comment_column(void)
{
	tally_events *ev = parse(intel, "instructions,cycles,branches,branch-misses,cache-references,cache-misses,"
	                                "task-clock,page-faults,duration_time,instructions:u");
	CHECK_INT(tally_events_count(ev), 10);
	double values[10] = { 1.5e9, 3e9, 200, 5, 120, 30, 2e9, 4000, 1e9, 7 };
	TALLY_OPTS(tally_metric_sample, s, .events = ev, .values = values, .n = 10, .seconds = 1);
	static const struct {
		size_t event;
		double value;
		const char *unit, *name;
	} want[] = {
		{ 0, 0.5, "insn per cycle", "IPC" },         { 1, 1.5, "GHz", "cycles_frequency" },
		{ 2, 100, "/sec", "rate" },                   { 3, 2.5, "% of all branches", "branch_miss_rate" },
		{ 4, 60, "/sec", "rate" },                    { 5, 25, "% of all cache refs", "cache_miss_rate" },
		{ 6, 2, "CPUs utilized", "CPUs_utilized" }, { 7, 2, "K/sec", "rate" },
	};
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		TALLY_OPTS(tally_metric_value, v);
		CHECK_INT(tally_metric_comment(&s, want[k].event, &v), 1);
		check_value(&v, want[k].value);
		CHECK_STR(v.unit, want[k].unit);
		CHECK_STR(v.name, want[k].name);
		CHECK(v.nr_inputs >= 1);
		CHECK_INT(v.inputs[0].first_event, want[k].event);
	}
	TALLY_OPTS(tally_metric_value, v);
	/* Its partner is the cycles event of the same modifiers: there is none for instructions:u. */
	CHECK_INT(tally_metric_comment(&s, 9, &v), 0);
	CHECK(!v.available);
	/* perf's tool events have none. */
	CHECK_INT(tally_metric_comment(&s, 8, &v), 0);
	/* A partner that is 0 or not counted: none either (perf prints nothing). */
	values[1] = 0;
	CHECK_INT(tally_metric_comment(&s, 0, &v), 0);
	values[1] = 3e9;
	enum tally_status st[10] = { 0 };
	st[3] = TALLY_STATUS_NOT_SUPPORTED;
	s.statuses = st;
	CHECK_INT(tally_metric_comment(&s, 3, &v), 0);
	CHECK_INT(tally_metric_comment(&s, 10, &v), -ERANGE);
	/* Without a clock event, rates are per second of wall time. */
	tally_events_free(ev);
	ev = parse(intel, "page-faults");
	s = (struct tally_metric_sample){ .sz = sizeof(s), .events = ev, .values = (double[]){ 5e6 }, .n = 1,
		                          .seconds = 2 };
	CHECK_INT(tally_metric_comment(&s, 0, &v), 1);
	check_value(&v, 2.5);
	CHECK_STR(v.unit, "M/sec");
	tally_events_free(ev);
}

static tally_counter *new_counter(const char *spec, const char *machine, const char *metrics, int want)
{
	char root[4096];
	TALLY_OPTS(tally_counter_opts, o, .sysfs_root = fixture_sysfs(root, sizeof(root), machine),
	           .metrics = metrics);
	tally_counter *c = NULL;
	int err = tally_counter_new(spec, &o, &c);
	if (err != want)
		fprintf(stderr, "  %s -M %s: %s\n", spec, metrics, tally_last_error());
	CHECK_INT(err, want);
	return c;
}

/* The planned groups of a counter: "name,name|name|..." (groups in open order). */
static void plan_text(tally_counter *c, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < tally_counter_count(c); k++) {
		TALLY_OPTS(tally_planned_event, p);
		CHECK_INT(tally_counter_plan(c, TALLY_TARGET_THREAD, k, &p), 0);
		used += (size_t)snprintf(buf + used, len - used, "%s%s", k == 0 ? "" : p.group_index == 0 ? "|" : ",",
		                         tally_counter_name(c, p.event));
	}
}

/* tally_counter_new appends each metric's events as one group, each group once, and the level-1 topdown
 * group not at all beside the level-2 one; metrics whose events the machine cannot name add nothing; an
 * unknown metric fails it. */
static void counter_groups(void)
{
	char plan[1024];
	tally_counter *c = new_counter("task-clock", "intel", "IPC,CPI", 0);
	CHECK_INT(tally_counter_count(c), 3);
	plan_text(c, plan, sizeof(plan));
	CHECK_STR(plan, "task-clock|instructions,cycles");
	size_t idx[8];
	CHECK_INT(tally_counter_metrics(c, idx, 8), 2);
	CHECK_INT(idx[0], tally_metric_find("IPC"));
	CHECK_INT(idx[1], tally_metric_find("CPI"));
	tally_counter_free(c);

	/* No topdown events on a machine without a PMU: the counter has the spec's events, the metrics are
	 * listed. */
	c = new_counter("task-clock", "novpmu", "TopdownL1", 0);
	CHECK_INT(tally_counter_count(c), 1);
	CHECK_INT(tally_counter_metrics(c, idx, 8), 4);
	tally_counter_free(c);
	c = new_counter("", "novpmu", "tma_retiring", -TALLY_ESPEC);
	CHECK(c == NULL);
	CHECK_CONTAINS(tally_last_error(), "do not exist on this machine");
	c = new_counter("", "intel", "IPC", 0);
	CHECK_INT(tally_counter_count(c), 2);
	tally_counter_free(c);
	c = new_counter("task-clock", "intel", "IPX", -ENOENT);
	CHECK(c == NULL);
	CHECK_CONTAINS(tally_last_error(), "did you mean 'IPC'?");

	/* Software metrics add only the events the spec lacks, once. */
	c = new_counter("task-clock", "intel", "CPUs_utilized,cs_per_second,page_faults_per_second", 0);
	CHECK_INT(tally_counter_count(c), 3);
	CHECK_STR(tally_counter_name(c, 1), "context-switches");
	CHECK_STR(tally_counter_name(c, 2), "page-faults");
	tally_counter_free(c);

	/* Hybrid: one group per core PMU (in the parser's order of the PMUs). */
	c = new_counter("", "hybrid", "IPC", 0);
	CHECK_INT(tally_counter_count(c), 4);
	plan_text(c, plan, sizeof(plan));
	CHECK_STR(plan, "cpu_atom/instructions/,cpu_atom/cycles/|cpu_core/instructions/,cpu_core/cycles/");
	tally_counter_free(c);
	/* Level 1 and level 2 together: the level-2 group alone (it holds level 1's). */
	c = new_counter("", "hybrid", "TopdownL1,TopdownL2", 0);
	CHECK_INT(tally_counter_count(c), 9);
	CHECK_INT(tally_counter_metrics(c, idx, 8), 12);
	tally_counter_free(c);
	c = new_counter("", "hybrid", "tma_retiring,TopdownL1", 0);
	CHECK_INT(tally_counter_count(c), 5);
	tally_counter_free(c);
}

int main(void)
{
	intel = fixture_pmus("intel");
	hybrid = fixture_pmus("hybrid");
	if (!intel || !hybrid)
		return 1;
	static const struct harness_case cases[] = {
		{ "every_formula", every_formula },
		{ "catalogue_is_consistent", catalogue_is_consistent },
		{ "not_available", not_available },
		{ "results_and_arguments", results_and_arguments },
		{ "lookup", lookup },
		{ "hybrid_parts", hybrid_parts },
		{ "group_and_modifiers", group_and_modifiers },
		{ "comment_column", comment_column },
		{ "counter_groups", counter_groups },
		{ NULL, NULL },
	};
	int ret = harness_run(cases);
	tally_pmus_free(intel);
	tally_pmus_free(hybrid);
	return ret;
}
