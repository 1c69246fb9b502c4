/* SPDX-License-Identifier: MIT */
/*
 * Allocation failures, SQLite style (tests/alloc_fault.h): a counter's whole life (new with a spec of
 * several events and a group, open on this thread, start, read, parts, stop, reset, read, close, open on
 * a launched command, start, wait, read, close, free) runs once for every k with its kth allocation
 * failing, until a run reaches no kth allocation. Each time the failure is reported (the call returns
 * -ENOMEM and tally_last_error() says so) or absorbed (every step succeeded and the counts are right),
 * nothing leaks (every block allocated in the run is freed, no descriptor or child is left) and the
 * handle still closes and frees. tally_pmus_load and tally_facts_probe get the same sweep. Prints how
 * many positions there were and how each ended.
 */
#include "alloc_fault.h"
#include "core/error.h"
#include "fault.h"
#include "harness.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tally/counter.h>
#include <tally/probe.h>

#define SPEC "{task-clock,page-faults},context-switches,cpu-clock"
#define NR_EVENTS 4
#define TOUCHED_PAGES 64

enum outcome { OUTCOME_REPORTED, OUTCOME_ABSORBED, OUTCOME_NOT_REACHED };

struct sweep_stats {
	unsigned positions, reported, absorbed;
};

/* Empties the thread's last error, so that a failure's text is known to be the failure's own. */
static void clear_last_error(void)
{
	tly_error(0, "%s", "");
}

/* A failing call: -ENOMEM, with text in both the thread's and (when there is one) the handle's error. */
static void check_reported(int ret, const char *call, unsigned long k, const tally_counter *c)
{
	if (ret != -ENOMEM || !tally_last_error()[0])
		fprintf(stderr, "  allocation #%lu: %s returned %d (%s) with \"%s\"\n", k, call, ret,
		        tally_strerror(ret), tally_last_error());
	CHECK_INT(ret, -ENOMEM);
	CHECK(tally_last_error()[0] != '\0');
	if (c)
		CHECK(tally_counter_last_error(c)[0] != '\0');
}

/* Touches fresh anonymous pages: each one a page fault of this thread. */
static void fault_pages(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, TOUCHED_PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	for (size_t i = 0; i < TOUCHED_PAGES; i++)
		((volatile char *)p)[i * page] = 1;
	munmap(p, TOUCHED_PAGES * page);
}

/* Absorbed failures must leave right counts: every event counted, the clocks and the faults non-zero. */
static bool counts_right(const struct tally_result *r, uint64_t min_faults)
{
	for (int i = 0; i < NR_EVENTS; i++)
		if (r[i].status != TALLY_STATUS_EXACT && r[i].status != TALLY_STATUS_SCALED)
			return false;
	return r[0].value > 0 && r[1].value >= min_faults && r[3].value > 0;
}

/* One life of a counter with the kth allocation failing (0: none). Every step checks the failure it
 * meets; the handle is closed and freed whatever happened. */
