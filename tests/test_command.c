/* SPDX-License-Identifier: MIT */
/*
 * Commands that tally launches: counted from their exec, with their children (inherit) or without,
 * exit codes and times, exec failures (127), and a command that never gets to run.
 * The workload is this test binary itself, re-executed as "test_command children N"; the same binary,
 * run as "test_command count SPEC -- COMMAND...", is tally's side of tests/test_perf_stat_agreement.sh;
 * run as "test_command sigstate N", it exits 0 when it started with an empty signal mask and every signal
 * at its default disposition.
 */
#include "fault.h"
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <tally/counter.h>
#include <tally/evlist.h>
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
	if (pid <= 0) { /* kill(0, ...) would kill this test's process group, and ctest with it */
		tally_counter_free(c);
		return;
	}
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

/* "sigstate N [M]": 0 when this process has an empty signal mask and no signal ignored but N and M (0:
 * none); otherwise names each offending signal on stderr and returns 1. */
static int check_signal_state(int expect_ignored, int also_ignored)
{
	sigset_t mask;
	sigprocmask(SIG_SETMASK, NULL, &mask);
	int bad = 0;
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction old;
		if (sig > SIGSYS && sig < SIGRTMIN)
			continue; /* glibc's own */
		if (sigismember(&mask, sig) == 1) {
			fprintf(stderr, "signal %d is blocked\n", sig);
			bad = 1;
		}
		/* Only an ignored signal survives an exec (handlers are reset), and this process's own start may
		 * have installed some (a sanitizer's). */
		bool ignored = sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
		if (ignored != (sig == expect_ignored || sig == also_ignored)) {
			fprintf(stderr, "signal %d is %s\n", sig, ignored ? "ignored" : "not ignored");
			bad = 1;
		}
	}
	return bad;
}

static void never_called(int signo)
{
	(void)signo;
}

/* A caller that blocks SIGINT and SIGTERM (a harness that sigwaits for them), ignores SIGQUIT and SIGPIPE
 * and handles SIGUSR1 launches a command: the command starts with an empty mask and default dispositions,
 * as its own program expects (Ctrl-C must stop it). The caller's own state is left as it was. */
static void command_starts_with_default_signals(void)
{
	sigset_t block, saved_mask;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &saved_mask);
	struct sigaction ign = { .sa_handler = SIG_IGN }, handler = { .sa_handler = never_called }, old_quit,
	                 old_pipe, old_usr1, now;
	sigaction(SIGQUIT, &ign, &old_quit);
	sigaction(SIGPIPE, &ign, &old_pipe);
	sigaction(SIGUSR1, &handler, &old_usr1);

	char *argv[] = { self, "sigstate", "0", NULL };
	struct tally_exit ex = { .code = -1 };
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	/* And a command that only bounds the counting of another target. */
	TALLY_OPTS(tally_target, t2, .kind = TALLY_TARGET_PROCESS, .argv = argv);
	const struct tally_target *targets[] = { &t, &t2 };
	for (size_t k = 0; k < 2; k++) {
		tally_counter *c;
		CHECK_INT(tally_counter_new("task-clock", NULL, &c), 0);
		CHECK_INT(tally_counter_open(c, targets[k]), 0);
		CHECK_INT(tally_counter_start(c), 0);
		CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), 0);
		CHECK_INT(ex.code, 0);
		tally_counter_free(c);
	}

	sigset_t mask;
	sigprocmask(SIG_SETMASK, NULL, &mask);
	CHECK_INT(sigismember(&mask, SIGINT), 1);
	CHECK_INT(sigismember(&mask, SIGTERM), 1);
	CHECK_INT(sigismember(&mask, SIGCHLD), 0);
	sigaction(SIGQUIT, NULL, &now);
	CHECK(now.sa_handler == SIG_IGN);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	sigaction(SIGUSR1, &old_usr1, NULL);
	sigprocmask(SIG_SETMASK, &saved_mask, NULL);
}

/* Counts task-clock on the command target t from its start to its exit: the command's exit code, -1 when
 * a step failed (each step checked). */
