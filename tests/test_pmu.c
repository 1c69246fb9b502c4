/* SPDX-License-Identifier: MIT */
/* PMU discovery from sysfs: the fixture trees, this machine's /sys, broken trees, and fault injection. */
#include "core/error.h"
#include "core/sys.h"
#include "fixture_tree.h"
#include "harness.h"
#include "machine/pmu.h"

#include <dirent.h>
#include <errno.h>
#include <locale.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <tally/events.h>
#include <tally/pmu.h>
#include <unistd.h>

static char fixture_root[4096];

/* The root of one fixture tree under $TALLY_FIXTURES/sysfs (the source tree when run by hand). */
static const char *fixture(const char *machine)
{
	return fixture_sysfs(fixture_root, sizeof(fixture_root), machine);
}

static tally_pmus *load_fixture(const char *machine)
{
	TALLY_OPTS(tally_pmus_opts, opts, .sysfs_root = fixture(machine));
	tally_pmus *pmus = NULL;
	int rc = tally_pmus_load(&opts, &pmus);
	if (rc)
		fprintf(stderr, "[%s] loading %s: %d %s\n", harness_case, machine, rc, tally_last_error());
	CHECK_INT(rc, 0);
	return pmus;
}

static struct tally_pmu_info info_of(const tally_pmu *pmu)
{
	TALLY_OPTS(tally_pmu_info, info);
	CHECK_INT(tally_pmu_get_info(pmu, &info), 0);
	return info;
}

/* --- every fixture machine: its PMUs, types, core PMUs and CPU lists */

struct expect_pmu {
	const char *name;
	uint32_t type;
	bool is_core;
	const char *cpus;
	const char *cpumask;
};

static const struct {
	const char *machine;
	size_t nr_pmus;
	size_t core_count;
	struct expect_pmu pmus[6];
} machines[] = {
	{ "intel", 11, 1,
	  { { "cpu", 4, true, NULL, NULL }, { "power", 13, false, NULL, "0" },
	    { "uncore_imc_0", 15, false, NULL, "0" }, { "cstate_core", 11, false, NULL, "0-3" },
	    { "software", 1, false, NULL, NULL }, { "tracepoint", 2, false, NULL, NULL } } },
	{ "broadwell-4.9", 7, 1,
	  { { "cpu", 4, true, NULL, NULL }, { "intel_cqm", 8, false, NULL, NULL },
	    { "breakpoint", 5, false, NULL, NULL } } },
	{ "amd", 12, 1,
	  { { "cpu", 4, true, NULL, NULL }, { "amd_l3", 11, false, NULL, "0,4,8,12" },
	    { "amd_df", 10, false, NULL, "0" }, { "ibs_op", 9, false, NULL, NULL },
	    { "kprobe", 6, false, NULL, NULL } } },
	{ "hybrid", 9, 2,
	  { { "cpu_core", 4, true, "0-15", NULL }, { "cpu_atom", 10, true, "16-23", NULL },
	    { "power", 12, false, NULL, "0" }, { "msr", 11, false, NULL, NULL } } },
	{ "arm64", 6, 1, { { "armv8_pmuv3", 8, true, "0-3", NULL }, { "uprobe", 7, false, NULL, NULL } } },
	{ "arm64-biglittle", 7, 2,
	  { { "armv8_cortex_a53", 8, true, "0-3", NULL }, { "armv8_cortex_a72", 9, true, "4-5", NULL } } },
	{ "novpmu", 5, 0,
	  { { "software", 1, false, NULL, NULL }, { "tracepoint", 2, false, NULL, NULL },
	    { "breakpoint", 5, false, NULL, NULL }, { "uprobe", 8, false, NULL, NULL },
	    { "msr", 9, false, NULL, NULL } } },
};

static void check_optional_str(const char *got, const char *want)
{
	if (want)
		CHECK_STR(got, want);
	else
		CHECK(got == NULL);
}

static void fixtures_list_their_pmus(void)
{
	for (size_t m = 0; m < sizeof(machines) / sizeof(machines[0]); m++) {
		tally_pmus *pmus = load_fixture(machines[m].machine);
		if (!pmus)
			continue;
		CHECK_INT(tally_pmus_count(pmus), machines[m].nr_pmus);
		CHECK_INT(tally_pmus_core_count(pmus), machines[m].core_count);
		for (const struct expect_pmu *e = machines[m].pmus; e < machines[m].pmus + 6 && e->name; e++) {
			const tally_pmu *pmu = tally_pmus_find(pmus, e->name);
			CHECK(pmu != NULL);
			if (!pmu) {
				fprintf(stderr, "  %s: no PMU %s\n", machines[m].machine, e->name);
				continue;
			}
			struct tally_pmu_info info = info_of(pmu);
			CHECK_STR(info.name, e->name);
			CHECK_INT(info.type, e->type);
			CHECK_INT(info.is_core, e->is_core);
			check_optional_str(info.cpus, e->cpus);
			check_optional_str(info.cpumask, e->cpumask);
		}
		tally_pmus_free(pmus);
	}
}

