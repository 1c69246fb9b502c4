/* SPDX-License-Identifier: MIT */
/*
 * The vendors' metrics: what resolving and evaluating them costs, in-process and in the CLI.
 *
 *   load        tally_vendor_metrics_load: the CPU's table read and every expression parsed
 *   resolve     tally_vendor_metrics_select + _spec of the largest TopdownL<N> group (TopdownL6 where the
 *               table has it): each metric's events found through its references, grouped and merged
 *   evaluate    every metric of the table, for 10,000 intervals of constructed counts over the events of
 *               all of them (each interval's values differ): the time per metric evaluation
 *   CLI         tally stat -M TopdownL1 -- true against tally stat -e SPEC -- true, SPEC being the events
 *               -M TopdownL1 opens, grouped alike (the medians of interleaved runs, and their ratio)
 *
 *   TALLY_SYSFS_ROOT=tests/fixtures/sysfs/intel-server TALLY_CPUID=GenuineIntel-6-6A-0 \
 *       [LD_PRELOAD=build/tests/libfake_pmu.so] bench_metrics [-n RUNS] [-i INTERVALS] [TALLY]
 *
 * Exit 0 also where the machine has no vendor table (said so).
 */
#include "bench_timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/events.h>
#include <tally/metrics.h>

#ifndef TALLY_CLI_PATH
#define TALLY_CLI_PATH "tally"
#endif

enum { MAX_RUNS = 200 };

/* How many intervals the evaluation runs (-i; the figure is 10,000). */
static int intervals = 10000;

/* The spec of the metrics of list (malloc'd), or NULL. */
static char *spec_of(const tally_vendor_metrics *vm, const char *list, size_t *idx, size_t cap, int *n)
{
	*n = tally_vendor_metrics_select(vm, list, idx, cap);
	if (*n <= 0 || (size_t)*n > cap)
		return NULL;
	int len = tally_vendor_metrics_spec(vm, idx, (size_t)*n, 0, NULL, 0);
	char *spec = len < 0 ? NULL : malloc((size_t)len + 1);
	if (spec)
		tally_vendor_metrics_spec(vm, idx, (size_t)*n, 0, spec, (size_t)len + 1);
	return spec;
}

/* The deepest TopdownL<N> group the table has. */
static const char *deepest_group(const tally_vendor_metrics *vm, char *buf, size_t size)
{
	for (int l = 6; l >= 1; l--) {
		snprintf(buf, size, "TopdownL%d", l);
		if (tally_vendor_metrics_select(vm, buf, NULL, 0) > 0)
			return buf;
	}
	return NULL;
}

static int bench_library(const tally_vendor_metrics *vm, double load_ms)
{
	size_t n = tally_vendor_metrics_count(vm);
	size_t *all = calloc(n, sizeof(*all));
	char group[16];
	const char *deep = deepest_group(vm, group, sizeof(group));
	int nr = 0;
	double t0 = bench_now_ms();
	char *deep_spec = deep ? spec_of(vm, deep, all, n, &nr) : NULL;
	double resolve_ms = bench_now_ms() - t0;
	printf("%s: %zu metrics; load %.2f ms; resolve -M %s (%d metrics) %.2f ms, spec of %zu bytes\n",
	       tally_vendor_metrics_model(vm), n, load_ms, deep ? deep : "-", nr, resolve_ms,
	       deep_spec ? strlen(deep_spec) : 0);
	/* every metric: the events of all of them */
	for (size_t i = 0; i < n; i++)
		all[i] = i;
	int len = tally_vendor_metrics_spec(vm, all, n, 0, NULL, 0);
	char *spec = len < 0 ? NULL : malloc((size_t)len + 1);
	tally_events *ev = NULL;
	if (!spec || tally_vendor_metrics_spec(vm, all, n, 0, spec, (size_t)len + 1) < 0 ||
	    tally_events_parse(spec, NULL, &ev) < 0) {
		fprintf(stderr, "bench_metrics: %s\n", tally_last_error());
		return 1;
	}
	size_t nr_events = tally_events_count(ev);
	double *values = malloc(nr_events * sizeof(*values));
	size_t available = 0;
	t0 = bench_now_ms();
	for (int k = 0; k < intervals; k++) {
		for (size_t j = 0; j < nr_events; j++)
			values[j] = 1e6 + (double)((j * 7919 + (size_t)k * 104729) % 1000000);
		TALLY_OPTS(tally_metric_sample, s, .events = ev, .values = values, .n = nr_events, .seconds = 1);
		for (size_t i = 0; i < n; i++) {
			TALLY_OPTS(tally_metric_value, v);
			tally_vendor_metric_eval(vm, &s, i, &v);
			available += v.available;
		}
	}
	double eval_ms = bench_now_ms() - t0;
	printf("evaluate every metric over %zu events, %d intervals: %.1f ms, %.2f us per metric evaluation "
	       "(%zu of %zu available per interval)\n", nr_events, intervals, eval_ms,
	       eval_ms * 1e3 / ((double)intervals * (double)n), available / intervals, n);
	free(values);
	tally_events_free(ev);
	free(spec);
	free(deep_spec);
	free(all);
	return 0;
}

