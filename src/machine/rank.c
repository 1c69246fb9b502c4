/* SPDX-License-Identifier: MIT */
/* Where the process stands in a parallel job, from its launcher's environment, and per-rank paths. */
#include <tally/rank.h>

#include "core/error.h"
#include "core/opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* NULL-terminated lists of the variables each launcher sets, in the order tried: a process started by
 * srun --mpi=pmix under an Open MPI build sees several, and they agree. */
static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID",
	                                 "MV2_COMM_WORLD_RANK", NULL };
static const char *const size_vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS",
	                                 "MV2_COMM_WORLD_SIZE", NULL };
static const char *const job_vars[] = { "SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID", "JOB_ID",
	                                NULL };

/* The first variable of the list set to a non-empty value: its name (*var) and value, or NULL. */
static const char *first_set(const char *const *vars, const char **var)
{
	for (; *vars; vars++) {
		const char *v = getenv(*vars);
		if (v && *v) {
			*var = *vars;
			return v;
		}
	}
	*var = NULL;
	return NULL;
}

/* The number a rank or size variable holds, -1 when none is set; -EINVAL for text that is not one (a
 * rank of "3x" in a file name would put two ranks' results in files that look like neither's). */
static int number_of(const char *const *vars, const char **var, long *out)
{
	const char *v = first_set(vars, var);
	*out = -1;
	if (!v)
		return 0;
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (*v < '0' || *v > '9' || *end || errno || n < 0)
		return tly_error(-EINVAL, "%s='%s' is not a rank or size (a non-negative decimal number)", *var, v);
	*out = n;
	return 0;
}

static int rank_fill(struct tally_rank *r)
{
	*r = (struct tally_rank){ .sz = sizeof(*r) };
	int err = number_of(rank_vars, &r->rank_var, &r->rank);
	if (err == 0)
		err = number_of(size_vars, &r->size_var, &r->size);
	if (err < 0)
		return err;
	const char *job = first_set(job_vars, &r->job_var);
	snprintf(r->job, sizeof(r->job), "%s", job ? job : "");
	if (gethostname(r->host, sizeof(r->host) - 1) != 0 || !r->host[0])
		snprintf(r->host, sizeof(r->host), "localhost");
	return 0;
}

int tally_rank_get(struct tally_rank *out)
{
	int err = tly_info_check(out, "tally_rank");
	if (err < 0)
		return err;
	struct tally_rank r;
	err = rank_fill(&r);
	return err < 0 ? err : TLY_INFO_COPY(out, &r, tally_rank);
}

/* "OMPI_COMM_WORLD_RANK, PMIX_RANK, ..." for the error of a placeholder without a value. */
static void name_vars(char *text, size_t cap, const char *const *vars)
{
	size_t len = 0;
	text[0] = '\0';
	for (const char *const *v = vars; *v && len < cap; v++)
		len += (size_t)snprintf(text + len, cap - len, "%s%s", v == vars ? "" : ", ", *v);
}

/* The text of placeholder c into piece[0 .. cap), or a negative code. */
static int placeholder(char c, const struct tally_rank *r, const char *pattern, char *piece, size_t cap)
{
	const char *const *tried = NULL;
	switch (c) {
	case '%': snprintf(piece, cap, "%%"); return 0;
	case 'p': snprintf(piece, cap, "%d", (int)getpid()); return 0;
	case 'h': snprintf(piece, cap, "%s", r->host); return 0;
	case 'r':
		if (r->rank >= 0)
			return snprintf(piece, cap, "%ld", r->rank), 0;
		tried = rank_vars;
		break;
	case 's':
		if (r->size >= 0)
			return snprintf(piece, cap, "%ld", r->size), 0;
		tried = size_vars;
		break;
	case 'j':
		if (r->job[0])
			return snprintf(piece, cap, "%s", r->job), 0;
		tried = job_vars;
		break;
	default:
		return tly_error(-EINVAL, "'%s': unknown placeholder %%%c (%%r rank, %%s size, %%h host, %%p pid, "
		                 "%%j job id, %%%% a percent sign)", pattern, c ? c : ' ');
	}
	char names[256];
	name_vars(names, sizeof(names), tried);
	return tly_error(-EINVAL, "'%s': %%%c has no value here: none of %s is set (is this run under a launcher "
	                 "such as mpirun or srun?)", pattern, c, names);
}

int tally_path_expand(const char *pattern, char *out, size_t cap)
{
	if (!pattern || (!out && cap))
		return tly_null_arg(__func__);
	struct tally_rank r;
	int err = rank_fill(&r);
	if (err < 0)
		return err;
	size_t len = 0;
	for (const char *p = pattern; *p; p++) {
		char piece[sizeof(r.host)] = { *p, '\0' };
		if (*p == '%') {
			err = placeholder(*++p, &r, pattern, piece, sizeof(piece));
			if (err < 0)
				return err;
		}
		size_t n = strlen(piece);
		if (len < cap)
			memcpy(out + len, piece, len + n < cap ? n : cap - 1 - len);
		len += n;
		if (len > INT32_MAX)
			return tly_error(-EOVERFLOW, "'%s': the expanded path is too long", pattern);
	}
	if (cap)
		out[len < cap ? len : cap - 1] = '\0';
	return (int)len;
}
