/* SPDX-License-Identifier: MIT */
/*
 * tally: count CPU performance-monitoring events. `tally stat`, `tally list`, `tally doctor`.
 *
 * tally never calls setlocale(): the C library stays in the "C" locale, so every number it prints uses
 * '.' as the decimal point whatever LC_ALL or LANG say (CSV and JSON readers depend on it).
 */
#include <stdio.h>
#include <string.h>

#include <tally/common.h>

#include "commands.h"
#include "stream.h"

/* What tally printed on stdout (a listing, a report, --help) must have reached it: `tally list >
 * /dev/full` fails with a message and status 1, as perf list does, instead of exiting 0 with nothing
 * written. A status that already says a failure is kept. */
static int close_stdout(const char *command, int status)
{
	int err = stream_flush(stdout);
	if (err == 0)
		return status;
	fprintf(stderr, "tally%s%s: cannot write to standard output: %s\n", command ? " " : "", command ? command : "",
	        stream_strerror(err));
	return status ? status : 1;
}

static void usage(FILE *out)
{
	fputs("usage: tally <command> [options]\n"
	      "\n"
	      "  stat [options] [--] command [args...]   count events while a command runs (perf stat's flags)\n"
	      "  list [PATTERN] [--pfm] [--json]         the events usable on this machine\n"
	      "  doctor [--json]                         what this machine allows, and how to fix what it does not\n"
	      "\n"
	      "  tally <command> --help    options of one command\n"
	      "  tally --version           the version\n"
	      "\n"
	      "See tally(1).\n",
	      out);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv);
	} commands[] = {
		{ "stat", command_stat },
		{ "list", command_list },
		{ "doctor", command_doctor },
	};
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return close_stdout(NULL, 0);
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("tally %s\n", tally_version());
		return close_stdout(NULL, 0);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return close_stdout(commands[i].name, commands[i].run(argc - 1, argv + 1));
	fprintf(stderr, "tally: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
