/* SPDX-License-Identifier: MIT */
/*
 * Fault injection into the counting engine: every perf_event_open, ioctl, read and close (and the /proc
 * listing of a process target) of an open -> start -> read -> stop -> close sequence fails in turn with
 * each of EACCES, EPERM, ENOENT, EINVAL, EMFILE, E2BIG, EBUSY, ENOSYS, EINTR and a short read. Each time:
 * the failure is explained (the event and the errno), or the event reads "not supported" with a note;
 * the handle still closes and opens again; no descriptor leaks (ASan covers memory). Prints the coverage.
 */
#include "fault.h"
#include "harness.h"

#include <linux/capability.h>
#include <tally/counter.h>

#define SPEC "{task-clock,page-faults},context-switches"
#define NR_EVENTS 3

static const char *const event_names[NR_EVENTS] = { "task-clock", "page-faults", "context-switches" };

enum step { STEP_OPEN, STEP_START, STEP_READ, STEP_STOP, STEP_CLOSE, STEP_NONE };
static const char *const step_names[] = { "open", "start", "read", "stop", "close", "none" };

/* Runs the sequence; returns the step that failed (STEP_NONE when all succeeded). */
static enum step run_sequence(tally_counter *c, const struct tally_target *target, struct tally_result *r)
{
	if (tally_counter_open(c, target) != 0)
		return STEP_OPEN;
	if (tally_counter_start(c) != 0)
		return STEP_START;
	if (tally_counter_read(c, r, NR_EVENTS, sizeof(r[0])) < 0)
		return STEP_READ;
	if (tally_counter_stop(c) != 0)
		return STEP_STOP;
	/* Close reports nothing: Linux releases a descriptor whatever close(2) returns. */
	if (tally_counter_close(c) != 0)
		return STEP_CLOSE;
	return STEP_NONE;
}

static bool names_an_event(const char *text)
{
	for (int i = 0; i < NR_EVENTS; i++)
		if (strstr(text, event_names[i]))
			return true;
	return false;
}

/* The text names the failure: its errno (by name or text), or the short read. A /proc/<pid>/task that
 * is not there means the process is gone, which is what the text says instead. */
static bool names_the_error(const char *text, int err)
{
	if (err == ENOENT && strstr(text, "does not exist"))
		return true;
	if (err == FAULT_SHORT_READ)
		return strstr(text, "short") || strstr(text, "bytes");
	return strstr(text, strerrorname_np(err)) || strstr(text, strerror(err));
}

static unsigned coverage[FAULT_NR_CALLS][16];
static unsigned failures_checked, unsupported_checked, survived;

/* Fails call `call` with err at every position, one run each, until a run no longer reaches it. */
static void sweep(tally_counter *c, const struct tally_target *target, enum fault_call call, size_t ei,
                  int err)
{
	if (err == FAULT_SHORT_READ && call != FAULT_READ)
		return;
	for (unsigned long nth = 1;; nth++) {
		struct tally_result r[NR_EVENTS];
		memset(r, 0, sizeof(r));
		int fds_before = fault_open_fds();
		fault_reset();
		fault_arm(call, nth, err);
		enum step failed = run_sequence(c, target, r);
		bool fired = fault_fired();
		fault_disarm();
		if (!fired) {
			CHECK_INT(failed, STEP_NONE);
			tally_counter_close(c);
			break;
		}
		coverage[call][ei]++;
		char where[128];
		snprintf(where, sizeof(where), "%s #%lu -> %s", fault_call_name(call), nth, fault_err_name(err));
		if (failed != STEP_NONE) {
			const char *text = tally_counter_last_error(c);
			bool directory = call == FAULT_OPENDIR || call == FAULT_READDIR;
			if (!(names_an_event(text) || directory) || !names_the_error(text, err))
				fprintf(stderr, "  %s failed at %s with: \"%s\"\n", where, step_names[failed], text);
			CHECK(text[0] != '\0');
			CHECK(names_an_event(text) || directory);
			CHECK(names_the_error(text, err));
			failures_checked++;
		} else {
			/* Survived: the call was retried (EINTR), ignored (close), or its event was dropped as
			 * not supported, which the results and the note must say. */
			for (int i = 0; i < NR_EVENTS; i++) {
				if (r[i].status != TALLY_STATUS_NOT_SUPPORTED)
					continue;
				CHECK(r[i].error < 0);
				CHECK_CONTAINS(tally_counter_note(c, (size_t)i), event_names[i]);
				unsupported_checked++;
			}
			survived++;
		}
		CHECK_INT(tally_counter_close(c), 0);
		CHECK_INT(fault_open_fds(), fds_before);
		if (fault_open_fds() != fds_before)
			fprintf(stderr, "  descriptor leak after %s\n", where);
	}
}

