/* SPDX-License-Identifier: MIT */
/*
 * The vendors' event tables (machine/pmu_events.h, pmu_table.c) through tally_events_parse, on fixture
 * machines with TALLY_CPUID or their MIDR files: names as perf 6.1 resolves them (any case, bare or
 * pmu/name/, modifiers, override terms, groups, MSR values into config1, uncore families), each PMU its
 * own table (hybrid, big.LITTLE), a table read only when a name needs it, and the three ways to have no
 * table (no model, corrupt file, missing folder), each with its own message while other specs still work.
 * The encodings are perf 6.1's (test_pmu_events_agreement.sh checks every model against perf itself).
 */
#include "fixture_tree.h"
#include "harness.h"
#include "machine/pmu_events.h"
#include "machine/pmu_family.h"
#include "noted_opens.h"
#include "temp_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tally/common.h>
#include <tally/events.h>

static char fixture[4096];

static const char *machine(const char *name)
{
	return fixture_sysfs(fixture, sizeof(fixture), name);
}

/* Parses spec on the fixture; returns the events (NULL when refused, the message in tally_last_error). */
static tally_events *parse(const char *fixture_name, const char *spec)
{
	TALLY_OPTS(tally_parse_opts, opts, .sysfs_root = machine(fixture_name));
	tally_events *events = NULL;
	if (tally_events_parse(spec, &opts, &events))
		return NULL;
	return events;
}

static const struct perf_event_attr *attr_at(const tally_events *events, size_t i)
{
	TALLY_OPTS(tally_event_info, info);
	if (!events || i >= tally_events_count(events) || tally_events_at(events, i, &info))
		return NULL;
	return info.attr;
}

/* The one attr spec gives on fixture_name: type and config, config1 checked. */
static void check_one(const char *fixture_name, const char *spec, uint32_t type, uint64_t config, uint64_t config1)
{
	tally_events *events = parse(fixture_name, spec);
	if (!events)
		fprintf(stderr, "%s: %s\n", spec, tally_last_error());
	CHECK(events != NULL);
	CHECK_INT(events ? tally_events_count(events) : 0, 1);
	const struct perf_event_attr *attr = attr_at(events, 0);
	if (attr) {
		CHECK_INT(attr->type, type);
		CHECK_U64(attr->config, config);
		CHECK_U64(attr->config1, config1);
	}
	tally_events_free(events);
}

static void use_tables(const char *cpuid)
{
	unsetenv("TALLY_PMU_EVENTS");
	if (cpuid)
		setenv("TALLY_CPUID", cpuid, 1);
	else
		unsetenv("TALLY_CPUID");
}

/* Skylake-SP (perf's skylakex table) on the 2-socket server fixture. */
static void test_names_as_perf(void)
{
	use_tables("GenuineIntel-6-55-4");
	check_one("intel-server", "mem_load_retired.l3_miss", 4, 0x20d1, 0);
	check_one("intel-server", "MEM_LOAD_RETIRED.L3_MISS", 4, 0x20d1, 0);
	check_one("intel-server", "cpu/mem_load_retired.l3_miss/", 4, 0x20d1, 0);
	check_one("intel-server", "cpu/mem_load_retired.l3_miss,cmask=2/", 4, 0x20020d1, 0);
	check_one("intel-server", "inst_retired.any", 4, 0xc0, 0);
	/* MSRValue into config1 through the offcore_rsp format (config1:0-63), as perf 6.1 encodes it. */
	check_one("intel-server", "offcore_response.demand_data_rd.l3_miss.any_snoop", 4, 0x1b7, 0x3fbc000001);
	tally_events *events = parse("intel-server", "{inst_retired.any,mem_load_retired.l3_miss:u}");
	CHECK_INT(events ? tally_events_count(events) : 0, 2);
	const struct perf_event_attr *attr = attr_at(events, 1);
	CHECK(attr && attr->config == 0x20d1 && attr->exclude_kernel && !attr->exclude_user);
	tally_events_free(events);
}

/* A sysfs alias wins over the table's event of the same name (perf keeps the sysfs terms), and a generic
 * name stays generic. */
