/* SPDX-License-Identifier: MIT */
/*
 * Fault injection over the lower layer: every call position of an open -> reset -> enable -> read ->
 * disable -> read -> close sequence, failed in turn with each error of the list (and a short read
 * for reads). Each failure must be reported (a negative code and a text naming the event and the errno),
 * leak no descriptor, and leave a handle that closes and frees cleanly (ASan checks the memory).
 */
#include "evsel/evsel.h"
#include "fault.h"
#include "harness.h"

#include <tally.h>
#include <unistd.h>

/* A group {task-clock, page-faults, minor-faults} and a lone context-switches: both read paths (group
 * and single), group and plain ioctls. */
static const struct {
	uint64_t config;
	const char *name;
	bool leads;
} events[] = {
	{ PERF_COUNT_SW_TASK_CLOCK, "task-clock", true },
	{ PERF_COUNT_SW_PAGE_FAULTS, "page-faults", false },
	{ PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults", false },
	{ PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches", true },
};
enum { NR_EVENTS = sizeof(events) / sizeof(events[0]) };

static tally_evlist *make_list(void)
{
	tally_evlist *list = NULL;
	CHECK_INT(tally_evlist_new(&list), 0);
	tally_evsel *leader = NULL;
	for (size_t i = 0; list && i < NR_EVENTS; i++) {
		struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .config = events[i].config,
			                        .disabled = events[i].leads };
		tally_evsel *e = NULL;
		CHECK_INT(tally_evsel_new(&attr, &e), 0);
		CHECK_INT(tally_evsel_set_name(e, events[i].name), 0);
		if (events[i].leads)
			leader = e;
		else
			CHECK_INT(tally_evsel_set_leader(e, leader), 0);
		CHECK_INT(tally_evlist_add(list, e), 0);
	}
	return list;
}

/* Runs the sequence; returns 0 or the first failure's code, naming the failed step. */
static int run_sequence(const char **failed_step)
{
	tally_evlist *list = make_list();
	struct tally_count counts[NR_EVENTS];
	int rc = 0;
	*failed_step = NULL;
#define STEP(name, call)                                                                           \
	do {                                                                                       \
		if (!rc && (rc = (call)) != 0)                                                     \
			*failed_step = name;                                                       \
	} while (0)
	STEP("open", tally_evlist_open(list));
	STEP("reset", tally_evlist_reset(list));
	STEP("enable", tally_evlist_enable(list));
	STEP("read", tally_evlist_read(list, counts, NR_EVENTS, sizeof(counts[0])));
	STEP("disable", tally_evlist_disable(list));
	STEP("read", tally_evlist_read(list, counts, NR_EVENTS, sizeof(counts[0])));
#undef STEP
	tally_evlist_close(list);
	tally_evlist_free(list);
	return rc;
}

static bool names_an_event(const char *text)
{
	for (size_t i = 0; i < NR_EVENTS; i++) {
		char quoted[64];
		snprintf(quoted, sizeof(quoted), "'%s'", events[i].name);
		if (strstr(text, quoted))
			return true;
	}
	return false;
}

struct coverage {
	unsigned combinations, reported, retried, tolerated;
};

static void inject(enum fault_call call, unsigned long position, int err, struct coverage *cov)
{
	int fds = fault_open_fds();
	fault_reset();
	fault_arm(call, position, err);
	const char *step;
	int rc = run_sequence(&step);
	bool fired = fault_fired();
	fault_disarm();
	CHECK(fired);
	cov->combinations++;
	const char *text = tally_last_error();
	if (call == FAULT_CLOSE) {
		/* Linux releases the descriptor whatever close returns; a close error has nothing to undo. */
		CHECK_INT(rc, 0);
		cov->tolerated++;
	} else if (err == EINTR) {
		CHECK_INT(rc, 0);
		cov->retried++;
	} else {
		int expected = err == FAULT_SHORT_READ ? -EIO : -err;
		if (rc != expected)
			fprintf(stderr, "%s #%lu %s: rc %d at step %s: %s\n", fault_call_name(call), position,
			        fault_err_name(err), rc, step ? step : "-", text);
		CHECK_INT(rc, expected);
		CHECK(names_an_event(text));
		CHECK_CONTAINS(text, err == FAULT_SHORT_READ ? "short read" : fault_err_name(err));
		CHECK_CONTAINS(text, "(at any CPU, the opening thread)");
		cov->reported++;
	}
	int leaked = fault_open_fds() - fds;
	if (leaked)
		fprintf(stderr, "%s #%lu %s: %d descriptors leaked\n", fault_call_name(call), position,
		        fault_err_name(err), leaked);
	CHECK_INT(leaked, 0);
}

static void every_call_position_every_error(void)
{
	fault_install();
	const char *step;
	CHECK_INT(run_sequence(&step), 0);
	static const enum fault_call calls[] = { FAULT_PERF_EVENT_OPEN, FAULT_IOCTL, FAULT_READ, FAULT_CLOSE };
	unsigned long clean[4];
	for (int c = 0; c < 4; c++)
		clean[c] = fault_calls(calls[c]);
	/* The shape of the sequence: 4 opens; 4 IOC_ID + 2 resets + 4 enables (members before the leader)
	 * + 2 disables; one read per group per read step; 4 closes. */
	CHECK_INT(clean[0], 4);
	CHECK_INT(clean[1], 12);
	CHECK_INT(clean[2], 4);
	CHECK_INT(clean[3], 4);

	const int *errs;
	size_t nr_errs = fault_standard_errors(&errs);
	struct coverage cov = { 0 };
	unsigned positions = 0;
	for (int c = 0; c < 4; c++)
		for (unsigned long pos = 1; pos <= clean[c]; pos++) {
			positions++;
			for (size_t e = 0; e < nr_errs; e++)
				if (errs[e] != FAULT_SHORT_READ || calls[c] == FAULT_READ)
					inject(calls[c], pos, errs[e], &cov);
		}
	fault_uninstall();
	printf("  fault coverage (open->reset->enable->read->disable->read->close): %u call positions "
	       "(%lu perf_event_open, %lu ioctl, %lu read, %lu close) x %zu errors = %u combinations: "
	       "%u reported, %u EINTR retried, %u close errors tolerated\n",
	       positions, clean[0], clean[1], clean[2], clean[3], nr_errs, cov.combinations, cov.reported,
	       cov.retried, cov.tolerated);
}

/* The maps read sysfs and /proc through the same table: every call of theirs fails cleanly too. */
static void map_building_calls(void)
{
	static const enum fault_call calls[] = { FAULT_OPEN, FAULT_READ, FAULT_CLOSE,
		                                 FAULT_OPENDIR, FAULT_READDIR, FAULT_CLOSEDIR };
	enum { NR_CALLS = sizeof(calls) / sizeof(calls[0]) };
	fault_install();
	tally_cpus *cpus = NULL;
	tally_threads *threads = NULL;
	CHECK_INT(tally_cpus_online("/sys", &cpus), 0);
	CHECK_INT(tally_threads_of_pid(getpid(), &threads), 0);
	tally_cpus_free(cpus);
	tally_threads_free(threads);
	cpus = NULL;
	threads = NULL;
	unsigned long clean[NR_CALLS];
	for (int c = 0; c < NR_CALLS; c++)
		clean[c] = fault_calls(calls[c]);

	const int *errs;
	size_t nr_errs = fault_standard_errors(&errs);
	unsigned combinations = 0, reported = 0;
	for (int c = 0; c < NR_CALLS; c++)
		for (unsigned long pos = 1; pos <= clean[c]; pos++)
			for (size_t e = 0; e < nr_errs; e++) {
				if (errs[e] == FAULT_SHORT_READ && calls[c] != FAULT_READ)
					continue;
				int fds = fault_open_fds();
				fault_reset();
				fault_arm(calls[c], pos, errs[e]);
				int rc = tally_cpus_online("/sys", &cpus);
				if (!rc)
					rc = tally_threads_of_pid(getpid(), &threads);
				CHECK(fault_fired());
				combinations++;
				/* Only these may pass unnoticed: a retried EINTR, a short read (the file is read on to
				 * its end), and a failed close or closedir (nothing to undo). */
				bool harmless = errs[e] == EINTR || errs[e] == FAULT_SHORT_READ ||
				                calls[c] == FAULT_CLOSE || calls[c] == FAULT_CLOSEDIR;
				if (!harmless && rc == 0)
					fprintf(stderr, "%s #%lu %s went unreported\n", fault_call_name(calls[c]), pos,
					        fault_err_name(errs[e]));
				CHECK(harmless || rc < 0);
				if (rc) {
					CHECK(rc < 0);
					CHECK(tally_last_error()[0] != '\0');
					reported++;
				}
				tally_cpus_free(cpus);
				tally_threads_free(threads);
				cpus = NULL;
				threads = NULL;
				CHECK_INT(fault_open_fds(), fds);
			}
	fault_uninstall();
	printf("  fault coverage (online CPUs, threads of a pid): %u combinations, %u reported, the rest "
	       "retried or harmless\n", combinations, reported);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "every_call_position_every_error", every_call_position_every_error },
		{ "map_building_calls", map_building_calls },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
