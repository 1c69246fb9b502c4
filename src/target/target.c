/* SPDX-License-Identifier: MIT */
#include "target/target.h"

#include "core/error.h"
#include "core/opts.h"
#include "core/sys.h"
#include "core/sysfs_file.h"
#include "evsel/cpumap.h"
#include "evsel/threadmap.h"
#include "target/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* Linux 6.9's pidfd_open flag for a thread that leads no process (uapi linux/pidfd.h: O_EXCL). */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

#define TASK_UNOPENED (-3)
#define TASK_GONE (-2)
#define TASK_POLL_PROC (-1)
/* How often a task without a pidfd is looked for in /proc. */
#define PROC_POLL_MS 100

/* One map of every thread of every process in pids (each listed from /proc/<pid>/task), each thread once:
 * a pid listed twice, or a thread's id next to its process's (/proc/<tid>/task lists the whole thread
 * group), would otherwise open those threads twice and count them twice. */
static int threads_of_pids(const pid_t *pids, size_t nr_pids, tally_threads **out)
{
	if (!pids)
		return tly_error(-EINVAL, "target pids: nr_pids is %zu but pids is NULL", nr_pids);
	for (size_t i = 0; i < nr_pids; i++)
		if (pids[i] <= 0)
			return tly_error(-EINVAL, "target pid %d: expected a positive pid", (int)pids[i]);
	if (nr_pids == 1)
		return tally_threads_of_pid(pids[0], out);

	pid_t *tids = NULL;
	size_t nr_tids = 0;
	int err = 0;
	for (size_t i = 0; i < nr_pids && !err; i++) {
		tally_threads *one;
		err = tally_threads_of_pid(pids[i], &one);
		if (err)
			break;
		size_t n = tally_threads_count(one);
		pid_t *grown = realloc(tids, (nr_tids + n) * sizeof(*tids));
		if (!grown)
			err = tly_error(-ENOMEM, "target pids: out of memory listing %zu threads", nr_tids + n);
		else
			for (size_t k = 0; k < n; k++)
				grown[nr_tids++] = tally_threads_at(one, k);
		tids = grown ? grown : tids;
		tally_threads_free(one);
	}
	if (!err)
		err = tally_threads_new(tids, tly_tids_sort_unique(tids, nr_tids), out);
	free(tids);
	return err;
}

static int compare_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* The tids of a tid target, each once, in the order given (parts come in that order): a tid listed twice
 * would be opened twice and counted twice, as a pid listed twice is not (threads_of_pids). */
static int unique_tids(const pid_t *tids, size_t n, pid_t **out, size_t *nr_out)
{
	pid_t *sorted = malloc(n * sizeof(*sorted)), *kept = malloc(n * sizeof(*kept));
	bool *taken = calloc(n, sizeof(*taken));
	if (!sorted || !kept || !taken) {
		free(sorted);
		free(kept);
		free(taken);
		return tly_error(-ENOMEM, "target tids: out of memory");
	}
	memcpy(sorted, tids, n * sizeof(*tids));
	size_t nr_sorted = tly_tids_sort_unique(sorted, n), nr = 0;
	for (size_t i = 0; i < n; i++) {
		const pid_t *at = bsearch(&tids[i], sorted, nr_sorted, sizeof(*sorted), compare_tid);
		if (!taken[at - sorted]) {
			taken[at - sorted] = true;
			kept[nr++] = tids[i];
		}
	}
	free(sorted);
	free(taken);
	*out = kept;
	*nr_out = nr;
	return 0;
}

/* The processes of a pid target, or the threads of a tid target, whose exits end it. */
static int keep_tasks(struct tly_target *out, const pid_t *ids, size_t n)
{
	out->tasks = malloc(n * sizeof(*out->tasks));
	out->task_fds = malloc(n * sizeof(*out->task_fds));
	out->polls = malloc((n + 1) * sizeof(*out->polls));
	if (!out->tasks || !out->task_fds || !out->polls)
		return tly_error(-ENOMEM, "out of memory");
	memcpy(out->tasks, ids, n * sizeof(*ids));
	for (size_t i = 0; i < n; i++)
		out->task_fds[i] = TASK_UNOPENED;
	out->nr_tasks = n;
	return 0;
}

/* What tally_target asks to launch. */
static struct tly_launch launch_of(const struct tally_target *target)
{
	return (struct tly_launch){
		.argv = TLY_OPT(target, argv, NULL),
		.pin = TLY_OPT(target, pin, NULL),
		.ignored = TLY_OPT(target, ignored, 0),
		.inherit_signals = TLY_OPT(target, inherit_signals, false),
	};
}

/* Descriptors left to the rest of the process below the soft RLIMIT_NOFILE (stdio, its own files) when
 * deciding whether the counter's descriptors fit. */
