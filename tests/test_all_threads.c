/* SPDX-License-Identifier: MIT */
/*
 * TALLY_TARGET_ALL_THREADS (perf stat -a --per-thread): every thread of the system at the open, each its
 * own part, a known child among them with its own page faults; and a thread that exits between the
 * listing and its open (the kernel's ESRCH, here a child killed and reaped just before its first open) is
 * left out while the others open. The kernel's word decides, not /proc: a thread that is exiting answers
 * ESRCH while /proc still shows it running (here a live child refused by the syscall table), on any of its
 * opens (a leader, a group member, a later event); many threads exiting one after another during the
 * opens never make the open fail; and one that exits after the open reads, with the others. A pid or
 * process target's threads, listed from /proc too, are pruned the same way (perf stat -p).
 */
#include "fault.h"
#include "harness.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <tally/counter.h>
#include <unistd.h>

#define PAGES 512

/* PAGES fresh pages, one write each; uninstrumented, so that ASan's shadow adds no fault of its own. */
__attribute__((no_sanitize_address)) static void touch_fresh_pages(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, PAGES * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (size_t i = 0; p != MAP_FAILED && i < PAGES; i++)
		p[i * (size_t)page] = 1;
}

/* A child that touches PAGES fresh pages when told (a byte on go), then waits to be killed. */
static pid_t toucher(int *go)
{
	int fds[2];
	if (pipe(fds) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(fds[1]);
		if (read(fds[0], &c, 1) == 1)
			touch_fresh_pages();
		pause();
		_exit(0);
	}
	close(fds[0]);
	*go = fds[1];
	return pid;
}

static void every_thread_is_a_part(void)
{
	int go;
	pid_t child = toucher(&go);
	CHECK(child > 0);
	tally_counter *c = NULL;
	CHECK_INT(tally_counter_new("page-faults", NULL, &c), 0);
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_ALL_THREADS);
	int err = c ? tally_counter_open(c, &t) : -1;
	if (err == -EACCES || err == -EPERM) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		tally_counter_free(c);
		SKIP("counting other users' threads is refused here (perf_event_paranoid)");
	}
	CHECK_INT(err, 0);
	CHECK_INT(tally_counter_start(c), 0);
	CHECK(write(go, "x", 1) == 1);
	/* The child has touched its pages once its fault count stops growing: wait for it to block. */
	for (int i = 0; i < 200; i++) {
		char path[64], state = 0;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
		FILE *f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%*d %*s %c", &state) != 1)
				state = 0;
			fclose(f);
		}
		if (state == 'S')
			break;
		usleep(10000);
	}
	CHECK_INT(tally_counter_stop(c), 0);
	struct tally_result r;
	CHECK_INT(tally_counter_read(c, &r, 1, sizeof(r)), 1);
	struct tally_part parts[4096];
	int n = tally_counter_parts(c, 0, parts, 4096, sizeof(parts[0]));
	CHECK(n > 2);
	bool found_child = false, found_self = false;
	for (int i = 0; i < n && i < 4096; i++) {
		CHECK_INT(parts[i].cpu, -1);
		if (parts[i].tid == child) {
			found_child = true;
			CHECK(parts[i].value >= PAGES && parts[i].value < PAGES + 64);
		}
		found_self |= parts[i].tid == getpid();
	}
	CHECK(found_child);
	CHECK(found_self);
	tally_counter_free(c);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(go);
}

static pid_t doomed; /* killed and reaped just before its first open */

static int killing_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	if (doomed > 0 && pid == doomed) {
		kill(doomed, SIGKILL);
		waitpid(doomed, NULL, 0);
		doomed = 0;
	}
	return fault_perf_event_open(attr, pid, cpu, group_fd, flags);
}

