/* SPDX-License-Identifier: MIT */
/* A folder of files a test writes (a perf-format pmu-events tree for TALLY_PMU_EVENTS, a sysfs corner),
 * made under /tmp and removed whole. */
#ifndef TALLY_TEST_TEMP_TREE_H
#define TALLY_TEST_TEMP_TREE_H

#include "harness.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* Writes text to dir/name; a NULL text makes dir/name a folder. */
static inline void tree_write(const char *dir, const char *name, const char *text)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!text) {
		CHECK_INT(mkdir(path, 0700), 0);
		return;
	}
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A new folder in dir[] (a mkdtemp template such as "/tmp/tally-tree-XXXXXX") holding files, pairs of
 * (name, text) as tree_write takes them, ending with a NULL name: folders before what they hold. */
static inline void tree_make(char *dir, const char *const (*files)[2])
{
	CHECK(mkdtemp(dir) != NULL);
	for (size_t i = 0; files[i][0]; i++)
		tree_write(dir, files[i][0], files[i][1]);
}

static inline int tree_remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	if (remove(path))
		CHECK(!"removed");
	return 0;
}

/* Removes dir and everything in it. */
static inline void tree_remove(const char *dir)
{
	CHECK_INT(nftw(dir, tree_remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

#endif
