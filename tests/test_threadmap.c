/* SPDX-License-Identifier: MIT */
/* Thread maps: explicit lists, the calling-thread dummy, every thread of a process from /proc. */
#include "fault.h"
#include "harness.h"
#include "target/target.h"

#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <tally/evlist.h>
#include <unistd.h>

static void explicit_list(void)
{
	static const pid_t tids[] = { 300, 100, 200 };
	tally_threads *t = NULL;
	CHECK_INT(tally_threads_new(tids, 3, &t), 0);
	CHECK_INT(tally_threads_count(t), 3);
	CHECK_INT(tally_threads_at(t, 0), 300);
	CHECK_INT(tally_threads_at(t, 2), 200);
	CHECK_INT(tally_threads_at(t, 3), -1);
	tally_threads_free(t);
	static const pid_t negative[] = { 5, -7 };
	CHECK_INT(tally_threads_new(negative, 2, &t), -EINVAL);
	CHECK_INT(tally_threads_new(tids, 0, &t), -EINVAL);
}

static void dummies(void)
{
	tally_threads *self = NULL, *any = NULL;
	CHECK_INT(tally_threads_self(&self), 0);
	CHECK_INT(tally_threads_count(self), 1);
	CHECK_INT(tally_threads_at(self, 0), 0);
	CHECK_INT(tally_threads_count(NULL), 1);
	CHECK_INT(tally_threads_at(NULL, 0), 0);
	CHECK_INT(tally_threads_any(&any), 0);
	CHECK_INT(tally_threads_at(any, 0), -1);
	tally_threads_free(self);
	tally_threads_free(any);
}

static pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;
static pid_t worker_tid;

static void *worker(void *arg)
{
	(void)arg;
	worker_tid = gettid();
	pthread_mutex_lock(&hold);
	pthread_mutex_unlock(&hold);
	return NULL;
}

static void threads_of_this_process(void)
{
	pthread_mutex_lock(&hold);
	pthread_t t;
	CHECK_INT(pthread_create(&t, NULL, worker, NULL), 0);
	while (!__atomic_load_n(&worker_tid, __ATOMIC_ACQUIRE))
		usleep(100);
	tally_threads *threads = NULL;
	CHECK_INT(tally_threads_of_pid(getpid(), &threads), 0);
	CHECK_INT(tally_threads_count(threads), 2);
	/* Sorted by tid: the main thread (tid == pid) comes first. */
	CHECK_INT(tally_threads_at(threads, 0), getpid());
	CHECK_INT(tally_threads_at(threads, 1), worker_tid);
	tally_threads_free(threads);
	pthread_mutex_unlock(&hold);
	pthread_join(t, NULL);
}

static void exited_process(void)
{
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	tally_threads *threads = NULL;
	CHECK_INT(tally_threads_of_pid(child, &threads), -ESRCH);
	CHECK(threads == NULL);
	CHECK_CONTAINS(tally_last_error(), "does not exist");
	CHECK_INT(tally_threads_of_pid(0, &threads), -EINVAL);
}

static void thread_names(void)
{
	char name[32];
	CHECK_INT(prctl(PR_SET_NAME, "tally-namer"), 0);
	CHECK_INT(tally_thread_name((pid_t)syscall(SYS_gettid), name, sizeof(name)), 11);
	CHECK_STR(name, "tally-namer");
	/* Too small a buffer: cut as snprintf cuts (tests/test_conventions.c has the rule). */
	CHECK_INT(tally_thread_name(getpid(), name, 4), 11);
	CHECK_STR(name, "tal");
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	/* Reaped: its /proc entry is gone. */
	CHECK_INT(tally_thread_name(child, name, sizeof(name)), -ENOENT);
	CHECK_INT(tally_thread_name(0, name, sizeof(name)), -EINVAL);
}

/* A pid target listing the same process twice (or a thread next to its process) counts each thread once. */
static void pid_list_counts_each_thread_once(void)
{
	__atomic_store_n(&worker_tid, 0, __ATOMIC_RELEASE);
	pthread_mutex_lock(&hold);
	pthread_t t;
	CHECK_INT(pthread_create(&t, NULL, worker, NULL), 0);
	while (!__atomic_load_n(&worker_tid, __ATOMIC_ACQUIRE))
		usleep(100);
	const pid_t pids[] = { getpid(), worker_tid, getpid() };
	TALLY_OPTS(tally_target, target, .kind = TALLY_TARGET_PID, .pids = pids, .nr_pids = 3);
	struct tly_target resolved;
	CHECK_INT(tly_target_resolve(&target, NULL, false, &resolved), 0);
	CHECK_INT(tally_threads_count(resolved.threads), 2);
	CHECK_INT(tally_threads_at(resolved.threads, 0), getpid());
	CHECK_INT(tally_threads_at(resolved.threads, 1), worker_tid);
	tly_target_fini(&resolved);
	pthread_mutex_unlock(&hold);
	pthread_join(t, NULL);
}

static void listing_failures_through_the_table(void)
{
	tally_threads *threads = NULL;
	int fds = fault_open_fds();
	fault_install();
	fault_arm(FAULT_OPENDIR, 1, EACCES);
	CHECK_INT(tally_threads_of_pid(getpid(), &threads), -EACCES);
	CHECK_CONTAINS(tally_last_error(), "/task");
	fault_arm(FAULT_READDIR, 2, EIO);
	CHECK_INT(tally_threads_of_pid(getpid(), &threads), -EIO);
	CHECK(threads == NULL);
	/* A directory that reads as empty: the process exited after opendir. */
	fault_arm(FAULT_READDIR, 1, 0);
	CHECK_INT(tally_threads_of_pid(getpid(), &threads), -ESRCH);
	fault_reset();
	CHECK_INT(tally_threads_of_pid(getpid(), &threads), 0);
	CHECK_INT(fault_calls(FAULT_OPENDIR), 1);
	CHECK_INT(fault_calls(FAULT_CLOSEDIR), 1);
	fault_uninstall();
	tally_threads_free(threads);
	CHECK_INT(fault_open_fds(), fds);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "thread_names", thread_names },
		{ "explicit_list", explicit_list },
		{ "dummies", dummies },
		{ "threads_of_this_process", threads_of_this_process },
		{ "exited_process", exited_process },
		{ "pid_list_counts_each_thread_once", pid_list_counts_each_thread_once },
		{ "listing_failures_through_the_table", listing_failures_through_the_table },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
