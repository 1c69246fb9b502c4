/* SPDX-License-Identifier: MIT */
/* `touch_pages N`: faults in N fresh pages, one write each (the ./touch of tests/test_cli_mpi.sh). */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), pages = argc > 1 ? atol(argv[1]) : 100;
	char *p = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	for (long i = 0; i < pages; i++)
		p[i * page] = 1;
	return 0;
}
