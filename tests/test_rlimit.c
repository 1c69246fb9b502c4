/* SPDX-License-Identifier: MIT */
/*
 * Descriptors: a counter that needs more than the soft RLIMIT_NOFILE leaves raises it toward the hard
 * limit before opening (as perf does), and an EMFILE that remains is explained by the hard limit. Each case
 * runs in a child process, since a lowered hard limit cannot be raised again.
 */
#include "harness.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <tally/counter.h>
#include <unistd.h>

#define NR_EVENTS 64

/* "task-clock,task-clock,..." NR_EVENTS times, each on its own descriptor. */
static int open_many(tally_counter **out)
{
	static char spec[NR_EVENTS * sizeof("task-clock,")];
	spec[0] = '\0';
	for (int i = 0; i < NR_EVENTS; i++)
		strcat(strcat(spec, i ? "," : ""), "task-clock");
	TALLY_OPTS(tally_counter_opts, o, .no_packing = true);
	int err = tally_counter_new(spec, &o, out);
	return err ? err : tally_counter_open(*out, NULL);
}

#define KEEP_HARD 0
#define CANNOT_SET 77

/* Runs fn in a child with the limits (soft, hard; KEEP_HARD: the current hard limit); the child's failed
 * checks are its exit status. A child that may not set them (valgrind refuses any change of the hard
 * limit) skips. */
static void in_child(rlim_t soft, rlim_t hard, void (*fn)(void))
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit rl;
		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = soft;
		rl.rlim_max = hard == KEEP_HARD ? rl.rlim_max : hard;
		if (rl.rlim_max < soft || setrlimit(RLIMIT_NOFILE, &rl) < 0)
			_exit(CANNOT_SET);
		fn();
		fflush(stdout);
		_exit(harness_failed ? 1 : 0);
	}
	int status = 0;
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	if (WEXITSTATUS(status) == CANNOT_SET)
		SKIP("cannot set RLIMIT_NOFILE to %llu/%llu here", (unsigned long long)soft, (unsigned long long)hard);
	CHECK_INT(WEXITSTATUS(status), 0);
}

static void raises_the_soft_limit(void)
{
	tally_counter *c = NULL;
	int err = open_many(&c);
	if (err)
		fprintf(stderr, "%s\n", tally_last_error());
	CHECK_INT(err, 0);
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	printf("  soft limit 20 raised to %llu for %d events\n", (unsigned long long)rl.rlim_cur, NR_EVENTS);
	CHECK(rl.rlim_cur >= NR_EVENTS);
	CHECK(rl.rlim_cur < rl.rlim_max || rl.rlim_max <= 20 + NR_EVENTS); /* by what it needs, not to the hard limit */
	CHECK(rl.rlim_cur <= rl.rlim_max);
	struct tally_result r[NR_EVENTS];
	CHECK_INT(tally_counter_start(c), 0);
	CHECK_INT(tally_counter_read(c, r, NR_EVENTS, sizeof(r[0])), NR_EVENTS);
	tally_counter_free(c);
}

static void hard_limit_is_explained(void)
{
	tally_counter *c = NULL;
	CHECK_INT(open_many(&c), -EMFILE);
	const char *text = tally_counter_last_error(c);
	CHECK_CONTAINS(text, "needs 64 file descriptors");
	CHECK_CONTAINS(text, "hard RLIMIT_NOFILE (20)");
	CHECK_CONTAINS(text, "raise the hard limit");
	tally_counter_free(c);
}

static void low_soft_limit_with_room_under_the_hard_one(void)
{
	in_child(20, KEEP_HARD, raises_the_soft_limit);
}

static void low_hard_limit(void)
{
	in_child(20, 20, hard_limit_is_explained);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "low_soft_limit_with_room_under_the_hard_one", low_soft_limit_with_room_under_the_hard_one },
		{ "low_hard_limit", low_hard_limit },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