static enum outcome counter_life(unsigned long k)
{
	int ret;
	struct tally_result r[NR_EVENTS];
	struct tally_part parts[4];
	static char *const argv[] = { "true", NULL };
	TALLY_OPTS(tally_target, command, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	tally_counter *c = (tally_counter *)&c; /* not NULL: new must set it */

	alloc_fault_begin(k);
	ret = tally_counter_new(SPEC, NULL, &c);
	if (ret) {
		alloc_fault_end();
		check_reported(ret, "tally_counter_new", k, NULL);
		CHECK(c == NULL);
		return OUTCOME_REPORTED;
	}
	const char *failed = NULL;
	bool right = true;
	if ((ret = tally_counter_open(c, NULL)) != 0)
		failed = "open (thread)";
	else if ((ret = tally_counter_start(c)) != 0)
		failed = "start (thread)";
	if (!failed) {
		fault_pages();
		if ((ret = tally_counter_read(c, r, NR_EVENTS, sizeof(r[0]))) < 0)
			failed = "read (thread)";
		else
			right &= counts_right(r, TOUCHED_PAGES);
	}
	if (!failed && (ret = tally_counter_parts(c, 1, parts, 4, sizeof(parts[0]))) < 0)
		failed = "parts";
	if (!failed && (ret = tally_counter_stop(c)) != 0)
		failed = "stop";
	if (!failed && (ret = tally_counter_reset(c)) != 0)
		failed = "reset";
	if (!failed && (ret = tally_counter_read(c, r, NR_EVENTS, sizeof(r[0]))) < 0)
		failed = "read after reset";
	if (!failed)
		ret = tally_counter_close(c);
	if (!failed && ret != 0)
		failed = "close (thread)";
	if (!failed && (ret = tally_counter_open(c, &command)) != 0)
		failed = "open (command)";
	if (!failed && (ret = tally_counter_start(c)) != 0)
		failed = "start (command)";
	if (!failed) {
		struct tally_exit e;
		memset(&e, 0, sizeof(e));
		if ((ret = tally_counter_wait(c, &e, sizeof(e))) != 0)
			failed = "wait (command)";
		else
			right &= e.code == 0;
	}
	if (!failed) {
		if ((ret = tally_counter_read(c, r, NR_EVENTS, sizeof(r[0]))) < 0)
			failed = "read (command)";
		else
			right &= counts_right(r, 1);
	}
	CHECK_INT(tally_counter_close(c), 0);
	/* Closing again is a no-op; the handle stays usable to the end. */
	CHECK_INT(tally_counter_close(c), 0);
	if (failed) {
		alloc_fault_end();
		check_reported(ret, failed, k, NULL);
		CHECK(tally_counter_last_error(c)[0] != '\0');
		tally_counter_free(c);
		return OUTCOME_REPORTED;
	}
	tally_counter_free(c);
	alloc_fault_end();
	if (!right)
		fprintf(stderr, "  allocation #%lu failed unnoticed: the counts are wrong\n", k);
	CHECK(right);
	return alloc_fault_fired() ? OUTCOME_ABSORBED : OUTCOME_NOT_REACHED;
}

static enum outcome pmus_life(unsigned long k, const char *root)
{
	TALLY_OPTS(tally_pmus_opts, o, .sysfs_root = root);
	tally_pmus *pmus = (tally_pmus *)&pmus;
	alloc_fault_begin(k);
	int ret = tally_pmus_load(&o, &pmus);
	if (ret == 0)
		tally_pmus_free(pmus);
	alloc_fault_end();
	if (ret) {
		check_reported(ret, "tally_pmus_load", k, NULL);
		CHECK(pmus == NULL);
		return OUTCOME_REPORTED;
	}
	return alloc_fault_fired() ? OUTCOME_ABSORBED : OUTCOME_NOT_REACHED;
}

static enum outcome facts_life(unsigned long k)
{
	struct tally_facts f = { .sz = sizeof(f) }, want = { .sz = sizeof(want) };
	TALLY_OPTS(tally_facts_opts, o);
	CHECK_INT(tally_facts_probe(&o, &want), 0);
	alloc_fault_begin(k);
	int ret = tally_facts_probe(&o, &f);
	alloc_fault_end();
	if (ret) {
		check_reported(ret, "tally_facts_probe", k, NULL);
		return OUTCOME_REPORTED;
	}
	/* Absorbed: a fact that could not be read says unknown (tally(3): not a failure); the others are
	 * what they are without the failure. */
	if (f.pmus_known) {
		CHECK_INT(f.nr_pmus, want.nr_pmus);
		CHECK_STR(f.pmu_names, want.pmu_names);
	}
	CHECK(f.online_cpus == want.online_cpus || f.online_cpus == 0);
	CHECK_STR(f.kernel_release, want.kernel_release);
	CHECK_INT(f.perf_event_paranoid, want.perf_event_paranoid);
	return alloc_fault_fired() ? OUTCOME_ABSORBED : OUTCOME_NOT_REACHED;
}

/* No child left behind: every launched command was reaped. */
static bool no_children(void)
{
	return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

/* Runs life(k) for k = 1, 2, ... until a run reaches no kth allocation; checks leaks after each. */
static struct sweep_stats sweep(const char *what, enum outcome (*life)(unsigned long k, const void *arg),
                                const void *arg)
{
	struct sweep_stats s = { 0 };
	for (unsigned long k = 1;; k++) {
		int fds = fault_open_fds();
		clear_last_error();
		enum outcome o = life(k, arg);
		long live = alloc_fault_live();
		if (live != 0)
			fprintf(stderr, "  %s, allocation #%lu failing: %ld blocks not freed\n", what, k, live);
		CHECK_INT(live, 0);
		CHECK_INT(fault_open_fds(), fds);
		CHECK(no_children());
		if (o == OUTCOME_NOT_REACHED)
			break;
		s.positions++;
		if (o == OUTCOME_REPORTED)
			s.reported++;
		else
			s.absorbed++;
		if (k > 100000) {
			CHECK(!"the sweep does not end");
			break;
		}
	}
	printf("  %s: %u allocations, each failed in turn: %u reported (-ENOMEM), %u absorbed\n", what,
	       s.positions, s.reported, s.absorbed);
	return s;
}

static enum outcome counter_life_arg(unsigned long k, const void *arg)
{
	(void)arg;
	return counter_life(k);
}

static enum outcome pmus_life_arg(unsigned long k, const void *arg)
{
	return pmus_life(k, arg);
}

static enum outcome facts_life_arg(unsigned long k, const void *arg)
{
	(void)arg;
	return facts_life(k);
}

/* The first run initialises what lives as long as the process (stdio buffers, the one-time probes), so
 * that the sweep's leak count sees only what the library allocates per call. */
static void warm_up(void)
{
	counter_life(0);
	TALLY_OPTS(tally_pmus_opts, o);
	tally_pmus *pmus;
	if (tally_pmus_load(&o, &pmus) == 0)
		tally_pmus_free(pmus);
}

static void counter_every_allocation_fails(void)
{
	if (alloc_fault_unavailable())
		SKIP("%s", alloc_fault_unavailable());
	warm_up();
	struct sweep_stats s = sweep("counter life", counter_life_arg, NULL);
	CHECK(s.positions > 10);
	CHECK(s.reported > 0);
}

static void pmus_every_allocation_fails(void)
{
	if (alloc_fault_unavailable())
		SKIP("%s", alloc_fault_unavailable());
	warm_up();
	char root[4096];
	const char *fixtures = getenv("TALLY_FIXTURES");
	sweep("tally_pmus_load /sys", pmus_life_arg, NULL);
	if (!fixtures)
		return;
	/* A fixture with format, alias and caps files of every kind. */
	snprintf(root, sizeof(root), "%s/sysfs/intel", fixtures);
	struct sweep_stats s = sweep("tally_pmus_load intel fixture", pmus_life_arg, root);
	CHECK(s.reported > 0);
}

static void facts_every_allocation_fails(void)
{
	if (alloc_fault_unavailable())
		SKIP("%s", alloc_fault_unavailable());
	warm_up();
	sweep("tally_facts_probe", facts_life_arg, NULL);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "counter_every_allocation_fails", counter_every_allocation_fails },
		{ "pmus_every_allocation_fails", pmus_every_allocation_fails },
		{ "facts_every_allocation_fails", facts_every_allocation_fails },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