static void test_precedence(void)
{
	use_tables("GenuineIntel-6-55-4");
	check_one("intel-server", "cycles", 0, 0, 0);
	check_one("intel-server", "cpu/mem-loads/", 4, 0x1cd, 3);
}

/* An uncore event on every instance of its family (six uncore_imc), one origin to sum. */
static void test_uncore_family(void)
{
	use_tables("GenuineIntel-6-55-4");
	tally_events *events = parse("intel-server", "unc_m_cas_count.rd");
	CHECK_INT(events ? tally_events_count(events) : 0, 6);
	for (size_t i = 0; events && i < tally_events_count(events); i++) {
		const struct perf_event_attr *attr = attr_at(events, i);
		CHECK(attr && attr->type == 20 + i && attr->config == 0x304);
	}
	tally_events_free(events);
	/* ScaleUnit "64Bytes": the scale and unit a sysfs alias's .scale and .unit would give. */
	events = parse("intel-server", "llc_misses.mem_read");
	TALLY_OPTS(tally_event_info, info);
	CHECK(events && tally_events_count(events) == 6 && tally_events_at(events, 0, &info) == 0);
	CHECK_STR(info.unit, "Bytes");
	CHECK(info.scale == 64.0);
	tally_events_free(events);
}

/* Alder Lake: the table's cpu_core and cpu_atom records go each to its PMU. */
static void test_hybrid(void)
{
	use_tables("GenuineIntel-6-97-2");
	tally_events *events = parse("hybrid", "br_inst_retired.near_taken");
	CHECK_INT(events ? tally_events_count(events) : 0, 2);
	const struct perf_event_attr *a = attr_at(events, 0), *b = attr_at(events, 1);
	CHECK(a && a->type == 10 && a->config == 0xc0c4); /* cpu_atom */
	CHECK(b && b->type == 4 && b->config == 0x20c4);  /* cpu_core */
	tally_events_free(events);
	check_one("hybrid", "topdown_fe_bound.all", 10, 0x71, 0);
}

/* RK3399-style big.LITTLE with no TALLY_CPUID: each cluster's PMU takes the table of its CPUs' MIDR. */
static void test_big_little(void)
{
	use_tables(NULL);
	check_one("arm64-biglittle", "agu_dep_stall", 8, 0xe5, 0); /* Cortex-A53 only */
	check_one("arm64-biglittle", "ase_spec", 9, 0x74, 0);      /* Cortex-A57/A72 only */
	tally_events *events = parse("arm64-biglittle", "br_mis_pred:u");
	CHECK_INT(events ? tally_events_count(events) : 0, 2);
	tally_events_free(events);
}

/* An arm64 MIDR against a row or a metric's strcmp_cpuid_str, as perf 6.12 compares them: the same part
 * of the row's version or later (variant, then revision), whatever the row's version; a TALLY_CPUID of a
 * whole MIDR finds the part's table. */
static void test_midr_versions(void)
{
	CHECK(tly_midr_at_least("0x00000000410fd0c0", "0x00000000414fd0c1")); /* N1 r0p0 row, an r4p1 */
	CHECK(tly_midr_at_least("0x410fd493", "0x00000000410fd493"));         /* widths differ, same value */
	CHECK(tly_midr_at_least("0x410fd493", "0x00000000411fd490"));         /* r1p0 is after r0p3 */
	CHECK(!tly_midr_at_least("0x410fd493", "0x00000000410fd492"));        /* r0p2 is before */
	CHECK(!tly_midr_at_least("0x411fd490", "0x00000000410fd49f"));        /* r0p15 is before r1p0 */
	CHECK(!tly_midr_at_least("0x410fd490", "0x00000000410fd4f0"));        /* another part (V2) */
	CHECK(!tly_midr_at_least("0x410fd0c0", "0x00000000420fd0c0"));        /* another implementer */
	use_tables("0x00000000413fd0c1");
	check_one("arm64", "dp_spec", 8, 0x73, 0); /* Neoverse N1 r3p1 takes N1's table */
}

