/* SPDX-License-Identifier: MIT */
/* What every file of the counting engine reports through: a public call's failure kept on the handle, and
 * the notes of its events. A file of its own so that the handle (counter.c) and the open (counter_open.c),
 * which both use it, depend on each other one way only: counter.c frees through tally_counter_close. */
#include "counter/counter.h"

#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Every public call that fails on a handle keeps the explanation on it too. */
int tly_counter_fail(tally_counter *c, int err)
{
	snprintf(c->last_error, sizeof(c->last_error), "%s", tally_last_error());
	return tly_give_up(err);
}

int tly_counter_not_open(tally_counter *c, const char *fn)
{
	return tly_counter_fail(c, tly_error(-TALLY_ESTATE, "%s: the counter is not open", fn));
}

void tly_counter_note_add(struct tly_counter_event *e, const char *fmt, ...)
{
	e->has_note = true;
	size_t used = strlen(e->note);
	if (used && used + 1 < NOTE_MAX)
		e->note[used++] = '\n', e->note[used] = '\0';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->note + used, NOTE_MAX - used, fmt, ap);
	va_end(ap);
}
