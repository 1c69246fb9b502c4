/* SPDX-License-Identifier: MIT */
/* The container of parsed events (struct tally_events): the spec parser fills it, events.c reads it. Kept
 * apart from both so that the parser does not call back into the public accessors' file. */
#include "core/error.h"
#include "spec/event_list.h"
#include "spec/spec_modifiers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

void tly_event_release(struct tly_event *ev)
{
	free(ev->name);
	free(ev->base);
	free(ev->canonical);
	free(ev->pmu);
	free(ev->unit);
	free(ev->origin_name);
}

int tly_events_push(struct tally_events *list, struct tly_event *ev)
{
	if (list->nr == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 8;
		struct tly_event *v = realloc(list->v, cap * sizeof(*v));
		if (!v) {
			tly_event_release(ev);
			return tly_error(-ENOMEM, "out of memory while parsing an event spec");
		}
		list->v = v;
		list->cap = cap;
	}
	list->v[list->nr++] = *ev;
	return 0;
}

int tly_events_finish(struct tally_events *list)
{
	for (size_t i = 0; i < list->nr; i++) {
		struct tly_event *ev = &list->v[i];
		char mods[17];
		mods[0] = '\0';
		if (!ev->libpfm)
			tly_modifiers_text(&ev->attr, mods);
		const char *sep = !mods[0] || ev->pmu_form ? "" : ":";
		free(ev->canonical);
		if (asprintf(&ev->canonical, "%s%s%s", ev->base, sep, mods) < 0) {
			ev->canonical = NULL;
			return tly_error(-ENOMEM, "out of memory while parsing an event spec");
		}
	}
	return 0;
}
