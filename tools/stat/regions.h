/* SPDX-License-Identifier: MIT */
/*
 * tally stat --regions: the command's named regions (libtally's zero-configuration regions, tally/region.h)
 * are written by the command itself, at its exit, to a private file that tally names in TALLY_OUTPUT
 * (and TALLY_EVENTS from -e, TALLY_METRICS from -M and --topdown); tally prints that file after its own
 * counts.
 */
#ifndef TALLY_TOOLS_REGIONS_H
#define TALLY_TOOLS_REGIONS_H

#include <stdbool.h>

struct regions {
	char path[64]; /* "" when --regions was not given */
};

/* Makes the private file (.json, .csv or .txt: the format the command writes) and sets the environment the
 * command inherits. 0, or -errno. */
int regions_prepare(struct regions *r, const char *events, const char *metrics, bool json, bool csv);

/* The file's text (malloc'd; "" when the command wrote no regions), the file removed. NULL: out of memory. */
char *regions_take(struct regions *r);

#endif