/* `task-clock` (and any spec an earlier source resolves) opens no table file; a table name opens one. */
static void test_read_only_when_needed(void)
{
	use_tables("GenuineIntel-6-55-4");
	const struct tly_sys *old = noting_start();
	tally_events_free(parse("intel-server", "task-clock,cpu/event=0xd1,umask=0x20/,msr/tsc/"));
	CHECK(strstr(noted_opens, "pmu-events") == NULL && strstr(noted_opens, "mapfile") == NULL);
	noted_opens[0] = '\0';
	tally_events_free(parse("intel-server", "mem_load_retired.l3_miss"));
	CHECK_CONTAINS(noted_opens, "x86/skylakex.events");
	tly_sys_replace(old);
}

static void check_refused(const char *spec, const char *message)
{
	tally_events *events = parse("intel-server", spec);
	CHECK(events == NULL);
	CHECK_CONTAINS(tally_last_error(), message);
	tally_events_free(events);
	/* Everything that needs no table still parses. */
	events = parse("intel-server", "task-clock,cpu/event=0xd1,umask=0x20/,uncore_imc/cas_count_read/");
	CHECK(events != NULL);
	tally_events_free(events);
}

static void test_no_table(void)
{
	use_tables("GenuineIntel-6-FF-0");
	check_refused("unc_cha_clockticks", "no event table for CPU GenuineIntel-6-FF-0");
	use_tables("GenuineIntel-6-55-4");
	setenv("TALLY_PMU_EVENTS", "/nonexistent/pmu-events", 1);
	check_refused("unc_cha_clockticks",
	              "the event tables' folder /nonexistent/pmu-events that TALLY_PMU_EVENTS names is missing");
	char dir[] = "/tmp/tally-pmu-events-XXXXXX";
	static const char *const corrupt[][2] = {
		{ "x86", NULL }, { "MANIFEST", "# a converted folder\n" },
		{ "x86/mapfile.csv", "GenuineIntel-6-55-[01234],v1,skylakex,core\n" },
		{ "x86/skylakex.events", "this is not a table\n" }, { NULL, NULL },
	};
	tree_make(dir, corrupt);
	setenv("TALLY_PMU_EVENTS", dir, 1);
	check_refused("unc_cha_clockticks", "skylakex.events is corrupt at byte 0");
	tree_remove(dir);
	unsetenv("TALLY_PMU_EVENTS");
}

/* TALLY_PMU_EVENTS at a perf-format tree: its JSON read at run time, by the generator's rules (an
 * ArchStdEvent resolved, MSRValue into offcore_rsp, the header row skipped); malformed JSON named with
 * the file and byte. */
static void test_perf_tree(void)
{
	char dir[] = "/tmp/tally-pmu-tree-XXXXXX";
	static const char *const tree[][2] = {
		{ "x86", NULL },
		/* A row whose regex does not compile matches nothing (the next row is the CPU's), as regcomp fails;
		 * an alternation is matched past its first choice ((54|55): the quick refusal of a row none of
		 * whose choices begins the id must not refuse this one). */
		{ "x86/mapfile.csv", "Family-model,Version,Filename,EventType\nGenuineIntel-6-(55,v1,bad,core\n"
		                     "GenuineIntel-6-(3E|4F),v1,other,core\nGenuineIntel-6-(54|55)-[01234],v9,skx,core\n" },
		{ "x86/std.json", "[ { \"EventName\": \"STD.EV\", \"EventCode\": \"0x2e\", \"UMask\": \"0x41\" } ]" },
		{ "x86/skx", NULL },
		{ "x86/skx/cache.json",
	           "[\n {\"EventName\": \"OFF.X\", \"EventCode\": \"0xB7, 0xBB\", \"UMask\": \"0x1\", \"MSRIndex\": "
	           "\"0x1a6,0x1a7\", \"MSRValue\": \"0x3FBC000001\", \"CounterMask\": \"0\", \"BriefDescription\": "
	           "\"a \\\"quoted\\\" \\u00e9\"},\n {\"EventName\": \"my.std\", \"ArchStdEvent\": \"std.ev\", \"UMask\": \"0x9\"},\n"
	           /* A name written with a \u escape (U+002E '.') is the name it spells. */
	           " {\"EventName\": \"ESC\\u002eEV\", \"EventCode\": \"0x3c\", \"UMask\": \"0x2\"}\n]\n" },
		{ NULL, NULL },
	};
	tree_make(dir, tree);
	setenv("TALLY_PMU_EVENTS", dir, 1);
	setenv("TALLY_CPUID", "GenuineIntel-6-55-4", 1);
	check_one("intel-server", "off.x", 4, 0x1b7, 0x3fbc000001);
	check_one("intel-server", "cpu/MY.STD/", 4, 0x412e, 0);
	check_one("intel-server", "esc.ev", 4, 0x23c, 0);
	tree_write(dir, "x86/skx/cache.json", "[ { \"EventName\": \"OFF.X\" ");
	CHECK(parse("intel-server", "off.x") == NULL);
	CHECK_CONTAINS(tally_last_error(), "cache.json is not pmu-events JSON (malformed at byte");
	tree_remove(dir);
	unsetenv("TALLY_PMU_EVENTS");
}