static void thread_gone_before_its_open_is_left_out(void)
{
	int go;
	pid_t child = toucher(&go);
	CHECK(child > 0);
	doomed = child;
	fault_install();
	struct tly_sys table = *tly_sys;
	table.perf_event_open = killing_open;
	tly_sys_replace(&table);
	tally_counter *c = NULL;
	CHECK_INT(tally_counter_new("page-faults,task-clock", NULL, &c), 0);
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_ALL_THREADS);
	int err = c ? tally_counter_open(c, &t) : -1;
	fault_uninstall();
	if (doomed > 0) { /* the open stopped before the child's turn: never leave it behind */
		kill(doomed, SIGKILL);
		waitpid(doomed, NULL, 0);
	}
	if (err == -EACCES || err == -EPERM) {
		tally_counter_free(c);
		close(go);
		SKIP("counting other users' threads is refused here (perf_event_paranoid)");
	}
	CHECK_INT(err, 0);
	CHECK_INT(doomed, 0); /* the child was killed during the open */
	struct tally_result r[2];
	if (c) {
		CHECK_INT(tally_counter_start(c), 0);
		CHECK_INT(tally_counter_stop(c), 0);
		CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	}
	struct tally_part parts[4096];
	int n = c ? tally_counter_parts(c, 0, parts, 4096, sizeof(parts[0])) : 0;
	CHECK(n > 1);
	for (int i = 0; i < n && i < 4096; i++)
		CHECK(parts[i].tid != child);
	tally_counter_free(c);
	close(go);
}

/* Children that wait to be killed: the threads the cases below refuse or end. */
#define KIDS 20
static pid_t kids[KIDS];

static bool spawn_kids(size_t n)
{
	for (size_t i = 0; i < n; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			pause();
			_exit(0);
		}
		if (kids[i] < 0)
			return false;
	}
	return true;
}

static void end_kids(size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (kids[i] > 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
			kids[i] = 0;
		}
}

/* The kernel's ESRCH for thread refused at its refused_at-th open (1-based, counted over every attempt). */
static pid_t refused;
static unsigned refused_at, opens_of_refused;

static int refusing_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	if (pid == refused && ++opens_of_refused == refused_at) {
		errno = ESRCH;
		return -1;
	}
	return fault_perf_event_open(attr, pid, cpu, group_fd, flags);
}

typedef int open_fn_t(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags);

/* Opens spec on target t through open_fn (the syscall table's perf_event_open). Returns the open's code. */
static int open_on(const char *spec, const struct tally_target *t, open_fn_t *open_fn, tally_counter **out)
{
	fault_install();
	struct tly_sys table = *tly_sys;
	table.perf_event_open = open_fn;
	tly_sys_replace(&table);
	*out = NULL;
	int err = tally_counter_new(spec, NULL, out);
	if (!err)
		err = tally_counter_open(*out, t);
	fault_uninstall();
	return err;
}

/* The same on every thread of the system. */
static int open_all_threads(const char *spec, open_fn_t *open_fn, tally_counter **out)
{
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_ALL_THREADS);
	return open_on(spec, &t, open_fn, out);
}

/* Whether tid is among event i's parts. */
static bool has_part(tally_counter *c, size_t i, pid_t tid)
{
	static struct tally_part parts[8192];
	int n = tally_counter_parts(c, i, parts, 8192, sizeof(parts[0]));
	CHECK(n >= 1);
	for (int k = 0; k < n && k < 8192; k++)
		if (parts[k].tid == tid)
			return true;
	return false;
}

/* A thread the kernel refuses (ESRCH) while /proc still lists it, as an exiting thread is: left out,
 * whichever of its opens is refused. The old open pruned by /proc alone and failed. */
static void thread_refused_while_listed_is_left_out(void)
{
	static const struct {
		const char *spec;
		unsigned refused_at;
		const char *what;
	} cases[] = {
		{ "page-faults", 1, "its only event" },
		{ "{page-faults,task-clock}", 2, "a group member, after its leader opened" },
		{ "{page-faults},{task-clock}", 2, "the second event, after the first opened" },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		CHECK(spawn_kids(1));
		refused = kids[0];
		refused_at = cases[k].refused_at;
		opens_of_refused = 0;
		tally_counter *c;
		int err = open_all_threads(cases[k].spec, refusing_open, &c);
		if (err == -EACCES || err == -EPERM) {
			tally_counter_free(c);
			end_kids(1);
			SKIP("counting other users' threads is refused here (perf_event_paranoid)");
		}
		if (err)
			fprintf(stderr, "  %s: %s\n", cases[k].what, tally_last_error());
		CHECK_INT(err, 0);
		CHECK(opens_of_refused >= refused_at);
		if (!err) {
			struct tally_result r[2];
			CHECK_INT(tally_counter_start(c), 0);
			CHECK_INT(tally_counter_stop(c), 0);
			CHECK(tally_counter_read(c, r, 2, sizeof(r[0])) >= 1);
			CHECK(!has_part(c, 0, kids[0]));
			CHECK(has_part(c, 0, getpid()));
		}
		tally_counter_free(c);
		end_kids(1);
	}
}

