/* SPDX-License-Identifier: MIT */
/*
 * Commands that tally launches: counted from their exec, with their children (inherit) or without,
 * exit codes and times, exec failures (127), and a command that never gets to run.
 * The workload is this test binary itself, re-executed as "test_command children N"; the same binary,
 * run as "test_command count SPEC -- COMMAND...", is tally's side of tests/test_perf_stat_agreement.sh.
 */
#include "fault.h"
#include "harness.h"

#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <tally/counter.h>
#include <unistd.h>

/* Pages each child of the workload touches: far more than the workload's own start-up faults. */
#define CHILD_PAGES 8192
#define NR_CHILDREN 2

static char self[4096];

/* The workload: NR_CHILDREN processes, each touching `pages` fresh pages, waited for. */
static int run_children(long pages)
{
	long psz = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < NR_CHILDREN; i++) {
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			char *p = mmap(NULL, (size_t)(pages * psz), PROT_READ | PROT_WRITE,
			               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				_exit(1);
			for (long k = 0; k < pages; k++)
				((volatile char *)p)[k * psz] = 1;
			_exit(0);
		}
	}
	int status, failed = 0;
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	return failed;
}

/* page-faults of the workload launched through tally. */
static uint64_t launched_faults(bool no_inherit, struct tally_exit *ex)
{
	char pages[32];
	snprintf(pages, sizeof(pages), "%d", CHILD_PAGES);
	char *argv[] = { self, "children", pages, NULL };
	TALLY_OPTS(tally_counter_opts, o, .no_inherit = no_inherit);
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	tally_counter *c;
	CHECK_INT(tally_counter_new("page-faults,task-clock", &o, &c), 0);
	int err = tally_counter_open(c, &t);
	CHECK_INT(err, 0);
	if (err) {
		fprintf(stderr, "%s\n", tally_counter_last_error(c));
		tally_counter_free(c);
		return 0;
	}
	CHECK(tally_counter_pid(c) > 0);
	CHECK_INT(tally_counter_start(c), 0);
	CHECK_INT(tally_counter_wait(c, ex, sizeof(ex[0])), 0);
	struct tally_result r[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	CHECK_INT(r[0].status, TALLY_STATUS_EXACT);
	tally_counter_free(c);
	return r[0].value;
}

static void inherit_counts_the_children(void)
{
	struct tally_exit ex;
	uint64_t with = launched_faults(false, &ex);
	CHECK_INT(ex.code, 0);
	CHECK(ex.wall_s > 0);
	CHECK(ex.user_s + ex.sys_s > 0);
	uint64_t without = launched_faults(true, &ex);
	CHECK_INT(ex.code, 0);
	printf("  %d children x %d pages: page-faults %llu with inherit, %llu without\n", NR_CHILDREN,
	       CHILD_PAGES, (unsigned long long)with, (unsigned long long)without);
	CHECK(with >= NR_CHILDREN * CHILD_PAGES);
	CHECK(without < CHILD_PAGES);
}

static void exit_code_and_signal(void)
{
	char *argv[] = { "sh", "-c", "exit 3", NULL };
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	tally_counter *c;
	CHECK_INT(tally_counter_new("task-clock", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, &t), 0);
	struct tally_exit ex;
	/* Not started: nothing to wait for. */
	CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), -TALLY_ESTATE);
	CHECK_INT(tally_counter_start(c), 0);
	CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), 0);
	CHECK_INT(ex.code, 3);
	CHECK(WIFEXITED(ex.status));
	/* Waiting twice gives the same answer. */
	CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), 0);
	CHECK_INT(ex.code, 3);
	CHECK_INT(tally_counter_close(c), 0);

	char *killer[] = { "sh", "-c", "kill -TERM $$", NULL };
	TALLY_OPTS(tally_target, t2, .kind = TALLY_TARGET_COMMAND, .argv = killer);
	CHECK_INT(tally_counter_open(c, &t2), 0);
	CHECK_INT(tally_counter_start(c), 0);
	CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), 0);
	CHECK_INT(ex.code, 128 + SIGTERM);
	tally_counter_free(c);
}

static void exec_failure_is_127(void)
{
	char *argv[] = { "/nonexistent/tally-no-such-command", NULL };
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	tally_counter *c;
	CHECK_INT(tally_counter_new("task-clock", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, &t), 0);
	CHECK_INT(tally_counter_start(c), -ENOENT);
	CHECK_CONTAINS(tally_counter_last_error(c), "tally-no-such-command");
	CHECK_CONTAINS(tally_counter_last_error(c), "No such file or directory");
	struct tally_exit ex;
	CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), 0);
	CHECK_INT(ex.code, 127);
	tally_counter_free(c);

	/* An empty argv never forks. */
	char *empty[] = { NULL };
	TALLY_OPTS(tally_target, t2, .kind = TALLY_TARGET_COMMAND, .argv = empty);
	CHECK_INT(tally_counter_new("task-clock", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, &t2), -EINVAL);
	tally_counter_free(c);
}

