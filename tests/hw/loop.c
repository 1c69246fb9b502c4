/* SPDX-License-Identifier: MIT */
/*
 * The workload of the hardware check's CLI cases (tests/hw/run.sh): hw_loop N runs loop.h's loop N times
 * and exits 0, so that tally stat and perf stat count the same known instructions:u.
 *
 *   hw_loop N
 */
#include <stdio.h>
#include <stdlib.h>

#include "loop.h"

int main(int argc, char **argv)
{
	char *end = NULL;
	unsigned long long n = argc == 2 ? strtoull(argv[1], &end, 10) : 0;
	if (argc != 2 || !end || *end || n == 0) {
		fprintf(stderr, "usage: hw_loop N (N >= 1 iterations of %d instructions)\n", HW_LOOP_INSNS_PER_ITER);
		return 2;
	}
	hw_loop_run(n);
	return 0;
}
