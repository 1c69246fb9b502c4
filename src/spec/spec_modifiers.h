/* SPDX-License-Identifier: MIT */
/* Event modifiers (":u", ":kG", ":ppp", group ":D") and the perf_event_attr bits they set, as perf sets
 * them, so that a spec means the same attr in tally as in `perf stat`. */
#ifndef TLY_SPEC_MODIFIERS_H
#define TLY_SPEC_MODIFIERS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include <tally/events.h>

/* The highest precise_ip ("ppp"). */
#define TLY_MAX_PRECISE 3

/* The bits of an event written without modifiers: perf's event_attr_init() excludes the guest, since
 * `perf stat` runs without --guest; tally follows so that both tools count the same thing. */
void tly_modifiers_defaults(struct perf_event_attr *attr);

/* Clears every bit modifiers control: an event's own modifiers replace the defaults (perf's
 * get_event_modifier() with no evsel), while a group's apply on top of each member's bits. */
void tly_modifiers_clear(struct perf_event_attr *attr, bool *exclude_gh);

/* Applies modifier letters (already checked: only u k h G H I D e p W, no repeats but p; W sets no bit) from the attr's
 * current bits. *exclude_gh carries perf's "G or H was given" state between an event's own and its
 * group's modifiers. D (pinned) and e (exclusive) set their bit only when leader is true: an event's own
 * modifiers (it leads itself then) or a group's on its first event, never on a group's other members.
 * Returns -ERANGE when the precise level would pass TLY_MAX_PRECISE. */
int tly_modifiers_apply(struct perf_event_attr *attr, bool *exclude_gh, const char *letters, size_t n,
                        bool leader);

/* perf stat's --all-user and --all-kernel (tools/perf/util/stat.c, create_perf_stat_counter): the user and
 * kernel bits set over whatever the modifiers made of them, every other bit left as it is. */
void tly_modifiers_space(struct perf_event_attr *attr, enum tally_space space);

/* Writes the shortest modifier letters (at most 16, NUL-terminated) that reproduce attr's bits on a
 * fresh event; empty when the bits are the defaults. */
void tly_modifiers_text(const struct perf_event_attr *attr, char out[static 17]);

#endif
