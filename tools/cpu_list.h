/* SPDX-License-Identifier: MIT */
/* Lists of numbers as sysfs and perf write them: "0-3,8,10-11" (CPUs), "1234,1240" (pids). */
#ifndef TALLY_TOOLS_CPU_LIST_H
#define TALLY_TOOLS_CPU_LIST_H

#include <stddef.h>

/* Parses text into a sorted, duplicate-free array of non-negative ints (malloc'd, *out). Ranges "a-b"
 * need a <= b. Returns the count, or -1 on malformed text or a value above max. */
long cpu_list_parse(const char *text, int max, int **out);

#endif