static int run_command(const struct tally_target *t)
{
	tally_counter *c;
	struct tally_exit ex = { .code = -1 };
	CHECK_INT(tally_counter_new("task-clock", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, t), 0);
	CHECK_INT(tally_counter_start(c), 0);
	CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), 0);
	tally_counter_free(c);
	return ex.code;
}

/* Signals a launch asks to start ignored (tally stat: what its parent left ignored, nohup's SIGHUP) are
 * ignored in the command, whatever the caller's own disposition; every other one is at its default. */
static void command_starts_with_requested_ignores(void)
{
	struct sigaction handler = { .sa_handler = never_called }, old_hup;
	sigaction(SIGHUP, &handler, &old_hup);
	char hup[8];
	snprintf(hup, sizeof(hup), "%d", SIGHUP);
	char *argv[] = { self, "sigstate", hup, NULL };
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv, .ignored = (uint64_t)1 << (SIGHUP - 1));
	CHECK_INT(run_command(&t), 0);
	sigaction(SIGHUP, &old_hup, NULL);
}

/* inherit_signals leaves the caller's dispositions to the exec: what the caller ignores stays ignored, a
 * caught signal is at its default in the command (the exec resets it), and `ignored` adds to them.
 * Without it (above), the caller's ignored SIGUSR1 would be reset. */
static void command_inherits_dispositions(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, caught = { .sa_handler = never_called }, old_usr1, old_usr2;
	sigaction(SIGUSR1, &ign, &old_usr1);
	sigaction(SIGUSR2, &caught, &old_usr2);
	char usr1[8], hup[8];
	snprintf(usr1, sizeof(usr1), "%d", SIGUSR1);
	snprintf(hup, sizeof(hup), "%d", SIGHUP);
	char *argv[] = { self, "sigstate", usr1, hup, NULL };
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv, .inherit_signals = true,
	           .ignored = (uint64_t)1 << (SIGHUP - 1));
	CHECK_INT(run_command(&t), 0);
	sigaction(SIGUSR1, &old_usr1, NULL);
	sigaction(SIGUSR2, &old_usr2, NULL);
}

/* The launched child shares the launching process's memory until its exec (clone(CLONE_VM)): what the
 * caller passed may be freed and changed as soon as the open returns, and the child's failed calls (here
 * the $PATH search's ENOENTs, made while another thread starts the counter) leave the launching thread's
 * errno alone. */
struct starter {
	tally_counter *c;
	int err;
	volatile bool done;
};

static void *start_elsewhere(void *arg)
{
	struct starter *s = arg;
	s->err = tally_counter_start(s->c);
	s->done = true;
	return NULL;
}

static void launch_keeps_the_callers_memory(void)
{
	char **argv = calloc(4, sizeof(*argv));
	argv[0] = strdup("sh");
	argv[1] = strdup("-c");
	argv[2] = strdup("exit 7");
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	tally_counter *c;
	CHECK_INT(tally_counter_new("task-clock", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, &t), 0);
	/* The caller's argv changes and goes before the release: the child execs what was asked. */
	memset(argv[2], 'x', strlen(argv[2]));
	for (int i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
	CHECK_INT(tally_counter_start(c), 0);
	struct tally_exit ex = { .code = -1 };
	CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), 0);
	CHECK_INT(ex.code, 7);
	tally_counter_free(c);

	/* A command found in no directory of $PATH: the child's execve fails once per directory. */
	char *missing[] = { "tally-test-no-such-command", NULL };
	TALLY_OPTS(tally_target, m, .kind = TALLY_TARGET_COMMAND, .argv = missing);
	CHECK_INT(tally_counter_new("task-clock", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, &m), 0);
	struct starter s = { .c = c };
	pthread_t th;
	errno = 0;
	CHECK_INT(pthread_create(&th, NULL, start_elsewhere, &s), 0);
	/* Read through a volatile pointer: the compiler may not keep errno in a register across the loop. */
	volatile int *err = &errno;
	int seen = 0;
	while (!s.done)
		if (*err)
			seen = *err;
	pthread_join(th, NULL);
	CHECK_INT(seen, 0);
	CHECK_INT(*err, 0);
	CHECK_INT(s.err, -ENOENT);
	CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), 0);
	CHECK_INT(ex.code, 127);
	tally_counter_free(c);
}

