/* SPDX-License-Identifier: MIT */
/* The paths a test saw the library open or list, through the system-call table (core/sys.h): a test that
 * must show a file was read, or was not (the vendor tables only when a name needs them, the topology only
 * when a literal asks), reads them in noted_opens after noting_start. */
#ifndef TALLY_TEST_NOTED_OPENS_H
#define TALLY_TEST_NOTED_OPENS_H

#include "core/sys.h"

#include <stdio.h>
#include <string.h>

/* Every path opened or listed since the last noting_start (or reset), one per line. */
static char noted_opens[1 << 16];

static inline void noted_open_add(const char *path)
{
	size_t used = strlen(noted_opens);
	snprintf(noted_opens + used, sizeof(noted_opens) - used, "%s\n", path);
}

static inline int noting_open(const char *path, int flags)
{
	noted_open_add(path);
	return tly_sys_real.open(path, flags);
}

static inline DIR *noting_opendir(const char *path)
{
	noted_open_add(path);
	return tly_sys_real.opendir(path);
}

/* Puts the noting table in force with nothing noted yet; returns the table to put back
 * (tly_sys_replace). */
static inline const struct tly_sys *noting_start(void)
{
	static struct tly_sys table;
	table = tly_sys_real;
	table.open = noting_open;
	table.opendir = noting_opendir;
	noted_opens[0] = '\0';
	return tly_sys_replace(&table);
}

#endif
