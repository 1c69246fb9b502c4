/* SPDX-License-Identifier: MIT */
/*
 * A PMU's files (type, cpus, then cpumask, formats, events, caps) are read on first use, and only for the
 * PMUs used: the files opened for each kind of spec, counted through the system call table, on fixture
 * machines. That it
 * is invisible (same listings, same encodings) is what test_pmu, test_parse and test_perf_agreement check.
 */
#include "fixture_tree.h"
#include "harness.h"
#include "machine/pmu.h"
#include "noted_opens.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <tally/counter.h>
#include <tally/events.h>
#include <tally/pmu.h>

/* How many lines of noted_opens name a file or directory under devices/<pmu>/<sub>. */
static int touched(const char *pmu, const char *sub)
{
	char needle[128];
	snprintf(needle, sizeof(needle), "/devices/%s/%s", pmu, sub);
	int n = 0;
	for (const char *p = noted_opens; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* Loads the fixture machine and parses spec with the noting table in force; the parse's status. */
static int parse_noting(const char *machine, const char *spec)
{
	const struct tly_sys *previous = noting_start();
	char root[4096];
	TALLY_OPTS(tally_pmus_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), machine));
	tally_pmus *pmus;
	int rc = tally_pmus_load(&opts, &pmus);
	if (rc == 0) {
		TALLY_OPTS(tally_parse_opts, parse, .pmus = pmus);
		tally_events *events = NULL;
		rc = tally_events_parse(spec, &parse, &events);
		tally_events_free(events);
		tally_pmus_free(pmus);
	}
	tly_sys_replace(previous);
	return rc;
}

static void software_event_reads_no_pmu_details(void)
{
	CHECK_INT(parse_noting("intel", "task-clock,page-faults"), 0);
	static const char *const pmus[] = { "cpu", "uncore_imc_0", "power", "msr", "cstate_core", "software" };
	for (size_t i = 0; i < sizeof(pmus) / sizeof(pmus[0]); i++) {
		harness_case = pmus[i];
		CHECK_INT(touched(pmus[i], "events"), 0);
		CHECK_INT(touched(pmus[i], "format"), 0);
		CHECK_INT(touched(pmus[i], "caps"), 0);
		CHECK_INT(touched(pmus[i], "cpumask"), 0);
		/* Not even the software PMU's type: the kernel names its types' PMUs itself. */
		CHECK_INT(touched(pmus[i], "type"), 0);
		CHECK_INT(touched(pmus[i], "cpus"), 0);
	}
	harness_case = "software_event_reads_no_pmu_details";
}

/* Makes a counter of spec on the fixture machine with the noting table in force; its status. */
static int counter_noting(const char *machine, const char *spec)
{
	const struct tly_sys *previous = noting_start();
	char root[4096];
	TALLY_OPTS(tally_counter_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), machine));
	tally_counter *c = NULL;
	int rc = tally_counter_new(spec, &opts, &c);
	tally_counter_free(c);
	tly_sys_replace(previous);
	return rc;
}

/* How many times the PMU directory was listed. */
static int listings(void)
{
	int n = 0;
	for (const char *p = noted_opens; (p = strstr(p, "/bus/event_source/devices\n")); p++)
		n++;
	return n;
}

/* The counter asks a PMU for its cpumask only where one can be (not the software context's PMUs), packs
 * by the attr's type, and its own snapshot lists the PMUs only when a spec needs them: `tally stat -e
 * task-clock` reads nothing of sysfs (it listed the PMUs and read the software PMU's type; before that,
 * its cpumask, format, events and caps too). */
static void counter_of_software_events_reads_no_sysfs(void)
{
	CHECK_INT(counter_noting("intel", "task-clock,page-faults"), 0);
	CHECK_INT(listings(), 0);
	CHECK_INT(touched("software", "type"), 0);
	static const char *const subs[] = { "cpumask", "format", "events", "caps", "cpus" };
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		CHECK_INT(touched("software", subs[i]), 0);
		CHECK_INT(touched("cpu", subs[i]), 0);
	}
}

static DIR *refusing_opendir(const char *path)
{
	noted_open_add(path);
	errno = EACCES;
	return NULL;
}

/* A spec that needs the PMUs lists them once, in the counter's own snapshot too; a listing that fails
 * fails the spec with the listing's explanation, not "unknown event". */
static void counter_lists_pmus_when_a_spec_needs_them(void)
{
	CHECK_INT(counter_noting("intel", "task-clock,cycles,instructions"), 0);
	CHECK_INT(listings(), 1);
	CHECK_INT(touched("cpu", "type"), 1);

	const struct tly_sys *previous = noting_start();
	struct tly_sys refusing = *tly_sys;
	refusing.opendir = refusing_opendir;
	tly_sys_replace(&refusing);
	char root[4096];
	TALLY_OPTS(tally_counter_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), "intel"));
	tally_counter *c = NULL;
	CHECK_INT(tally_counter_new("task-clock,power/energy-pkg/", &opts, &c), -EACCES);
	CHECK(c == NULL);
	CHECK_CONTAINS(tally_last_error(), "cannot list");
	CHECK_CONTAINS(tally_last_error(), "bus/event_source/devices");
	/* Software events alone still need no listing. */
	CHECK_INT(tally_counter_new("task-clock", &opts, &c), 0);
	tally_counter_free(c);
	tly_sys_replace(previous);
}

