/* SPDX-License-Identifier: MIT */
#include "stat/regions.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int regions_prepare(struct regions *r, const char *events, const char *metrics, bool json, bool csv)
{
	const char *suffix = json ? ".json" : csv ? ".csv" : ".txt";
	const char *dir = getenv("TMPDIR");
	int n = snprintf(r->path, sizeof(r->path), "%s/tally-regions-XXXXXX%s", dir && *dir ? dir : "/tmp", suffix);
	if (n < 0 || (size_t)n >= sizeof(r->path))
		n = snprintf(r->path, sizeof(r->path), "/tmp/tally-regions-XXXXXX%s", suffix);
	int fd = mkstemps(r->path, (int)strlen(suffix));
	if (fd < 0) {
		r->path[0] = '\0';
		return -errno;
	}
	close(fd);
	/* The command's own TALLY_OUTPUT would take its results from tally: --regions asks for them. */
	if (setenv("TALLY_OUTPUT", r->path, 1) != 0 || (events && setenv("TALLY_EVENTS", events, 1) != 0) ||
	    (metrics && setenv("TALLY_METRICS", metrics, 1) != 0))
		return -errno;
	return 0;
}

char *regions_take(struct regions *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	FILE *in = fopen(r->path, "re");
	if (out && in) {
		char buf[4096];
		for (size_t got; (got = fread(buf, 1, sizeof(buf), in)) > 0;)
			fwrite(buf, 1, got, out);
	}
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	unlink(r->path);
	return text;
}
