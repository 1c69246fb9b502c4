/* SPDX-License-Identifier: MIT */
/* Thread maps: explicit tid lists, the "calling thread" dummy, and the threads of a process. */
#include "evsel/threadmap.h"

#include "core/error.h"
#include "core/sys.h"
#include "core/sysfs_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tally_threads *threads_alloc(size_t nr)
{
	tally_threads *threads = malloc(sizeof(*threads) + nr * sizeof(threads->tid[0]));
	if (threads) {
		threads->nr = nr;
		threads->cgroups = false;
	}
	return threads;
}

int tally_threads_new(const pid_t *tids, size_t n, tally_threads **out)
{
	if (!out || (!tids && n))
		return tly_error(-EINVAL, "tally_threads_new: NULL argument");
	*out = NULL;
	if (n == 0)
		return tly_error(-EINVAL, "thread map: no threads given");
	for (size_t i = 0; i < n; i++)
		if (tids[i] < 0)
			return tly_error(-EINVAL, "thread map: tid %d is negative", (int)tids[i]);
	tally_threads *threads = threads_alloc(n);
	if (!threads)
		return tly_error(-ENOMEM, "thread map: out of memory");
	memcpy(threads->tid, tids, n * sizeof(tids[0]));
	*out = threads;
	return 0;
}

int tally_threads_self(tally_threads **out)
{
	static const pid_t calling_thread = 0;
	if (!out)
		return tly_null_arg(__func__);
	return tally_threads_new(&calling_thread, 1, out);
}

int tally_threads_any(tally_threads **out)
{
	if (!out)
		return tly_error(-EINVAL, "tally_threads_any: NULL argument");
	*out = threads_alloc(1);
	if (!*out)
		return tly_error(-ENOMEM, "thread map: out of memory");
	(*out)->tid[0] = -1;
	return 0;
}

int tly_threads_cgroups(const int *fds, size_t n, tally_threads **out)
{
	*out = NULL;
	if (n == 0)
		return tly_error(-EINVAL, "cgroup map: no cgroups given");
	tally_threads *threads = threads_alloc(n);
	if (!threads)
		return tly_error(-ENOMEM, "cgroup map: out of memory");
	for (size_t i = 0; i < n; i++)
		threads->tid[i] = fds[i];
	threads->cgroups = true;
	*out = threads;
	return 0;
}

void tly_threads_place(const tally_threads *threads, size_t i, pid_t *tid, int *cgroup)
{
	bool cgroups = threads && threads->cgroups;
	*tid = tally_threads_at(threads, i);
	*cgroup = cgroups ? (int)i : -1;
}

int tly_threads_dup(const tally_threads *threads, tally_threads **out)
{
	if (threads && threads->cgroups)
		return tly_threads_cgroups(threads->tid, threads->nr, out);
	if (threads && threads->nr == 1 && threads->tid[0] == -1)
		return tally_threads_any(out);
	return threads ? tally_threads_new(threads->tid, threads->nr, out) : tally_threads_self(out);
}

static int compare_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

size_t tly_tids_sort_unique(pid_t *tids, size_t n)
{
	qsort(tids, n, sizeof(*tids), compare_pid);
	size_t nr_unique = 0;
	for (size_t i = 0; i < n; i++)
		if (nr_unique == 0 || tids[nr_unique - 1] != tids[i])
			tids[nr_unique++] = tids[i];
	return nr_unique;
}

/* A /proc/<pid>/task entry names a thread when it is all digits ("." and ".." are not). */
static bool parse_tid(const char *name, pid_t *tid)
{
	long v = 0;
	if (!*name)
		return false;
	for (const char *p = name; *p; p++) {
		if (*p < '0' || *p > '9' || v > 0x3fffffff)
			return false;
		v = v * 10 + (*p - '0');
	}
	*tid = (pid_t)v;
	return v > 0;
}

