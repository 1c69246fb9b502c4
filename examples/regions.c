/* SPDX-License-Identifier: MIT */
/*
 * Named regions with no set-up: run it as it is (a table on stderr at exit), with TALLY_OUTPUT=out.json,
 * or under `tally stat --regions -- ./regions`. Two threads fill pages in a region "fill" that holds a
 * nested "touch", and the main thread sums an array in "sum". Its stdout is the program's own output, and
 * its exit status the number given as its argument (0 without one): tally changes neither.
 */
#define TALLY_REGIONS
#include <tally/region.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

enum { CALLS = 100, PAGES = 4 };

static void *fill(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);
	(void)arg;
	for (int call = 0; call < CALLS; call++) {
		char *p = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		TALLY_REGION_BEGIN("fill");
		TALLY_REGION_BEGIN("touch");
		for (int i = 0; i < PAGES; i++)
			p[i * page] = 1; /* one page fault per page */
		TALLY_REGION_END("touch");
		TALLY_REGION_END("fill");
		munmap(p, PAGES * page);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t threads[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&threads[i], NULL, fill, NULL);
	static double a[1 << 16];
	double total = 0;
	TALLY_REGION_BEGIN("sum");
	for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
		total += a[i] + (double)i;
	TALLY_REGION_END("sum");
	for (int i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	printf("sum %.0f\n", total);
	return argc > 1 ? atoi(argv[1]) : 0;
}
