/* SPDX-License-Identifier: MIT */
/* Groups that were enabled but never ran on the PMU (time_running 0 with time_enabled > 0): a group the
 * kernel accepted at open but can never schedule (more members than free counters). */
#include "counter/counter.h"

#include "diagnose/diagnose.h"

#include <errno.h>
#include <string.h>

/* The halves of a split group from group h on (`halves` of them) that could not be reopened because the
 * target's tasks are gone: out of the plan, each member read not counted with its note (the idle
 * explanation, and why it stays so) until the next open. *next: the group after them. */
static int leave_closed(tally_counter *c, size_t h, int halves, size_t *next)
{
	for (int half = 0; half < halves && h < c->plan.nr_groups; half++) {
		tly_counter_drop_group(c, h);
		while (h < c->plan.nr_groups) {
			size_t size = tly_plan_size(&c->plan, h);
			struct tly_counter_event *e = &c->ev[tly_plan_members(&c->plan, h)[0]];
			e->gone = true;
			e->group = -1;
			/* The split note said the next read counts it: not so. */
			char *split = strstr(e->note, "tally split this group");
			if (split)
				*split = '\0';
			for (size_t len = strlen(e->note); len && e->note[len - 1] == '\n';)
				e->note[--len] = '\0';
			tly_counter_note_add(e, "its tasks had exited when tally reopened its halves, so it was not "
			                     "counted");
			tly_plan_remove(&c->plan, h, 0);
			if (size == 1)
				break;
		}
	}
	tly_counter_lean_refresh(c);
	*next = h;
	return 0;
}

/* A group that was enabled but never ran: explain it on every member and, when tally made the group,
 * halve it and reopen both halves (enabled if the counter runs). */
int tly_counter_split_idle_group(tally_counter *c, size_t g, uint64_t enabled, size_t *next)
{
	const size_t *m = tly_plan_members(&c->plan, g);
	size_t size = tly_plan_size(&c->plan, g);
	char why[NOTE_MAX];
	/* A read probes nothing: the facts only if a failure of this open already probed them. */
	tly_diagnose_not_counted(c->ev[m[0]].name, size, enabled, c->facts.probed ? &c->facts.facts : NULL, why,
	                         sizeof(why));
	bool split = c->plan.packed[g] && size > 1;
	bool topdown = c->ev[m[0]].topdown == TLY_TOPDOWN_SLOTS;
	for (size_t k = 0; k < size; k++) {
		struct tly_counter_event *e = &c->ev[m[k]];
		e->note[0] = '\0';
		tly_counter_note_add(e, "%s", why);
		if (split)
			tly_counter_note_add(e, "tally split this group of %zu in two and reopened it; the next read "
			                     "counts it", size);
		else if (topdown && e->topdown == TLY_TOPDOWN_METRIC)
			tly_counter_note_add(e, "a topdown metric event opens only in a group led by slots, so this "
			                     "group is not split");
	}
	*next = g + 1;
	if (!split)
		return 0;

	tly_counter_drop_group(c, g);
	tly_plan_split(&c->plan, g, size / 2);
	size_t h = g;
	for (int half = 0; half < 2 && h < c->plan.nr_groups; half++) {
		int r = tly_counter_open_group(c, h);
		/* The target's tasks are gone (a command that exited before the read that found its group
		 * idle: the kernel refuses an exited task, ESRCH): nothing is left to count, so the halves stay
		 * closed, not counted, rather than failing the read that reports the rest. */
		if (r == -ESRCH)
			return leave_closed(c, h, half == 0 ? 2 : 1, next);
		if (r < 0)
			return r;
		if (r == 1 && c->started) {
			int err = tally_evsel_enable(tly_counter_leader(c, h));
			if (err)
				return err;
		}
		h += (size_t)r;
	}
	*next = h;
	return 0;
}
