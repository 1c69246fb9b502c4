/* SPDX-License-Identifier: MIT */
/*
 * PMU families (issue 9): "uncore_imc/cas_count_read/" where no PMU has that name opens on every
 * uncore_imc_<n>, as perf 6.1 does; the instances share an origin, so their counts sum into one, with the
 * alias's .scale and .unit; each instance opens on its PMU's cpumask only (one CPU per package). On the
 * fixture tree of a 2-socket Intel server (six imc, four cha) and an AMD one; the counts come from a
 * table that plays the kernel: real software events underneath, values written over their reads.
 */
#include "core/sys.h"
#include "fixture_tree.h"
#include "harness.h"

#include <string.h>
#include <math.h>
#include <tally/counter.h>
#include <tally/events.h>

static tally_events *parse_on(const char *machine, const char *spec)
{
	char root[4096];
	TALLY_OPTS(tally_parse_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), machine));
	tally_events *events = NULL;
	if (tally_events_parse(spec, &opts, &events) != 0)
		fprintf(stderr, "%s: %s\n", spec, tally_last_error());
	return events;
}

static void family_expands_to_every_instance(void)
{
	static const char *const specs[] = { "uncore_imc/cas_count_read/", "imc/cas_count_read/" };
	for (size_t s = 0; s < 2; s++) {
		tally_events *ev = parse_on("intel-server", specs[s]);
		CHECK(ev != NULL);
		if (!ev)
			continue;
		CHECK_INT(tally_events_count(ev), 6);
		for (size_t i = 0; i < tally_events_count(ev); i++) {
			TALLY_OPTS(tally_event_info, info);
			CHECK_INT(tally_events_at(ev, i, &info), 0);
			char pmu[32], canonical[64];
			snprintf(pmu, sizeof(pmu), "uncore_imc_%zu", i);
			snprintf(canonical, sizeof(canonical), "uncore_imc_%zu/cas_count_read/", i);
			CHECK_STR(info.pmu, pmu);
			CHECK_STR(info.canonical, canonical);
			CHECK_STR(info.name, specs[s]); /* perf names every instance as written */
			CHECK_INT(info.attr->type, 20 + (int)i);
			CHECK_U64(info.attr->config, 0x304);
			CHECK_INT(info.origin, 0);
			CHECK_INT(info.nr_origins, 6);
			CHECK_STR(info.unit, "MiB");
			CHECK(info.scale == 6.103515625e-5);
			CHECK(info.family); /* one event to a user: the CLI merges by it */
		}
		tally_events_free(ev);
	}
	/* A bare alias only one family has is that family; one PMU's event is none. */
	tally_events *ev = parse_on("intel-server", "cas_count_read,power/energy-pkg/");
	CHECK(ev != NULL);
	for (size_t i = 0; ev && i < tally_events_count(ev); i++) {
		TALLY_OPTS(tally_event_info, info);
		CHECK_INT(tally_events_at(ev, i, &info), 0);
		CHECK_INT(info.family, strcmp(info.pmu, "power") != 0);
	}
	tally_events_free(ev);
}

/* Terms apply per instance; the free-running imc is no instance of uncore_imc ('_f' is no '_<n>'), but a
 * family of its own. */
static void family_rule_is_perfs(void)
{
	tally_events *ev = parse_on("intel-server", "uncore_cha/event=0x34,umask=0x11/u,uncore_imc_free_running/dclk/");
	CHECK(ev != NULL);
	if (ev) {
		CHECK_INT(tally_events_count(ev), 5);
		TALLY_OPTS(tally_event_info, info);
		CHECK_INT(tally_events_at(ev, 3, &info), 0);
		CHECK_STR(info.pmu, "uncore_cha_3");
		CHECK_U64(info.attr->config, 0x1134);
		CHECK(info.attr->exclude_kernel);
		CHECK_INT(tally_events_at(ev, 4, &info), 0);
		CHECK_STR(info.pmu, "uncore_imc_free_running_0");
		CHECK_INT(info.origin, 1);
		CHECK_INT(info.nr_origins, 1);
		tally_events_free(ev);
	}
	/* RAPL is one PMU per machine: its alias's scale and unit, Joules. */
	ev = parse_on("intel-server", "power/energy-pkg/");
	TALLY_OPTS(tally_event_info, power);
	CHECK(ev && tally_events_at(ev, 0, &power) == 0);
	if (ev) {
		CHECK_STR(power.unit, "Joules");
		CHECK(power.scale == 2.3283064365386962890625e-10);
		CHECK_INT(tally_events_count(ev), 1);
	}
	tally_events_free(ev);
	char root[4096];
	TALLY_OPTS(tally_parse_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), "intel-server"));
	tally_events *bad = NULL;
	CHECK_INT(tally_events_parse("uncore_cha/cas_count_read/", &opts, &bad), -TALLY_ESPEC);
	CHECK_CONTAINS(tally_last_error(), "unknown term 'cas_count_read' for PMU 'uncore_cha_0'");
	CHECK_INT(tally_events_parse("uncore_im/cas_count_read/", &opts, &bad), -TALLY_ESPEC);
	CHECK_CONTAINS(tally_last_error(), "unknown PMU 'uncore_im'");
}