/* A table's Unit against PMU names, as perf 6.1's pmu_uncore_alias_match: the tokens in order, the first
 * at the start, the last followed by nothing or by digits after an optional '_'. */
static void test_unit_names(void)
{
#define MEMBER(unit, name) tly_pmu_unit_member(unit, strlen(unit), name)
	CHECK(MEMBER("uncore_imc", "uncore_imc_0") && MEMBER("uncore_imc", "uncore_imc"));
	CHECK(MEMBER("imx8_ddr", "imx8_ddr0") && MEMBER("arm_cmn", "arm_cmn_12"));
	CHECK(MEMBER("hisi_sccl,ddrc", "hisi_sccl1_ddrc0") && MEMBER("hisi_sicl,cpa", "hisi_sicl0_cpa0"));
	CHECK(!MEMBER("uncore_imc", "uncore_imc_free_running_0"));
	CHECK(!MEMBER("uncore_imc", "uncore_imc_"));  /* a '_' with no digits after it */
	CHECK(!MEMBER("uncore_imc", "uncore_imc_0x"));
	CHECK(!MEMBER("imx8_ddr", "imx9_ddr0") && !MEMBER("hisi_sccl,ddrc", "hisi_sccl1_hha0"));
	CHECK(!MEMBER("hisi_sccl,ddrc", "hisi_sccl1_ddrc0_x"));
	CHECK(!MEMBER("ddrc", "hisi_sccl1_ddrc0"));  /* the first token begins the name */
	CHECK(!MEMBER("", "cpu"));
#undef MEMBER
	/* A compat is a POSIX extended regex that must match the whole identifier (perf 6.12). */
	const char *map = "arm_cmn\t(434|436|43c|43a).*\tarm-cmn-sys\nimx8_ddr\ti.MX8MM\tmm\nimx8_ddr\ti.MX8MQ\tmq\n";
	char model[64];
	CHECK(tly_pmu_sysmap_names(map, "arm_cmn_0") && tly_pmu_sysmap_names(map, "imx8_ddr1"));
	CHECK(!tly_pmu_sysmap_names(map, "imx9_ddr0") && !tly_pmu_sysmap_names(map, "armv8_pmuv3"));
	CHECK(tly_pmu_sysmap_find(map, "arm_cmn_0", "43c01", model, sizeof(model)) == 0);
	CHECK_STR(model, "arm-cmn-sys");
	CHECK(tly_pmu_sysmap_find(map, "arm_cmn_0", "43a", model, sizeof(model)) == 0);
	CHECK(tly_pmu_sysmap_find(map, "arm_cmn_0", "x43c01", model, sizeof(model)) == -ENOENT);
	CHECK(tly_pmu_sysmap_find(map, "arm_cmn_0", "43b01", model, sizeof(model)) == -ENOENT);
	CHECK(tly_pmu_sysmap_find(map, "imx8_ddr0", "i.MX8MQ", model, sizeof(model)) == 0);
	CHECK_STR(model, "mq");
	CHECK(tly_pmu_sysmap_find(map, "imx8_ddr0", "i.MX8MMX", model, sizeof(model)) == -ENOENT);
	CHECK(tly_pmu_sysmap_find(map, "imx8_ddr0", "43c01", model, sizeof(model)) == -ENOENT);
	/* A compat of another form than the tables' (stacked or nested quantifiers, an interval), whose regex
	 * glibc would expand into gigabytes, is compared whole, as perf 6.1 compares every compat. */
	const char *odd = "x\ta++++++++++++++++++++++++++++++++++++++++b\tplus\nx\t(a*)*\tstar\nx\tc{1000}\tbrace\n";
	CHECK(tly_pmu_sysmap_find(odd, "x", "aab", model, sizeof(model)) == -ENOENT);
	CHECK(tly_pmu_sysmap_find(odd, "x", "a++++++++++++++++++++++++++++++++++++++++b", model, sizeof(model)) == 0);
	CHECK_STR(model, "plus");
	CHECK(tly_pmu_sysmap_find(odd, "x", "aaaa", model, sizeof(model)) == -ENOENT);
	CHECK(tly_pmu_sysmap_find(odd, "x", "c{1000}", model, sizeof(model)) == 0);
	CHECK_STR(model, "brace");
	/* The longest row that fits the reader's 1023 bytes is read whole (found by fuzz_pmu_events: each field
	 * took two NULs, and a row of 1020 bytes or more overran the row buffer); a longer one is passed over. */
	static char fits[1100], longer[1100], id[1017];
	memset(id, 'c', 1016);
	id[1016] = '\0';
	snprintf(fits, sizeof(fits), "x\t%s\tlong\n", id);
	CHECK_INT((int)strlen(fits), 1024); /* 1023 and the newline */
	CHECK(tly_pmu_sysmap_find(fits, "x", id, model, sizeof(model)) == 0);
	CHECK_STR(model, "long");
	snprintf(longer, sizeof(longer), "x\tc%s\tlong\n", id);
	CHECK(tly_pmu_sysmap_find(longer, "x", id, model, sizeof(model)) == -ENOENT);
}

