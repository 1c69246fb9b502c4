/* SPDX-License-Identifier: MIT */
/*
 * Fault injection through the syscall table (src/core/sys.h), SQLite-style: count every call tally makes, make
 * the Nth call of one kind fail with a chosen errno (or, for read, come back short), and count this
 * process's open descriptors to prove that nothing leaks.
 *
 *   fault_install();                      counting table in force, nothing armed
 *   fault_reset();                        counts to zero, nothing armed
 *   ... run a sequence ...; fault_calls(FAULT_READ) == how many reads it made
 *   fault_arm(FAULT_IOCTL, 3, EBUSY);     the 3rd ioctl from now fails with EBUSY (once)
 *   ... run it again ...; fault_fired() says whether the armed call was reached
 *   fault_uninstall();
 *
 * A failed close still closes (Linux releases the descriptor whatever close returns), so that injected
 * close errors test reporting, not fake leaks. Every other injected failure skips the real call.
 * Single-threaded by design: the counters are plain statics, like the harness's.
 */
#ifndef TALLY_TEST_FAULT_H
#define TALLY_TEST_FAULT_H

#include "core/sys.h"
#include "core/sysfs_file.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

enum fault_call {
	FAULT_PERF_EVENT_OPEN,
	FAULT_IOCTL,
	FAULT_READ,
	FAULT_CLOSE,
	FAULT_MMAP,
	FAULT_MUNMAP,
	FAULT_OPEN,
	FAULT_OPENDIR,
	FAULT_READDIR,
	FAULT_CLOSEDIR,
	FAULT_SOCKETPAIR,
	FAULT_PIPE2,
	FAULT_SPAWN,
	FAULT_WAIT4,
	FAULT_NR_CALLS
};

/* Not an errno: arms a read to return half of what it read (a short read). */
#define FAULT_SHORT_READ (-1)

static unsigned long fault_count[FAULT_NR_CALLS];
static struct {
	enum fault_call call;
	unsigned long nth;       /* 1-based among calls of that kind since arming; 0: nothing armed */
	int err;
	bool fired;
} fault_armed;

static inline const char *fault_call_name(enum fault_call call)
{
	static const char *const names[FAULT_NR_CALLS] = {
		"perf_event_open", "ioctl", "read", "close", "mmap",
		"munmap", "open", "opendir", "readdir", "closedir",
		"socketpair", "pipe2", "spawn", "wait4",
	};
	return call < FAULT_NR_CALLS ? names[call] : "?";
}

static inline const char *fault_err_name(int err)
{
	if (err == FAULT_SHORT_READ)
		return "short read";
	const char *name = strerrorname_np(err);
	return name ? name : "?";
}

/* The errors the issue asks every call position to survive, short read last. */
static inline size_t fault_standard_errors(const int **errs)
{
	static const int list[] = { EACCES, EPERM, ENOENT, EINVAL, EMFILE,
	                            E2BIG,  EBUSY, ENOSYS, EINTR,  FAULT_SHORT_READ };
	*errs = list;
	return sizeof(list) / sizeof(list[0]);
}

/* Counts the call; true when this one is the armed failure (errno is then set to the armed error). */
static inline bool fault_hit(enum fault_call call)
{
	fault_count[call]++;
	if (!fault_armed.nth || fault_armed.fired || fault_armed.call != call)
		return false;
	if (--fault_armed.nth)
		return false;
	fault_armed.fired = true;
	errno = fault_armed.err;
	return true;
}

static inline int fault_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                                        unsigned long flags)
{
	return fault_hit(FAULT_PERF_EVENT_OPEN) ? -1
	                                        : tly_sys_real.perf_event_open(attr, pid, cpu, group_fd, flags);
}

static inline int fault_ioctl(int fd, unsigned long request, unsigned long arg)
{
	return fault_hit(FAULT_IOCTL) ? -1 : tly_sys_real.ioctl(fd, request, arg);
}

static inline ssize_t fault_read(int fd, void *buf, size_t count)
{
	int saved = errno;
	if (!fault_hit(FAULT_READ))
		return tly_sys_real.read(fd, buf, count);
	if (fault_armed.err != FAULT_SHORT_READ)
		return -1;
	errno = saved;
	ssize_t n = tly_sys_real.read(fd, buf, count);
	return n > 0 ? n / 2 : n;
}

