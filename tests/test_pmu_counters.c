/* SPDX-License-Identifier: MIT */
/*
 * The counters each event may take, from the vendor tables (machine/pmu_counters.h): the Counter field, the
 * PMUs' numbers of counters (counter.json), the kernel's fixed-counter rules; and the plan they give
 * (tally_counter_plan): groups tally makes never need more counters than the PMU has, nor two events of one
 * counter, a {...} group of the spec stays as written with group_fits false; without counts, as before.
 * On fixture machines with TALLY_CPUID, and a perf-format tree converted at run time.
 */
#include "fixture_tree.h"
#include "harness.h"
#include "machine/pmu_counters.h"
#include "noted_opens.h"
#include "temp_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <tally/counter.h>

#define FIXED(i) (1ULL << (32 + (i)))

static tally_counter *counter_of(const char *machine, const char *cpuid, const char *spec)
{
	char root[4096];
	setenv("TALLY_CPUID", cpuid, 1);
	TALLY_OPTS(tally_counter_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), machine));
	tally_counter *c = NULL;
	if (tally_counter_new(spec, &opts, &c))
		fprintf(stderr, "%s: %s\n", spec, tally_last_error());
	return c;
}

/* The planned event of event index i (not plan position). */
static struct tally_planned_event planned(tally_counter *c, size_t i)
{
	TALLY_OPTS(tally_planned_event, p);
	for (size_t k = 0; c && k < tally_counter_count(c); k++)
		if (tally_counter_plan(c, TALLY_TARGET_COMMAND, k, &p) == 0 && p.event == i)
			return p;
	return (struct tally_planned_event){ 0 };
}

/* The plan as "[0,1][2]" by event index, '!' after a group that does not fit. */
static const char *groups(tally_counter *c)
{
	static char buf[512];
	size_t len = 0;
	buf[0] = '\0';
	for (size_t k = 0; c && k < tally_counter_count(c) && len < sizeof(buf); k++) {
		TALLY_OPTS(tally_planned_event, p);
		if (tally_counter_plan(c, TALLY_TARGET_COMMAND, k, &p))
			return "error";
		bool last = p.group_index + 1 == p.group_size;
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%zu%s%s", p.group_index ? "," : "[", p.event,
		                        last ? "]" : "", last && !p.group_fits ? "!" : "");
	}
	return buf;
}

static void counter_field_as_a_set(void)
{
	static const struct {
		const char *text;
		uint64_t set;
	} cases[] = {
		{ "0,1,2,3", 0xf }, { "0,1,2,3,4,5,6,7", 0xff }, { "2", 0x4 }, { "0,2,3", 0xd },
		{ "Fixed counter 0", FIXED(0) }, { "Fixed counter 3", FIXED(3) }, { "FIXED", FIXED(0) },
		{ "Fixed", FIXED(0) }, { "", 0 }, { "0-3", 0 }, { "38", 0 }, { "0,,1", 0 }, { "Fixed counter", 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tly_span s = { cases[i].text, strlen(cases[i].text) };
		if (tly_counter_list(s) != cases[i].set)
			fprintf(stderr, "'%s'\n", cases[i].text);
		CHECK_U64(tly_counter_list(s), cases[i].set);
	}
}

/* Ice Lake server (8 generic, 4 fixed on the core; uncore_imc 4 and 1): each kind of event's set. */
static void sets_on_icelake_server(void)
{
	tally_counter *c = counter_of("intel-server", "GenuineIntel-6-6A-0",
	                              "inst_retired.any,cycles,ref-cycles,branches,r01c2,cpu/event=0xc0,cmask=1/,"
	                              "baclears.any,uncore_imc_0/cas_count_read/,unc_m_hclockticks,"
	                              "uncore_imc_free_running_0/dclk/,task-clock");
	CHECK(c != NULL);
	const uint64_t want[] = {
		0xff | FIXED(0), 0xff | FIXED(1), FIXED(2), 0xff, 0xff,
		0xff,           /* a cmask makes 0xc0 no fixed counter's event */
		0xf,            /* its Counter: 0,1,2,3 */
		0xf, FIXED(0),  /* uncore_imc_0; its fixed counter's event (on each of the six imc: events 9..14) */
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct tally_planned_event p = planned(c, i);
		if (p.counters != want[i])
			fprintf(stderr, "event %zu: %#llx\n", i, (unsigned long long)p.counters);
		CHECK_U64(p.counters, want[i]);
	}
	CHECK_INT(planned(c, 0).generic_counters, 8);
	CHECK_INT(planned(c, 0).fixed_counters, 4);
	CHECK_INT(planned(c, 7).generic_counters, 4);
	CHECK_INT(planned(c, 7).fixed_counters, 1);
	/* The free-running PMU and the software one have no counts: nothing known, nothing counted. */
	size_t n = tally_counter_count(c);
	CHECK_U64(planned(c, n - 2).counters, 0);
	CHECK_INT(planned(c, n - 2).generic_counters, 0);
	CHECK_U64(planned(c, n - 1).counters, 0);
	tally_counter_free(c);
}

/* Skylake server (4 generic, 3 fixed): seven generic events pack 4 to a group with the fixed-counter events
 * beside them; inst_retired.prec_dist fits generic counter 1 alone, so two never share a group. */
static void packed_groups_fit(void)
{
	tally_counter *c = counter_of("intel-server", "GenuineIntel-6-55-4",
	                              "cycles,instructions,ref-cycles,branches,branch-misses,baclears.any,"
	                              "r01c2,r02c2,r04c2,inst_retired.prec_dist,inst_retired.prec_dist:u");
	CHECK_STR(groups(c), "[0,1,2,3,4,5,6][7,8,9][10]");
	tally_counter_free(c);
}

/* A weak group (as every vendor metric's) is split to fit; a plain one stays as written, marked; slots and
 * the topdown metrics of a weak group stay in one piece (Ice Lake client: PERF_METRICS). */
static void braces(void)
{
	tally_counter *c = counter_of("intel-server", "GenuineIntel-6-55-4",
	                              "{branches,branch-misses,r01c2,r02c2,r04c2,cycles}:W,"
	                              "{branches,branch-misses,r01c2,r02c2,r04c2},mem_load_retired.l3_miss");
	CHECK_STR(groups(c), "[0,1,2,3,5][4][6,7,8,9,10]![11]");
	tally_counter_free(c);
	c = counter_of("intel", "GenuineIntel-6-7E-5",
	               "{topdown-retiring,branches,branch-misses,r01c2,r02c2,r04c2,r08c2,r10c2,r20c2,r40c2,slots}:W,"
	               "mem_load_retired.l3_miss");
	/* slots moved first (event 0 by the parser), the metric with it; the ninth generic event apart */
	CHECK_STR(groups(c), "[0,1,2,3,4,5,6,7,8,9][10][11]");
	tally_counter_free(c);
}

/* A spec without a table name (the default events) reads no table for the counts: issue 24's cost rule.
 * Its groups are those of before the tables had counts; the kernel's answers split them. */
static void no_table_name_no_table(void)
{
	const struct tly_sys *old = noting_start();
	tally_counter *c = counter_of("intel-server", "GenuineIntel-6-55-4",
	                              "task-clock,cycles,instructions,branches,branch-misses,r01c2,r02c2,r04c2,r08c2");
	tly_sys_replace(old);
	CHECK(strstr(noted_opens, "pmu-events") == NULL);
	CHECK_U64(planned(c, 1).counters, 0);
	tally_counter_free(c);
}

/* No counts (AMD's tables, Intel's hybrids have no counter.json): the groups of before. */
static void no_counts_no_change(void)
{
	tally_counter *c = counter_of("amd", "AuthenticAMD-23-31-0",
	                              "cycles,instructions,branches,branch-misses,r01c2,r02c2,r04c2,r08c2");
	CHECK_STR(groups(c), "[0,1,2,3,4,5,6,7]");
	CHECK_U64(planned(c, 0).counters, 0);
	tally_counter_free(c);
	c = counter_of("intel-server", "GenuineIntel-6-55-4", "{r01c2,r02c2,r04c2,r08c2,r10c2},mem_load_retired.l3_miss");
	CHECK_STR(groups(c), "[0,1,2,3,4]![5]");
	tally_counter_free(c);
	/* --no-group: each alone, whatever the counters */
	setenv("TALLY_CPUID", "GenuineIntel-6-55-4", 1);
	char root[4096];
	TALLY_OPTS(tally_counter_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), "intel-server"),
	           .no_packing = true);
	CHECK_INT(tally_counter_new("r01c2,r02c2,r04c2,r08c2,r10c2", &opts, &c), 0);
	CHECK_STR(groups(c), "[0][1][2][3][4]");
	tally_counter_free(c);
}

