/* SPDX-License-Identifier: MIT */
/*
 * tally: where this process stands in a parallel job (MPI rank, world size, host, job id), as the launcher
 * (mpirun, srun, mpiexec) tells it through the environment, and output paths made per rank from it:
 *
 *   char path[4096];
 *   if (tally_path_expand("out.%r.json", path, sizeof(path)) < 0)
 *           fprintf(stderr, "%s\n", tally_last_error());   // names the variables it tried
 *
 * tally stat -o and the regions' TALLY_OUTPUT both expand their path this way.
 */
#ifndef TALLY_RANK_H
#define TALLY_RANK_H

#include <tally/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The launcher's variables, read in this order (the first one set and non-empty wins):
 *   rank: OMPI_COMM_WORLD_RANK (Open MPI), PMIX_RANK (PMIx), PMI_RANK (MPICH/Hydra), SLURM_PROCID (srun),
 *         MV2_COMM_WORLD_RANK (MVAPICH)
 *   size: OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS, MV2_COMM_WORLD_SIZE
 *   job:  SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, FLUX_JOB_ID, JOB_ID (Grid Engine)
 * A rank or size that is not a non-negative decimal number is an error (-EINVAL), not a rank. */
struct tally_rank {
	size_t sz;
	long rank;            /* -1: no launcher variable says it */
	long size;            /* -1: likewise */
	const char *rank_var; /* the variable the rank came from, NULL when none */
	const char *size_var;
	const char *job_var;
	char host[256];       /* gethostname(2), "localhost" when it fails */
	char job[128];        /* the job id, "" when none (cut at 127 bytes) */
};
#define tally_rank__last_field job

/* Fills *out (declare it with TALLY_OPTS(tally_rank, r)) from the environment. 0, or -EINVAL (out NULL, or
 * a launcher variable that is not a number), -TALLY_EOPTS (out->sz). */
TALLY_API int tally_rank_get(struct tally_rank *out);

/* Expands the placeholders of pattern into out[0 .. cap): %r rank, %s world size, %h host, %p pid, %j job
 * id, %% a percent sign. A placeholder whose value no variable gives, or an unknown one (%x, a lone % at the
 * end), is -EINVAL, and tally_last_error() names the variables tried. Otherwise returns the length of the
 * whole expansion (as snprintf: when it is >= cap, out holds it cut). */
TALLY_API int tally_path_expand(const char *pattern, char *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