int tally_threads_of_pid(pid_t pid, tally_threads **out)
{
	if (!out || pid <= 0)
		return tly_error(-EINVAL, "tally_threads_of_pid: needs a positive pid and an out pointer");
	*out = NULL;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *dir = tly_sys->opendir(path);
	if (!dir) {
		int e = errno;
		if (e == ENOENT)
			return tly_error(-ESRCH, "process %d does not exist (no %s)", (int)pid, path);
		return tly_error(-e, "cannot list the threads of process %d (%s): %s", (int)pid, path,
		                 tally_strerror(e));
	}
	size_t nr = 0, cap = 16;
	tally_threads *threads = threads_alloc(cap);
	int err = threads ? 0 : tly_error(-ENOMEM, "thread map: out of memory");
	while (!err) {
		errno = 0;
		struct dirent *entry = tly_sys->readdir(dir);
		if (!entry) {
			if (errno)
				err = tly_error(-errno, "cannot list the threads of process %d (%s): %s", (int)pid,
				                path, tally_strerror(errno));
			break;
		}
		pid_t tid;
		if (!parse_tid(entry->d_name, &tid))
			continue;
		if (nr == cap) {
			tally_threads *bigger = realloc(threads, sizeof(*threads) + 2 * cap * sizeof(pid_t));
			if (!bigger) {
				err = tly_error(-ENOMEM, "thread map: out of memory");
				break;
			}
			threads = bigger;
			cap *= 2;
		}
		threads->tid[nr++] = tid;
	}
	tly_sys->closedir(dir);
	/* The process exited between opendir and readdir: the directory reads as empty. */
	if (!err && nr == 0)
		err = tly_error(-ESRCH, "process %d has no threads left (it exited)", (int)pid);
	if (err) {
		free(threads);
		return err;
	}
	threads->nr = tly_tids_sort_unique(threads->tid, nr);
	*out = threads;
	return 0;
}

size_t tally_threads_count(const tally_threads *threads)
{
	return threads ? threads->nr : 1;
}

pid_t tally_threads_at(const tally_threads *threads, size_t i)
{
	if (!threads)
		return i == 0 ? 0 : -1;
	/* A cgroup map's entries are descriptors: its positions count every task (of the cgroup). */
	return i < threads->nr && !threads->cgroups ? threads->tid[i] : -1;
}

void tally_threads_free(tally_threads *threads)
{
	free(threads);
}

int tally_thread_name(pid_t tid, char *buf, size_t len)
{
	if (!buf && len)
		return tly_null_arg(__func__);
	if (tid <= 0)
		return tly_error(-EINVAL, "tally_thread_name: tid %d is not a thread id", (int)tid);
	char path[64], comm[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	int n = tly_sysfs_read(path, comm, sizeof(comm), TLY_SYSFS_WHOLE);
	if (n < 0)
		return tly_error(n, "thread %d: no name (%s: %s)", (int)tid, path, tally_strerror(n));
	/* The "buffer too small" convention of libtally(3): snprintf's. */
	if (len)
		snprintf(buf, len, "%s", comm);
	return n;
}

/* Appends the threads of process pid to *all (room *cap, used *nr); a process gone meanwhile adds none. */
static int append_process(pid_t pid, tally_threads **all, size_t *cap)
{
	tally_threads *one;
	int err = tally_threads_of_pid(pid, &one);
	if (err == -ESRCH || err == -ENOENT)
		return 0;
	if (err)
		return err;
	if ((*all)->nr + one->nr > *cap) {
		size_t bigger = 2 * (*cap + one->nr);
		tally_threads *grown = realloc(*all, sizeof(**all) + bigger * sizeof(pid_t));
		if (!grown) {
			tally_threads_free(one);
			return tly_error(-ENOMEM, "thread map: out of memory");
		}
		*all = grown;
		*cap = bigger;
	}
	memcpy((*all)->tid + (*all)->nr, one->tid, one->nr * sizeof(pid_t));
	(*all)->nr += one->nr;
	tally_threads_free(one);
	return 0;
}

int tly_threads_system(tally_threads **out)
{
	*out = NULL;
	DIR *dir = tly_sys->opendir("/proc");
	if (!dir)
		return tly_error(-errno, "cannot list the processes (/proc): %s", tally_strerror(errno));
	size_t cap = 256;
	tally_threads *all = threads_alloc(cap);
	int err = all ? 0 : tly_error(-ENOMEM, "thread map: out of memory");
	if (all)
		all->nr = 0;
	while (!err) {
		errno = 0;
		struct dirent *entry = tly_sys->readdir(dir);
		if (!entry) {
			if (errno)
				err = tly_error(-errno, "cannot list the processes (/proc): %s", tally_strerror(errno));
			break;
		}
		pid_t pid;
		if (parse_tid(entry->d_name, &pid))
			err = append_process(pid, &all, &cap);
	}
	tly_sys->closedir(dir);
	if (err) {
		free(all);
		return err;
	}
	all->nr = tly_tids_sort_unique(all->tid, all->nr);
	*out = all;
	return 0;
}