static inline int fault_close(int fd)
{
	bool fail = fault_hit(FAULT_CLOSE);
	int err = errno;
	int r = tly_sys_real.close(fd);
	if (!fail)
		return r;
	errno = err;
	return -1;
}

static inline void *fault_mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
	return fault_hit(FAULT_MMAP) ? (void *)-1 : tly_sys_real.mmap(addr, length, prot, flags, fd, offset);
}

static inline int fault_munmap(void *addr, size_t length)
{
	return fault_hit(FAULT_MUNMAP) ? -1 : tly_sys_real.munmap(addr, length);
}

static inline int fault_open(const char *path, int flags)
{
	return fault_hit(FAULT_OPEN) ? -1 : tly_sys_real.open(path, flags);
}

static inline DIR *fault_opendir(const char *path)
{
	return fault_hit(FAULT_OPENDIR) ? NULL : tly_sys_real.opendir(path);
}

static inline struct dirent *fault_readdir(DIR *dir)
{
	return fault_hit(FAULT_READDIR) ? NULL : tly_sys_real.readdir(dir);
}

static inline int fault_closedir(DIR *dir)
{
	bool fail = fault_hit(FAULT_CLOSEDIR);
	int err = errno;
	int r = tly_sys_real.closedir(dir);
	if (!fail)
		return r;
	errno = err;
	return -1;
}

static inline int fault_socketpair(int domain, int type, int protocol, int sv[2])
{
	return fault_hit(FAULT_SOCKETPAIR) ? -1 : tly_sys_real.socketpair(domain, type, protocol, sv);
}

static inline int fault_pipe2(int fds[2], int flags)
{
	return fault_hit(FAULT_PIPE2) ? -1 : tly_sys_real.pipe2(fds, flags);
}

static inline pid_t fault_spawn(int (*child)(void *arg), void *arg, void *stack_top)
{
	return fault_hit(FAULT_SPAWN) ? -1 : tly_sys_real.spawn(child, arg, stack_top);
}

static inline pid_t fault_wait4(pid_t pid, int *status, int options, struct rusage *rusage)
{
	return fault_hit(FAULT_WAIT4) ? -1 : tly_sys_real.wait4(pid, status, options, rusage);
}

/* Counts to zero and nothing armed. */
static inline void fault_reset(void)
{
	memset(fault_count, 0, sizeof(fault_count));
	fault_armed.nth = 0;
	fault_armed.fired = false;
}

/* Puts the counting table in force (fields a newer sys.h adds fall through to the real calls). */
static inline void fault_install(void)
{
	static struct tly_sys table;
	table = tly_sys_real;
	table.perf_event_open = fault_perf_event_open;
	table.ioctl = fault_ioctl;
	table.read = fault_read;
	table.close = fault_close;
	table.mmap = fault_mmap;
	table.munmap = fault_munmap;
	table.open = fault_open;
	table.opendir = fault_opendir;
	table.readdir = fault_readdir;
	table.closedir = fault_closedir;
	table.socketpair = fault_socketpair;
	table.pipe2 = fault_pipe2;
	table.spawn = fault_spawn;
	table.wait4 = fault_wait4;
	fault_reset();
	tly_sys_replace(&table);
}

static inline void fault_uninstall(void)
{
	fault_reset();
	tly_sys_replace(NULL);
}

/* The nth (1-based) call of `call` from now fails with err (or FAULT_SHORT_READ), once. */
static inline void fault_arm(enum fault_call call, unsigned long nth, int err)
{
	fault_armed.call = call;
	fault_armed.nth = nth;
	fault_armed.err = err;
	fault_armed.fired = false;
}

static inline void fault_disarm(void)
{
	fault_armed.nth = 0;
}

static inline bool fault_fired(void)
{
	return fault_armed.fired;
}

static inline unsigned long fault_calls(enum fault_call call)
{
	return fault_count[call];
}

/* Descriptors this process has open, from /proc/self/fd, read with the real libc (not the table) so that
 * counting never disturbs the counts. -1 when /proc is unavailable. */
static inline int fault_open_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	if (!dir)
		return -1;
	int n = 0;
	struct dirent *entry;
	while ((entry = readdir(dir)))
		if (entry->d_name[0] != '.')
			n++;
	closedir(dir);
	return n - 1; /* the directory's own descriptor */
}

#endif
