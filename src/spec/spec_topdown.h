/* SPDX-License-Identifier: MIT */
/* The kernel's topdown grouping rules applied to a parsed spec: slots leads every group of metric events,
 * and is added where the spec has none (spec_topdown.c says how and why). */
#ifndef TLY_SPEC_TOPDOWN_H
#define TLY_SPEC_TOPDOWN_H

#include "machine/pmu.h"
#include "spec/event_list.h"

/* Marks each event's topdown kind, moves slots first in each {...} group with metric events, and adds
 * a slots event where metric events have none (in their group, or outside braces for their PMU), each
 * added one an origin of its own from *next_origin on. The {...} groups' events are contiguous (as the
 * parser leaves them). Returns 0 or -ENOMEM. */
int tly_spec_topdown(struct tally_events *list, const struct tally_pmus *pmus, unsigned *next_origin);

#endif