#define NOFILE_ROOM 64

/* Raises the soft limit by `need` (a counter's descriptors: one per event, CPU and thread; a cgroup
 * target's directories), up to the hard limit. */
void tly_target_raise_nofile(size_t need)
{
	struct rlimit rl;
	if (tly_sys->getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    need + NOFILE_ROOM <= rl.rlim_cur || rl.rlim_cur >= rl.rlim_max)
		return;
	rlim_t old = rl.rlim_cur;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max - old > need ? old + need : rl.rlim_max;
	if (tly_sys->setrlimit(RLIMIT_NOFILE, &rl) == 0)
		tly_log(TALLY_LOG_DEBUG, "raised the soft RLIMIT_NOFILE from %llu to %llu for %zu descriptors\n",
		        (unsigned long long)old, (unsigned long long)rl.rlim_cur, need);
}

/* Opens the directory of every cgroup of a cgroup target, found in the hierarchy perf_event counts on,
 * into a cgroup map. "" stays -1: no cgroup filter. */
static int open_cgroups(const struct tally_target *target, struct tly_target *out)
{
	size_t n = TLY_OPT(target, nr_cgroups, 0);
	const char *const *names = TLY_OPT(target, cgroups, NULL);
	if (!n || !names)
		return tly_error(-EINVAL, "cgroup target: no cgroups given (cgroups %p, nr_cgroups %zu)",
		                 (const void *)names, n);
	char mount[PATH_MAX];
	int len = tally_cgroup_mount(mount, sizeof(mount));
	if (len < 0)
		return len;
	if ((size_t)len >= sizeof(mount))
		return tly_error(-ENAMETOOLONG, "the cgroup mount point is too long");
	out->cgroup_fds = malloc(n * sizeof(*out->cgroup_fds));
	if (!out->cgroup_fds)
		return tly_error(-ENOMEM, "cgroup target: out of memory");
	for (size_t i = 0; i < n; i++)
		out->cgroup_fds[i] = -1;
	out->nr_cgroups = n;
	/* Each directory stays open with the counter: a thousand cgroups would spend the soft limit before
	 * the events' own raise. */
	tly_target_raise_nofile(n);
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			return tly_error(-EINVAL, "cgroup target: cgroups[%zu] is NULL", i);
		if (!names[i][0])
			continue;
		int err = tly_cgroup_open(mount, names[i], &out->cgroup_fds[i]);
		if (err)
			return err;
	}
	return tly_threads_cgroups(out->cgroup_fds, n, &out->threads);
}

/* The thread map of a target; NULL (the calling thread) for TALLY_TARGET_THREAD. */
static int resolve_threads(const struct tally_target *target, struct tly_target *out)
{
	switch (out->kind) {
	case TALLY_TARGET_THREAD:
		return 0;
	case TALLY_TARGET_PROCESS:
		return tally_threads_of_pid(getpid(), &out->threads);
	case TALLY_TARGET_PID: {
		size_t nr_pids = TLY_OPT(target, nr_pids, 0);
		const pid_t *pids = nr_pids ? TLY_OPT(target, pids, NULL) : &target->pid;
		int err = threads_of_pids(pids, nr_pids ? nr_pids : 1, &out->threads);
		return err ? err : keep_tasks(out, pids, nr_pids ? nr_pids : 1);
	}
	case TALLY_TARGET_TIDS: {
		size_t nr_tids = TLY_OPT(target, nr_tids, 0);
		const pid_t *given = TLY_OPT(target, tids, NULL);
		if (!given || !nr_tids) /* refused with its reason */
			return tally_threads_new(given, nr_tids, &out->threads);
		pid_t *tids = NULL;
		int err = unique_tids(given, nr_tids, &tids, &nr_tids);
		if (err)
			return err;
		err = tally_threads_new(tids, nr_tids, &out->threads);
		if (!err)
			err = keep_tasks(out, tids, nr_tids);
		free(tids);
		return err;
	}
	case TALLY_TARGET_COMMAND: {
		struct tly_launch launch = launch_of(target);
		int err = tly_command_fork(&out->command, &launch);
		if (err)
			return err;
		return tally_threads_new(&out->command.pid, 1, &out->threads);
	}
	case TALLY_TARGET_CPUS:
		return tally_threads_any(&out->threads);
	case TALLY_TARGET_CGROUPS:
		return open_cgroups(target, out);
	case TALLY_TARGET_ALL_THREADS:
		return tly_threads_system(&out->threads);
	}
	return tly_error(-EINVAL, "unknown target kind %d", (int)out->kind);
}