/* A system PMU takes the table its identifier names (the arm64-soc fixture: an i.MX8MM DDR controller,
 * a CMN-700, a HiSilicon CPA, beside Cortex-A53 cores), built in and from a perf-format tree alike; one
 * whose identifier no table names takes its CPU's table (HiSilicon's DDRC on a hip08) or none. */
static void check_system_pmus(void)
{
	check_one("arm64-soc", "imx8mm_ddr.read_cycles", 11, 0x2a, 0);
	check_one("arm64-soc", "imx8_ddr0/IMX8MM_DDR.WRITE/", 11, 0x38, 0);
	check_one("arm64-soc", "imx8_ddr/imx8mm_ddr.write/", 11, 0x38, 0);  /* the family, as perf names it */
	check_one("arm64-soc", "imx8mm_ddr.cycles:u", 11, 0, 0);
	check_one("arm64-soc", "hnf_cache_miss", 12, 0x10005, 0);  /* type=0x5 (NodeType), eventid=0x1 */
	check_one("arm64-soc", "cpa_cycles", 13, 0, 0);
	check_one("arm64-soc", "agu_dep_stall", 8, 0xe5, 0);      /* the cores' own table still answers */
	/* Another i.MX's events (its compat is not this identifier), and imx9_ddr0's "imx91" no table has. */
	static const char *const unknown[] = { "imx8mq_ddr.read_cycles", "imx93_ddr.cycles", "orphan" };
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		CHECK(parse("arm64-soc", unknown[i]) == NULL);
		CHECK_CONTAINS(tally_last_error(), "unknown event");
	}
}

