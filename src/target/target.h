/* SPDX-License-Identifier: MIT */
/* What a counter opens on: a public tally_target turned into CPU and thread maps plus attr flags. */
#ifndef TLY_TARGET_H
#define TLY_TARGET_H

#include "target/cgroup.h"
#include "target/command.h"

#include <poll.h>
#include <stdbool.h>
#include <tally/counter.h>
#include <tally/evlist.h>

struct tly_target {
	enum tally_target_kind kind;
	tally_cpus *cpus;        /* NULL: any CPU (the events follow their threads) */
	tally_threads *threads;  /* NULL: the calling thread; {-1} for CPU-wide counting */
	bool inherit;            /* attr.inherit: children and threads created after open count too */
	bool cpu_wide;           /* pid == -1: every task on the CPUs */
	bool enable_on_exec;     /* attr.enable_on_exec: a launched command starts counting at its exec */
	struct tly_command command;  /* pid 0 when the target launches no command */
	/* A pid or tid target: the processes (or threads) whose exit ends it, and their pidfds, opened at
	 * the first wait (negative: not yet, gone, or looked for in /proc). */
	pid_t *tasks;
	int *task_fds;
	struct pollfd *polls;    /* room to poll them all and a wake-up descriptor */
	size_t nr_tasks;
	int *cgroup_fds;         /* TALLY_TARGET_CGROUPS: each cgroup's directory (-1 for ""), nr_cgroups */
	size_t nr_cgroups;
	/* The thread whose open the kernel refused with ESRCH at the last failed open (0: none): gone, or
	 * exiting while /proc still lists it running. */
	pid_t refused;
};

/* attr.inherit and attr.enable_on_exec for a target of this kind (what tly_target_resolve sets). */
bool tly_target_inherits(enum tally_target_kind kind, bool no_inherit);
bool tly_target_enables_on_exec(enum tally_target_kind kind);

/* Resolves target (NULL: the calling thread). A command target forks the command here (held before its
 * exec). no_inherit turns inherit off for process, pid and command targets. On failure nothing is left
 * behind and the last error says why. */
int tly_target_resolve(const struct tally_target *target, const char *sysfs_root, bool no_inherit,
                       struct tly_target *out);

/* Drops from the threads a target listed from /proc (TALLY_TARGET_ALL_THREADS, _PID, _PROCESS) the
 * refused one and those that no longer exist, after the kernel's ESRCH, and clears refused. Returns how
 * many were dropped; 0 when none was, when none would be left, or for another kind of target. */
size_t tly_target_prune_gone(struct tly_target *target);

/* The target's CPU time so far, ns in user and system mode, for the tool events user_time and
 * system_time (a tly_tool_cpu_time_fn on the target; the sources are in target_cputime.c). */
int tly_target_cpu_time(void *target, uint64_t *user_ns, uint64_t *system_ns, bool *ended);

/* Waits until every task of a pid or tid target has exited, for at most timeout_ms (-1: no limit), or
 * until wake_fd (-1: none) is readable or a signal handler ran. Returns 1 when every task is gone, 0
 * otherwise, or a negative code; another kind of target: -TALLY_ESTATE. */
int tly_target_wait_tasks(struct tly_target *target, int timeout_ms, int wake_fd);

/* Raises the soft RLIMIT_NOFILE toward the hard limit when `need` more descriptors would not fit under it
 * with room for the rest of the process, as perf does; a limit that cannot be raised is left to the
 * open's EMFILE, which explains it. */
void tly_target_raise_nofile(size_t need);

/* Releases the maps and ends a launched command (see tly_command_end). */
void tly_target_fini(struct tly_target *target);

/* The CPUs an event of a PMU with this cpu restriction (its sysfs `cpumask`, or `cpus` on hybrid core
 * PMUs; NULL for none) opens on: for CPU-wide targets the target's CPUs within the mask, otherwise the
 * target's CPUs as they are. *out NULL means any CPU. None of the CPUs in the mask: -ENODEV. */
int tly_target_event_cpus(const struct tly_target *target, const char *mask, tally_cpus **out);

#endif
