/* SPDX-License-Identifier: MIT */
/* The events an open leaves out (tally_counter_select): a caller that cannot count every group at once
 * without multiplexing (tally stat --no-multiplex) opens the counter once per set of groups, each open
 * counting one set, and keeps every event's reading from the open that counted it; the event indices,
 * names and metrics stay those of the whole spec. */
#include "counter/counter.h"

#include "core/error.h"

#include <stdlib.h>

int tally_counter_select(tally_counter *c, const bool *selected, size_t n)
{
	if (!c)
		return tly_error(-EINVAL, "tally_counter_select: NULL counter");
	if (c->open)
		return tly_counter_fail(c, tly_error(-TALLY_ESTATE, "tally_counter_select: the counter is open (select "
		                                     "before tally_counter_open, or after tally_counter_close)"));
	if (selected && n != c->nr)
		return tly_counter_fail(c, tly_error(-EINVAL, "tally_counter_select: %zu flags for a counter of %zu "
		                                     "events", n, c->nr));
	for (size_t i = 0; i < c->nr; i++)
		c->ev[i].left_out = selected && !selected[i];
	return 0;
}

void tly_counter_plan_select(tally_counter *c, struct tly_plan *plan)
{
	for (size_t g = 0; g < plan->nr_groups;) {
		size_t before = plan->nr_groups;
		for (size_t k = 0; k < tly_plan_size(plan, g);) {
			struct tly_counter_event *e = &c->ev[tly_plan_members(plan, g)[k]];
			if (!e->left_out) {
				k++;
				continue;
			}
			tly_counter_note_add(e, "left out of this open (tally_counter_select): another open counts it");
			bool last = tly_plan_size(plan, g) == 1;
			tly_plan_remove(plan, g, k);
			if (last)
				break;
		}
		g += plan->nr_groups == before;
	}
}