/* A script without a #! line runs under /bin/sh, as execvp(3) runs it, whether the command is counted
 * or only bounds another target; a directory of $PATH that cannot hold it is passed over. */
static void script_without_shebang_runs(void)
{
	char dir[] = "/tmp/tally-script-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char script[256], path[4096];
	snprintf(script, sizeof(script), "%s/noshebang", dir);
	FILE *f = fopen(script, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("exit 7\n", f);
	fclose(f);
	chmod(script, 0755);
	const char *old_path = getenv("PATH");
	char *saved = old_path ? strdup(old_path) : NULL;
	/* A missing directory first: execvp goes on to the next one. */
	snprintf(path, sizeof(path), "/nonexistent-tally-dir:%s", dir);
	setenv("PATH", path, 1);
	char *by_path[] = { "noshebang", NULL }, *by_name[] = { script, NULL };
	char *const *argvs[] = { by_path, by_name };
	for (size_t k = 0; k < 2; k++)
		for (int kind = 0; kind < 2; kind++) {
			TALLY_OPTS(tally_target, t, .kind = kind ? TALLY_TARGET_PROCESS : TALLY_TARGET_COMMAND,
			           .argv = argvs[k]);
			tally_counter *c;
			struct tally_exit ex = { .code = -1 };
			CHECK_INT(tally_counter_new("task-clock", NULL, &c), 0);
			CHECK_INT(tally_counter_open(c, &t), 0);
			CHECK_INT(tally_counter_start(c), 0);
			CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), 0);
			CHECK_INT(ex.code, 7);
			tally_counter_free(c);
		}
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	unlink(script);
	rmdir(dir);
}

/* A command that only bounds another target: started after the events are enabled, waited for, its exit
 * code and pid as for a command target; a pin to a CPU that does not exist is the command's failure
 * (127), reported by the start, whatever the target. */
static void command_bounds_another_target(void)
{
	char *argv[] = { "sh", "-c", "exit 5", NULL };
	char *sleeper[] = { "sleep", "0", NULL };
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_PROCESS, .argv = argv);
	tally_counter *c;
	struct tally_exit ex = { .code = -1 };
	CHECK_INT(tally_counter_new("task-clock", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, &t), 0);
	CHECK(tally_counter_pid(c) > 0);
	CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), -TALLY_ESTATE);
	CHECK_INT(tally_counter_start(c), 0);
	CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), 0);
	CHECK_INT(ex.code, 5);
	struct tally_result r;
	CHECK_INT(tally_counter_read(c, &r, 1, sizeof(r)), 1);
	CHECK_INT(r.status, TALLY_STATUS_EXACT);
	CHECK_INT(tally_counter_close(c), 0);

	for (int kind = 0; kind < 2; kind++) {
		TALLY_OPTS(tally_target, p, .kind = kind ? TALLY_TARGET_PROCESS : TALLY_TARGET_COMMAND,
		           .argv = sleeper, .pin = "4095");
		CHECK_INT(tally_counter_open(c, &p), 0);
		CHECK_INT(tally_counter_start(c), -EINVAL);
		CHECK_CONTAINS(tally_counter_last_error(c), "cannot pin 'sleep' to CPUs 4095");
		CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), 0);
		CHECK_INT(ex.code, 127);
		CHECK_INT(tally_counter_close(c), 0);
	}
	/* A list that is no list: refused at the open, nothing forked. */
	TALLY_OPTS(tally_target, bad, .kind = TALLY_TARGET_COMMAND, .argv = sleeper, .pin = "0,x");
	CHECK_INT(tally_counter_open(c, &bad), -EINVAL);
	errno = 0;
	CHECK_INT(waitpid(-1, NULL, WNOHANG), -1);
	CHECK_INT(errno, ECHILD);
	tally_counter_free(c);
}

static int no_pidfd(pid_t pid, unsigned int flags)
{
	(void)pid;
	(void)flags;
	errno = ENOSYS;
	return -1;
}

static void *wait_for_byte(void *fd)
{
	char byte;
	ssize_t n = read(*(int *)fd, &byte, 1);
	(void)n;
	return NULL;
}

