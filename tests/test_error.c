/* SPDX-License-Identifier: MIT */
/* Error codes, last-error text, and options structs that carry their size. */
#include "core/error.h"
#include "core/opts.h"
#include "harness.h"

#include <pthread.h>
#include <tally/common.h>

static void strerror_names_both_ranges(void)
{
	CHECK_STR(tally_strerror(0), "success");
	CHECK_STR(tally_strerror(-ENOENT), "No such file or directory");
	CHECK_STR(tally_strerror(ENOENT), "No such file or directory");
	CHECK_STR(tally_strerror(-TALLY_ESPEC), "invalid event specification");
	CHECK_STR(tally_strerror(-TALLY_ENOPMU), "no hardware PMU on this machine");
	for (int e = TALLY_EBASE + 1; e < TALLY_ELAST; e++)
		CHECK(tally_strerror(-e) != NULL && tally_strerror(-e)[0] != '\0');
}

static void error_records_text_and_negates(void)
{
	CHECK_INT(tly_error(EINVAL, "bad %s", "thing"), -EINVAL);
	CHECK_STR(tally_last_error(), "bad thing");
	CHECK_INT(tly_error(-ENOENT, "missing"), -ENOENT);
	tly_error_append(": %d", 42);
	CHECK_STR(tally_last_error(), "missing: 42");
}

static void *fail_in_thread(void *arg)
{
	(void)arg;
	tly_error(-EPERM, "other thread");
	return NULL;
}

static void last_error_is_per_thread(void)
{
	tly_error(-EINVAL, "main thread");
	pthread_t t;
	CHECK_INT(pthread_create(&t, NULL, fail_in_thread, NULL), 0);
	pthread_join(t, NULL);
	CHECK_STR(tally_last_error(), "main thread");
}

struct demo_opts {
	size_t sz;
	int a;
	int b;
};

static void opts_size_and_tail(void)
{
	CHECK(tly_opts_valid(NULL, sizeof(struct demo_opts), "demo_opts"));
	TALLY_OPTS(demo_opts, o, .a = 1);
	CHECK(tly_opts_valid(&o, sizeof(o), "demo_opts"));
	const struct demo_opts *p = &o;
	CHECK_INT(TLY_OPT(p, b, 7), 0);
	/* An older caller whose struct ends before b: b takes its default. */
	struct demo_opts old = { .sz = offsetof(struct demo_opts, b), .a = 3 };
	p = &old;
	CHECK_INT(TLY_OPT(p, b, 7), 7);
	CHECK_INT(TLY_OPT(p, a, 0), 3);
	p = NULL;
	CHECK_INT(TLY_OPT(p, a, 5), 5);
	/* A newer caller that sets a field this build does not know: rejected. */
	struct {
		struct demo_opts known;
		int newer;
	} big = { .known = { .sz = sizeof(big) }, .newer = 1 };
	CHECK(!tly_opts_valid(&big, sizeof(struct demo_opts), "demo_opts"));
	CHECK_CONTAINS(tally_last_error(), "demo_opts");
	big.newer = 0;
	CHECK(tly_opts_valid(&big, sizeof(struct demo_opts), "demo_opts"));
	struct demo_opts zero = { 0 };
	CHECK(!tly_opts_valid(&zero, sizeof(zero), "demo_opts"));
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "strerror_names_both_ranges", strerror_names_both_ranges },
		{ "error_records_text_and_negates", error_records_text_and_negates },
		{ "last_error_is_per_thread", last_error_is_per_thread },
		{ "opts_size_and_tail", opts_size_and_tail },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
