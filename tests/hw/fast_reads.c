/* SPDX-License-Identifier: MIT */
/*
 * The hardware check's fast-read cases (tests/hw/run.sh, make check-hw): a hardware group
 * {instructions,cycles}:u on the calling thread, read from user space, held against what it must agree
 * with on a real PMU:
 *
 *   user_path          tally_counter_read_info says TALLY_READ_USER for every event
 *   agrees_with_read2  the instructions:u of loop.h's loop, read by tally_counter_read and by
 *                      tally_counter_read_values, and by a no_user_reads (read(2)) counter around the
 *                      same loop: within AGREE of each other (a deterministic loop's instructions:u is
 *                      near-exact on real hardware; the reads' own instructions are ~1e-5 of it)
 *   monotonic          READS reads in a row from user space: instructions strictly increase (each read
 *                      retires some), cycles never decrease, nor the times between two user reads, and
 *                      nine in ten reads at least were user reads (the others: preempted, read(2))
 *   known_loop         K iterations of the loop count at least K x HW_LOOP_INSNS_PER_ITER instructions:u
 *                      (x86, arm64: the body's listing; elsewhere at least K), and not over AGREE above
 *
 * and, with the argument `rdpmc`, the x86 case alone:
 *
 *   rdpmc_setting      /sys/bus/event_source/devices/cpu{,_core}/rdpmc 1 or 2: the path chosen is
 *                      TALLY_READ_USER; 0: the read(2) path, saying it is that setting (then SKIP: the
 *                      user path is not tested)
 *
 * Every case SKIPs (77) with the reason where the machine cannot test it: no hardware PMU, a
 * perf_event_paranoid that refuses, no user-space reads (the machine's reason), not x86.
 *
 *   hw_fast_reads [rdpmc]
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "loop.h"

#include <tally/counter.h>
#include <tally/probe.h>
#include <tally/read_path.h>

#define SPEC "{instructions,cycles}:u"
#define K 20000000ULL /* ~10 ms of the loop at 4 instructions per cycle */
#define AGREE 1e-3
#define READS 10000

static char skip_why[512];

/* Why this machine cannot test a hardware counter ("" when it can). */
static const char *untestable(void)
{
	struct tally_facts f = { .sz = sizeof(f) };
	if (tally_facts_probe(NULL, &f) != 0)
		snprintf(skip_why, sizeof(skip_why), "cannot probe the machine: %s", tally_last_error());
	else if (!f.has_hw_pmu || f.nr_core_pmus == 0)
		snprintf(skip_why, sizeof(skip_why), "no hardware PMU here (PMUs: %s)", f.pmu_names);
	else
		skip_why[0] = '\0';
	return skip_why;
}

/* SPEC on the calling thread, started: NULL with skip_why set when the kernel refuses it for a
 * permission (perf_event_paranoid), NULL after a failed check otherwise. */
static tally_counter *started(bool no_user_reads)
{
	tally_counter *c = NULL;
	TALLY_OPTS(tally_counter_opts, o, .no_user_reads = no_user_reads, .unsupported_is_error = true);
	int err = tally_counter_new(SPEC, &o, &c);
	if (!err)
		err = tally_counter_open(c, NULL);
	if (!err)
		err = tally_counter_start(c);
	if (err == -EACCES || err == -EPERM) {
		struct tally_facts f = { .sz = sizeof(f) };
		tally_facts_probe(NULL, &f);
		snprintf(skip_why, sizeof(skip_why), "perf_event_paranoid %d refuses " SPEC ": %s", f.perf_event_paranoid,
		         tally_last_error());
		tally_counter_free(c);
		return NULL;
	}
	CHECK_INT(err, 0);
	if (err) {
		fprintf(stderr, "%s: %s\n", SPEC, c ? tally_counter_last_error(c) : tally_last_error());
		tally_counter_free(c);
		return NULL;
	}
	return c;
}

/* Whether every event of c is read from user space; else skip_why says why (the machine's reason) and
 * a reason that is no machine's fails the check. */
static bool user_readable(tally_counter *c)
{
	for (size_t i = 0; i < 2; i++) {
		TALLY_OPTS(tally_read_info, info);
		CHECK_INT(tally_counter_read_info(c, i, &info), 0);
		if (info.path == TALLY_READ_USER)
			continue;
		enum tally_read_reason r = info.reason;
		CHECK(r == TALLY_READ_REASON_RDPMC_SYSFS || r == TALLY_READ_REASON_USER_ACCESS ||
		      r == TALLY_READ_REASON_CAP_USER_RDPMC || r == TALLY_READ_REASON_NO_USER_TIME ||
		      r == TALLY_READ_REASON_ARCH || r == TALLY_READ_REASON_MMAP);
		snprintf(skip_why, sizeof(skip_why), "%s is not read from user space here: %s",
		         tally_counter_name(c, i), tally_read_reason_str(r));
		return false;
	}
	return true;
}