/* Sorted by name at every level: PMUs, formats, aliases, caps; and find() agrees with at(). */
static void everything_is_sorted_and_findable(void)
{
	for (size_t m = 0; m < sizeof(machines) / sizeof(machines[0]); m++) {
		tally_pmus *pmus = load_fixture(machines[m].machine);
		if (!pmus)
			continue;
		const char *prev = NULL;
		for (size_t i = 0; i < tally_pmus_count(pmus); i++) {
			const tally_pmu *pmu = tally_pmus_at(pmus, i);
			struct tally_pmu_info info = info_of(pmu);
			if (prev)
				CHECK(strcmp(prev, info.name) < 0);
			prev = info.name;
			CHECK(tally_pmus_find(pmus, info.name) == pmu);

			const char *prev_item = NULL;
			for (size_t j = 0; j < info.nr_formats; j++) {
				TALLY_OPTS(tally_format_info, f);
				CHECK_INT(tally_pmu_format_at(pmu, j, &f), 0);
				if (prev_item)
					CHECK(strcmp(prev_item, f.name) < 0);
				prev_item = f.name;
				CHECK(tly_pmu_format(pmu, f.name) == &pmu->formats[j]);
			}
			prev_item = NULL;
			for (size_t j = 0; j < info.nr_aliases; j++) {
				TALLY_OPTS(tally_alias_info, a);
				CHECK_INT(tally_pmu_alias_at(pmu, j, &a), 0);
				if (prev_item)
					CHECK(strcmp(prev_item, a.name) < 0);
				prev_item = a.name;
				CHECK(tly_pmu_alias(pmu, a.name) == &pmu->aliases[j]);
				CHECK(strchr(a.name, '.') == NULL); /* companions are not aliases */
			}
			prev_item = NULL;
			for (size_t j = 0; j < info.nr_caps; j++) {
				const char *name, *value;
				CHECK_INT(tally_pmu_cap_at(pmu, j, &name, &value), 0);
				if (prev_item)
					CHECK(strcmp(prev_item, name) < 0);
				prev_item = name;
			}
		}
		CHECK(tally_pmus_at(pmus, tally_pmus_count(pmus)) == NULL);
		CHECK(tally_pmus_find(pmus, "no_such_pmu") == NULL);
		CHECK(tally_pmus_find(pmus, "") == NULL);
		CHECK(tally_pmus_find(pmus, NULL) == NULL);
		tally_pmus_free(pmus);
	}
}

/* --- format/ files */

