/* SPDX-License-Identifier: MIT */
#include "target.h"

#include "cpumap.h"
#include "error.h"
#include "opts.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* The thread map of a target; NULL (the calling thread) for TALLY_TARGET_THREAD. */
static int resolve_threads(const struct tally_target *target, struct tly_target *out)
{
	switch (out->kind) {
	case TALLY_TARGET_THREAD:
		return 0;
	case TALLY_TARGET_PROCESS:
		return tally_threads_of_pid(getpid(), &out->threads);
	case TALLY_TARGET_PID:
		if (TLY_OPT(target, pid, 0) <= 0)
			return tly_error(-EINVAL, "target pid %d: expected a positive pid",
			                 (int)TLY_OPT(target, pid, 0));
		return tally_threads_of_pid(target->pid, &out->threads);
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
	if (!tly_opts_valid(target, sizeof(*target), "tally_target"))
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
