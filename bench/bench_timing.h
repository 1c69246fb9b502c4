/* SPDX-License-Identifier: MIT */
/*
 * What the benchmarks share: the monotonic clock in milliseconds, the median of a set of runs (every
 * bench), and, for the command-line ones (bench_cli, bench_parse, bench_tracepoints), one run of a program
 * timed from fork to reaping with its stdio on /dev/null, so that every side is measured the same way.
 */
#ifndef TALLY_BENCH_TIMING_H
#define TALLY_BENCH_TIMING_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline double bench_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline int bench_compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Sorts v in place: the figures are only summarised afterwards. */
static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_compare_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Runs argv (argv[0] looked up in PATH when it holds no '/') with stdio on /dev/null and waits for it:
 * the wall time in ms, its wait status in *status and its resource use in *ru (when not NULL); -1 with
 * errno when it could not be started or reaped. An exit status of 127 is a program exec did not find. */
static inline double bench_run(char *const argv[], int *status, struct rusage *ru)
{
	double t0 = bench_now_ms();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	struct rusage own;
	pid_t got;
	do
		got = wait4(pid, status, 0, ru ? ru : &own);
	while (got < 0 && errno == EINTR);
	return got < 0 ? -1 : bench_now_ms() - t0;
}

#endif