static void pmu_event_reads_that_pmus_details_only(void)
{
	CHECK_INT(parse_noting("intel", "power/energy-pkg/"), 0);
	CHECK(touched("power", "events") > 0);
	CHECK(touched("power", "format") > 0);
	CHECK_INT(touched("cpu", "events"), 0);
	CHECK_INT(touched("uncore_imc_0", "events"), 0);
	CHECK_INT(touched("msr", "events"), 0);
}

static void generic_event_reads_core_ness(void)
{
	/* cycles belongs to the core PMU: which one that is needs each PMU's `cpus`, except where the kernel
	 * never puts one; no PMU's events are read. */
	CHECK_INT(parse_noting("intel", "cycles"), 0);
	CHECK_INT(touched("uncore_imc_0", "cpus"), 1);
	/* Its PMU is named by the type of the core PMU only. */
	CHECK_INT(touched("cpu", "type"), 1);
	CHECK_INT(touched("uncore_imc_0", "type"), 0);
	CHECK_INT(touched("power", "type"), 0);
	CHECK_INT(touched("software", "cpus"), 0);
	CHECK_INT(touched("msr", "cpus"), 0);
	CHECK_INT(touched("cpu", "events"), 0);
	CHECK_INT(touched("uncore_imc_0", "events"), 0);
}

static void bare_alias_reads_every_pmu(void)
{
	/* A bare name that is no built-in event may be any PMU's: perf looks in all of them, as here. */
	CHECK_INT(parse_noting("intel", "energy-pkg"), 0);
	CHECK(touched("cpu", "events") > 0);
	CHECK(touched("msr", "events") > 0);
	CHECK(touched("power", "events") > 0);
}

static void details_read_once(void)
{
	char root[4096];
	TALLY_OPTS(tally_pmus_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), "intel"));
	tally_pmus *pmus;
	CHECK_INT(tally_pmus_load(&opts, &pmus), 0);
	if (!pmus)
		return;
	const tally_pmu *cpu = tally_pmus_find(pmus, "cpu");
	struct tally_alias_info first = { .sz = sizeof(first) }, again = { .sz = sizeof(again) };
	CHECK_INT(tally_pmu_alias_at(cpu, 0, &first), 0);
	const struct tly_sys *previous = noting_start();
	CHECK_INT(tally_pmu_alias_at(cpu, 0, &again), 0);
	tly_sys_replace(previous);
	CHECK_STR(noted_opens, "");
	CHECK(first.name == again.name);
	tally_pmus_free(pmus);
}

struct racer {
	const tally_pmu *pmu;
	const struct tly_alias *alias;
	int rc;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	r->rc = tly_pmu_details(r->pmu);
	r->alias = tly_pmu_alias(r->pmu, "cpu-cycles");
	return NULL;
}

static void threads_share_one_read(void)
{
	char root[4096];
	TALLY_OPTS(tally_pmus_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), "intel"));
	tally_pmus *pmus;
	CHECK_INT(tally_pmus_load(&opts, &pmus), 0);
	if (!pmus)
		return;
	enum { N = 8 };
	struct racer racers[N];
	pthread_t threads[N];
	for (int i = 0; i < N; i++) {
		racers[i] = (struct racer){ .pmu = tally_pmus_find(pmus, "cpu") };
		CHECK_INT(pthread_create(&threads[i], NULL, race, &racers[i]), 0);
	}
	for (int i = 0; i < N; i++) {
		pthread_join(threads[i], NULL);
		CHECK_INT(racers[i].rc, 0);
		CHECK(racers[i].alias != NULL);
		CHECK(racers[i].alias == racers[0].alias);
	}
	tally_pmus_free(pmus);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "software_event_reads_no_pmu_details", software_event_reads_no_pmu_details },
		{ "counter_of_software_events_reads_no_sysfs", counter_of_software_events_reads_no_sysfs },
		{ "counter_lists_pmus_when_a_spec_needs_them", counter_lists_pmus_when_a_spec_needs_them },
		{ "pmu_event_reads_that_pmus_details_only", pmu_event_reads_that_pmus_details_only },
		{ "generic_event_reads_core_ness", generic_event_reads_core_ness },
		{ "bare_alias_reads_every_pmu", bare_alias_reads_every_pmu },
		{ "details_read_once", details_read_once },
		{ "threads_share_one_read", threads_share_one_read },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