static void test_system_pmus(void)
{
	use_tables(NULL);
	check_system_pmus();
	/* HiSilicon's DDRC has an identifier no sys table names: the hip08 table of its CPU. */
	use_tables("0x00000000480fd010");
	check_one("arm64-soc", "act_cmd", 14, 0x5, 0);
	char dir[] = "/tmp/tally-pmu-sys-XXXXXX";
	static const char *const tree[][2] = {
		{ "arm64", NULL },
		{ "arm64/mapfile.csv", "0x00000000410fd030,v1,arm/cortex-a53,core\n" },
		{ "arm64/arm", NULL },
		{ "arm64/arm/cortex-a53", NULL },
		{ "arm64/arm/cortex-a53/pipeline.json", "[ { \"EventName\": \"AGU_DEP_STALL\", \"EventCode\": \"0xE5\" } ]" },
		{ "arm64/arm/cmn", NULL },
		{ "arm64/arm/cmn/sys", NULL },
		{ "arm64/arm/cmn/sys/cmn.json", "[ { \"EventName\": \"hnf_cache_miss\", \"EventidCode\": \"0x1\", "
		                                "\"NodeType\": \"0x5\", \"Unit\": \"arm_cmn\", \"Compat\": \"(434|436|43c|43a).*\" } ]" },
		{ "arm64/soc", NULL },
		{ "arm64/soc/a", NULL },
		{ "arm64/soc/a/sys", NULL },
		{ "arm64/soc/a/sys/ddrc.json",
		  "[ { \"EventName\": \"imx8mm_ddr.read_cycles\", \"EventCode\": \"0x2a\", \"Unit\": \"imx8_ddr\", "
		  "\"Compat\": \"i.MX8MM\" },\n { \"EventName\": \"imx8mm_ddr.write\", \"EventCode\": \"0x38\", "
		  "\"Unit\": \"imx8_ddr\", \"Compat\": \"i.MX8MM\" },\n { \"EventName\": \"imx8mm_ddr.cycles\", "
		  "\"EventCode\": \"0x0\", \"Unit\": \"imx8_ddr\", \"Compat\": \"i.MX8MM\" },\n"
		  /* No Compat: perf takes it for no PMU. */
		  " { \"EventName\": \"orphan\", \"EventCode\": \"0x7\", \"Unit\": \"imx8_ddr\" } ]" },
		{ "arm64/soc/b", NULL },
		{ "arm64/soc/b/sys", NULL },
		{ "arm64/soc/b/sys/cpa.json", "[ { \"EventName\": \"cpa_cycles\", \"ConfigCode\": \"0x0\", "
		                              "\"Unit\": \"hisi_sicl,cpa\", \"Compat\": \"0x00000030\" },\n"
		                              " { \"EventName\": \"imx8mq_ddr.read_cycles\", \"EventCode\": \"0x2a\", "
		                              "\"Unit\": \"imx8_ddr\", \"Compat\": \"i.MX8MQ\" } ]" },
		{ NULL, NULL },
	};
	tree_make(dir, tree);
	setenv("TALLY_PMU_EVENTS", dir, 1);
	unsetenv("TALLY_CPUID");
	check_system_pmus();
	/* A sys/ file that is no JSON: the system PMUs take no table, and the cores' names still work. */
	tree_write(dir, "arm64/soc/b/sys/cpa.json", "[ { \"EventName\": ");
	CHECK(parse("arm64-soc", "imx8mm_ddr.read_cycles") == NULL);
	check_one("arm64-soc", "agu_dep_stall", 8, 0xe5, 0);
	tree_remove(dir);
	unsetenv("TALLY_PMU_EVENTS");
}

/* The description of name in t: its brief and long texts (the long one the brief one when stored empty). */
static void check_description(const struct tly_pmu_events *t, const char *name, const char *desc, const char *long_desc)
{
	struct tly_pmu_events_rec rec;
	size_t pos = tly_pmu_events_seek(t, name);
	struct tly_pmu_events_desc d = { 0 };
	bool found = tly_pmu_events_next(t, &pos, &rec) == 1 && tly_pmu_events_named(&rec, name) &&
	             tly_pmu_events_describe(t, &rec, &d) == 0;
	if (!found)
		fprintf(stderr, "no description of %s\n", name);
	CHECK(found);
	CHECK_STR(d.brief, desc);
	CHECK_STR(d.public_desc[0] ? d.public_desc : d.brief, long_desc);
	tly_pmu_events_desc_free(&d);
}

