/* SPDX-License-Identifier: MIT */
/*
 * The counting engine on a hardware PMU: a cycles/instructions group, seed 000's cycles leader with a
 * software member, and packing more hardware events than the PMU has counters (trial opening and, where
 * a group opens but never runs, splitting at the read), and reads from user space (rdpmc on x86, mrs on
 * arm64) where the machine allows them. Skips (77) where there is no hardware PMU, as in the VMs this
 * project is built on.
 */
#include "harness.h"

#include <tally/counter.h>
#include <tally/probe.h>
#include <tally/read_path.h>

#define LOOPS 10000000

static bool no_hw_pmu(char *why, size_t len)
{
	struct tally_facts f = { .sz = sizeof(f) };
	if (tally_facts_probe(NULL, &f) != 0) {
		snprintf(why, len, "cannot probe the machine: %s", tally_last_error());
		return true;
	}
	/* A CPU PMU, not any hardware one: a VM may expose RAPL's `power` and no CPU counters. */
	snprintf(why, len, "no CPU PMU here (PMUs: %s)", f.pmu_names);
	return !f.has_hw_pmu || f.nr_core_pmus == 0;
}

static void busy_loop(void)
{
	for (volatile long i = 0; i < LOOPS; i++)
		;
}

static tally_counter *started(const char *spec)
{
	tally_counter *c = NULL;
	int err = tally_counter_new(spec, NULL, &c);
	if (!err)
		err = tally_counter_open(c, NULL);
	if (!err)
		err = tally_counter_start(c);
	CHECK_INT(err, 0);
	if (err) {
		fprintf(stderr, "%s\n", c ? tally_counter_last_error(c) : tally_last_error());
		tally_counter_free(c);
		return NULL;
	}
	return c;
}

/* Counts spec around busy_loop() and reads n results; NULL (after a failed check) when it cannot. */
static tally_counter *counted_around_loop(const char *spec, struct tally_result *r, size_t n)
{
	tally_counter *c = started(spec);
	if (!c)
		return NULL;
	busy_loop();
	CHECK_INT(tally_counter_stop(c), 0);
	CHECK_INT(tally_counter_read(c, r, n, sizeof(r[0])), (long long)n);
	return c;
}

static void cycles_and_instructions_group(void)
{
	char why[512];
	if (no_hw_pmu(why, sizeof(why)))
		SKIP("%s", why);
	struct tally_result r[2];
	tally_counter *c = counted_around_loop("{cycles,instructions}:u", r, 2);
	if (!c)
		return;
	for (int i = 0; i < 2; i++) {
		CHECK(r[i].status == TALLY_STATUS_EXACT || r[i].status == TALLY_STATUS_SCALED);
		CHECK_INT(r[i].group, 0);
	}
	/* A volatile loop: at least a load, an add, a store and a branch per iteration. */
	CHECK(r[1].value >= LOOPS);
	CHECK(r[0].value > 0);
	printf("  %d loops: cycles %llu, instructions %llu\n", LOOPS, (unsigned long long)r[0].value,
	       (unsigned long long)r[1].value);
	tally_counter_free(c);
}

static void cycles_leads_a_software_member(void)
{
	char why[512];
	if (no_hw_pmu(why, sizeof(why)))
		SKIP("%s", why);
	struct tally_result r[2];
	tally_counter *c = counted_around_loop("{cycles,page-faults}:u", r, 2);
	if (!c)
		return;
	CHECK(r[0].status != TALLY_STATUS_NOT_SUPPORTED);
	CHECK(r[1].status != TALLY_STATUS_NOT_SUPPORTED);
	CHECK_INT(r[1].group, 0);
	tally_counter_free(c);
}

