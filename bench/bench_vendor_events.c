/* SPDX-License-Identifier: MIT */
/*
 * What the vendor event tables cost, from the outside, on the intel-server fixture tree
 * (TALLY_SYSFS_ROOT) as a Cascade Lake server (TALLY_CPUID=GenuineIntel-6-55-7: the largest x86 table,
 * cascadelakex), each figure the median of interleaved runs after a warm-up:
 *
 *   tally stat -e mem_load_retired.l3_miss -- true  vs  tally stat -e cpu/event=0xd1,umask=0x20/ -- true
 *                                                       (goal: <= 1.10x; peak RSS <= 1.5x)
 *   tally list (the table's events and descriptions) vs  perf list, the same model's table (goal: <= 0.5x)
 *
 * perf sees the fixture as its PMUs only through a mount namespace (unshare -m, the fixture bound over
 * /sys/bus/event_source/devices), whose own cost (the same wrapper around `true`) is taken off perf's
 * figure; without root, unshare or perf that comparison is said to be skipped. The events cannot be
 * opened on the fixture (its PMU types are not this kernel's): the stat figures are the parse, the
 * table's lookup and the failed opens, the same on both sides but for the name.
 *
 *   bench_vendor_events [-n RUNS] [SOURCE_DIR]   (default 20 runs; the source tree holds the fixture and
 *                                                 data/pmu-events, whose size is reported too)
 */
#include "bench_timing.h"

#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TALLY_CLI_PATH
#define TALLY_CLI_PATH "tally"
#endif
#ifndef TALLY_SOURCE_DIR
#define TALLY_SOURCE_DIR "."
#endif

enum { MAX_RUNS = 200, SIDES = 5 };

struct side {
	const char *label;
	char *argv[12];
	double ms[MAX_RUNS];
	long kb[MAX_RUNS];
};

static long long data_bytes;

static int add_size(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F)
		data_bytes += st->st_size;
	return 0;
}

static double median_of(double *v, int n)
{
	double copy[MAX_RUNS];
	memcpy(copy, v, (size_t)n * sizeof(*v));
	return bench_median(copy, n);
}

static double median_kb(const long *v, int n)
{
	double d[MAX_RUNS];
	for (int i = 0; i < n; i++)
		d[i] = (double)v[i];
	return bench_median(d, n);
}

int main(int argc, char **argv)
{
	int runs = 20, arg = 1;
	if (arg + 1 < argc && strcmp(argv[arg], "-n") == 0) {
		runs = atoi(argv[arg + 1]);
		arg += 2;
	}
	if (runs < 1 || runs > MAX_RUNS)
		runs = 20;
	const char *source = arg < argc ? argv[arg] : TALLY_SOURCE_DIR;
	static char root[2048], devices[4096], data[4096], wrap_perf[8192], wrap_true[8192];
	snprintf(root, sizeof(root), "%s/tests/fixtures/sysfs/intel-server", source);
	snprintf(devices, sizeof(devices), "%s/bus/event_source/devices", root);
	snprintf(data, sizeof(data), "%s/data/pmu-events", source);
	setenv("TALLY_SYSFS_ROOT", root, 1);
	setenv("TALLY_CPUID", "GenuineIntel-6-55-7", 1);
	setenv("PERF_CPUID", "GenuineIntel-6-55-7", 1);
	setenv("TALLY_PMU_EVENTS", data, 1);
	snprintf(wrap_perf, sizeof(wrap_perf), "mount --bind '%s' /sys/bus/event_source/devices && exec perf list", devices);
	snprintf(wrap_true, sizeof(wrap_true), "mount --bind '%s' /sys/bus/event_source/devices && exec true", devices);
	char *tally = TALLY_CLI_PATH;
	static struct side sides[SIDES] = {
		{ .label = "tally stat -e mem_load_retired.l3_miss -- true" },
		{ .label = "tally stat -e cpu/event=0xd1,umask=0x20/ -- true" },
		{ .label = "tally list" },
		{ .label = "unshare -m: perf list", .argv = { "unshare", "-m", "sh", "-c", NULL } },
		{ .label = "unshare -m: true", .argv = { "unshare", "-m", "sh", "-c", NULL } },
	};
	char *stat_a[] = { tally, "stat", "-e", "mem_load_retired.l3_miss", "--", "true", NULL };
	char *stat_b[] = { tally, "stat", "-e", "cpu/event=0xd1,umask=0x20/", "--", "true", NULL };
	char *list[] = { tally, "list", NULL };
	memcpy(sides[0].argv, stat_a, sizeof(stat_a));
	memcpy(sides[1].argv, stat_b, sizeof(stat_b));
	memcpy(sides[2].argv, list, sizeof(list));
	sides[3].argv[4] = wrap_perf;
	sides[4].argv[4] = wrap_true;
	int status;
	bool perf_ok = geteuid() == 0 && bench_run(sides[3].argv, &status, NULL) >= 0 && WIFEXITED(status) &&
	               WEXITSTATUS(status) == 0;
	int nr_sides = perf_ok ? SIDES : 3;
	for (int s = 0; s < nr_sides; s++)
		bench_run(sides[s].argv, &status, NULL);
	for (int r = 0; r < runs; r++) {
		for (int k = 0; k < nr_sides; k++) {
			int s = (k + r) % nr_sides;
			struct rusage ru;
			sides[s].ms[r] = bench_run(sides[s].argv, &status, &ru);
			sides[s].kb[r] = ru.ru_maxrss;
		}
	}
	printf("medians of %d interleaved runs (cascadelakex table on the intel-server fixture):\n", runs);
	for (int s = 0; s < nr_sides; s++)
		printf("  %-52s %8.2f ms  %7.0f KiB peak\n", sides[s].label, median_of(sides[s].ms, runs),
		       median_kb(sides[s].kb, runs));
	double a = median_of(sides[0].ms, runs), b = median_of(sides[1].ms, runs);
	printf("stat, table name / raw terms:     %.3fx time (goal <= 1.10x), %.3fx peak RSS (goal <= 1.5x)\n", a / b,
	       median_kb(sides[0].kb, runs) / median_kb(sides[1].kb, runs));
	if (perf_ok) {
		double perf = median_of(sides[3].ms, runs) - median_of(sides[4].ms, runs);
		printf("tally list / perf list:            %.3fx (goal <= 0.5x; perf's namespace cost %.2f ms taken off)\n",
		       median_of(sides[2].ms, runs) / perf, median_of(sides[4].ms, runs));
	} else {
		printf("tally list / perf list:            skipped (needs root, unshare -m and perf)\n");
	}
	nftw(data, add_size, 16, FTW_PHYS);
	printf("data/pmu-events:                   %.1f MB (goal: the repository grows <= 15 MB)\n", data_bytes / 1e6);
	return 0;
}