static void every_call_fails_in_turn(void)
{
	tally_counter *c;
	CHECK_INT(tally_counter_new(SPEC, NULL, &c), 0);
	if (!c)
		return;
	const int *errs;
	size_t nerrs = fault_standard_errors(&errs);
	fault_install();
	static const enum fault_call calls[] = { FAULT_PERF_EVENT_OPEN, FAULT_IOCTL, FAULT_READ, FAULT_CLOSE };
	for (size_t k = 0; k < sizeof(calls) / sizeof(calls[0]); k++)
		for (size_t e = 0; e < nerrs; e++)
			sweep(c, NULL, calls[k], e, errs[e]);
	/* A process target lists /proc/self/task: its directory calls fail too. */
	TALLY_OPTS(tally_target, process, .kind = TALLY_TARGET_PROCESS);
	for (size_t e = 0; e < nerrs; e++) {
		sweep(c, &process, FAULT_OPENDIR, e, errs[e]);
		sweep(c, &process, FAULT_READDIR, e, errs[e]);
	}
	fault_uninstall();

	/* After all that, the same handle still counts. */
	struct tally_result r[NR_EVENTS];
	CHECK_INT(run_sequence(c, NULL, r), STEP_NONE);
	for (int i = 0; i < NR_EVENTS; i++)
		CHECK(r[i].status != TALLY_STATUS_NOT_SUPPORTED);
	tally_counter_free(c);

	unsigned total = 0;
	printf("  fault-injection coverage (positions reached per error):\n");
	printf("  %-16s", "call");
	for (size_t e = 0; e < nerrs; e++)
		printf(" %7s", fault_err_name(errs[e]));
	printf("\n");
	static const enum fault_call shown[] = { FAULT_PERF_EVENT_OPEN, FAULT_IOCTL, FAULT_READ, FAULT_CLOSE,
		                                 FAULT_OPENDIR, FAULT_READDIR };
	for (size_t k = 0; k < sizeof(shown) / sizeof(shown[0]); k++) {
		printf("  %-16s", fault_call_name(shown[k]));
		for (size_t e = 0; e < nerrs; e++) {
			printf(" %7u", coverage[shown[k]][e]);
			total += coverage[shown[k]][e];
		}
		printf("\n");
		CHECK(coverage[shown[k]][0] > 0);
		CHECK(shown[k] == FAULT_READ || coverage[shown[k]][nerrs - 1] == 0);
	}
	printf("  %u injected failures: %u reported with an explanation, %u survived (%u events marked not "
	       "supported with a note)\n",
	       total, failures_checked, survived, unsupported_checked);
}

/* ---- the user-only retry ------------------------------------------------------------------------- */

/* A kernel at perf_event_paranoid 2 for a caller without CAP_PERFMON / CAP_SYS_ADMIN: kernel-mode counting
 * is refused, user-mode counting allowed. */
static int no_caps(struct __user_cap_header_struct *header, struct __user_cap_data_struct *data)
{
	(void)header;
	memset(data, 0, 2 * sizeof(*data));
	return 0;
}

static int refuse_kernel_mode(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                              unsigned long flags)
{
	if (!attr->exclude_kernel && attr->type == PERF_TYPE_SOFTWARE) {
		errno = EACCES;
		return -1;
	}
	return tly_sys_real.perf_event_open(attr, pid, cpu, group_fd, flags);
}

static void kernel_mode_refused_retries_user_only(void)
{
	char paranoid[16];
	if (tly_sysfs_read("/proc/sys/kernel/perf_event_paranoid", paranoid, sizeof(paranoid), TLY_SYSFS_WHOLE) < 0 ||
	    atoi(paranoid) != 2)
		SKIP("the retry policy applies at perf_event_paranoid 2; this machine says %s", paranoid);
	struct tly_sys table = tly_sys_real;
	table.capget = no_caps;
	table.perf_event_open = refuse_kernel_mode;
	tly_sys_replace(&table);

	tally_counter *c;
	CHECK_INT(tally_counter_new("page-faults,context-switches:u", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, NULL), 0);
	CHECK_INT(tally_counter_start(c), 0);
	CHECK_INT(tally_counter_stop(c), 0);
	struct tally_result r[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	CHECK(r[0].user_only);
	CHECK(r[0].has_note);
	CHECK_CONTAINS(tally_counter_note(c, 0), "page-faults");
	CHECK_INT(r[0].status, TALLY_STATUS_EXACT);
	/* Asked for user space only already: nothing was narrowed. */
	CHECK(!r[1].user_only);
	CHECK(!r[1].has_note);
	tally_counter_free(c);

	/* Refused when asked not to retry: the failure explains the paranoid level. */
	TALLY_OPTS(tally_counter_opts, o, .no_user_only_retry = true);
	CHECK_INT(tally_counter_new("page-faults", &o, &c), 0);
	CHECK_INT(tally_counter_open(c, NULL), -EACCES);
	CHECK_CONTAINS(tally_counter_last_error(c), "page-faults");
	CHECK_CONTAINS(tally_counter_last_error(c), "paranoid");
	tally_counter_free(c);
	tly_sys_replace(NULL);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "every_call_fails_in_turn", every_call_fails_in_turn },
		{ "kernel_mode_refused_retries_user_only", kernel_mode_refused_retries_user_only },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