static void more_events_than_counters_all_count(void)
{
	char why[512];
	if (no_hw_pmu(why, sizeof(why)))
		SKIP("%s", why);
	/* 16 hardware events outside braces: more than any PMU's counters, so packing must split. */
	const char *spec = "instructions,cycles,branches,branch-misses,instructions,cycles,branches,"
	                   "branch-misses,instructions,cycles,branches,branch-misses,instructions,cycles,"
	                   "branches,branch-misses";
	tally_counter *c = started(spec);
	if (!c)
		return;
	struct tally_result r[16];
	/* A group that opened but never ran is split at a read; a few reads settle every group. */
	for (int round = 0; round < 6; round++) {
		busy_loop();
		CHECK_INT(tally_counter_read(c, r, 16, sizeof(r[0])), 16);
	}
	int groups = 0, counted = 0;
	for (int i = 0; i < 16; i++) {
		groups += r[i].group == i;
		counted += r[i].status == TALLY_STATUS_EXACT || r[i].status == TALLY_STATUS_SCALED;
		if (r[i].has_note)
			printf("  %s: %s\n", tally_counter_name(c, (size_t)i), tally_counter_note(c, (size_t)i));
	}
	printf("  16 hardware events packed into %d groups; %d counted\n", groups, counted);
	CHECK(groups > 1);
	CHECK_INT(counted, 16);
	tally_counter_free(c);
}

/* The calling thread's {instructions, cycles}: read from user space while counting where the machine
 * allows it (else the reason is one of the machine's, printed), and the read(2) after a stop agrees: it
 * is never below the user read and within what a stop costs above it. */
static void user_reads_where_allowed(void)
{
	char why[512];
	if (no_hw_pmu(why, sizeof(why)))
		SKIP("%s", why);
	tally_counter *c = started("{instructions:u,cycles:u}");
	if (!c)
		return;
	TALLY_OPTS(tally_read_info, info);
	CHECK_INT(tally_counter_read_info(c, 0, &info), 0);
	if (info.path != TALLY_READ_USER) {
		printf("  no user-space reads on this machine: %s\n", tally_read_reason_str(info.reason));
		CHECK(info.reason == TALLY_READ_REASON_RDPMC_SYSFS || info.reason == TALLY_READ_REASON_USER_ACCESS ||
		      info.reason == TALLY_READ_REASON_CAP_USER_RDPMC || info.reason == TALLY_READ_REASON_NO_USER_TIME ||
		      info.reason == TALLY_READ_REASON_ARCH || info.reason == TALLY_READ_REASON_MMAP);
		tally_counter_free(c);
		return;
	}
	struct tally_result before[2], fast[2], slow[2];
	CHECK_INT(tally_counter_read(c, before, 2, sizeof(before[0])), 2);
	busy_loop();
	CHECK_INT(tally_counter_read(c, fast, 2, sizeof(fast[0])), 2);
	CHECK_INT(tally_counter_read_info(c, 0, &info), 0);
	CHECK_INT(info.last_path, TALLY_READ_USER);
	CHECK(info.user_reads >= 1);
	CHECK_INT(tally_counter_stop(c), 0);
	CHECK_INT(tally_counter_read(c, slow, 2, sizeof(slow[0])), 2);
	CHECK(fast[0].value - before[0].value >= LOOPS);
	CHECK(slow[0].value >= fast[0].value && slow[0].value - fast[0].value < 100000);
	CHECK(slow[0].enabled >= fast[0].enabled && fast[0].enabled > before[0].enabled);
	printf("  %llu reads from user space, %llu through read(2); instructions: user read %llu, read(2) after the "
	       "stop %llu\n", (unsigned long long)info.user_reads, (unsigned long long)info.syscall_reads,
	       (unsigned long long)fast[0].value, (unsigned long long)slow[0].value);
	tally_counter_free(c);
}

/* no_user_reads: the same events through read(2), saying why. */
static void no_user_reads_forces_read2(void)
{
	char why[512];
	if (no_hw_pmu(why, sizeof(why)))
		SKIP("%s", why);
	tally_counter *c = NULL;
	TALLY_OPTS(tally_counter_opts, o, .no_user_reads = true);
	CHECK_INT(tally_counter_new("{instructions:u,cycles:u}", &o, &c), 0);
	CHECK_INT(tally_counter_open(c, NULL), 0);
	TALLY_OPTS(tally_read_info, info);
	CHECK_INT(tally_counter_read_info(c, 1, &info), 0);
	CHECK_INT(info.path, TALLY_READ_SYSCALL);
	CHECK_INT(info.reason, TALLY_READ_REASON_FORCED);
	tally_counter_free(c);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "cycles_and_instructions_group", cycles_and_instructions_group },
		{ "cycles_leads_a_software_member", cycles_leads_a_software_member },
		{ "more_events_than_counters_all_count", more_events_than_counters_all_count },
		{ "user_reads_where_allowed", user_reads_where_allowed },
		{ "no_user_reads_forces_read2", no_user_reads_forces_read2 },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
