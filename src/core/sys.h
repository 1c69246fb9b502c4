/* SPDX-License-Identifier: MIT */
/*
 * The one table through which tally makes every system call (sysfs and procfs files are read through it by
 * sysfs_file.c).
 * Production code always calls through tly_sys; tests replace the table to make any call fail
 * (fault injection, SQLite-style) or to count calls.
 */
#ifndef TLY_SYS_H
#define TLY_SYS_H

#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <time.h>

struct tly_sys {
	int (*perf_event_open)(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
	                       unsigned long flags);
	int (*ioctl)(int fd, unsigned long request, unsigned long arg);
	ssize_t (*read)(int fd, void *buf, size_t count);
	int (*close)(int fd);
	void *(*mmap)(void *addr, size_t length, int prot, int flags, int fd, off_t offset);
	int (*munmap)(void *addr, size_t length);
	int (*open)(const char *path, int flags);
	int (*fstat)(int fd, struct stat *st);
	int (*stat)(const char *path, struct stat *st);
	DIR *(*opendir)(const char *path);
	struct dirent *(*readdir)(DIR *dir);
	int (*closedir)(DIR *dir);
	/* Machine facts (facts.c): capabilities, descriptor limit, kernel release. */
	int (*capget)(struct __user_cap_header_struct *header, struct __user_cap_data_struct *data);
	int (*getrlimit)(int resource, struct rlimit *rlim);
	int (*uname)(struct utsname *buf);
	int (*setrlimit)(int resource, const struct rlimit *rlim);
	/* Launching a command (command.c), the parent's side. */
	int (*socketpair)(int domain, int type, int protocol, int sv[2]);
	int (*pipe2)(int fds[2], int flags);
	/* Starts child(arg) in a new process on the stack that ends at stack_top: clone(CLONE_VM), which
	 * copies no page table and leaves no page of the caller to copy on its next write (a fork costs the
	 * start-up of `tally stat` about a tenth), or a fork where the child may not share the memory
	 * (tly_sys_child_shares_memory). Returns the pid, or -1 with errno. */
	pid_t (*spawn)(int (*child)(void *arg), void *arg, void *stack_top);
	pid_t (*wait4)(pid_t pid, int *status, int options, struct rusage *rusage);
	/* The held child's own calls, between its spawn and exec: async-signal-safe system calls only, none
	 * that the parent makes through this table (so that a test can fail the child's calls alone), and
	 * none that touches errno: the child shares the memory of the thread that launched it, errno
	 * included. Each returns the system call's result, or the negative errno. */
	long (*child_close)(int fd);
	long (*child_recv)(int fd, void *buf, size_t len);
	long (*child_signal)(int signo, bool ignore);   /* SIG_IGN, else SIG_DFL */
	long (*child_pin)(const cpu_set_t *cpus);       /* sched_setaffinity of itself */
	long (*child_unblock)(void);                    /* an empty signal mask */
	long (*child_write)(int fd, const void *buf, size_t len);
	long (*child_execve)(const char *path, char *const argv[], char *const envp[]);
	/* Waiting for the tasks of a pid or tid target to exit (target.c). */
	int (*pidfd_open)(pid_t pid, unsigned int flags);
	int (*poll)(struct pollfd *fds, nfds_t nfds, int timeout_ms);
	/* The clocks of the tool events (tool_events.c, target_cputime.c), so that tests fix their values. */
	int (*clock_gettime)(clockid_t clock, struct timespec *ts);
	int (*getrusage)(int who, struct rusage *usage);
};

/* Whether the real spawn shares the caller's memory with the child: not under AddressSanitizer (the child
 * would poison the caller's shadow memory) nor valgrind (which cannot follow such a clone), and only where
 * the child's calls can be made without errno (x86_64, aarch64). */
bool tly_sys_child_shares_memory(void);

/* The real system calls. */
extern const struct tly_sys tly_sys_real;

/* The table in force. Global by design: fault injection must reach every call site without threading
 * a context through each of them. Only tests change it (tly_sys_replace), before they start threads. */
extern const struct tly_sys *tly_sys;

/* Installs a table (NULL restores the real one) and returns the previous one. Not thread-safe. */
const struct tly_sys *tly_sys_replace(const struct tly_sys *table);

#endif