/* KIDS threads exit one after another, each as the open reaches it (every attempt meets the next one):
 * the open goes on until it opens without them. The old open gave up after 16 attempts. */
static size_t next_doomed;

static int churning_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	if (next_doomed < KIDS && pid == kids[next_doomed]) {
		kill(kids[next_doomed], SIGKILL);
		waitpid(kids[next_doomed], NULL, 0);
		kids[next_doomed++] = 0;
	}
	return fault_perf_event_open(attr, pid, cpu, group_fd, flags);
}

static void threads_exiting_during_every_attempt(void)
{
	CHECK(spawn_kids(KIDS));
	next_doomed = 0;
	tally_counter *c;
	int err = open_all_threads("page-faults", churning_open, &c);
	if (err == -EACCES || err == -EPERM) {
		tally_counter_free(c);
		end_kids(KIDS);
		SKIP("counting other users' threads is refused here (perf_event_paranoid)");
	}
	CHECK_INT(err, 0);
	CHECK_INT(next_doomed, KIDS);
	tally_counter_free(c);
	end_kids(KIDS);
}

/* A thread that exits after the open, before the first read: start, stop and read go on; its part is
 * what it counted (nothing here). */
static void thread_gone_after_its_open_reads(void)
{
	CHECK(spawn_kids(1));
	pid_t kid = kids[0];
	tally_counter *c;
	int err = open_all_threads("page-faults,task-clock", fault_perf_event_open, &c);
	if (err == -EACCES || err == -EPERM) {
		tally_counter_free(c);
		end_kids(1);
		SKIP("counting other users' threads is refused here (perf_event_paranoid)");
	}
	CHECK_INT(err, 0);
	end_kids(1);
	struct tally_result r[2];
	if (!err) {
		CHECK_INT(tally_counter_start(c), 0);
		CHECK_INT(tally_counter_stop(c), 0);
		CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
		CHECK(has_part(c, 0, kid));
		CHECK(has_part(c, 0, getpid()));
	}
	tally_counter_free(c);
}

/* A thread of this process that blocks until told, for the pid and process targets below. */
static pthread_barrier_t listed;
static pid_t helper;

static void *blocked_helper(void *arg)
{
	helper = gettid();
	pthread_barrier_wait(&listed);
	char c;
	return read(*(int *)arg, &c, 1) < 0 ? NULL : arg;
}

/* The same for the threads of a process (perf stat -p; the calling process): a thread the kernel refuses
 * is left out, the others count. The old open failed with ESRCH. */
static void process_thread_refused_is_left_out(void)
{
	static const enum tally_target_kind kinds[] = { TALLY_TARGET_PID, TALLY_TARGET_PROCESS };
	int fds[2];
	CHECK(pipe(fds) == 0);
	pthread_barrier_init(&listed, NULL, 2);
	pthread_t th;
	CHECK_INT(pthread_create(&th, NULL, blocked_helper, &fds[0]), 0);
	pthread_barrier_wait(&listed);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		refused = helper;
		refused_at = 1;
		opens_of_refused = 0;
		TALLY_OPTS(tally_target, t, .kind = kinds[k], .pid = getpid());
		tally_counter *c;
		int err = open_on("{page-faults,task-clock}", &t, refusing_open, &c);
		if (err)
			fprintf(stderr, "  target kind %d: %s\n", (int)kinds[k], tally_last_error());
		CHECK_INT(err, 0);
		CHECK_INT(opens_of_refused, 1);
		if (!err) {
			struct tally_result r[2];
			CHECK_INT(tally_counter_start(c), 0);
			CHECK_INT(tally_counter_stop(c), 0);
			CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
			CHECK(!has_part(c, 0, helper));
			CHECK(has_part(c, 0, gettid()));
		}
		tally_counter_free(c);
	}
	CHECK(write(fds[1], "x", 1) == 1);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&listed);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "every_thread_is_a_part", every_thread_is_a_part },
		{ "thread_gone_before_its_open_is_left_out", thread_gone_before_its_open_is_left_out },
		{ "thread_refused_while_listed_is_left_out", thread_refused_while_listed_is_left_out },
		{ "threads_exiting_during_every_attempt", threads_exiting_during_every_attempt },
		{ "thread_gone_after_its_open_reads", thread_gone_after_its_open_reads },
		{ "process_thread_refused_is_left_out", process_thread_refused_is_left_out },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
