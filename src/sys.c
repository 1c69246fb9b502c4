/* SPDX-License-Identifier: MIT */
#include "sys.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int real_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                                unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static int real_ioctl(int fd, unsigned long request, unsigned long arg)
{
	return ioctl(fd, request, arg);
}

static int real_capget(struct __user_cap_header_struct *header, struct __user_cap_data_struct *data)
{
	/* glibc exports capget only through libcap's header; the raw syscall needs no extra library. */
	return (int)syscall(SYS_capget, header, data);
}

static int real_getrlimit(int resource, struct rlimit *rlim)
{
	/* glibc declares the resource as an enum under _GNU_SOURCE; the table takes the plain int. */
	return getrlimit((__rlimit_resource_t)resource, rlim);
}

static int real_setrlimit(int resource, const struct rlimit *rlim)
{
	return setrlimit((__rlimit_resource_t)resource, rlim);
}

static int real_pidfd_open(pid_t pid, unsigned int flags)
{
	/* glibc 2.36 has pidfd_open; the raw call also builds against older ones. */
	return (int)syscall(SYS_pidfd_open, pid, flags);
}

static int real_getrusage(int who, struct rusage *usage)
{
	/* glibc declares who as an enum under _GNU_SOURCE; the table takes the plain int. */
	return getrusage((__rusage_who_t)who, usage);
}

static int real_open(const char *path, int flags)
{
	return open(path, flags | O_CLOEXEC);
}

static int real_fstat(int fd, struct stat *st)
{
	return fstat(fd, st);
}

const struct tly_sys tly_sys_real = {
	.perf_event_open = real_perf_event_open,
	.ioctl = real_ioctl,
	.read = read,
	.close = close,
	.mmap = mmap,
	.munmap = munmap,
	.open = real_open,
	.fstat = real_fstat,
	.stat = stat,
	.opendir = opendir,
	.readdir = readdir,
	.closedir = closedir,
	.capget = real_capget,
	.getrlimit = real_getrlimit,
	.setrlimit = real_setrlimit,
	.uname = uname,
	.socketpair = socketpair,
	.pipe2 = pipe2,
	.fork = fork,
	.wait4 = wait4,
	.sigaction = sigaction,
	.sigprocmask = sigprocmask,
	.sched_setaffinity = sched_setaffinity,
	.recv = recv,
	.write = write,
	.execve = execve,
	.pidfd_open = real_pidfd_open,
	.poll = poll,
	.clock_gettime = clock_gettime,
	.getrusage = real_getrusage,
};

const struct tly_sys *tly_sys = &tly_sys_real;

const struct tly_sys *tly_sys_replace(const struct tly_sys *table)
{
	const struct tly_sys *old = tly_sys;
	tly_sys = table ? table : &tly_sys_real;
	return old;
}
