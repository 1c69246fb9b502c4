/* SPDX-License-Identifier: MIT */
/*
 * `tally exporter`: the daemon is a program of its own, tally-exporter, beside tally (the build tree's
 * tools/, or the installed bindir), so that only it links libmicrohttpd: every `tally stat` would
 * otherwise load it and its TLS libraries at start-up. It is built where libmicrohttpd and libxcrypt
 * were found.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <tally/common.h>

#include "exporter_launch.h"

int command_exporter(int argc, char **argv)
{
	(void)argc;
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	if (n > 0) {
		path[n] = '\0';
		char *slash = strrchr(path, '/');
		snprintf(slash ? slash + 1 : path, 32, "tally-exporter");
		argv[0] = path;
		execv(path, argv);
	}
	argv[0] = "tally-exporter";
	execvp("tally-exporter", argv);
	fprintf(stderr, "tally exporter: cannot run tally-exporter (%s): it is built only where GNU libmicrohttpd "
	        "and libxcrypt were found (apt-get install libmicrohttpd-dev libcrypt-dev, then build again)\n",
	        tally_strerror(errno));
	return 127;
}
