/* SPDX-License-Identifier: MIT */
/* Start, stop and reset: each start or reset begins a window, and every read until the next one is relative
 * to it (the kernel's reset zeroes counts but leaves the times running and what exited children added). */
#include "counter/counter.h"

#include "core/error.h"

tally_evsel *tly_counter_leader(const tally_counter *c, size_t g)
{
	return c->ev[tly_plan_members(&c->plan, g)[0]].evsel;
}

/* A system call on group g failed with err, and the counter gives up: the cause and fix of the failure
 * the evsel layer recorded, with the facts of this open. */
int tly_counter_explain_group_failure(tally_counter *c, size_t g, int err)
{
	return tly_diag_evsel(tly_counter_leader(c, g), err, tly_facts_cache_get(&c->facts));
}

static int each_leader(tally_counter *c, int (*op)(tally_evsel *))
{
	for (size_t g = 0; g < c->plan.nr_groups; g++) {
		int err = op(tly_counter_leader(c, g));
		if (err)
			return tly_counter_explain_group_failure(c, g, err);
	}
	return 0;
}

/* Resets group g and notes its times as the start of a new window, slot by slot: one read(2) each.
 * Stopped, the times stand still between the reset and the next enable, so the window is exact; running
 * (tally_counter_reset), it begins at this read, a few hundred ns after the reset. */
static int begin_window(tally_counter *c, size_t g)
{
	const size_t *m = tly_plan_members(&c->plan, g);
	struct tly_counter_event *leader = &c->ev[m[0]];
	size_t size = leader->stride, slot = 0;
	uint64_t epoch = ++c->epochs;
	for (size_t k = 0; k < size; k++)
		c->ev[m[k]].epoch = epoch;
	uint64_t *bases = c->bases + (leader->counts - c->counts);
	int err = tally_evsel_reset(leader->evsel);
	leader->has_bases = false;
	for (size_t ci = 0; ci < leader->ncpus && !err; ci++) {
		for (size_t ti = 0; ti < leader->nthreads && !err; ti++, slot++) {
			struct tally_count *block = leader->counts + slot * size;
			err = tally_evsel_read_group(leader->evsel, ci, ti, block, size, sizeof(*block));
			if (!err && leader->user && leader->user->td)
				err = tly_user_group_topdown_begin(leader->user, block);
			if (err)
				break;
			leader->window[slot] = (struct tly_window){ .start_enabled = block->enabled,
				                                    .start_running = block->running };
			for (size_t k = 0; k < size; k++) {
				bases[slot * size + k] = block[k].value;
				leader->has_bases |= block[k].value != 0;
			}
		}
	}
	return err;
}

/* Every group begins a new window: reads count from zero. */
static int begin_windows(tally_counter *c)
{
	int err = 0;
	size_t g;
	for (g = 0; g < c->plan.nr_groups && !err; g++)
		err = begin_window(c, g);
	/* New window starts and bases, whatever became of the rest. */
	tly_counter_lean_refresh(c);
	return err ? tly_counter_explain_group_failure(c, g - 1, err) : 0;
}

int tally_counter_start(tally_counter *c)
{
	if (!c)
		return tly_error(-EINVAL, "tally_counter_start: NULL counter");
	if (!c->open)
		return tly_counter_not_open(c, "tally_counter_start");
	struct tly_command *cmd = &c->target.command;
	bool launch = cmd->pid > 0 && !cmd->released;
	if (launch && c->target.kind == TALLY_TARGET_COMMAND) {
		/* enable_on_exec starts the counting at the exec itself; the times are still those of the open
		 * (zero), so the windows need no reading. */
		c->started = c->windowed = true;
		/* Tool events have no enable_on_exec: they start with the command's release, as perf's clock
		 * starts before it starts its workload. */
		int err = each_leader(c, tly_evsel_enable_tool);
		if (!err)
			err = tly_command_release(cmd);
		return err ? tly_counter_fail(c, err) : 0;
	}
	/* Reset every group before enabling any, so that the groups' windows differ as little as possible. */
	int err = begin_windows(c);
	if (!err)
		err = each_leader(c, tally_evsel_enable);
	if (err)
		return tly_counter_fail(c, err);
	c->started = c->windowed = true;
	tly_counter_user_stop(c, false);
	/* A command that only bounds the counting of another target starts once the events count, as perf
	 * stat starts its workload. */
	if (launch) {
		err = tly_command_release(cmd);
		if (err)
			return tly_counter_fail(c, err);
	}
	return 0;
}

int tally_counter_resume(tally_counter *c)
{
	if (!c)
		return tly_error(-EINVAL, "tally_counter_resume: NULL counter");
	if (!c->open)
		return tly_counter_not_open(c, "tally_counter_resume");
	if (!c->windowed)
		return tally_counter_start(c);
	if (c->started)
		return 0;
	int err = each_leader(c, tally_evsel_enable);
	if (err)
		return tly_counter_fail(c, err);
	c->started = true;
	tly_counter_user_stop(c, false);
	return 0;
}

int tally_counter_stop(tally_counter *c)
{
	if (!c)
		return tly_error(-EINVAL, "tally_counter_stop: NULL counter");
	if (!c->open)
		return tly_counter_not_open(c, "tally_counter_stop");
	/* Reads go through read(2) from now on, whatever the pages say (tly_user_group_stop). */
	tly_counter_user_stop(c, true);
	int err = each_leader(c, tally_evsel_disable);
	if (err)
		return tly_counter_fail(c, err);
	c->started = false;
	return 0;
}

int tally_counter_reset(tally_counter *c)
{
	if (!c)
		return tly_error(-EINVAL, "tally_counter_reset: NULL counter");
	if (!c->open)
		return tly_counter_not_open(c, "tally_counter_reset");
	int err = begin_windows(c);
	return err ? tly_counter_fail(c, err) : 0;
}