static void unstarted_command_is_reaped(void)
{
	char *argv[] = { "sh", "-c", "echo this must not run; exit 9", NULL };
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	tally_counter *c;
	CHECK_INT(tally_counter_new("task-clock", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, &t), 0);
	pid_t pid = tally_counter_pid(c);
	CHECK(pid > 0);
	CHECK_INT(tally_counter_close(c), 0);
	/* Already reaped by tally: no zombie left for us. */
	errno = 0;
	CHECK_INT(waitpid(pid, NULL, WNOHANG), -1);
	CHECK_INT(errno, ECHILD);
	tally_counter_free(c);
}

/* Two launched commands held at once: ending the first, never started, must not wait on the second.
 * (The second child inherited the first one's go descriptor, so closing ours was no signal to the first
 * child while the second waited: the end hung.) alarm() turns a hang into a failure. */
static void two_unstarted_commands_end_in_any_order(void)
{
	char *argv[] = { "sh", "-c", "exit 9", NULL };
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	tally_counter *first, *second;
	CHECK_INT(tally_counter_new("task-clock", NULL, &first), 0);
	CHECK_INT(tally_counter_new("task-clock", NULL, &second), 0);
	CHECK_INT(tally_counter_open(first, &t), 0);
	CHECK_INT(tally_counter_open(second, &t), 0);
	alarm(10);
	CHECK_INT(tally_counter_close(first), 0);
	CHECK_INT(tally_counter_start(second), 0);
	struct tally_exit ex;
	CHECK_INT(tally_counter_wait(second, &ex, sizeof(ex)), 0);
	CHECK_INT(ex.code, 9);
	alarm(0);
	tally_counter_free(first);
	tally_counter_free(second);
}

/* A command that dies before its release (killed while it waits for it): the release reports it gone.
 * The release must not raise SIGPIPE, whose default action would kill this process. */
static void command_dead_before_release(void)
{
	char *argv[] = { "sh", "-c", "echo this must not run; exit 9", NULL };
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	tally_counter *c;
	CHECK_INT(tally_counter_new("task-clock", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, &t), 0);
	pid_t pid = tally_counter_pid(c);
	CHECK(pid > 0);
	CHECK_INT(kill(pid, SIGKILL), 0);
	/* Wait until it is dead, but leave the reaping to tally (WNOWAIT). */
	siginfo_t info;
	CHECK_INT(waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT), 0);
	CHECK_INT(tally_counter_start(c), -EPIPE);
	CHECK_CONTAINS(tally_counter_last_error(c), "gone");
	struct tally_exit ex;
	CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), 0);
	CHECK_INT(ex.code, 128 + SIGKILL);
	tally_counter_free(c);
}

/* open -> start -> wait -> read of a command target; 0 or the first failure. */
static int command_sequence(tally_counter *c, const struct tally_target *target)
{
	struct tally_exit ex;
	struct tally_result r[2];
	int err = tally_counter_open(c, target);
	if (!err)
		err = tally_counter_start(c);
	if (!err)
		err = tally_counter_wait(c, &ex, sizeof(ex));
	if (!err) {
		int n = tally_counter_read(c, r, 2, sizeof(r[0]));
		err = n < 0 ? n : 0;
	}
	return err;
}

static bool is_launcher_call(enum fault_call call)
{
	return call == FAULT_SOCKETPAIR || call == FAULT_PIPE2 || call == FAULT_FORK || call == FAULT_WAIT4;
}

/* Every call of a counted command's life fails in turn, the launcher's socketpair, pipe2, fork and wait4
 * among them: a failed launcher call or read is reported naming its error (EINTR is retried where the
 * kernel can return it), and no run leaves a descriptor open or a child unreaped. */
