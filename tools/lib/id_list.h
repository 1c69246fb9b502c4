/* SPDX-License-Identifier: MIT */
/* Lists of ids as perf takes them for -p and -t: "1234,1240" (ranges "a-b" too). CPU lists (-C, --pin)
 * go through the library's tally_cpus_parse, which the events are opened with, and are written back
 * with tally_cpus_format. */
#ifndef TALLY_TOOLS_ID_LIST_H
#define TALLY_TOOLS_ID_LIST_H

#include <stddef.h>

/* Parses text into a sorted, duplicate-free array of ints in [min, max] (malloc'd, *out). Ranges "a-b"
 * need a <= b. Returns the count, or -1 on malformed text (a sign, an empty item) or a value out of
 * range. */
long id_list_parse(const char *text, int min, int max, int **out);

#endif
