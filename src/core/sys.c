/* SPDX-License-Identifier: MIT */
#include "core/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
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

/* ---- the launched child's calls: raw system calls, errno untouched ---------------------------------- */

/* A system call without the C library's wrapper, whose failure would write errno: the child of a spawn
 * shares the launching thread's errno. The result, or the negative errno. */
#if defined(__x86_64__)
#define TLY_RAW_CALLS 1
static long raw_call(long nr, long a, long b, long c, long d, long e)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	long ret;
	__asm__ volatile("syscall"
	                 : "=a"(ret)
	                 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
	                 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
#define TLY_RAW_CALLS 1
static long raw_call(long nr, long a, long b, long c, long d, long e)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4) : "memory");
	return x0;
}
#else
/* Elsewhere the C library's syscall(2), which writes errno; the spawn is then a fork, whose child has an
 * errno of its own. */
#define TLY_RAW_CALLS 0
static long raw_call(long nr, long a, long b, long c, long d, long e)
{
	long ret = syscall(nr, a, b, c, d, e);
	return ret < 0 ? -errno : ret;
}
#endif

static long child_close(int fd)
{
	return raw_call(SYS_close, fd, 0, 0, 0, 0);
}

static long child_recv(int fd, void *buf, size_t len)
{
	return raw_call(SYS_recvfrom, fd, (long)buf, (long)len, 0, 0);
}

static long child_signal(int signo, bool ignore)
{
	/* The kernel's struct sigaction: handler, flags, restorer, mask (an 8-byte set). SIG_DFL and
	 * SIG_IGN run no handler, so no restorer is needed. */
	struct {
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		unsigned long mask;
	} act = { .handler = ignore ? SIG_IGN : SIG_DFL };
	return raw_call(SYS_rt_sigaction, signo, (long)&act, 0, sizeof(act.mask), 0);
}

static long child_pin(const cpu_set_t *cpus)
{
	return raw_call(SYS_sched_setaffinity, 0, sizeof(*cpus), (long)cpus, 0, 0);
}

static long child_unblock(void)
{
	unsigned long none = 0;
	return raw_call(SYS_rt_sigprocmask, SIG_SETMASK, (long)&none, 0, sizeof(none), 0);
}

static long child_write(int fd, const void *buf, size_t len)
{
	return raw_call(SYS_write, fd, (long)buf, (long)len, 0, 0);
}

static long child_execve(const char *path, char *const argv[], char *const envp[])
{
	return raw_call(SYS_execve, (long)path, (long)argv, (long)envp, 0, 0);
}

bool tly_sys_child_shares_memory(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return false;
#endif
#endif
	/* valgrind ends a program that makes a clone other than a thread's or a fork's; its preload is how
	 * a program sees that it runs under it. */
	const char *preload = getenv("LD_PRELOAD");
	return TLY_RAW_CALLS && !(preload && strstr(preload, "vgpreload"));
}

static pid_t real_spawn(int (*child)(void *arg), void *arg, void *stack_top)
{
	if (tly_sys_child_shares_memory())
		return clone(child, stack_top, CLONE_VM | SIGCHLD, arg);
	pid_t pid = fork();
	if (pid == 0)
		_exit(child(arg));
	return pid;
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
	.spawn = real_spawn,
	.wait4 = wait4,
	.child_close = child_close,
	.child_recv = child_recv,
	.child_signal = child_signal,
	.child_pin = child_pin,
	.child_unblock = child_unblock,
	.child_write = child_write,
	.child_execve = child_execve,
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
