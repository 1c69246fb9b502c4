/* SPDX-License-Identifier: MIT */
/* Lists of ids as perf takes them for -p and -t: "1234,1240" (ranges "a-b" too). CPU lists (-C, --pin)
 * go through the library's tally_cpus_parse, which the events are opened with. */
#ifndef TALLY_TOOLS_CPU_LIST_H
#define TALLY_TOOLS_CPU_LIST_H

#include <stddef.h>

/* Parses text into a sorted, duplicate-free array of non-negative ints (malloc'd, *out). Ranges "a-b"
 * need a <= b. Returns the count, or -1 on malformed text or a value above max. */
long cpu_list_parse(const char *text, int max, int **out);

#endif