/* tally_counter_wait_tasks on a pid target (a child process) and a tid target (a thread of this process):
 * not done while they live (a zero timeout, a readable wake-up descriptor), done once they exited (the
 * process still a zombie), through pidfds and, where a kernel has none, through /proc. */
static void wait_tasks_until_they_exit(void)
{
	struct tly_sys without_pidfd = tly_sys_real;
	without_pidfd.pidfd_open = no_pidfd;
	for (int proc = 0; proc < 2; proc++) {
		tly_sys_replace(proc ? &without_pidfd : NULL);
		int hold[2], wake[2];
		CHECK_INT(pipe(hold), 0);
		CHECK_INT(pipe(wake), 0);
		pid_t child = fork();
		if (child == 0) {
			close(hold[1]);
			wait_for_byte(&hold[0]);
			_exit(0);
		}
		pthread_t thread;
		CHECK_INT(pthread_create(&thread, NULL, wait_for_byte, &hold[0]), 0);
		pid_t tid = 0;
		/* The thread's id, from /proc: the one that is neither this thread nor another. */
		tally_threads *mine;
		CHECK_INT(tally_threads_of_pid(getpid(), &mine), 0);
		for (size_t i = 0; i < tally_threads_count(mine); i++)
			if (tally_threads_at(mine, i) != gettid())
				tid = tally_threads_at(mine, i);
		tally_threads_free(mine);

		tally_counter *by_pid, *by_tid;
		CHECK_INT(tally_counter_new("task-clock", NULL, &by_pid), 0);
		CHECK_INT(tally_counter_new("task-clock", NULL, &by_tid), 0);
		TALLY_OPTS(tally_target, tp, .kind = TALLY_TARGET_PID, .pid = child);
		TALLY_OPTS(tally_target, tt, .kind = TALLY_TARGET_TIDS, .tids = &tid, .nr_tids = 1);
		CHECK_INT(tally_counter_open(by_pid, &tp), 0);
		CHECK_INT(tally_counter_open(by_tid, &tt), 0);
		CHECK_INT(tally_counter_wait_tasks(by_pid, 0, -1), 0);
		CHECK_INT(tally_counter_wait_tasks(by_tid, 0, -1), 0);
		CHECK_INT((int)write(wake[1], "x", 1), 1);
		CHECK_INT(tally_counter_wait_tasks(by_pid, -1, wake[0]), 0);
		CHECK_INT(tally_counter_wait_tasks(by_tid, -1, wake[0]), 0);
		/* A wake-up descriptor that is not open is the caller's bug, not a wake-up: 0 ("returned early")
		 * would send a caller's loop around at once, for ever. */
		int closed = dup(wake[0]);
		close(closed);
		CHECK_INT(tally_counter_wait_tasks(by_pid, -1, closed), -EBADF);
		CHECK_INT(tally_counter_wait_tasks(by_tid, -1, closed), -EBADF);

		close(hold[1]); /* both read EOF and exit */
		CHECK_INT(pthread_join(thread, NULL), 0);
		CHECK_INT(tally_counter_wait_tasks(by_tid, -1, -1), 1);
		CHECK_INT(tally_counter_wait_tasks(by_pid, -1, -1), 1);
		int status;
		CHECK_INT(waitpid(child, &status, 0), child);
		tally_counter_free(by_pid);
		tally_counter_free(by_tid);
		close(hold[0]);
		close(wake[0]);
		close(wake[1]);
	}
	tly_sys_replace(NULL);

	/* Another kind of target has no tasks to wait for. */
	char *argv[] = { "true", NULL };
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	tally_counter *c;
	CHECK_INT(tally_counter_new("task-clock", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, &t), 0);
	CHECK_INT(tally_counter_wait_tasks(c, 0, -1), -TALLY_ESTATE);
	tally_counter_free(c);
}

/* ---- the child's side of the launcher under fault injection ----------------------------------------- */

/* The child's calls are made in the child: what they count and whether the armed one fired lives in a
 * shared page, so that the parent sees it. */
enum child_call { CHILD_RECV, CHILD_SIGACTION, CHILD_SCHED_SETAFFINITY, CHILD_SIGPROCMASK, CHILD_EXECVE,
	          CHILD_NR_CALLS };
