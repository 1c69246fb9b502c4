/* SPDX-License-Identifier: MIT */
/* The grammar of event specs, as perf writes them:
 *
 *   spec     := item (',' item)*
 *   item     := '{' event (',' event)* '}' [':' mods] | event
 *   event    := pfm-name                       "PMU::EVENT[:...]", everything up to ',' or '}'
 *             | pmu '/' [terms] '/' [[':'] mods]
 *             | name [':' mods]                 generic, software, cache, rNNN, sysfs alias
 *   mods     := letters of u k h G H I D e p
 */
#ifndef TLY_SPEC_PARSE_H
#define TLY_SPEC_PARSE_H

#include "event_list.h"
#include "pmu.h"

/* Parses spec into list (empty on entry) against the PMU snapshot. Returns 0, or a negative code with the
 * last error set (the spec with a caret) and *error_offset (when not NULL) at the bad byte. On failure the
 * list may hold events; the caller frees it either way. Reentrant: all state lives in the call. */
int tly_spec_parse(const char *spec, const struct tally_pmus *pmus, struct tally_events *list,
                   size_t *error_offset);

#endif
