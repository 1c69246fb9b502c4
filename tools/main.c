/* SPDX-License-Identifier: MIT */
/*
 * tally: count CPU performance-monitoring events. `tally stat`, `tally list`, `tally doctor`, `tally encode`,
 * `tally merge`, `tally compare`, `tally exporter`.
 *
 * tally never calls setlocale(): the C library stays in the "C" locale, so every number it prints uses
 * '.' as the decimal point whatever LC_ALL or LANG say (CSV and JSON readers depend on it).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <tally/common.h>

#include "describe/describe.h"
#include "exporter_launch.h"
#include "lib/stream.h"
#include "results/results.h"
#include "stat/stat.h"

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
	      "  encode [--c|--json] SPEC                the perf_event_attr of each event, opening nothing\n"
	      "  merge [-j|-x SEP] FILE...               per-rank JSON results as one report (sum, mean, min, max)\n"
	      "  compare [-r N] [-e SPEC] -- A ::: B     A against B, interleaved runs, with a 95% confidence\n"
	      "  compare A.json B.json                   interval (Welch's t); or two saved tally stat -j -r files\n"
	      "  exporter [--listen HOST:PORT] [-e SPEC] [--cgroup NAMES] [--cgroups-under DIR]\n"
	      "                                          serve counts per cgroup to Prometheus\n"
	      "\n"
	      "  tally <command> --help    options of one command\n"
	      "  tally --version           the version\n"
	      "\n"
	      "See tally(1).\n",
	      out);
}

/* A set-uid or set-gid tally would run the caller's command, read the caller's files (-o, event specs)
 * and open counters with the owner's rights: refuse, and say how to grant counting rights instead. The
 * kernel sets AT_SECURE for every set-id exec, so an ordinary start costs no system call here; but the
 * test is the ids: a binary given CAP_PERFMON with setcap also runs with AT_SECURE set, and that is the
 * safe way this message recommends. */
static bool runs_set_id(void)
{
	return getauxval(AT_SECURE) && (getuid() != geteuid() || getgid() != getegid());
}

static void refuse_set_id(void)
{
	fputs("tally: refusing to run set-uid or set-gid: it would run commands and open files with the owner's "
	      "rights.\n"
	      "  To let users count: `sudo setcap cap_perfmon=ep /path/to/tally` (Linux 5.8+) after removing the "
	      "set-id bits (chmod u-s,g-s),\n"
	      "  or lower kernel.perf_event_paranoid (`sudo sysctl kernel.perf_event_paranoid=1`; see tally "
	      "doctor).\n",
	      stderr);
}

int main(int argc, char **argv)
{
	if (runs_set_id()) {
		refuse_set_id();
		/* _exit: nothing more runs with the owner's rights, not even atexit handlers (a sanitizer's leak
		 * check would need ptrace, which a set-gid process run by another user is refused). */
		_exit(2);
	}
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv);
	} commands[] = {
		{ "stat", command_stat },
		{ "list", command_list },
		{ "doctor", command_doctor },
		{ "encode", command_encode },
		{ "merge", command_merge },
		{ "compare", command_compare },
		{ "exporter", command_exporter },
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