static const char *const child_call_names[] = { "recv", "sigaction", "sched_setaffinity", "sigprocmask",
	                                        "execve" };
static struct child_faults {
	enum child_call call;
	unsigned long nth;
	int err;
	bool fired;
	bool hold;    /* the wait for the release waits first until the parent sets fail_now */
	bool fail_now;
} *child_faults;

/* The armed error when this call is the armed one, else 0. The child's calls leave errno alone (it may be
 * the launching thread's): so does this. */
static int child_hit(enum child_call call)
{
	struct child_faults *f = child_faults;
	if (!f->nth || f->fired || f->call != call || --f->nth)
		return 0;
	f->fired = true;
	return f->err;
}

static long child_recv(int fd, void *buf, size_t len)
{
	while (child_faults->hold && !__atomic_load_n(&child_faults->fail_now, __ATOMIC_ACQUIRE))
		sched_yield();
	int err = child_hit(CHILD_RECV);
	return err ? -err : tly_sys_real.child_recv(fd, buf, len);
}

static long child_signal(int signo, bool ignore)
{
	int err = child_hit(CHILD_SIGACTION);
	return err ? -err : tly_sys_real.child_signal(signo, ignore);
}

static long child_pin(const cpu_set_t *cpus)
{
	int err = child_hit(CHILD_SCHED_SETAFFINITY);
	return err ? -err : tly_sys_real.child_pin(cpus);
}

static long child_unblock(void)
{
	int err = child_hit(CHILD_SIGPROCMASK);
	return err ? -err : tly_sys_real.child_unblock();
}

static long child_execve(const char *path, char *const argv[], char *const envp[])
{
	int err = child_hit(CHILD_EXECVE);
	return err ? -err : tly_sys_real.child_execve(path, argv, envp);
}

/* The shared page of the child's armed failure, and every child call through its wrapper (each fails only
 * when armed); false when the page cannot be mapped. */
static bool child_faults_install(void)
{
	child_faults = mmap(NULL, sizeof(*child_faults), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(child_faults != MAP_FAILED);
	if (child_faults == MAP_FAILED)
		return false;
	static struct tly_sys table; /* tly_sys_replace keeps the pointer */
	table = tly_sys_real;
	table.child_recv = child_recv;
	table.child_signal = child_signal;
	table.child_pin = child_pin;
	table.child_unblock = child_unblock;
	table.child_execve = child_execve;
	tly_sys_replace(&table);
	return true;
}

static void child_faults_remove(void)
{
	tly_sys_replace(NULL);
	munmap(child_faults, sizeof(*child_faults));
}

/* Every call the held child makes fails in turn (its wait for the release, each signal reset, the pinning,
 * the mask, the exec) with EPERM, EINVAL and EINTR: the start reports each (naming its error; the command
 * exits with 127) except an interrupted wait, which is retried; nothing leaks, no child is left. */
static void every_child_call_fails_in_turn(void)
{
	if (!child_faults_install())
		return;

	char *argv[] = { "/bin/sh", "-c", "exit 0", NULL };
	/* SIGQUIT asked to start ignored: the child's sigaction sweep covers SIG_IGN as well as SIG_DFL. */
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv, .pin = "0",
	           .ignored = (uint64_t)1 << (SIGQUIT - 1));
	tally_counter *c;
	CHECK_INT(tally_counter_new("task-clock", NULL, &c), 0);
	static const int errs[] = { EPERM, EINVAL, EINTR };
	unsigned runs = 0, per_call[CHILD_NR_CALLS] = { 0 };
	for (int call = 0; call < CHILD_NR_CALLS; call++)
		for (size_t e = 0; e < sizeof(errs) / sizeof(errs[0]); e++)
			for (unsigned long nth = 1;; nth++) {
				int fds = fault_open_fds();
				*child_faults = (struct child_faults){ .call = call, .nth = nth, .err = errs[e] };
				struct tally_exit ex = { .code = -1 };
				int err = tally_counter_open(c, &t);
				bool opened = err == 0;
				if (opened)
					err = tally_counter_start(c);
				bool fired = child_faults->fired;
				bool retried = fired && call == CHILD_RECV && errs[e] == EINTR;
				/* A wait for the release that fails at once ends the child before it is released; when
				 * that is before the events are opened on it (a slow parent), the open reports the
				 * child gone. Every other failure comes after the release. */
				if (!opened && fired && call == CHILD_RECV && !retried) {
					CHECK_INT(err, -ESRCH);
				} else {
					CHECK_INT(opened, true);
					CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), 0);
				}
				if (!opened) {
					/* Reported by the open. */
				} else if (fired && !retried) {
					if (err == 0)
						fprintf(stderr, "%s #%lu %s went unreported\n", child_call_names[call], nth,
						        strerrorname_np(errs[e]));
					CHECK_INT(err, -errs[e]);
					CHECK_CONTAINS(tally_counter_last_error(c), strerror(errs[e]));
					CHECK_INT(ex.code, 127);
				} else {
					CHECK_INT(err, 0);
					CHECK_INT(ex.code, 0);
				}
				CHECK_INT(tally_counter_close(c), 0);
				CHECK_INT(fault_open_fds(), fds);
				errno = 0;
				CHECK_INT(waitpid(-1, NULL, WNOHANG), -1);
				CHECK_INT(errno, ECHILD);
				if (!fired)
					break;
				runs++;
				per_call[call]++;
			}
	tally_counter_free(c);
	child_faults_remove();
	printf("  %u injected failures on the child's side\n", runs);
	for (int call = 0; call < CHILD_NR_CALLS; call++) {
		if (!per_call[call])
			fprintf(stderr, "%s was never reached\n", child_call_names[call]);
		CHECK(per_call[call] > 0);
	}
}

