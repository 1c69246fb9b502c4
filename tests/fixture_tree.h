/* SPDX-License-Identifier: MIT */
/* Where the tests find the fixture trees (tests/fixtures/sysfs/<machine>, tests/fixtures/procfs/<name>):
 * under $TALLY_FIXTURES when CTest runs them, under tests/fixtures when a test runs by hand from the
 * source root. */
#ifndef TALLY_TEST_FIXTURE_TREE_H
#define TALLY_TEST_FIXTURE_TREE_H

#include <stdio.h>
#include <stdlib.h>
#include <tally/common.h>
#include <tally/pmu.h>

static inline const char *fixtures_dir(void)
{
	const char *dir = getenv("TALLY_FIXTURES");
	return dir ? dir : "tests/fixtures";
}

/* Writes the root of one machine's fixture sysfs tree into buf and returns buf. */
static inline const char *fixture_sysfs(char *buf, size_t len, const char *machine)
{
	snprintf(buf, len, "%s/sysfs/%s", fixtures_dir(), machine);
	return buf;
}

/* The PMU snapshot of one fixture machine (of this machine's /sys when machine is NULL); NULL, with the
 * reason printed, when it does not load. */
static inline tally_pmus *fixture_pmus(const char *machine)
{
	char root[4096];
	TALLY_OPTS(tally_pmus_opts, opts, .sysfs_root = machine ? fixture_sysfs(root, sizeof(root), machine) : NULL);
	tally_pmus *pmus = NULL;
	if (tally_pmus_load(&opts, &pmus))
		fprintf(stderr, "loading %s: %s\n", machine ? root : "/sys", tally_last_error());
	return pmus;
}

#endif