static double run_ms(char *const argv[])
{
	int status;
	double ms = bench_run(argv, &status, NULL);
	return ms < 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 127) ? -1 : ms;
}

static void bench_cli(const tally_vendor_metrics *vm, const char *tally, int runs)
{
	size_t idx[64];
	int n;
	char *spec = spec_of(vm, "TopdownL1", idx, 64, &n);
	if (!spec) {
		printf("CLI: the table has no TopdownL1\n");
		return;
	}
	char *m_argv[] = { (char *)tally, "stat", "-M", "TopdownL1", "--", "true", NULL };
	char *e_argv[] = { (char *)tally, "stat", "-e", spec, "--", "true", NULL };
	double m[MAX_RUNS], e[MAX_RUNS];
	run_ms(m_argv);
	run_ms(e_argv);
	for (int i = 0; i < runs; i++) {
		/* interleaved, in alternating order, so that a noisy moment falls on both sides */
		if (i % 2 == 0) {
			m[i] = run_ms(m_argv);
			e[i] = run_ms(e_argv);
		} else {
			e[i] = run_ms(e_argv);
			m[i] = run_ms(m_argv);
		}
	}
	double mm = bench_median(m, runs), em = bench_median(e, runs);
	printf("CLI: tally stat -M TopdownL1 -- true %.2f ms, tally stat -e '%s' -- true %.2f ms: %.3fx "
	       "(median of %d)\n", mm, spec, em, mm / em, runs);
	free(spec);
}

int main(int argc, char **argv)
{
	int runs = 20, arg = 1;
	for (; arg + 1 < argc && (strcmp(argv[arg], "-n") == 0 || strcmp(argv[arg], "-i") == 0); arg += 2)
		*(argv[arg][1] == 'n' ? &runs : &intervals) = atoi(argv[arg + 1]);
	if (runs < 1 || runs > MAX_RUNS || intervals < 1) {
		fprintf(stderr, "usage: %s [-n RUNS (1-%d)] [-i INTERVALS] [TALLY]\n", argv[0], MAX_RUNS);
		return 2;
	}
	const char *tally = arg < argc ? argv[arg] : TALLY_CLI_PATH;
	TALLY_OPTS(tally_vendor_metrics_opts, o);
	tally_vendor_metrics *vm = NULL;
	double t0 = bench_now_ms();
	if (tally_vendor_metrics_load(&o, &vm) < 0) {
		printf("bench_metrics: no vendor metrics here (%s): set TALLY_SYSFS_ROOT and TALLY_CPUID\n",
		       tally_last_error());
		return 0;
	}
	double load_ms = bench_now_ms() - t0;
	int status = bench_library(vm, load_ms);
	if (!status)
		bench_cli(vm, tally, runs);
	tally_vendor_metrics_free(vm);
	return status;
}