/* A child whose wait for the release failed, and which said why and exited before the release was sent:
 * the start reports the child's own error, not the EPIPE its release met (the fresh-clone CI saw "the
 * launched child is gone (Broken pipe)" where EPERM was due, when the child was faster than the parent). */
static void a_child_gone_before_the_release_says_why(void)
{
	if (!child_faults_install())
		return;
	*child_faults = (struct child_faults){ .call = CHILD_RECV, .nth = 1, .err = EPERM, .hold = true };
	char *argv[] = { "/bin/sh", "-c", "exit 0", NULL };
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	tally_counter *c;
	CHECK_INT(tally_counter_new("task-clock", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, &t), 0);
	__atomic_store_n(&child_faults->fail_now, true, __ATOMIC_RELEASE);
	siginfo_t info;
	CHECK_INT(waitid(P_PID, (id_t)tally_counter_pid(c), &info, WEXITED | WNOWAIT), 0); /* gone, not reaped */
	CHECK_INT(tally_counter_start(c), -EPERM);
	CHECK_CONTAINS(tally_counter_last_error(c), strerror(EPERM));
	struct tally_exit ex = { .code = -1 };
	CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), 0);
	CHECK_INT(ex.code, 127);
	tally_counter_free(c);
	child_faults_remove();
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
	return call == FAULT_SOCKETPAIR || call == FAULT_PIPE2 || call == FAULT_SPAWN || call == FAULT_WAIT4;
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
	static const enum fault_call calls[] = { FAULT_SOCKETPAIR, FAULT_PIPE2,           FAULT_SPAWN,  FAULT_WAIT4,
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
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "sigstate") == 0)
		return check_signal_state(atoi(argv[2]), argc == 4 ? atoi(argv[3]) : 0);
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
		{ "command_starts_with_default_signals", command_starts_with_default_signals },
		{ "command_starts_with_requested_ignores", command_starts_with_requested_ignores },
		{ "command_inherits_dispositions", command_inherits_dispositions },
		{ "launch_keeps_the_callers_memory", launch_keeps_the_callers_memory },
		{ "script_without_shebang_runs", script_without_shebang_runs },
		{ "command_bounds_another_target", command_bounds_another_target },
		{ "every_child_call_fails_in_turn", every_child_call_fails_in_turn },
		{ "a_child_gone_before_the_release_says_why", a_child_gone_before_the_release_says_why },
		{ "wait_tasks_until_they_exit", wait_tasks_until_they_exit },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