/* The counter of the user-space cases, or NULL with skip_why set (or a failed check). */
static tally_counter *fast_counter(void)
{
	if (*untestable())
		return NULL;
	tally_counter *c = started(false);
	if (c && !user_readable(c)) {
		tally_counter_free(c);
		return NULL;
	}
	return c;
}

#define SKIP_UNLESS(c)                                                                             \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			if (skip_why[0])                                                           \
				SKIP("%s", skip_why);                                              \
			return;                                                                    \
		}                                                                                  \
	} while (0)

static void user_path(void)
{
	tally_counter *c = fast_counter();
	SKIP_UNLESS(c);
	struct tally_result r[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	for (size_t i = 0; i < 2; i++) {
		TALLY_OPTS(tally_read_info, info);
		CHECK_INT(tally_counter_read_info(c, i, &info), 0);
		CHECK_INT(info.path, TALLY_READ_USER);
		CHECK_INT(info.last_path, TALLY_READ_USER);
		printf("  %s: read from user space (%llu user reads, %llu read(2))\n", tally_counter_name(c, i),
		       (unsigned long long)info.user_reads, (unsigned long long)info.syscall_reads);
	}
	tally_counter_free(c);
}

static uint64_t instructions_around_loop(tally_counter *c, bool values)
{
	struct tally_result a[2], b[2];
	uint64_t va[2], vb[2];
	if (values) {
		CHECK_INT(tally_counter_read_values(c, va, 2), 2);
		hw_loop_run(K);
		CHECK_INT(tally_counter_read_values(c, vb, 2), 2);
		return vb[0] - va[0];
	}
	CHECK_INT(tally_counter_read(c, a, 2, sizeof(a[0])), 2);
	hw_loop_run(K);
	CHECK_INT(tally_counter_read(c, b, 2, sizeof(b[0])), 2);
	CHECK_INT(b[0].status, TALLY_STATUS_EXACT);
	return b[0].value - a[0].value;
}

static double rel(uint64_t a, uint64_t b)
{
	double d = (double)a - (double)b;
	return (d < 0 ? -d : d) / (double)(b ? b : 1);
}

static void agrees_with_read2(void)
{
	tally_counter *fast = fast_counter();
	SKIP_UNLESS(fast);
	/* One counter at a time, so that neither multiplexes the other out (the NMI watchdog holds one). */
	hw_loop_run(K); /* warm: the first run pays for page faults and the frequency ramp (in cycles only) */
	uint64_t user = instructions_around_loop(fast, false), values = instructions_around_loop(fast, true);
	TALLY_OPTS(tally_read_info, info);
	CHECK_INT(tally_counter_read_info(fast, 0, &info), 0);
	CHECK_INT(info.last_path, TALLY_READ_USER);
	tally_counter_free(fast);
	tally_counter *slow = started(true);
	SKIP_UNLESS(slow);
	CHECK_INT(tally_counter_read_info(slow, 0, &info), 0);
	CHECK_INT(info.path, TALLY_READ_SYSCALL);
	CHECK_INT(info.reason, TALLY_READ_REASON_FORCED);
	uint64_t syscall = instructions_around_loop(slow, false);
	tally_counter_free(slow);
	printf("  instructions:u of %llu loop iterations: tally_counter_read %llu, tally_counter_read_values %llu, "
	       "read(2) %llu (relative differences %.2e, %.2e; bound %.0e)\n", (unsigned long long)K,
	       (unsigned long long)user, (unsigned long long)values, (unsigned long long)syscall, rel(user, syscall),
	       rel(values, syscall), AGREE);
	CHECK(rel(user, syscall) <= AGREE);
	CHECK(rel(values, syscall) <= AGREE);
	CHECK(rel(user, values) <= AGREE);
}

static void monotonic(void)
{
	tally_counter *c = fast_counter();
	SKIP_UNLESS(c);
	TALLY_OPTS(tally_read_info, before);
	TALLY_OPTS(tally_read_info, after);
	CHECK_INT(tally_counter_read_info(c, 0, &before), 0);
	struct tally_result prev[2], cur[2];
	CHECK_INT(tally_counter_read(c, prev, 2, sizeof(prev[0])), 2);
	int instr_stuck = 0, cycles_back = 0, time_back = 0;
	bool prev_user = true;
	for (int i = 0; i < READS; i++) {
		CHECK_INT(tally_counter_read(c, cur, 2, sizeof(cur[0])), 2);
		TALLY_OPTS(tally_read_info, now);
		CHECK_INT(tally_counter_read_info(c, 0, &now), 0);
		bool user = now.last_path == TALLY_READ_USER;
		instr_stuck += cur[0].value <= prev[0].value;
		cycles_back += cur[1].value < prev[1].value;
		/* The times of two user reads are both extrapolated from the clock register; a read(2)'s are the
		 * kernel's, from its own clock: compared only between user reads. */
		if (user && prev_user)
			time_back += cur[0].enabled < prev[0].enabled || cur[0].running < prev[0].running;
		prev_user = user;
		memcpy(prev, cur, sizeof(cur));
	}
	CHECK_INT(tally_counter_read_info(c, 0, &after), 0);
	uint64_t user = after.user_reads - before.user_reads, sys = after.syscall_reads - before.syscall_reads;
	printf("  %d reads: %llu from user space, %llu through read(2); instructions did not increase %d times, "
	       "cycles went back %d times, the times %d\n", READS + 1, (unsigned long long)user,
	       (unsigned long long)sys, instr_stuck, cycles_back, time_back);
	CHECK_INT(instr_stuck, 0);
	CHECK_INT(cycles_back, 0);
	CHECK_INT(time_back, 0);
	/* A read falls back to read(2) only while the group is off its counter (preempted): rare. */
	CHECK(user + sys == READS + 1);
	CHECK(user >= (uint64_t)READS * 9 / 10);
	tally_counter_free(c);
}

static void known_loop(void)
{
	tally_counter *c = fast_counter();
	SKIP_UNLESS(c);
	hw_loop_run(K);
	uint64_t got = instructions_around_loop(c, false);
	uint64_t want = HW_LOOP_EXACT ? K * HW_LOOP_INSNS_PER_ITER : K;
	printf("  %llu iterations of %s: %llu instructions:u (listing: at least %llu)\n", (unsigned long long)K,
	       HW_LOOP_EXACT ? "dec+jnz / subs+b.ne" : "a volatile C loop", (unsigned long long)got,
	       (unsigned long long)want);
	CHECK(got >= want);
	if (HW_LOOP_EXACT)
		CHECK(rel(got, want) <= AGREE);
	tally_counter_free(c);
}

/* The cpu PMU's rdpmc file (cpu_core on a hybrid machine): its value, or -1 when there is none. */
static int rdpmc_setting(char *path, size_t len)
{
	static const char *const pmus[] = { "cpu", "cpu_core" };
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, len, "/sys/bus/event_source/devices/%s/rdpmc", pmus[i]);
		FILE *f = fopen(path, "r");
		int v = -1;
		if (!f)
			continue;
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
		return v;
	}
	return -1;
}

