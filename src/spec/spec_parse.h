/* SPDX-License-Identifier: MIT */
/* The grammar of event specs, as perf 6.1 writes them (tally-events(7) has every form with an example):
 *
 *   spec     := item (',' item)*
 *   item     := [group-name] '{' event (',' event)* '}' [':' mods] | event
 *   event    := pfm-name                         "PMU::EVENT[:...]", everything up to ',' or '}'
 *             | pmu '/' [terms] '/' [[':'] mods]
 *             | name ['/' [terms] '/'] [[':'] mods]   generic, software, cache, rNNN, sysfs alias
 *             | type ':' config ['/' [terms] '/'] [[':'] mods]   numbers, decimal or 0x hex
 *             | subsystem ':' tracepoint [':' mods]   tracefs, globs allowed
 *             | 'mem:' addr ['/' len] [':' rwx] [':' mods]
 *   terms    := term (',' term)*; after a name or type:config only config, config1, config2, name, rNNN
 *   term     := format ['=' value] | config[12] ['=' value] | name '=' text | rNNN | event '=' alias
 *             | alias ['=1'] | generic-name
 *   text     := word | "'" chars "'" | '"' chars '"'
 *   mods     := letters of u k h G H I D e p
 *   group-name := [A-Za-z_][A-Za-z0-9_.]*
 *
 * Whitespace may stand between any two parts, never inside a name or number; a spec is ASCII. A PMU
 * family prefix (uncore_imc/.../) opens on every instance of the PMU.
 */
#ifndef TLY_SPEC_PARSE_H
#define TLY_SPEC_PARSE_H

#include "machine/pmu.h"
#include "spec/event_list.h"

/* Parses spec into list (empty on entry) against the PMU snapshot. Returns 0, or a negative code with the
 * last error set (the spec with a caret) and *error_offset (when not NULL) at the bad byte. On failure the
 * list may hold events; the caller frees it either way. Reentrant: all state lives in the call. */
int tly_spec_parse(const char *spec, const struct tally_pmus *pmus, struct tally_events *list,
                   size_t *error_offset);

#endif
