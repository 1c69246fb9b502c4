/* SPDX-License-Identifier: MIT */
/*
 * The fields of a struct perf_event_attr that are set, each with its value spelled as <linux/perf_event.h>
 * (and <linux/hw_breakpoint.h>) spell it where they have a name for it: what `tally encode` prints as
 * text, JSON and C. Generic over the attr: every field the installed header has is looked at, so a new
 * kind of event needs nothing here.
 */
#ifndef TALLY_TOOLS_ATTR_NAMES_H
#define TALLY_TOOLS_ATTR_NAMES_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

struct attr_field {
	const char *name;   /* as a designated initializer names it: "config", "bp_addr", "exclude_kernel" */
	uint64_t value;     /* clockid, the one signed field, sign-extended */
	bool hex;           /* a code or a mask, better read in hex */
	bool is_signed;
	/* The value as a C expression over the headers' names ("PERF_TYPE_SOFTWARE", "PERF_FORMAT_ID |
	 * PERF_FORMAT_GROUP", "sizeof(struct perf_event_attr)"), "" when they have none for it. */
	char symbol[192];
	bool needs_hw_breakpoint_h; /* symbol uses <linux/hw_breakpoint.h> */
};

/* Calls fn for every field of attr that is not zero, and for type, size and config always, in the order
 * of the struct. */
void attr_fields_each(const struct perf_event_attr *attr, void (*fn)(const struct attr_field *field, void *arg),
                      void *arg);

#endif
