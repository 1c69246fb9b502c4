/* SPDX-License-Identifier: MIT */
/*
 * A tracepoint glob over all of tracefs ("*:*", 2,300 tracepoints on a 6.18 kernel), tally against perf 6.1.
 * Neither tool can be asked to open them all and be timed fairly (perf stat -e '*:*' runs out of file
 * descriptors past ~1,000 events here and spends its time in the opens), so what is compared is what both
 * do before they open anything: start, parse the spec, expand the glob over tracefs and give up on a target
 * that does not exist:
 *
 *   tally stat -e SPEC -p DEAD   vs   perf stat -e SPEC -p DEAD     (DEAD: /proc/sys/kernel/pid_max, a pid
 *                                                                  no task can have)
 *
 * Both parse the whole spec before they look at the target (perf reads each tracepoint's format file with
 * libtraceevent; tally reads each id file). The runs are interleaved after one warm-up of each; medians and
 * the ratio are printed, and also the library's own tally_events_parse() time for the same spec, in-process
 * (what a program that links libtally pays).
 *
 *   bench_tracepoints [-n RUNS] [TALLY]   (default 10 runs, SPECs '*:*' and 'sched:*')
 *
 * Exit 0 also without perf or tracefs (said so); 1 when the tally side fails to parse.
 */
#include "bench_timing.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/events.h>

#ifndef TALLY_CLI_PATH
#define TALLY_CLI_PATH "tally"
#endif

enum { MAX_RUNS = 200 };

/* Wall time of one run of argv with stdio on /dev/null; negative when it could not run. */
static double run_ms(char *const argv[])
{
	int status;
	double ms = bench_run(argv, &status, NULL);
	return ms < 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 127) ? -1 : ms;
}

static int bench_spec(const char *spec, const char *tally, const char *dead, int runs, int *perf_missing)
{
	double lib[MAX_RUNS], t[MAX_RUNS], p[MAX_RUNS];
	size_t count = 0;
	for (int i = 0; i < runs; i++) {
		tally_events *events;
		double t0 = bench_now_ms();
		if (tally_events_parse(spec, NULL, &events)) {
			fprintf(stderr, "bench_tracepoints: %s\n", tally_last_error());
			return 1;
		}
		lib[i] = bench_now_ms() - t0;
		count = tally_events_count(events);
		tally_events_free(events);
	}
	char *tally_argv[] = { (char *)tally, "stat", "-e", (char *)spec, "-p", (char *)dead, NULL };
	char *perf_argv[] = { "perf", "stat", "-e", (char *)spec, "-p", (char *)dead, NULL };
	run_ms(tally_argv);
	bool perf = !*perf_missing && run_ms(perf_argv) >= 0;
	for (int i = 0; i < runs; i++) {
		/* interleaved, in alternating order, so that a noisy moment falls on both sides */
		if (i % 2 == 0) {
			t[i] = run_ms(tally_argv);
			p[i] = perf ? run_ms(perf_argv) : 0;
		} else {
			p[i] = perf ? run_ms(perf_argv) : 0;
			t[i] = run_ms(tally_argv);
		}
	}
	double lib_ms = bench_median(lib, runs), tally_ms = bench_median(t, runs);
	printf("%-8s %5zu tracepoints  tally_events_parse %8.2f ms   tally stat %8.2f ms", spec, count, lib_ms,
	       tally_ms);
	if (perf) {
		double perf_ms = bench_median(p, runs);
		printf("   perf stat %8.2f ms   tally/perf %.3fx\n", perf_ms, tally_ms / perf_ms);
	} else {
		printf("   perf: not run (not installed)\n");
		*perf_missing = 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int runs = 10, arg = 1;
	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		runs = atoi(argv[2]);
		arg = 3;
	}
	if (runs < 1 || runs > MAX_RUNS) {
		fprintf(stderr, "usage: %s [-n RUNS (1-%d)] [TALLY]\n", argv[0], MAX_RUNS);
		return 2;
	}
	const char *tally = arg < argc ? argv[arg] : TALLY_CLI_PATH;
	char dead[32] = "4194304";
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	if (f) {
		if (!fgets(dead, sizeof(dead), f))
			snprintf(dead, sizeof(dead), "4194304");
		dead[strcspn(dead, "\n")] = '\0';
		fclose(f);
	}
	if (access("/sys/kernel/tracing/events", R_OK) != 0 && access("/sys/kernel/debug/tracing/events", R_OK) != 0) {
		printf("bench_tracepoints: no readable tracefs here: nothing to compare\n");
		return 0;
	}
	printf("Start + parse + glob expansion, up to giving up on pid %s (no open); median of %d runs\n", dead, runs);
	int perf_missing = 0;
	static const char *const specs[] = { "*:*", "sched:*" };
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		if (bench_spec(specs[i], tally, dead, runs, &perf_missing))
			return 1;
	return 0;
}