static void every_call_fails_in_turn(void)
{
	char *argv[] = { "true", NULL };
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	tally_counter *c;
	CHECK_INT(tally_counter_new("task-clock,page-faults", NULL, &c), 0);
	if (!c)
		return;
	static const enum fault_call calls[] = { FAULT_SOCKETPAIR, FAULT_PIPE2,           FAULT_FORK,  FAULT_WAIT4,
		                                 FAULT_READ,       FAULT_PERF_EVENT_OPEN, FAULT_IOCTL, FAULT_CLOSE };
	const int *errs;
	size_t nr_errs = fault_standard_errors(&errs);
	unsigned runs = 0, reported = 0, per_call[sizeof(calls) / sizeof(calls[0])] = { 0 };
	fault_install();
	for (size_t k = 0; k < sizeof(calls) / sizeof(calls[0]); k++)
		for (size_t e = 0; e < nr_errs; e++) {
			if (errs[e] == FAULT_SHORT_READ && calls[k] != FAULT_READ)
				continue;
			for (unsigned long nth = 1;; nth++) {
				int fds = fault_open_fds();
				fault_reset();
				fault_arm(calls[k], nth, errs[e]);
				int err = command_sequence(c, &t);
				bool fired = fault_fired();
				fault_disarm();
				const char *text = tally_counter_last_error(c);
				/* A short read of the exec status is its EOF, halved: nothing to report. */
				bool must_report = fired && errs[e] != EINTR && errs[e] != FAULT_SHORT_READ &&
				                   (is_launcher_call(calls[k]) || calls[k] == FAULT_READ);
				if (must_report && err == 0)
					fprintf(stderr, "%s #%lu %s went unreported\n", fault_call_name(calls[k]), nth,
					        fault_err_name(errs[e]));
				CHECK(!must_report || err < 0);
				if (must_report)
					CHECK_CONTAINS(text, strerror(errs[e]));
				CHECK_INT(tally_counter_close(c), 0);
				CHECK_INT(fault_open_fds(), fds);
				errno = 0;
				CHECK_INT(waitpid(-1, NULL, WNOHANG), -1);
				CHECK_INT(errno, ECHILD);
				if (!fired) {
					CHECK_INT(err, 0);
					break;
				}
				runs++;
				per_call[k]++;
				reported += err != 0;
			}
		}
	fault_uninstall();
	tally_counter_free(c);
	printf("  %u injected failures over a command's life, %u reported, the rest retried or survived\n", runs,
	       reported);
	for (size_t k = 0; k < sizeof(calls) / sizeof(calls[0]); k++) {
		if (!per_call[k])
			fprintf(stderr, "%s was never reached\n", fault_call_name(calls[k]));
		CHECK(per_call[k] > 0);
	}
}

/* "count SPEC -- COMMAND...": counts COMMAND with every event alone (as perf stat opens them) and prints
 * "value,event" lines; tests/test_perf_stat_agreement.sh compares them with perf stat -x,. */
static int count_command(const char *spec, char **argv)
{
	TALLY_OPTS(tally_counter_opts, o, .no_packing = true);
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	tally_counter *c = NULL;
	int err = tally_counter_new(spec, &o, &c);
	if (!err)
		err = tally_counter_open(c, &t);
	if (!err)
		err = tally_counter_start(c);
	struct tally_exit ex;
	if (!err)
		err = tally_counter_wait(c, &ex, sizeof(ex));
	struct tally_result r[16];
	int n = err ? err : tally_counter_read(c, r, 16, sizeof(r[0]));
	if (n < 0) {
		fprintf(stderr, "count: %s\n", c ? tally_counter_last_error(c) : tally_last_error());
		tally_counter_free(c);
		return 1;
	}
	for (int i = 0; i < n; i++)
		printf("%llu,%s\n", (unsigned long long)r[i].scaled, tally_counter_name(c, (size_t)i));
	tally_counter_free(c);
	return ex.code;
}

/* tally_exit is caller-allocated output: a newer caller's larger struct gets zeros past the known
 * fields, one below the first version is refused (and the command is still waited for by close). */
static void wait_fills_a_larger_exit(void)
{
	char *argv[] = { "sh", "-c", "exit 7", NULL };
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	tally_counter *c;
	CHECK_INT(tally_counter_new("task-clock", NULL, &c), 0);
	if (tally_counter_open(c, &t) != 0) {
		fprintf(stderr, "%s\n", tally_counter_last_error(c));
		harness_failed++;
		tally_counter_free(c);
		return;
	}
	CHECK_INT(tally_counter_start(c), 0);
	struct tally_exit small;
	CHECK_INT(tally_counter_wait(c, &small, sizeof(small) - 8), -TALLY_EOPTS);
	struct {
		struct tally_exit ex;
		uint64_t newer[2];
	} grown;
	memset(&grown, 0xff, sizeof(grown));
	CHECK_INT(tally_counter_wait(c, &grown.ex, sizeof(grown)), 0);
	CHECK_INT(grown.ex.code, 7);
	CHECK_U64(grown.newer[0] | grown.newer[1], 0);
	tally_counter_free(c);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "children") == 0)
		return run_children(atol(argv[2]));
	if (argc >= 5 && strcmp(argv[1], "count") == 0 && strcmp(argv[3], "--") == 0)
		return count_command(argv[2], argv + 4);
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		fprintf(stderr, "cannot find this test's own binary\n");
		return 1;
	}
	self[n] = '\0';
	static const struct harness_case cases[] = {
		{ "wait_fills_a_larger_exit", wait_fills_a_larger_exit },
		{ "inherit_counts_the_children", inherit_counts_the_children },
		{ "exit_code_and_signal", exit_code_and_signal },
		{ "exec_failure_is_127", exec_failure_is_127 },
		{ "unstarted_command_is_reaped", unstarted_command_is_reaped },
		{ "command_dead_before_release", command_dead_before_release },
		{ "two_unstarted_commands_end_in_any_order", two_unstarted_commands_end_in_any_order },
		{ "every_call_fails_in_turn", every_call_fails_in_turn },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
