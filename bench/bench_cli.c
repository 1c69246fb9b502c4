/* SPDX-License-Identifier: MIT */
/*
 * The tally CLI against perf, from the outside: wall time of fork + exec + wait4 and the peak RSS the
 * kernel reports for the child (wait4's ru_maxrss, which takes in the child's own reaped children, so
 * `true` is inside both sides' figures) of
 *
 *   tally stat -e task-clock -- true   vs   perf stat -e task-clock -- true   (goal: tally <= 0.25x perf)
 *                                      vs   floor_launcher true               (goal: tally <= 1.10x floor)
 *   tally list                         vs   perf list                         (goal: tally <= 0.1x perf)
 *
 * and of `true` alone, what any launcher pays. floor_launcher (beside this program) forks, opens one
 * task-clock counter for the child, execs and reads: the least any counting tool can do, so tally/floor is
 * what tally's own start-up costs. The runs are interleaved (every side once, then the next round in
 * another order) after one unmeasured warm-up of each, so that a noisy moment of the machine falls on every
 * side; the median and the best of each are reported with their ratios.
 * Output of the programs goes to /dev/null, as neither side's pager or terminal handling is measured.
 *
 *   bench_cli [-n RUNS] [TALLY [FLOOR]]   (default 20 runs; TALLY and FLOOR default to the ones built here)
 *
 * perf is looked up in PATH; without it there is nothing to compare, which is said, and the exit status
 * is 0. The exit status is 1 when a measured command fails (a figure of a failed run means nothing).
 */
#include "bench_timing.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TALLY_CLI_PATH
#define TALLY_CLI_PATH "tally"
#endif
#ifndef FLOOR_LAUNCHER_PATH
#define FLOOR_LAUNCHER_PATH "floor_launcher"
#endif

enum { MAX_RUNS = 1000, MAX_SIDES = 4 };

struct side {
	const char *label;
	char *argv[8];
	double wall_ms[MAX_RUNS];
	long rss_kb[MAX_RUNS];
	int failures;
	int last_status;
};

struct comparison {
	const char *title;
	double goal;          /* the most tally/perf may be, in wall time */
	double floor_goal;    /* the most tally/floor_launcher may be; 0 when there is no launcher side */
	int nr_sides;
	struct side sides[MAX_SIDES]; /* tally, perf, [floor_launcher,] true */
};

/* PATH's first executable called name, in buf; false when there is none. */
static bool find_in_path(const char *name, char *buf, size_t size)
{
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		int n = snprintf(buf, size, "%.*s/%s", (int)len, len ? path : ".", name);
		if (n > 0 && (size_t)n < size && access(buf, X_OK) == 0)
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

/* One run: fork, exec with stdio on /dev/null, wait4. Records the wall time and the peak RSS. */
static int run_once(struct side *s, int slot)
{
	int status;
	struct rusage ru;
	double ms = bench_run(s->argv, &status, &ru);
	if (ms < 0)
		return -errno;
	if (slot >= 0) {
		s->wall_ms[slot] = ms;
		s->rss_kb[slot] = ru.ru_maxrss;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		s->failures++;
		s->last_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	return 0;
}

static int compare_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

static long median_kb(long *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), compare_long);
	return v[n / 2];
}

static int measure(struct comparison *c, int runs)
{
	for (int i = 0; i < c->nr_sides; i++)
		if (run_once(&c->sides[i], -1) < 0)
			return -1;
	for (int r = 0; r < runs; r++)
		for (int k = 0; k < c->nr_sides; k++) {
			/* Rotate who goes first, so that none always runs right after another's exit. */
			struct side *s = &c->sides[(r + k) % c->nr_sides];
			if (run_once(s, r) < 0)
				return -1;
		}
	return 0;
}

