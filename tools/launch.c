/* SPDX-License-Identifier: MIT */
#include "launch.h"

#include <errno.h>
#include <sched.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>

extern char **environ;

int launch_pin(pid_t pid, const tally_cpus *cpus)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	for (size_t i = 0; i < tally_cpus_count(cpus); i++) {
		int cpu = tally_cpus_at(cpus, i);
		if (cpu >= 0 && cpu < CPU_SETSIZE)
			CPU_SET(cpu, &set);
	}
	return sched_setaffinity(pid, sizeof(set), &set) < 0 ? -errno : 0;
}

pid_t launch_command(char *const *argv, const tally_cpus *cpus)
{
	/* The affinity is inherited through fork and exec: pin tally for the spawn, then restore it, so the
	 * command never runs a single instruction elsewhere. */
	cpu_set_t saved;
	bool pinned = false;
	if (cpus) {
		if (sched_getaffinity(0, sizeof(saved), &saved) < 0)
			return -errno;
		int err = launch_pin(0, cpus);
		if (err < 0)
			return err;
		pinned = true;
	}
	pid_t pid;
	/* glibc's posix_spawnp reports a failed exec as its return value (it waits for the exec). */
	int err = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
	if (pinned)
		sched_setaffinity(0, sizeof(saved), &saved);
	return err ? -err : pid;
}

int launch_wait(pid_t pid, double *user, double *sys)
{
	int status;
	struct rusage ru;
	pid_t got;
	do
		got = wait4(pid, &status, 0, &ru);
	while (got < 0 && errno == EINTR);
	if (got < 0) {
		*user = *sys = 0;
		return 127;
	}
	*user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	*sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