bool tly_target_inherits(enum tally_target_kind kind, bool no_inherit)
{
	/* Only targets that name a whole process follow what it creates; a thread or a tid list is exact. */
	return !no_inherit &&
	       (kind == TALLY_TARGET_PROCESS || kind == TALLY_TARGET_PID || kind == TALLY_TARGET_COMMAND);
}

bool tly_target_enables_on_exec(enum tally_target_kind kind)
{
	return kind == TALLY_TARGET_COMMAND;
}

/* A CPU list names online CPUs only: perf_event_open says ENODEV or EINVAL for the others, which reads
 * as an event this PMU does not know, and one such CPU fails the whole list. */
static int check_online(const char *list, const tally_cpus *cpus, const char *sysfs_root)
{
	int err = tally_cpus_check_online(sysfs_root, cpus);
	if (err == -ENODEV) {
		char why[512];
		snprintf(why, sizeof(why), "%s", tally_last_error());
		err = tly_error(-ENODEV, "CPUs %s: %s", list, why);
	}
	return err;
}

int tly_target_resolve(const struct tally_target *target, const char *sysfs_root, bool no_inherit,
                       struct tly_target *out)
{
	memset(out, 0, sizeof(*out));
	out->command.go_fd = out->command.exec_err_fd = -1;
	if (!TLY_OPTS_VALID(target, tally_target))
		return -TALLY_EOPTS;
	out->kind = TLY_OPT(target, kind, TALLY_TARGET_THREAD);
	/* The kernel takes a cgroup's events per CPU only (pid is the cgroup, cpu must be >= 0). */
	out->cpu_wide = out->kind == TALLY_TARGET_CPUS || out->kind == TALLY_TARGET_CGROUPS;
	out->enable_on_exec = tly_target_enables_on_exec(out->kind);
	out->inherit = tly_target_inherits(out->kind, no_inherit);

	int err = resolve_threads(target, out);
	if (!err && out->cpu_wide) {
		const char *list = TLY_OPT(target, cpus, NULL);
		err = list ? tally_cpus_parse(list, &out->cpus) : tally_cpus_online(sysfs_root, &out->cpus);
		if (!err && list)
			err = check_online(list, out->cpus, sysfs_root);
	}
	/* Any other target with a command: the command only bounds the counting (perf stat -a -- sleep 1).
	 * Forked last, so that nothing after it can fail with a child to end. */
	struct tly_launch launch = launch_of(target);
	if (!err && launch.argv && out->kind != TALLY_TARGET_COMMAND)
		err = tly_command_fork(&out->command, &launch);
	if (err)
		tly_target_fini(out);
	return err;
}

/* A pidfd for task i: readable once the process (its whole thread group) or, for a tid target, the thread
 * has exited. Without one (before Linux 5.3, or a thread that leads no process before 6.9) the task is
 * looked for in /proc. */
static void open_task_fd(struct tly_target *t, size_t i, bool threads)
{
	int fd = -1;
	if (threads)
		fd = tly_sys->pidfd_open(t->tasks[i], PIDFD_THREAD);
	if (fd < 0 && (!threads || errno == EINVAL))
		fd = tly_sys->pidfd_open(t->tasks[i], 0);
	t->task_fds[i] = fd >= 0 ? fd : errno == ESRCH ? TASK_GONE : TASK_POLL_PROC;
}

/* Whether the task still runs: its /proc/<tid>/stat exists and its state (after the command name in
 * parentheses, which may hold anything) is not Z (a zombie: exited, not yet reaped) or X. */