static void rdpmc_path(void)
{
#if !defined(__x86_64__) && !defined(__i386__)
	SKIP("not x86: rdpmc is x86's (arm64 reads with mrs: its cases are the fast-read ones and make check-arm64)");
#else
	if (*untestable())
		SKIP("%s", skip_why);
	char path[128];
	int setting = rdpmc_setting(path, sizeof(path));
	if (setting < 0)
		SKIP("no rdpmc setting (/sys/bus/event_source/devices/cpu{,_core}/rdpmc) to test");
	tally_counter *c = started(false);
	SKIP_UNLESS(c);
	for (size_t i = 0; i < 2; i++) {
		TALLY_OPTS(tally_read_info, info);
		CHECK_INT(tally_counter_read_info(c, i, &info), 0);
		printf("  %s = %d: %s reads through %s%s%s\n", path, setting, tally_counter_name(c, i),
		       info.path == TALLY_READ_USER ? "rdpmc (user space)" : "read(2)",
		       info.path == TALLY_READ_USER ? "" : ": ", info.path == TALLY_READ_USER ? "" :
		       tally_read_reason_str(info.reason));
		if (setting == 0) {
			CHECK_INT(info.path, TALLY_READ_SYSCALL);
			CHECK_INT(info.reason, TALLY_READ_REASON_RDPMC_SYSFS);
		} else {
			CHECK_INT(info.path, TALLY_READ_USER);
			CHECK_INT(info.reason, TALLY_READ_REASON_NONE);
		}
	}
	tally_counter_free(c);
	if (setting == 0)
		SKIP("rdpmc disabled (%s is 0; echo 2 > it as root): the read(2) fallback says so, the user path is "
		     "not tested", path);
#endif
}

int main(int argc, char **argv)
{
	static const struct harness_case fast[] = {
		{ "user_path", user_path },
		{ "agrees_with_read2", agrees_with_read2 },
		{ "monotonic", monotonic },
		{ "known_loop", known_loop },
		{ NULL, NULL },
	};
	static const struct harness_case rdpmc[] = {
		{ "rdpmc_setting", rdpmc_path },
		{ NULL, NULL },
	};
	/* One CPU for the whole run: no migration between two reads that are compared (hybrid: no core type
	 * change under a group either). */
	cpu_set_t one;
	CPU_ZERO(&one);
	int cpu = sched_getcpu();
	if (cpu >= 0) {
		CPU_SET(cpu, &one);
		sched_setaffinity(0, sizeof(one), &one);
	}
	bool want_rdpmc = argc > 1 && strcmp(argv[1], "rdpmc") == 0;
	if (argc > 1 && !want_rdpmc) {
		fprintf(stderr, "usage: hw_fast_reads [rdpmc]\n");
		return 2;
	}
	return harness_run(want_rdpmc ? rdpmc : fast);
}