/* A table name when TALLY_PMU_EVENTS gives this CPU no table (its folder missing, or no row for the CPU):
 * refused with the reason, never encoded by libpfm4 instead (perf has no such fallback), while libpfm4's
 * own PMU::EVENT names still work; without TALLY_PMU_EVENTS a CPU the tables lack leaves the name to
 * libpfm4, as before. */
static void test_chosen_tables_missing(void)
{
	use_tables("GenuineIntel-6-55-4");
	if (tally_have_libpfm()) {
		/* What the refusal below stands against: libpfm4 encodes the name for this host's CPU. */
		use_tables("GenuineIntel-6-FF-0");
		tally_events *events = parse("intel-server", "mem_load_retired.l3_miss");
		if (!events)
			fprintf(stderr, "note: this host's libpfm4 does not know mem_load_retired.l3_miss\n");
		tally_events_free(events);
		use_tables("GenuineIntel-6-55-4");
	}
	setenv("TALLY_PMU_EVENTS", "/nonexistent/pmu-events", 1);
	CHECK(parse("intel-server", "mem_load_retired.l3_miss") == NULL);
	CHECK_CONTAINS(tally_last_error(), "unknown event 'mem_load_retired.l3_miss'");
	CHECK_CONTAINS(tally_last_error(),
	               "the event tables' folder /nonexistent/pmu-events that TALLY_PMU_EVENTS names is missing");
	if (tally_have_libpfm())
		CHECK_CONTAINS(tally_last_error(), "libpfm4 takes no bare name while TALLY_PMU_EVENTS is set");
	unsetenv("TALLY_PMU_EVENTS");
	char builtin[4096];
	snprintf(builtin, sizeof(builtin), "%s", tly_pmu_events_dir());
	setenv("TALLY_PMU_EVENTS", builtin, 1);
	setenv("TALLY_CPUID", "GenuineIntel-6-FF-0", 1);
	CHECK(parse("intel-server", "mem_load_retired.l3_miss") == NULL);
	CHECK_CONTAINS(tally_last_error(), "no event table for CPU GenuineIntel-6-FF-0");
	if (tally_have_libpfm()) {
		tally_events *events = parse("intel-server", "perf::PERF_COUNT_SW_PAGE_FAULTS");
		CHECK(events != NULL);
		tally_events_free(events);
	}
	unsetenv("TALLY_PMU_EVENTS");
}

/* A perf-format tree's descriptions as perf 6.1's jevents makes them (generate.py's rules, which
 * test_pmu_events_descriptions.sh checks against perf 6.1 for every x86 model): one final ".", ". " or
 * ".  " cut; the address note, the erratum and the precise note appended to both texts; the Unit's PMU
 * to the brief one; an ArchStdEvent's texts where the event has none; the long text the brief one when
 * the JSON has none. */
