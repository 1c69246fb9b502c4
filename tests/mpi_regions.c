/* SPDX-License-Identifier: MIT */
/* An MPI program with regions, for tests/test_cli_mpi.sh (built there with mpicc): rank r faults in
 * (r + 1) * 100 fresh pages inside region "work", once, between two barriers. */
#define TALLY_REGIONS
#include <mpi.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <tally/region.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	long page = sysconf(_SC_PAGESIZE), pages = (rank + 1) * 100L;
	char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	TALLY_REGION_BEGIN("work");
	for (long i = 0; i < pages; i++)
		p[i * page] = 1;
	TALLY_REGION_END("work");
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
