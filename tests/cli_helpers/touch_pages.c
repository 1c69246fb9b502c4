/* SPDX-License-Identifier: MIT */
/* `touch_pages N`: touches N fresh anonymous pages, one write each (one page fault): the workload of the
 * cgroup tests (cli_helpers/cgroups.sh) and of tests/test_cli_mpi.sh. */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 0, psz = sysconf(_SC_PAGESIZE);
	char *p = mmap(0, (size_t)(pages * psz), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	for (long i = 0; i < pages; i++)
		((volatile char *)p)[i * psz] = 1;
	return 0;
}
