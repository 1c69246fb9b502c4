/* SPDX-License-Identifier: MIT */
/*
 * Hardware breakpoints as perf 6.1 writes them: mem:ADDR[/LEN][:ACCESS], ADDR and LEN decimal or 0x
 * hex, ACCESS one to three of r w x (perf's lexer: modifier_bp [rwx]{1,3}). Event modifiers may follow,
 * after ':' or straight after the access letters (mem:0x1000:wu is w, then u), as perf takes them.
 */
#ifndef TLY_BREAKPOINT_H
#define TLY_BREAKPOINT_H

#include "spec/spec_terms.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether an event spec item starting at s (len bytes left) is a breakpoint: it starts with "mem:". */
bool tly_breakpoint_is(const char *s, size_t len);

/* Reads the breakpoint at s (len bytes left in the spec, starting with "mem:") into attr: type
 * PERF_TYPE_BREAKPOINT, bp_addr, bp_len and bp_type with perf's defaults (rw; 4 bytes, or sizeof(long)
 * for x alone). *used receives the bytes read: what follows is the item's end or its modifiers. Returns
 * 0, or -1 with err (offset relative to s). */
int tly_breakpoint_parse(const char *s, size_t len, struct perf_event_attr *attr, size_t *used,
                         struct tly_term_error *err);

/* The access letters of a bp_type, "rw" for HW_BREAKPOINT_RW, in out; returns out. */
const char *tly_breakpoint_access(uint32_t bp_type, char out[static 4]);

/* The canonical text of a breakpoint attr, "mem:0x1000/4:rw" (malloc'd; NULL when out of memory). */
char *tly_breakpoint_text(const struct perf_event_attr *attr);

#endif