/* A group may not span PMUs: one group per instance, as perf regroups uncore aliases. A bare alias that
 * only the instances of one family have is that family too, named as written (perf merges them); the
 * PMUs of a bare alias that are not one family (cstate_core and cstate_pkg) keep their PMU in the name
 * (test_parse). */
static void group_splits_per_instance(void)
{
	static const struct {
		const char *spec, *names[2];
	} cases[] = {
		{ "{uncore_imc/cas_count_read/,uncore_imc/cas_count_write/}",
		  { "uncore_imc/cas_count_read/", "uncore_imc/cas_count_write/" } },
		{ "{cas_count_read,cas_count_write}", { "cas_count_read", "cas_count_write" } },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		tally_events *ev = parse_on("intel-server", cases[c].spec);
		CHECK(ev != NULL);
		CHECK_INT(tally_events_count(ev), 12);
		for (size_t i = 0; ev && i < 12; i++) {
			TALLY_OPTS(tally_event_info, info);
			CHECK_INT(tally_events_at(ev, i, &info), 0);
			CHECK_STR(info.name, cases[c].names[i % 2]);
			CHECK_INT(info.nr_origins, 6);
			CHECK_INT(info.attr->type, 20 + (int)(i / 2));
			CHECK_U64(info.attr->config, i % 2 ? 0xc04 : 0x304);
			CHECK_INT(info.group, (int)(i / 2));
			CHECK_INT(info.leader, i % 2 == 0);
		}
		tally_events_free(ev);
	}
}

/* ---- counting on the fixture: a table plays the uncore PMUs ----------------------------------------- */

#define MAX_FDS 64
static struct {
	int fd[MAX_FDS];
	uint32_t type[MAX_FDS];
	int cpu[MAX_FDS];
	bool group[MAX_FDS]; /* read as a group (PERF_FORMAT_GROUP) */
	size_t nr;
	bool counting;      /* false: reads give zero (the window's start), true: the values below */
} uncore;

/* Each (instance, CPU) counts its own value: intel-server's uncore_imc_<n> (type 20 + n) 100 * (n + 1), plus
 * 10 on CPU 4. */
static uint64_t value_of(uint32_t type, int cpu)
{
	return 100u * (type - 19) + (cpu == 4 ? 10 : 0);
}

static int uncore_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	(void)pid;
	(void)cpu;
	if (attr->type < PERF_TYPE_MAX || uncore.nr == MAX_FDS)
		return tly_sys_real.perf_event_open(attr, pid, cpu, group_fd, flags);
	/* A software event of this thread stands in, so that the reads have the kernel's layout and ids. */
	struct perf_event_attr real = *attr;
	real.type = PERF_TYPE_SOFTWARE;
	real.config = PERF_COUNT_SW_DUMMY;
	real.exclude_guest = 0;
	int fd = tly_sys_real.perf_event_open(&real, 0, -1, group_fd, flags);
	if (fd >= 0) {
		uncore.fd[uncore.nr] = fd;
		uncore.type[uncore.nr] = attr->type;
		uncore.group[uncore.nr] = attr->read_format & PERF_FORMAT_GROUP;
		uncore.cpu[uncore.nr++] = cpu;
	}
	return fd;
}

/* Reads as the kernel lays them out: a group's { nr, enabled, running, { value, id } x nr }, a lone event's
 * { value, enabled, running, id }. Half the time on the counter, so the scaled value is twice the raw. */
static ssize_t uncore_read(int fd, void *buf, size_t count)
{
	ssize_t n = tly_sys_real.read(fd, buf, count);
	for (size_t k = 0; k < uncore.nr && n >= 32; k++) {
		if (uncore.fd[k] != fd)
			continue;
		uint64_t *v = buf, value = uncore.counting ? value_of(uncore.type[k], uncore.cpu[k]) : 0;
		v[1] = uncore.counting ? 2000 : 0; /* enabled and running sit here in both layouts */
		v[2] = uncore.counting ? 1000 : 0;
		if (!uncore.group[k])
			v[0] = value;
		for (uint64_t m = 0; uncore.group[k] && m < v[0]; m++)
			v[3 + 2 * m] = value;
	}
	return n;
}

