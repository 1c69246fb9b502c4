/* SPDX-License-Identifier: MIT */
/*
 * TALLY_TARGET_ALL_THREADS (perf stat -a --per-thread): every thread of the system at the open, each its
 * own part, a known child among them with its own page faults; and a thread that exits between the
 * listing and its open (the kernel's ESRCH, here a child killed and reaped just before its first open) is
 * left out while the others open.
 */
#include "fault.h"
#include "harness.h"

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

int main(void)
{
	static const struct harness_case cases[] = {
		{ "every_thread_is_a_part", every_thread_is_a_part },
		{ "thread_gone_before_its_open_is_left_out", thread_gone_before_its_open_is_left_out },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
