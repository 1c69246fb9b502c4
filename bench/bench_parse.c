/* SPDX-License-Identifier: MIT */
/*
 * Parsing a long event list, tally against perf, measured the same way on both sides: the wall time of
 *
 *   tally stat -e SPEC,no-such-event -- true   vs   perf stat -e SPEC,no-such-event -- true
 *
 * where SPEC is 15,000 comma-separated events of the forms both tools take (generic, software, cache,
 * raw, TYPE:CONFIG, EVENT//mods, modifiers). The unknown event at the end makes both parse the whole list
 * and stop before opening anything (15,000 counters would measure perf_event_open, not parsing). Each
 * side is also timed on "no-such-event" alone, its start-up, which is taken off to give its parsing time.
 * The runs are interleaved, the medians reported with the ratio tally/perf.
 *
 * Then tally_events_parse() in this process on 1,500 and 15,000 events: the time per event staying the
 * same shows the parse staying linear (a busy machine moves both figures; the ratio is about 10).
 *
 *   bench_parse [-n RUNS] [TALLY]   (default 5 runs; TALLY defaults to the CLI built here)
 *
 * A spec is one argument, and the kernel takes at most 128 KiB in one (MAX_ARG_STRLEN): the forms are
 * short for that. perf is looked up in PATH; without it tally's side is still measured.
 */
#include "bench_timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/events.h>

#ifndef TALLY_CLI_PATH
#define TALLY_CLI_PATH "tally"
#endif

enum { NR_EVENTS = 15000, MAX_RUNS = 100 };

static const char *const forms[] = { "cs", "faults", "1:2", "r1c2", "cycles:u", "task-clock", "dTLB-loads",
	                             "cycles//k" };

/* nr events, comma-separated, then ",tail" when tail is not NULL. */
static char *build_spec(size_t nr, const char *tail)
{
	size_t cap = nr * 12 + 64, used = 0;
	char *spec = malloc(cap);
	if (!spec)
		return NULL;
	for (size_t i = 0; i < nr; i++)
		used += (size_t)snprintf(spec + used, cap - used, "%s%s", i ? "," : "",
		                         forms[i % (sizeof(forms) / sizeof(forms[0]))]);
	if (tail)
		snprintf(spec + used, cap - used, ",%s", tail);
	return spec;
}

/* Seconds from fork to reaping "TOOL stat -e SPEC -- true", output to /dev/null; -1 when it cannot run. */
static double run_stat(const char *tool, const char *spec)
{
	char *const argv[] = { (char *)tool, "stat", "-e", (char *)spec, "--", "true", NULL };
	int status;
	double ms = bench_run(argv, &status, NULL);
	/* Both refuse the spec (status 1 or another failure); 127 means the tool is missing. */
	return ms < 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 127) ? -1 : ms / 1e3;
}

/* Seconds tally_events_parse() takes on nr events (best of five: the least disturbed by the machine). */
static double library_parse(size_t nr)
{
	char *spec = build_spec(nr, NULL);
	double best = -1;
	for (int i = 0; spec && i < 5; i++) {
		tally_events *events;
		double start = bench_now_ms();
		if (tally_events_parse(spec, NULL, &events) != 0) {
			fprintf(stderr, "bench_parse: %s\n", tally_last_error());
			best = -1;
			break;
		}
		double t = (bench_now_ms() - start) / 1e3;
		tally_events_free(events);
		if (best < 0 || t < best)
			best = t;
	}
	free(spec);
	return best;
}

int main(int argc, char **argv)
{
	int runs = 5, arg = 1;
	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		runs = atoi(argv[2]);
		arg = 3;
	}
	if (runs < 1 || runs > MAX_RUNS || argc > arg + 1) {
		fprintf(stderr, "usage: %s [-n RUNS (1..%d)] [TALLY]\n", argv[0], MAX_RUNS);
		return 2;
	}
	const char *tally = arg < argc ? argv[arg] : TALLY_CLI_PATH;
	const char *bad = "no-such-event";
	char *spec = build_spec(NR_EVENTS, bad);
	if (!spec)
		return 1;
	const char *tools[2] = { "perf", tally };
	double whole[2][MAX_RUNS], alone[2][MAX_RUNS];
	int have[2] = { 1, 1 };
	for (int r = 0; r < runs; r++)
		for (int k = 0; k < 2; k++) {
			int t = (r + k) % 2; /* alternate which tool goes first */
			if (!have[t])
				continue;
			whole[t][r] = run_stat(tools[t], spec);
			alone[t][r] = run_stat(tools[t], bad);
			have[t] = whole[t][r] >= 0 && alone[t][r] >= 0;
		}
	printf("%d events (%zu bytes) ending in an unknown event, median of %d runs:\n", NR_EVENTS, strlen(spec), runs);
	double parse[2] = { -1, -1 };
	for (int t = 0; t < 2; t++) {
		if (!have[t]) {
			printf("  %-5s: cannot run '%s'\n", t ? "tally" : "perf", tools[t]);
			continue;
		}
		double w = bench_median(whole[t], runs), a = bench_median(alone[t], runs);
		parse[t] = w - a;
		printf("  %-5s: %.3f s the whole run, %.3f s start-up alone, %.3f s parsing\n", t ? "tally" : "perf", w, a,
		       parse[t]);
	}
	if (have[0] && have[1] && parse[0] > 0)
		printf("  tally/perf parsing: %.2f\n", parse[1] / parse[0]);
	free(spec);

	double small = library_parse(NR_EVENTS / 10), large = library_parse(NR_EVENTS);
	if (small <= 0 || large < 0)
		return 1;
	printf("tally_events_parse: %d events %.2f ms (%.2f us each), %d events %.2f ms (%.2f us each): x%.1f for 10x "
	       "the events\n",
	       NR_EVENTS / 10, small * 1e3, small * 1e6 / (NR_EVENTS / 10), NR_EVENTS, large * 1e3, large * 1e6 / NR_EVENTS,
	       large / small);
	return have[1] ? 0 : 1;
}