static void test_perf_tree_descriptions(void)
{
	char dir[] = "/tmp/tally-pmu-desc-XXXXXX";
	static const char *const tree[][2] = {
		{ "x86", NULL },
		{ "x86/mapfile.csv", "GenuineIntel-6-55-[01234],v9,skx,core\n" },
		{ "x86/std.json", "[ { \"EventName\": \"STD.EV\", \"EventCode\": \"0x2e\", \"BriefDescription\": "
	                  "\"Standard.\", \"PublicDescription\": \"Standard, at length.  \" } ]" },
		{ "x86/skx", NULL },
		{ "x86/skx/cache.json",
	           "[\n {\"EventName\": \"A.PEBS\", \"EventCode\": \"0xd1\", \"PEBS\": \"1\", \"Data_LA\": \"1\", "
	           "\"BriefDescription\": \"Loads.\", \"PublicDescription\": \"Counts loads. \"},\n"
	           " {\"EventName\": \"B.MUST\", \"EventCode\": \"0xc0\", \"PEBS\": \"2\", \"Errata\": \"SKL091\", "
	           "\"Data_LA\": \"1\", \"BriefDescription\": \"Retired..\"},\n"
	           " {\"EventName\": \"C.SAID\", \"EventCode\": \"0xc1\", \"PEBS\": \"1\", "
	           "\"BriefDescription\": \"Retired (Precise Event)\"},\n"
	           " {\"EventName\": \"D.UNC\", \"EventCode\": \"0x4\", \"Unit\": \"iMC\", \"BriefDescription\": "
	           "\"CAS. \", \"PublicDescription\": \"All CAS.\"},\n"
	           " {\"EventName\": \"E.UNC\", \"EventCode\": \"0x5\", \"Unit\": \"CBO\"},\n"
	           " {\"EventName\": \"F.STD\", \"ArchStdEvent\": \"std.ev\"},\n"
	           " {\"EventName\": \"G.STD\", \"ArchStdEvent\": \"std.ev\", \"BriefDescription\": \"Own\"}\n]\n" },
		{ NULL, NULL },
	};
	tree_make(dir, tree);
	struct tly_pmu_events *t = NULL;
	CHECK_INT(tly_pmu_events_convert(dir, "x86", "skx", "v9", &t), 0);
	if (t) {
		check_description(t, "a.pebs", "Loads  Supports address when precise (Precise event)",
		                  "Counts loads  Supports address when precise (Precise event)");
		check_description(t, "b.must", "Retired.  Supports address when precise.  Spec update: SKL091 (Must be precise)",
		                  "Retired.  Supports address when precise.  Spec update: SKL091 (Must be precise)");
		check_description(t, "c.said", "Retired (Precise Event)", "Retired (Precise Event)");
		check_description(t, "d.unc", "CAS. Unit: uncore_imc", "All CAS");
		check_description(t, "e.unc", "Unit: uncore_cbox", "Unit: uncore_cbox");
		check_description(t, "f.std", "Standard", "Standard, at length");
		check_description(t, "g.std", "Own", "Standard, at length");
	}
	tly_pmu_events_close(t);
	tree_remove(dir);
}

/* "did you mean" draws on the table's names. */
static void test_suggestion(void)
{
	use_tables("GenuineIntel-6-55-4");
	CHECK(parse("intel-server", "mem_load_retired.l3_mis") == NULL);
	CHECK_CONTAINS(tally_last_error(), "did you mean 'mem_load_retired.l3_miss'");
}

/* The metrics a model's table carries, for the metric layer: verbatim fields in name order. */
static int first_metric(struct tly_pmu_metric *m, void *arg)
{
	const char **out = arg;
	if (strcmp(m->name, "tma_frontend_bound") != 0)
		return 0;
	CHECK_CONTAINS(m->expr, "topdown");
	CHECK_CONTAINS(m->group, "TopdownL1");
	*out = "found";
	return 1;
}

static void test_metrics(void)
{
	struct tly_pmu_events *t;
	CHECK_INT(tly_pmu_events_open(tly_pmu_events_dir(), "x86", "icelakex", "v1", &t), 0);
	const char *found = NULL;
	CHECK_INT(t ? tly_pmu_events_metrics(t, first_metric, &found) : -1, 1);
	CHECK_STR(found, "found");
	CHECK(t && tly_pmu_events_count(t) > 1000);
	tly_pmu_events_close(t);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "names_as_perf", test_names_as_perf },
		{ "precedence", test_precedence },
		{ "uncore_family", test_uncore_family },
		{ "hybrid", test_hybrid },
		{ "big_little", test_big_little },
		{ "midr_versions", test_midr_versions },
		{ "read_only_when_needed", test_read_only_when_needed },
		{ "no_table", test_no_table },
		{ "chosen_tables_missing", test_chosen_tables_missing },
		{ "suggestion", test_suggestion },
		{ "perf_tree", test_perf_tree },
		{ "unit_names", test_unit_names },
		{ "system_pmus", test_system_pmus },
		{ "perf_tree_descriptions", test_perf_tree_descriptions },
		{ "metrics", test_metrics },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
