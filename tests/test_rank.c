/* SPDX-License-Identifier: MIT */
/* Rank, size, host and job from each launcher's variables, and per-rank paths (tally/rank.h). */
#include "harness.h"

#include <stdlib.h>
#include <tally/rank.h>
#include <unistd.h>

static const char *const launcher_vars[] = {
	"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID", "MV2_COMM_WORLD_RANK",
	"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", "MV2_COMM_WORLD_SIZE",
	"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID", "JOB_ID",
};

static void clear_launcher(void)
{
	for (size_t i = 0; i < sizeof(launcher_vars) / sizeof(launcher_vars[0]); i++)
		unsetenv(launcher_vars[i]);
}

/* Each launcher's variables alone give the rank and size (and the variable named). */
static void each_launcher(void)
{
	static const struct {
		const char *rank_var, *size_var;
	} cases[] = {
		{ "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE" },
		{ "PMIX_RANK", NULL },
		{ "PMI_RANK", "PMI_SIZE" },
		{ "SLURM_PROCID", "SLURM_NTASKS" },
		{ "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		clear_launcher();
		setenv(cases[i].rank_var, "3", 1);
		if (cases[i].size_var)
			setenv(cases[i].size_var, "16", 1);
		TALLY_OPTS(tally_rank, r);
		CHECK_INT(tally_rank_get(&r), 0);
		CHECK_INT(r.rank, 3);
		CHECK_STR(r.rank_var, cases[i].rank_var);
		CHECK_INT(r.size, cases[i].size_var ? 16 : -1);
		CHECK(r.host[0] != '\0');
		CHECK_STR(r.job, "");
		CHECK(r.job_var == NULL);
	}
	clear_launcher();
	TALLY_OPTS(tally_rank, none);
	CHECK_INT(tally_rank_get(&none), 0);
	CHECK_INT(none.rank, -1);
	CHECK_INT(none.size, -1);
	CHECK(none.rank_var == NULL);
}

/* Open MPI's variables win over Slurm's when both are set (srun launching Open MPI sets both, equal). */
static void first_variable_wins(void)
{
	clear_launcher();
	setenv("SLURM_PROCID", "5", 1);
	setenv("OMPI_COMM_WORLD_RANK", "2", 1);
	setenv("SLURM_JOB_ID", "812", 1);
	TALLY_OPTS(tally_rank, r);
	CHECK_INT(tally_rank_get(&r), 0);
	CHECK_INT(r.rank, 2);
	CHECK_STR(r.job, "812");
	CHECK_STR(r.job_var, "SLURM_JOB_ID");
	clear_launcher();
}

static void expands_every_placeholder(void)
{
	clear_launcher();
	setenv("SLURM_PROCID", "7", 1);
	setenv("SLURM_NTASKS", "8", 1);
	setenv("SLURM_JOB_ID", "4242", 1);
	char host[256] = "", want[1024], out[1024];
	gethostname(host, sizeof(host) - 1);
	snprintf(want, sizeof(want), "run-4242/r7of8.%s.%d.100%%.json", host, (int)getpid());
	int len = tally_path_expand("run-%j/r%rof%s.%h.%p.100%%.json", out, sizeof(out));
	CHECK_STR(out, want);
	CHECK_INT(len, (int)strlen(want));
	/* Cut like snprintf: the length needed comes back, the text is cut and terminated. */
	char small[6];
	CHECK_INT(tally_path_expand("a%rbcdefgh", small, sizeof(small)), 9);
	CHECK_STR(small, "a7bcd");
	CHECK_INT(tally_path_expand("plain", NULL, 0), 5);
	clear_launcher();
}

/* A placeholder without a value is an error naming the variables tried, not a "0" (which made every rank
 * outside a launcher write the same file). */
static void missing_value_names_variables(void)
{
	clear_launcher();
	char out[256];
	CHECK_INT(tally_path_expand("out.%r.json", out, sizeof(out)), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "%r has no value");
	CHECK_CONTAINS(tally_last_error(), "OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID, MV2_COMM_WORLD_RANK");
	CHECK_INT(tally_path_expand("out.%s", out, sizeof(out)), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS, MV2_COMM_WORLD_SIZE");
	CHECK_INT(tally_path_expand("out.%j", out, sizeof(out)), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, FLUX_JOB_ID, JOB_ID");
	CHECK_INT(tally_path_expand("out.%q", out, sizeof(out)), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "unknown placeholder %q");
	CHECK_INT(tally_path_expand("out.%", out, sizeof(out)), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "unknown placeholder");
	/* A rank that is not a number is refused, naming the variable. */
	setenv("PMI_RANK", "3x", 1);
	CHECK_INT(tally_path_expand("out.%r", out, sizeof(out)), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "PMI_RANK='3x'");
	TALLY_OPTS(tally_rank, r);
	CHECK_INT(tally_rank_get(&r), -EINVAL);
	setenv("PMI_RANK", "-1", 1);
	CHECK_INT(tally_rank_get(&r), -EINVAL);
	clear_launcher();
	CHECK_INT(tally_path_expand(NULL, out, sizeof(out)), -EINVAL);
	CHECK_INT(tally_rank_get(NULL), -EINVAL);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "each_launcher", each_launcher },
		{ "first_variable_wins", first_variable_wins },
		{ "expands_every_placeholder", expands_every_placeholder },
		{ "missing_value_names_variables", missing_value_names_variables },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
