/* SPDX-License-Identifier: MIT */
#include "target.h"

#include "cpumap.h"
#include "error.h"
#include "opts.h"
#include "threadmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
		if (nr_pids)
			return threads_of_pids(TLY_OPT(target, pids, NULL), nr_pids, &out->threads);
		return threads_of_pids(&target->pid, 1, &out->threads);
	}
	case TALLY_TARGET_TIDS:
		return tally_threads_new(TLY_OPT(target, tids, NULL), TLY_OPT(target, nr_tids, 0), &out->threads);
	case TALLY_TARGET_COMMAND: {
		int err = tly_command_fork(&out->command, TLY_OPT(target, argv, NULL));
		if (err)
			return err;
		return tally_threads_new(&out->command.pid, 1, &out->threads);
	}
	case TALLY_TARGET_CPUS:
		return tally_threads_any(&out->threads);
	}
	return tly_error(-EINVAL, "unknown target kind %d", (int)out->kind);
}

int tly_target_resolve(const struct tally_target *target, const char *sysfs_root, bool no_inherit,
                       struct tly_target *out)
{
	memset(out, 0, sizeof(*out));
	out->command.go_fd = out->command.exec_err_fd = -1;
	if (!TLY_OPTS_VALID(target, tally_target))
		return -TALLY_EOPTS;
	out->kind = TLY_OPT(target, kind, TALLY_TARGET_THREAD);
	out->cpu_wide = out->kind == TALLY_TARGET_CPUS;
	out->enable_on_exec = out->kind == TALLY_TARGET_COMMAND;
	/* Only targets that name a whole process follow what it creates; a thread or a tid list is exact. */
	out->inherit = !no_inherit && (out->kind == TALLY_TARGET_PROCESS || out->kind == TALLY_TARGET_PID ||
	                               out->kind == TALLY_TARGET_COMMAND);

	int err = resolve_threads(target, out);
	if (!err && out->cpu_wide) {
		const char *list = TLY_OPT(target, cpus, NULL);
		err = list ? tally_cpus_parse(list, &out->cpus) : tally_cpus_online(sysfs_root, &out->cpus);
	}
	if (err)
		tly_target_fini(out);
	return err;
}

void tly_target_fini(struct tly_target *target)
{
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