static void formats_have_fields_and_masks(void)
{
	static const struct {
		const char *machine, *pmu, *format, *text;
		unsigned field;
		uint64_t mask;
		unsigned width;
	} cases[] = {
		{ "intel", "cpu", "event", "config:0-7", 0, 0xff, 8 },
		{ "intel", "cpu", "umask", "config:8-15", 0, 0xff00, 8 },
		{ "intel", "cpu", "edge", "config:18", 0, 1u << 18, 1 },
		{ "intel", "cpu", "pc", "config:19", 0, 1u << 19, 1 },
		{ "intel", "cpu", "inv", "config:23", 0, 1u << 23, 1 },
		{ "intel", "cpu", "cmask", "config:24-31", 0, 0xff000000, 8 },
		{ "intel", "cpu", "in_tx", "config:32", 0, 1ull << 32, 1 },
		{ "intel", "cpu", "in_tx_cp", "config:33", 0, 1ull << 33, 1 },
		{ "intel", "cpu", "offcore_rsp", "config1:0-63", 1, UINT64_MAX, 64 },
		{ "intel", "cpu", "ldlat", "config1:0-15", 1, 0xffff, 16 },
		{ "intel", "cpu", "frontend", "config1:0-23", 1, 0xffffff, 24 },
		{ "intel", "msr", "event", "config:0-63", 0, UINT64_MAX, 64 },
		{ "intel", "kprobe", "retprobe", "config:0", 0, 1, 1 },
		{ "intel", "uprobe", "ref_ctr_offset", "config:32-63", 0, 0xffffffff00000000ull, 32 },
		{ "broadwell-4.9", "cpu", "any", "config:21", 0, 1u << 21, 1 },
		{ "amd", "cpu", "event", "config:0-7,32-35", 0, 0xf000000ffull, 12 },
		{ "amd", "amd_df", "event", "config:0-7,32-35,59-60", 0, 0x1800000f000000ffull, 14 },
		{ "amd", "amd_l3", "threadmask", "config:56-63", 0, 0xff00000000000000ull, 8 },
		{ "amd", "ibs_fetch", "rand_en", "config:57", 0, 1ull << 57, 1 },
		{ "hybrid", "cpu_atom", "ldlat", "config1:0-15", 1, 0xffff, 16 },
		{ "arm64", "armv8_pmuv3", "event", "config:0-15", 0, 0xffff, 16 },
		{ "arm64", "armv8_pmuv3", "long", "config1:0", 1, 1, 1 },
		{ "arm64", "armv8_pmuv3", "rdpmc", "config1:1", 1, 2, 1 },
		{ "arm64-biglittle", "armv8_cortex_a72", "event", "config:0-15", 0, 0xffff, 16 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tally_pmus *pmus = load_fixture(cases[i].machine);
		const tally_pmu *pmu = tally_pmus_find(pmus, cases[i].pmu);
		CHECK(pmu != NULL);
		if (!pmu) {
			tally_pmus_free(pmus);
			continue;
		}
		const struct tly_format *f = tly_pmu_format(pmu, cases[i].format);
		CHECK(f != NULL);
		if (f) {
			TALLY_OPTS(tally_format_info, info);
			CHECK_INT(tally_pmu_format_at(pmu, (size_t)(f - pmu->formats), &info), 0);
			CHECK_STR(info.name, cases[i].format);
			CHECK_STR(info.text, cases[i].text);
			CHECK_INT(info.field, cases[i].field);
			CHECK_U64(info.mask, cases[i].mask);
			CHECK_INT(info.width, cases[i].width);
		}
		tally_pmus_free(pmus);
	}
	/* Ice Lake deprecates AnyThread: the kernel hides `any`, and so does the fixture. */
	tally_pmus *pmus = load_fixture("intel");
	CHECK(tly_pmu_format(tally_pmus_find(pmus, "cpu"), "any") == NULL);
	CHECK_INT(info_of(tally_pmus_find(pmus, "cpu")).nr_formats, 11);
	tally_pmus_free(pmus);
}

/* --- events/ aliases and their companion files */

static void aliases_carry_terms_and_companions(void)
{
	static const struct {
		const char *machine, *pmu, *alias, *terms, *unit;
		double scale;
		bool per_pkg, snapshot;
	} cases[] = {
		{ "intel", "cpu", "cpu-cycles", "event=0x3c", NULL, 1.0, false, false },
		{ "intel", "cpu", "instructions", "event=0xc0", NULL, 1.0, false, false },
		{ "intel", "cpu", "ref-cycles", "event=0x00,umask=0x03", NULL, 1.0, false, false },
		{ "intel", "cpu", "slots", "event=0x00,umask=0x4", NULL, 1.0, false, false },
		{ "intel", "cpu", "topdown-retiring", "event=0x00,umask=0x80", NULL, 1.0, false, false },
		{ "intel", "cpu", "topdown-be-bound", "event=0x00,umask=0x83", NULL, 1.0, false, false },
		{ "intel", "cpu", "mem-loads", "event=0xcd,umask=0x1,ldlat=3", NULL, 1.0, false, false },
		{ "intel", "cpu", "cycles-ct", "event=0x3c,in_tx=1,in_tx_cp=1", NULL, 1.0, false, false },
		/* RAPL counts in units of 2^-32 J, exactly representable */
		{ "intel", "power", "energy-pkg", "event=0x02", "Joules", 0x1p-32, false, false },
		{ "intel", "power", "energy-psys", "event=0x05", "Joules", 0x1p-32, false, false },
		/* 64-byte lines in MiB: 2^-14 */
		{ "intel", "uncore_imc_0", "cas_count_read", "event=0x04,umask=0x03", "MiB", 0x1p-14, false,
		  false },
		{ "intel", "uncore_imc_0", "clockticks", "event=0x00,umask=0x00", NULL, 1.0, false, false },
		{ "intel", "msr", "cpu_thermal_margin", "event=0x07", "C", 1.0, false, true },
		{ "intel", "msr", "tsc", "event=0x00", NULL, 1.0, false, false },
		{ "broadwell-4.9", "intel_cqm", "llc_occupancy", "event=0x01", "Bytes", 64.0, true, true },
		{ "broadwell-4.9", "intel_cqm", "total_bytes", "event=0x02", "MB", 1e-6, true, false },
		{ "amd", "cpu", "cpu-cycles", "event=0x76", NULL, 1.0, false, false },
		{ "hybrid", "cpu_core", "topdown-mem-bound", "event=0x00,umask=0x87", NULL, 1.0, false, false },
		{ "hybrid", "cpu_atom", "mem-loads", "event=0xd0,umask=0x5,ldlat=3", NULL, 1.0, false, false },
		{ "arm64", "armv8_pmuv3", "cpu_cycles", "event=0x0011", NULL, 1.0, false, false },
		{ "arm64", "armv8_pmuv3", "inst_retired", "event=0x0008", NULL, 1.0, false, false },
		{ "arm64", "armv8_pmuv3", "l1d_cache_refill", "event=0x0003", NULL, 1.0, false, false },
		{ "arm64", "armv8_pmuv3", "br_mis_pred", "event=0x0010", NULL, 1.0, false, false },
		{ "arm64-biglittle", "armv8_cortex_a72", "inst_spec", "event=0x001b", NULL, 1.0, false, false },
		{ "novpmu", "msr", "tsc", "event=0x00", NULL, 1.0, false, false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tally_pmus *pmus = load_fixture(cases[i].machine);
		const tally_pmu *pmu = tally_pmus_find(pmus, cases[i].pmu);
		const struct tly_alias *alias = pmu ? tly_pmu_alias(pmu, cases[i].alias) : NULL;
		CHECK(alias != NULL);
		if (!alias) {
			fprintf(stderr, "  no alias %s/%s/%s\n", cases[i].machine, cases[i].pmu, cases[i].alias);
			tally_pmus_free(pmus);
			continue;
		}
		TALLY_OPTS(tally_alias_info, info);
		CHECK_INT(tally_pmu_alias_at(pmu, (size_t)(alias - pmu->aliases), &info), 0);
		CHECK_STR(info.name, cases[i].alias);
		CHECK_STR(info.terms, cases[i].terms);
		check_optional_str(info.unit, cases[i].unit);
		CHECK(info.scale == cases[i].scale);
		CHECK_INT(info.per_pkg, cases[i].per_pkg);
		CHECK_INT(info.snapshot, cases[i].snapshot);
		tally_pmus_free(pmus);
	}
}

static void alias_counts_leave_out_companions(void)
{
	static const struct {
		const char *machine, *pmu;
		size_t nr_aliases;
	} cases[] = {
		{ "intel", "cpu", 18 },       { "intel", "power", 4 },          { "intel", "msr", 6 },
		{ "intel", "uncore_imc_0", 3 }, { "broadwell-4.9", "intel_cqm", 2 }, { "hybrid", "cpu_core", 20 },
		{ "hybrid", "cpu_atom", 10 }, { "intel", "software", 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tally_pmus *pmus = load_fixture(cases[i].machine);
		const tally_pmu *pmu = tally_pmus_find(pmus, cases[i].pmu);
		CHECK(pmu != NULL);
		if (pmu)
			CHECK_INT(info_of(pmu).nr_aliases, cases[i].nr_aliases);
		tally_pmus_free(pmus);
	}
}

static void topdown_only_on_big_cores(void)
{
	tally_pmus *pmus = load_fixture("hybrid");
	const tally_pmu *big = tally_pmus_find(pmus, "cpu_core");
	const tally_pmu *small = tally_pmus_find(pmus, "cpu_atom");
	CHECK(big && small);
	if (big && small) {
		static const char *const topdown[] = { "slots", "topdown-retiring", "topdown-bad-spec",
		                                       "topdown-fe-bound", "topdown-be-bound" };
		for (size_t i = 0; i < sizeof(topdown) / sizeof(topdown[0]); i++) {
			CHECK(tly_pmu_alias(big, topdown[i]) != NULL);
			CHECK(tly_pmu_alias(small, topdown[i]) == NULL);
		}
		CHECK(tly_pmu_alias(small, "cpu-cycles") != NULL);
		CHECK(tly_pmu_format(small, "frontend") == NULL);
		CHECK(tly_pmu_format(big, "frontend") != NULL);
	}
	tally_pmus_free(pmus);
}

/* --- caps/ */

static void caps_are_read(void)
{
	static const struct {
		const char *machine, *pmu, *cap, *value;
	} cases[] = {
		{ "intel", "cpu", "branches", "32" },
		{ "intel", "cpu", "max_precise", "3" },
		{ "intel", "cpu", "pmu_name", "icelake" },
		{ "hybrid", "cpu_core", "pmu_name", "alderlake_hybrid" },
		{ "hybrid", "cpu_atom", "pmu_name", "alderlake_hybrid" },
		{ "broadwell-4.9", "cpu", "pmu_name", "broadwell" },
		{ "arm64", "armv8_pmuv3", "slots", "0x00000008" },
		{ "amd", "cpu", "max_precise", "0" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tally_pmus *pmus = load_fixture(cases[i].machine);
		const tally_pmu *pmu = tally_pmus_find(pmus, cases[i].pmu);
		const char *value = NULL;
		size_t nr = pmu ? info_of(pmu).nr_caps : 0;
		for (size_t j = 0; j < nr; j++) {
			const char *name, *v;
			CHECK_INT(tally_pmu_cap_at(pmu, j, &name, &v), 0);
			if (!strcmp(name, cases[i].cap))
				value = v;
		}
		CHECK_STR(value, cases[i].value);
		tally_pmus_free(pmus);
	}
	tally_pmus *pmus = load_fixture("intel");
	const tally_pmu *cpu = tally_pmus_find(pmus, "cpu");
	CHECK_INT(info_of(cpu).nr_caps, 3);
	CHECK_INT(info_of(tally_pmus_find(pmus, "power")).nr_caps, 0);
	const char *name = NULL;
	CHECK_INT(tally_pmu_cap_at(cpu, 0, &name, NULL), 0);
	CHECK_STR(name, "branches");
	CHECK_INT(tally_pmu_cap_at(cpu, 3, &name, NULL), -ERANGE);
	tally_pmus_free(pmus);
}

/* --- companion-file values */

static void scale_and_flag_values(void)
{
	static const struct {
		const char *text;
		int rc;
		double scale;
	} scales[] = {
		{ "2.3283064365386962890625e-10", 0, 0x1p-32 },
		{ "6.103515625e-5", 0, 0x1p-14 },
		{ "64", 0, 64.0 },
		{ "1e-6", 0, 1e-6 },
		{ "0.5", 0, 0.5 },
		{ "", -EINVAL, 0 },
		{ "2.3e-10J", -EINVAL, 0 },
		{ "0", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "nan", -EINVAL, 0 },
		{ "inf", -EINVAL, 0 },
		{ "1e999", -EINVAL, 0 },
		{ "0,5", -EINVAL, 0 },
	};
	for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
		double scale = -7;
		CHECK_INT(tly_alias_parse_scale(scales[i].text, &scale), scales[i].rc);
		CHECK(scale == (scales[i].rc ? -7 : scales[i].scale));
	}
	static const struct {
		const char *text;
		int rc;
		bool flag;
	} flags[] = {
		{ "1", 0, true }, { "0", 0, false }, { "", -EINVAL, false }, { "yes", -EINVAL, false },
		{ "10", -EINVAL, false }, { "2", -EINVAL, false },
	};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		bool flag = !flags[i].flag;
		CHECK_INT(tly_alias_parse_flag(flags[i].text, &flag), flags[i].rc);
		if (flags[i].rc == 0)
			CHECK_INT(flag, flags[i].flag);
	}
}

/* Makes a German locale (decimal comma) with localedef under a temporary LOCPATH, for machines that have
 * none installed (CI images ship only C.UTF-8). Returns the directory to remove, or NULL. */
static char *make_comma_locale(void)
{
	static char dir[] = "/tmp/tally-locale-XXXXXX";
	if (!mkdtemp(dir))
		return NULL;
	char command[256];
	snprintf(command, sizeof(command), "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1", dir);
	if (system(command) != 0 || setenv("LOCPATH", dir, 1) != 0 ||
	    !setlocale(LC_NUMERIC, "de_DE.UTF-8")) {
		snprintf(command, sizeof(command), "rm -rf %s", dir);
		(void)!system(command);
		unsetenv("LOCPATH");
		return NULL;
	}
	return dir;
}

/* The kernel writes ".scale" with a decimal point; a caller's LC_NUMERIC must not change how it reads. */
static void scale_ignores_the_callers_locale(void)
{
	static const char *const comma_locales[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8" };
	const char *set = NULL;
	for (size_t i = 0; !set && i < sizeof(comma_locales) / sizeof(comma_locales[0]); i++)
		set = setlocale(LC_NUMERIC, comma_locales[i]);
	char *made = set ? NULL : make_comma_locale();
	if (!set && !made)
		SKIP("no locale with a decimal comma is installed, and localedef could not make de_DE");
	/* The locale really reads commas: otherwise this case would prove nothing. */
	CHECK(strtod("0,5", NULL) == 0.5);
	double scale = 0;
	CHECK_INT(tly_alias_parse_scale("6.103515625e-5", &scale), 0);
	CHECK(scale == 0x1p-14);
	tally_pmus *pmus = load_fixture("intel");
	const tally_pmu *power = tally_pmus_find(pmus, "power");
	CHECK(power && tly_pmu_alias(power, "energy-pkg")->scale == 0x1p-32);
	tally_pmus_free(pmus);
	setlocale(LC_NUMERIC, "C");
	if (made) {
		char command[256];
		snprintf(command, sizeof(command), "rm -rf %s", made);
		CHECK_INT(system(command), 0);
		unsetenv("LOCPATH");
	}
}

/* --- roots, options, info structs */

static void root_comes_from_the_environment(void)
{
	CHECK_INT(setenv("TALLY_SYSFS_ROOT", fixture("hybrid"), 1), 0);
	CHECK_STR(tly_default_sysfs_root(), fixture_root);
	tally_pmus *pmus = NULL;
	CHECK_INT(tally_pmus_load(NULL, &pmus), 0);
	CHECK_INT(tally_pmus_core_count(pmus), 2);
	tally_pmus_free(pmus);
	/* An explicit root wins over the environment. */
	TALLY_OPTS(tally_pmus_opts, opts, .sysfs_root = fixture("novpmu"));
	CHECK_INT(tally_pmus_load(&opts, &pmus), 0);
	CHECK_INT(tally_pmus_core_count(pmus), 0);
	tally_pmus_free(pmus);
	CHECK_INT(setenv("TALLY_SYSFS_ROOT", "", 1), 0);
	CHECK_STR(tly_default_sysfs_root(), "/sys");
	CHECK_INT(unsetenv("TALLY_SYSFS_ROOT"), 0);
	CHECK_STR(tly_default_sysfs_root(), "/sys");
}

static void arguments_are_checked(void)
{
	CHECK_INT(tally_pmus_load(NULL, NULL), -EINVAL);
	tally_pmus *pmus = (tally_pmus *)&pmus;
	struct tally_pmus_opts bad = { .sz = 0 };
	CHECK_INT(tally_pmus_load(&bad, &pmus), -TALLY_EOPTS);
	CHECK(pmus == NULL);
	CHECK_CONTAINS(tally_last_error(), "tally_pmus_opts");

	pmus = load_fixture("arm64");
	const tally_pmu *pmu = tally_pmus_find(pmus, "armv8_pmuv3");
	struct tally_pmu_info zero = { 0 };
	CHECK_INT(tally_pmu_get_info(pmu, &zero), -TALLY_EOPTS);
	CHECK_CONTAINS(tally_last_error(), "tally_pmu_info");
	CHECK_INT(tally_pmu_get_info(NULL, &zero), -EINVAL);
	CHECK_INT(tally_pmu_get_info(pmu, NULL), -EINVAL);
	TALLY_OPTS(tally_format_info, f);
	CHECK_INT(tally_pmu_format_at(pmu, 3, &f), -ERANGE);
	CHECK_CONTAINS(tally_last_error(), "armv8_pmuv3");
	struct tally_format_info f_zero = { 0 };
	CHECK_INT(tally_pmu_format_at(pmu, 0, &f_zero), -TALLY_EOPTS);
	TALLY_OPTS(tally_alias_info, a);
	CHECK_INT(tally_pmu_alias_at(pmu, 999, &a), -ERANGE);
	CHECK_INT(tally_pmu_cap_at(NULL, 0, NULL, NULL), -EINVAL);
	CHECK_INT(tally_pmus_count(NULL), 0);
	CHECK(tally_pmus_at(NULL, 0) == NULL);
	CHECK_INT(tally_pmus_core_count(NULL), 0);
	tally_pmus_free(NULL);

	/* A caller built against an older header, whose struct ends before nr_formats: the fields it
	 * knows are filled, the bytes past its end are left alone. */
	struct {
		struct tally_pmu_info info;
		char guard;
	} old;
	memset(&old, 0x5a, sizeof(old));
	old.info.sz = offsetof(struct tally_pmu_info, nr_formats);
	CHECK_INT(tally_pmu_get_info(pmu, &old.info), 0);
	CHECK_STR(old.info.name, "armv8_pmuv3");
	CHECK_STR(old.info.cpus, "0-3");
	CHECK(old.info.cpumask == NULL);
	CHECK_U64(old.info.nr_formats, 0x5a5a5a5a5a5a5a5aull);
	CHECK_U64(old.info.nr_caps, 0x5a5a5a5a5a5a5a5aull);
	tally_pmus_free(pmus);
}

/* --- broken trees */

static void broken_trees_fail_naming_the_file(void)
{
	/* tally_pmus_load reads the PMUs' names; their files are read when first used: an error there is
	 * given by every use of that PMU (pmu names it), not by the load. */
	static const struct {
		const char *tree;
		const char *pmu;
		int rc;
		const char *message;
	} cases[] = {
		{ "bad/format-garbage", "cpu", -TALLY_ESYSFS, "devices/cpu/format/umask: \"conflg:8-15\"" },
		{ "bad/format-overlap", "cpu", -TALLY_ESYSFS, "devices/cpu/format/event: \"config:0-7,4-11\" lists a bit twice" },
		{ "bad/format-too-wide", "cpu", -TALLY_ESYSFS, "devices/cpu/format/event: \"config:60-64\" names a bit beyond 63" },
		{ "bad/type-not-number", "cpu", -TALLY_ESYSFS, "devices/cpu/type: expected a PMU type number, found \"four\"" },
		{ "bad/type-missing", "cpu", -TALLY_ESYSFS, "devices/cpu/type: missing" },
		{ "bad/scale-garbage", "power", -TALLY_ESYSFS, "devices/power/events/energy-pkg.scale" },
		{ "bad/per-pkg-garbage", "intel_cqm", -TALLY_ESYSFS, "devices/intel_cqm/events/llc_occupancy.per-pkg" },
		{ "bad/no-devices", NULL, -ENOENT, "bad/no-devices/bus/event_source/devices" },
		{ "no-such-machine", NULL, -ENOENT, "TALLY_SYSFS_ROOT" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TALLY_OPTS(tally_pmus_opts, opts, .sysfs_root = fixture(cases[i].tree));
		tally_pmus *pmus = (tally_pmus *)&opts;
		if (!cases[i].pmu) {
			CHECK_INT(tally_pmus_load(&opts, &pmus), cases[i].rc);
			CHECK(pmus == NULL);
			CHECK_CONTAINS(tally_last_error(), cases[i].message);
			continue;
		}
		CHECK_INT(tally_pmus_load(&opts, &pmus), 0);
		const tally_pmu *pmu = tally_pmus_find(pmus, cases[i].pmu);
		CHECK(pmu != NULL);
		struct tally_pmu_info info = { .sz = sizeof(info) };
		struct tally_alias_info alias = { .sz = sizeof(alias) };
		for (int use = 0; pmu && use < 2; use++) {
			tly_error(0, "%s", "");
			CHECK_INT(use ? tally_pmu_alias_at(pmu, 0, &alias) : tally_pmu_get_info(pmu, &info), cases[i].rc);
			CHECK_CONTAINS(tally_last_error(), cases[i].message);
		}
		/* Parsing its events gives the error; the other PMUs stay usable. */
		char spec[64];
		snprintf(spec, sizeof(spec), "%s/config=1/", cases[i].pmu);
		TALLY_OPTS(tally_parse_opts, parse, .pmus = pmus);
		tally_events *events;
		CHECK_INT(tally_events_parse(spec, &parse, &events), cases[i].rc);
		CHECK_CONTAINS(tally_last_error(), cases[i].message);
		for (size_t k = 0; k < tally_pmus_count(pmus); k++) {
			const tally_pmu *other = tally_pmus_at(pmus, k);
			if (other != pmu)
				CHECK_INT(tally_pmu_get_info(other, &info), 0);
		}
		tally_pmus_free(pmus);
	}
}

/* --- this machine's /sys */

static bool sysfs_file_exists(const char *pmu, const char *file)
{
	char path[512];
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/%s", pmu, file);
	struct stat st;
	return stat(path, &st) == 0;
}

static void this_machine(void)
{
	if (!sysfs_file_exists("software", "type"))
		SKIP("/sys/bus/event_source/devices/software/type is absent: sysfs not mounted here");
	TALLY_OPTS(tally_pmus_opts, opts, .sysfs_root = "/sys");
	tally_pmus *pmus = NULL;
	int rc = tally_pmus_load(&opts, &pmus);
	if (rc)
		fprintf(stderr, "  %s\n", tally_last_error());
	CHECK_INT(rc, 0);
	if (!pmus)
		return;
	CHECK_INT(info_of(tally_pmus_find(pmus, "software")).type, PERF_TYPE_SOFTWARE);
	CHECK_INT(info_of(tally_pmus_find(pmus, "tracepoint")).type, PERF_TYPE_TRACEPOINT);
	if (tally_pmus_find(pmus, "breakpoint"))
		CHECK_INT(info_of(tally_pmus_find(pmus, "breakpoint")).type, PERF_TYPE_BREAKPOINT);
	/* Core PMUs counted independently of the loader: "cpu", or a PMU with a `cpus` file. */
	size_t cores = 0;
	for (size_t i = 0; i < tally_pmus_count(pmus); i++) {
		struct tally_pmu_info info = info_of(tally_pmus_at(pmus, i));
		bool core = !strcmp(info.name, "cpu") || sysfs_file_exists(info.name, "cpus");
		CHECK_INT(info.is_core, core);
		cores += core;
	}
	CHECK_INT(tally_pmus_core_count(pmus), cores);
	printf("  this machine: %zu PMUs, %zu core\n", tally_pmus_count(pmus), cores);
	tally_pmus_free(pmus);
}

/* --- fault injection */

enum faulty_call { FAULT_OPEN, FAULT_READ, FAULT_OPENDIR, FAULT_READDIR };
static const char *const faulty_call_names[] = { "open", "read", "opendir", "readdir" };

/* The fault plan of the current load: which call fails, at which occurrence, how. Test-only globals:
 * the table's functions have no context argument. */
static struct fault_plan {
	enum faulty_call call;
	int at;        /* 1-based occurrence of `call` that fails */
	int err;       /* errno it fails with; 0: a short read of one byte instead */
	int seen;      /* occurrences so far */
	bool all_short; /* every read returns at most one byte */
} plan;

static bool fault_now(enum faulty_call call)
{
	return plan.call == call && ++plan.seen == plan.at;
}

static int faulty_open(const char *path, int flags)
{
	if (fault_now(FAULT_OPEN)) {
		errno = plan.err;
		return -1;
	}
	return tly_sys_real.open(path, flags);
}

static ssize_t faulty_read(int fd, void *buf, size_t count)
{
	if (plan.all_short && count > 1)
		count = 1;
	if (fault_now(FAULT_READ)) {
		if (plan.err == 0)
			return tly_sys_real.read(fd, buf, count > 1 ? 1 : count);
		errno = plan.err;
		return -1;
	}
	return tly_sys_real.read(fd, buf, count);
}

static DIR *faulty_opendir(const char *path)
{
	if (fault_now(FAULT_OPENDIR)) {
		errno = plan.err;
		return NULL;
	}
	return tly_sys_real.opendir(path);
}

static struct dirent *faulty_readdir(DIR *dir)
{
	if (fault_now(FAULT_READDIR)) {
		errno = plan.err;
		return NULL;
	}
	return tly_sys_real.readdir(dir);
}

static int open_fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	int n = 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static int read_every_detail(const tally_pmus *pmus);

/* Everything a snapshot holds, its details included, as text, to compare two loads. */
static char *describe(const tally_pmus *pmus)
{
	if (read_every_detail(pmus))
		return NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (!out)
		return NULL;
	for (size_t i = 0; i < tally_pmus_count(pmus); i++) {
		const tally_pmu *pmu = tally_pmus_at(pmus, i);
		fprintf(out, "%s type=%u core=%d cpus=%s cpumask=%s\n", pmu->name, pmu->type, pmu->is_core,
		        pmu->cpus ? pmu->cpus : "-", pmu->cpumask ? pmu->cpumask : "-");
		for (size_t j = 0; j < pmu->nr_formats; j++)
			fprintf(out, " f %s=%s %d %#" PRIx64 "\n", pmu->formats[j].name, pmu->formats[j].text,
			        pmu->formats[j].field, pmu->formats[j].mask);
		for (size_t j = 0; j < pmu->nr_aliases; j++) {
			const struct tly_alias *a = &pmu->aliases[j];
			fprintf(out, " a %s=%s %s %a %d %d\n", a->name, a->terms, a->unit ? a->unit : "-",
			        a->scale, a->per_pkg, a->snapshot);
		}
		for (size_t j = 0; j < pmu->nr_caps; j++)
			fprintf(out, " c %s=%s\n", pmu->caps[j].name, pmu->caps[j].value);
	}
	fclose(out);
	return text;
}

/* Reads every PMU's details (what the first use of each would read): 0 or the first error. */
static int read_every_detail(const tally_pmus *pmus)
{
	for (size_t i = 0; i < tally_pmus_count(pmus); i++) {
		int rc = tly_pmu_details(tally_pmus_at(pmus, i));
		if (rc)
			return rc;
	}
	return 0;
}

static struct tly_sys faulty_table(void)
{
	struct tly_sys table = tly_sys_real;
	table.open = faulty_open;
	table.read = faulty_read;
	table.opendir = faulty_opendir;
	table.readdir = faulty_readdir;
	return table;
}

static void faults_fail_cleanly(void)
{
	static const char *const machine = "intel";
	tally_pmus *pmus = load_fixture(machine);
	char *baseline = describe(pmus);
	tally_pmus_free(pmus);
	CHECK(baseline != NULL);
	if (!baseline)
		return;

	const struct tly_sys *previous;
	const struct tly_sys table = faulty_table();
	static const int errs[] = { ENOENT, EACCES, EINTR, 0 };
	int fds = open_fd_count();
	int loads = 0, failures = 0, failed_before = harness_failed;
	TALLY_OPTS(tally_pmus_opts, opts, .sysfs_root = fixture(machine));

	for (enum faulty_call call = FAULT_OPEN; call <= FAULT_READDIR; call++) {
		for (size_t e = 0; e < sizeof(errs) / sizeof(errs[0]); e++) {
			if (errs[e] == 0 && call != FAULT_READ)
				continue; /* short results exist for read only */
			for (int at = 1; at < 100000; at++) {
				plan.call = call;
				plan.at = at;
				plan.err = errs[e];
				plan.seen = 0;
				plan.all_short = false;
				tly_error(0, "%s", "");
				previous = tly_sys_replace(&table);
				pmus = (tally_pmus *)&opts;
				int rc = tally_pmus_load(&opts, &pmus);
				bool loaded = rc == 0;
				if (loaded)
					rc = read_every_detail(pmus);
				tly_sys_replace(previous);
				loads++;
				bool fired = plan.seen >= at;
				if (rc < 0) {
					failures++;
					CHECK(fired);
					CHECK(loaded || pmus == NULL);
					if (loaded)
						tally_pmus_free(pmus);
					/* The message names the file or directory that failed. */
					CHECK_CONTAINS(tally_last_error(), "sysfs/intel/bus/event_source/devices");
					/* Retried or harmless faults must not fail a load. */
					CHECK(errs[e] != 0);
					CHECK(!(errs[e] == EINTR && (call == FAULT_OPEN || call == FAULT_READ)));
					if (errs[e] == EACCES)
						CHECK_INT(rc, -EACCES);
					if (errs[e] == EINTR)
						CHECK_INT(rc, -EINTR);
				} else {
					CHECK_INT(rc, 0);
					CHECK(errs[e] != EACCES || !fired);
					char *got = describe(pmus);
					/* An injected ENOENT may hide an optional file; anything else must give
					 * the same snapshot. */
					if (errs[e] != ENOENT || !fired)
						CHECK(got && !strcmp(got, baseline));
					free(got);
					tally_pmus_free(pmus);
				}
				CHECK_INT(open_fd_count(), fds);
				if (harness_failed > failed_before) {
					fprintf(stderr, "  fault: %s #%d errno %d: rc %d %s\n",
					        faulty_call_names[call], at, errs[e], rc, tally_last_error());
					free(baseline);
					return;
				}
				if (!fired)
					break;
			}
		}
	}

	/* Every read returning one byte at a time still reads every file whole. */
	plan = (struct fault_plan){ .call = FAULT_READ, .at = 0, .all_short = true };
	previous = tly_sys_replace(&table);
	int rc = tally_pmus_load(&opts, &pmus);
	if (rc == 0)
		rc = read_every_detail(pmus);
	tly_sys_replace(previous);
	CHECK_INT(rc, 0);
	if (rc == 0) {
		char *got = describe(pmus);
		CHECK(got && !strcmp(got, baseline));
		free(got);
		tally_pmus_free(pmus);
	}
	printf("  %d loads with a fault, %d failed cleanly\n", loads, failures);
	free(baseline);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "fixtures_list_their_pmus", fixtures_list_their_pmus },
		{ "everything_is_sorted_and_findable", everything_is_sorted_and_findable },
		{ "formats_have_fields_and_masks", formats_have_fields_and_masks },
		{ "aliases_carry_terms_and_companions", aliases_carry_terms_and_companions },
		{ "alias_counts_leave_out_companions", alias_counts_leave_out_companions },
		{ "topdown_only_on_big_cores", topdown_only_on_big_cores },
		{ "caps_are_read", caps_are_read },
		{ "scale_and_flag_values", scale_and_flag_values },
		{ "scale_ignores_the_callers_locale", scale_ignores_the_callers_locale },
		{ "root_comes_from_the_environment", root_comes_from_the_environment },
		{ "arguments_are_checked", arguments_are_checked },
		{ "broken_trees_fail_naming_the_file", broken_trees_fail_naming_the_file },
		{ "this_machine", this_machine },
		{ "faults_fail_cleanly", faults_fail_cleanly },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