/* A perf-format tree read at run time (TALLY_PMU_EVENTS) takes its counter.json as generate.py does: the
 * Unit "core" is the core PMU, a number may be a JSON number. */
static void counts_of_a_perf_tree(void)
{
	char dir[] = "/tmp/tally-counters-tree-XXXXXX";
	static const char *const tree[][2] = {
		{ "x86", NULL },
		{ "x86/mapfile.csv", "Family-model,Version,Filename,EventType\nGenuineIntel-6-55-[01234],v9,skx,core\n" },
		{ "x86/skx", NULL },
		{ "x86/skx/pipeline.json",
		  "[ {\"EventName\": \"ONLY.ONE\", \"EventCode\": \"0x48\", \"UMask\": \"0x1\", \"Counter\": \"2\"} ]\n" },
		{ "x86/skx/counter.json", "[ {\"Unit\": \"core\", \"CountersNumFixed\": \"3\", \"CountersNumGeneric\": 2},\n"
		                          "  {\"Unit\": \"iMC\", \"CountersNumFixed\": 1, \"CountersNumGeneric\": \"4\"} ]\n" },
		{ NULL, NULL },
	};
	tree_make(dir, tree);
	setenv("TALLY_PMU_EVENTS", dir, 1);
	tally_counter *c = counter_of("intel-server", "GenuineIntel-6-55-4",
	                              "only.one,branches,branch-misses,only.one:u,uncore_imc_0/cas_count_read/");
	CHECK_U64(planned(c, 0).counters, 0x3); /* its "2" is past the 2 generic counters: any of them */
	CHECK_INT(planned(c, 1).generic_counters, 2);
	CHECK_INT(planned(c, 1).fixed_counters, 3);
	/* the iMC's event is sysfs's: no name chose its PMU's table, which is not read for it */
	CHECK_INT(planned(c, 4).generic_counters, 0);
	CHECK_STR(groups(c), "[0,1][2,3][4]");
	tally_counter_free(c);
	tree_remove(dir);
	unsetenv("TALLY_PMU_EVENTS");
}

int main(void)
{
	unsetenv("TALLY_PMU_EVENTS");
	static const struct harness_case cases[] = {
		{ "counter_field_as_a_set", counter_field_as_a_set },
		{ "sets_on_icelake_server", sets_on_icelake_server },
		{ "packed_groups_fit", packed_groups_fit },
		{ "braces", braces },
		{ "no_table_name_no_table", no_table_name_no_table },
		{ "no_counts_no_change", no_counts_no_change },
		{ "counts_of_a_perf_tree", counts_of_a_perf_tree },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