static bool task_in_proc(pid_t tid)
{
	char path[32], stat[2048];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	int n = tly_sysfs_read(path, stat, sizeof(stat), TLY_SYSFS_HEAD);
	if (n < 0)
		return n != -ENOENT && n != -ESRCH;
	const char *end = strrchr(stat, ')');
	return !end || (end[1] != ' ' || (end[2] != 'Z' && end[2] != 'X'));
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int tly_target_wait_tasks(struct tly_target *t, int timeout_ms, int wake_fd)
{
	if (!t->tasks)
		return tly_error(-TALLY_ESTATE, "only a pid or tid target has tasks to wait for");
	bool threads = t->kind == TALLY_TARGET_TIDS;
	long long deadline = timeout_ms >= 0 ? now_ms() + timeout_ms : -1;
	struct pollfd *fds = t->polls;
	for (;;) {
		size_t n = 0, alive = 0;
		bool by_proc = false;
		if (wake_fd >= 0)
			fds[n++] = (struct pollfd){ .fd = wake_fd, .events = POLLIN };
		for (size_t i = 0; i < t->nr_tasks; i++) {
			if (t->task_fds[i] == TASK_UNOPENED)
				open_task_fd(t, i, threads);
			if (t->task_fds[i] == TASK_POLL_PROC && !task_in_proc(t->tasks[i]))
				t->task_fds[i] = TASK_GONE;
			if (t->task_fds[i] == TASK_GONE)
				continue;
			alive++;
			if (t->task_fds[i] == TASK_POLL_PROC)
				by_proc = true;
			else
				fds[n++] = (struct pollfd){ .fd = t->task_fds[i], .events = POLLIN };
		}
		if (!alive)
			return 1;
		long long left = deadline < 0 ? -1 : deadline - now_ms();
		if (deadline >= 0 && left <= 0)
			return 0;
		int wait = (int)(by_proc && (left < 0 || left > PROC_POLL_MS) ? PROC_POLL_MS : left);
		int ready = tly_sys->poll(fds, n, wait);
		if (ready < 0)
			return errno == EINTR ? 0 : tly_error(-errno, "waiting for the counted tasks: poll: %s",
			                                      tally_strerror(errno));
		/* poll(2) reports a descriptor that is not open as ready (POLLNVAL): that is no wake-up, and
		 * 0 would send the caller's loop around again at once, for ever. */
		if (wake_fd >= 0 && (fds[0].revents & POLLNVAL))
			return tly_error(-EBADF, "tally_counter_wait_tasks: wake_fd %d is not an open file "
			                 "descriptor", wake_fd);
		if (wake_fd >= 0 && fds[0].revents)
			return 0;
		for (size_t i = 0, k = wake_fd >= 0; i < t->nr_tasks; i++) {
			if (t->task_fds[i] < 0)
				continue;
			if (fds[k++].revents) {
				tly_sys->close(t->task_fds[i]);
				t->task_fds[i] = TASK_GONE;
			}
		}
	}
}

void tly_target_fini(struct tly_target *target)
{
	for (size_t i = 0; i < target->nr_tasks; i++)
		if (target->task_fds[i] >= 0)
			tly_sys->close(target->task_fds[i]);
	free(target->tasks);
	free(target->task_fds);
	free(target->polls);
	target->polls = NULL;
	target->tasks = NULL;
	target->task_fds = NULL;
	target->nr_tasks = 0;
	for (size_t i = 0; i < target->nr_cgroups; i++)
		if (target->cgroup_fds[i] >= 0)
			tly_sys->close(target->cgroup_fds[i]);
	free(target->cgroup_fds);
	target->cgroup_fds = NULL;
	target->nr_cgroups = 0;
	tly_command_end(&target->command);
	tally_cpus_free(target->cpus);
	tally_threads_free(target->threads);
	target->cpus = NULL;
	target->threads = NULL;
}

int tly_target_event_cpus(const struct tly_target *target, const char *mask, tally_cpus **out)
{
	*out = NULL;
	/* A task-bound event opens on "any CPU"; the kernel itself keeps a hybrid core PMU's events to
	 * its CPUs, and an uncore PMU refuses task events, which the open then explains. */
	if (!target->cpu_wide)
		return 0;
	if (!mask)
		return tly_cpus_dup(target->cpus, out);
	return tally_cpus_intersect_mask(target->cpus, mask, out);
}

/* Whether thread tid is gone for perf_event_open(2): no /proc/<tid>, or a zombie (exited, not yet reaped:
 * the kernel answers ESRCH for a task whose perf context was torn down at its exit). */
static bool thread_gone(pid_t tid)
{
	char path[40], text[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	int n = tly_sysfs_read(path, text, sizeof(text), TLY_SYSFS_WHOLE);
	if (n < 0)
		return n == -ENOENT || n == -ESRCH;
	/* "tid (comm) S ...": the state follows the last ')' (a comm may hold parentheses). */
	const char *paren = strrchr(text, ')');
	return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

size_t tly_target_prune_gone(struct tly_target *target)
{
	tally_threads *t = target->threads;
	/* Only a target that listed the threads itself: a thread named by the caller (a tid, the command)
	 * that is gone is an error to report. */
	bool listed = target->kind == TALLY_TARGET_ALL_THREADS || target->kind == TALLY_TARGET_PID ||
	              target->kind == TALLY_TARGET_PROCESS;
	if (!listed || !t || t->cgroups)
		return 0;
	/* The kernel's ESRCH decides for the refused thread: an exiting one answers it before /proc shows
	 * it as a zombie, and such a thread would be refused again at every attempt. */
	pid_t refused = target->refused;
	target->refused = 0;
	size_t kept = 0;
	for (size_t i = 0; i < t->nr; i++)
		if (t->tid[i] != refused && !thread_gone(t->tid[i]))
			t->tid[kept++] = t->tid[i];
	size_t dropped = t->nr - kept;
	t->nr = kept;
	return kept ? dropped : 0;
}