static tally_counter *open_on(const char *machine, const char *spec)
{
	char root[4096];
	fixture_sysfs(root, sizeof(root), machine);
	TALLY_OPTS(tally_counter_opts, opts, .sysfs_root = root);
	tally_counter *c = NULL;
	CHECK_INT(tally_counter_new(spec, &opts, &c), 0);
	TALLY_OPTS(tally_target, all, .kind = TALLY_TARGET_CPUS);
	if (c && tally_counter_open(c, &all) != 0) {
		fprintf(stderr, "open %s: %s\n", spec, tally_counter_last_error(c));
		tally_counter_free(c);
		c = NULL;
	}
	return c;
}

static void instances_open_on_their_cpumask_and_sum(void)
{
	memset(&uncore, 0, sizeof(uncore));
	struct tly_sys table = tly_sys_real;
	table.perf_event_open = uncore_open;
	table.read = uncore_read;
	tly_sys_replace(&table);
	tally_counter *c = open_on("intel-server", "uncore_imc/cas_count_read/");
	CHECK(c != NULL);
	if (!c)
		goto out;
	/* Six instances, each on CPU 0 and CPU 4 (the cpumask "0,4"), not on the eight online CPUs. */
	CHECK_INT(uncore.nr, 12);
	for (size_t k = 0; k < uncore.nr; k++) {
		CHECK(uncore.cpu[k] == 0 || uncore.cpu[k] == 4);
		CHECK_INT(uncore.type[k], 20 + (int)(k / 2));
	}
	CHECK_INT(tally_counter_start(c), 0);
	uncore.counting = true;
	struct tally_result r[6], sum[1];
	CHECK_INT(tally_counter_read(c, r, 6, sizeof(r[0])), 6);
	for (unsigned n = 0; n < 6; n++) {
		CHECK_U64(r[n].value, 200u * (n + 1) + 10);
		CHECK_U64(r[n].scaled, 2 * r[n].value);
		CHECK_INT(r[n].origin, 0);
		CHECK_U64(r[n].nr_parts, 2);
		struct tally_part parts[2];
		CHECK_INT(tally_counter_parts(c, n, parts, 2, sizeof(parts[0])), 2);
		CHECK_INT(parts[0].cpu, 0);
		CHECK_INT(parts[1].cpu, 4);
		CHECK_U64(parts[1].value, 100u * (n + 1) + 10);
	}
	/* The family sums into one: 2 x 100 x (1 + ... + 6) + 6 x 10, scaled twice, in MiB by .scale. */
	CHECK_INT(tally_counter_sum_origins(c, r, 6, sum, 1, sizeof(sum[0])), 1);
	CHECK_U64(sum[0].value, 4260);
	CHECK_U64(sum[0].scaled, 8520);
	CHECK_U64(sum[0].nr_parts, 12);
	TALLY_OPTS(tally_event_info, info);
	CHECK_INT(tally_events_at(tally_counter_events(c), 0, &info), 0);
	CHECK(fabs((double)sum[0].scaled * info.scale - 0.52001953125) < 1e-12);
	tally_counter_free(c);
out:
	tly_sys_replace(NULL);
}

/* AMD: amd_l3 counts on one CPU per CCX (cpumask "0,4,8,12"), amd_df and RAPL on one per package ("0,8"). */
static void amd_pmus_open_on_their_cpumask(void)
{
	memset(&uncore, 0, sizeof(uncore));
	struct tly_sys table = tly_sys_real;
	table.perf_event_open = uncore_open;
	tly_sys_replace(&table);
	tally_counter *c = open_on("amd-server", "amd_l3/event=0x04,umask=0xff/,amd_df/event=0x07/,power/energy-pkg/");
	tly_sys_replace(NULL);
	CHECK(c != NULL);
	static const struct {
		uint32_t type;
		int cpus[4];
		size_t nr;
	} want[] = { { 11, { 0, 4, 8, 12 }, 4 }, { 10, { 0, 8 }, 2 }, { 13, { 0, 8 }, 2 } };
	CHECK_INT(uncore.nr, 8);
	size_t k = 0;
	for (size_t w = 0; w < 3; w++)
		for (size_t n = 0; n < want[w].nr && k < uncore.nr; n++, k++) {
			CHECK_INT(uncore.type[k], want[w].type);
			CHECK_INT(uncore.cpu[k], want[w].cpus[n]);
		}
	tally_counter_free(c);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "family_expands_to_every_instance", family_expands_to_every_instance },
		{ "family_rule_is_perfs", family_rule_is_perfs },
		{ "group_splits_per_instance", group_splits_per_instance },
		{ "instances_open_on_their_cpumask_and_sum", instances_open_on_their_cpumask_and_sum },
		{ "amd_pmus_open_on_their_cpumask", amd_pmus_open_on_their_cpumask },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