static void report(struct comparison *c, int runs)
{
	double median[MAX_SIDES], best[MAX_SIDES];
	long rss[MAX_SIDES];
	printf("\n%s\n", c->title);
	printf("  %-40s %10s %10s %12s\n", "", "median", "best", "peak RSS");
	for (int i = 0; i < c->nr_sides; i++) {
		struct side *s = &c->sides[i];
		median[i] = bench_median(s->wall_ms, runs);
		best[i] = s->wall_ms[0];
		rss[i] = median_kb(s->rss_kb, runs);
		char line[256] = "";
		for (size_t a = 0, used = 0; s->argv[a] && used < sizeof(line); a++)
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s", a ? " " : "",
			                         a ? s->argv[a] : s->label);
		printf("  %-40s %7.2f ms %7.2f ms %9ld KiB", line, median[i], best[i], rss[i]);
		if (s->failures)
			printf("   (%d of %d runs failed, last status %d)", s->failures, runs + 1, s->last_status);
		printf("\n");
	}
	double ratio = median[0] / median[1];
	printf("  tally/perf: wall %.3fx median, %.3fx best; peak RSS %.2fx   goal <= %.2fx: %s\n", ratio,
	       best[0] / best[1], (double)rss[0] / (double)rss[1], c->goal, ratio <= c->goal ? "met" : "MISSED");
	int truth = c->nr_sides - 1;
	if (c->floor_goal > 0) {
		double floor_ratio = median[0] / median[2];
		printf("  tally/floor_launcher: wall %.3fx median, %.3fx best   goal <= %.2fx: %s\n", floor_ratio,
		       best[0] / best[2], c->floor_goal, floor_ratio <= c->floor_goal ? "met" : "MISSED");
	}
	printf("  less true(1) alone: tally %.2f ms, perf %.2f ms", median[0] - median[truth],
	       median[1] - median[truth]);
	if (c->floor_goal > 0)
		printf(", floor_launcher %.2f ms", median[2] - median[truth]);
	printf("\n");
}

int main(int argc, char **argv)
{
	int runs = 20;
	int opt;
	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n' || (runs = atoi(optarg)) < 1 || runs > MAX_RUNS) {
			fprintf(stderr, "usage: bench_cli [-n RUNS (1-%d)] [TALLY [FLOOR]]\n", MAX_RUNS);
			return 2;
		}
	}
	char *tally = optind < argc ? argv[optind] : (char *)TALLY_CLI_PATH;
	char *floor = optind + 1 < argc ? argv[optind + 1] : (char *)FLOOR_LAUNCHER_PATH;
	const char *programs[] = { tally, floor };
	for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]); i++) {
		if (access(programs[i], X_OK) != 0) {
			fprintf(stderr, "bench_cli: %s: %s\n", programs[i], strerror(errno));
			return 1;
		}
	}
	static char perf[4096], truth[4096];
	if (!find_in_path("perf", perf, sizeof(perf))) {
		printf("bench_cli: perf is not in PATH: nothing to compare tally with\n");
		return 0;
	}
	if (!find_in_path("true", truth, sizeof(truth))) {
		fprintf(stderr, "bench_cli: no true(1) in PATH\n");
		return 1;
	}
	static struct comparison comparisons[] = {
		{ .title = "stat: one software event around true(1)",
		  .goal = 0.25,
		  .floor_goal = 1.10,
		  .nr_sides = 4,
		  .sides = { { .label = "tally", .argv = { NULL, "stat", "-e", "task-clock", "--", "true" } },
		             { .label = "perf", .argv = { NULL, "stat", "-e", "task-clock", "--", "true" } },
		             { .label = "floor_launcher", .argv = { NULL, NULL } },
		             { .label = "true", .argv = { NULL } } } },
		{ .title = "list: every event of this machine",
		  .goal = 0.1,
		  .nr_sides = 3,
		  .sides = { { .label = "tally", .argv = { NULL, "list" } },
		             { .label = "perf", .argv = { NULL, "list" } },
		             { .label = "true", .argv = { NULL } } } },
	};
	printf("bench_cli: %d interleaved runs of each after a warm-up; wall time of fork+exec+wait4, peak RSS "
	       "from wait4 (median)\n  tally: %s\n  perf:  %s\n",
	       runs, tally, perf);
	int status = 0;
	for (size_t i = 0; i < sizeof(comparisons) / sizeof(comparisons[0]); i++) {
		struct comparison *c = &comparisons[i];
		c->sides[0].argv[0] = tally;
		c->sides[1].argv[0] = perf;
		if (c->floor_goal > 0) {
			/* As tally is given it: by name, so that both search PATH alike. */
			c->sides[2].argv[0] = floor;
			c->sides[2].argv[1] = "true";
		}
		c->sides[c->nr_sides - 1].argv[0] = truth;
		if (measure(c, runs) < 0) {
			fprintf(stderr, "bench_cli: cannot run the commands: %s\n", strerror(errno));
			return 1;
		}
		report(c, runs);
		for (int k = 0; k < c->nr_sides; k++)
			if (c->sides[k].failures)
				status = 1;
	}
	return status;
}
