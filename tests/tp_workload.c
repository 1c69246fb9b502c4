/* SPDX-License-Identifier: MIT */
/* Test helper (not a test itself): a workload whose tracepoint and breakpoint counts are known, for
 * test_cli_tracepoints.sh to count with both tally and perf stat.
 *     tp_workload addr        prints the address of the watched variable (fixed: built without PIE)
 *     tp_workload openat N    N openat(2) calls of /dev/null
 *     tp_workload sleep N     N clock_nanosleep(2) calls of 1 us
 *     tp_workload write N     N stores to the watched variable */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile uint64_t tp_watched __attribute__((aligned(8)));

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "addr") == 0) {
		printf("%#llx\n", (unsigned long long)(uintptr_t)&tp_watched);
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: %s addr | openat N | sleep N | write N\n", argv[0]);
		return 2;
	}
	long n = strtol(argv[2], NULL, 10);
	for (long i = 0; i < n; i++) {
		if (strcmp(argv[1], "openat") == 0) {
			int fd = openat(AT_FDCWD, "/dev/null", O_RDONLY);
			if (fd >= 0)
				close(fd);
		} else if (strcmp(argv[1], "sleep") == 0) {
			struct timespec ts = { 0, 1000 };
			clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		} else if (strcmp(argv[1], "write") == 0) {
			tp_watched = (uint64_t)i;
		} else {
			return 2;
		}
	}
	return 0;
}
