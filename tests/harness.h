/* SPDX-License-Identifier: MIT */
/*
 * The test harness: each test file lists its cases in one table (libuv style) and ends main() with
 * `return harness_run(cases)`. A failed CHECK prints file:line and the values, and the case goes on;
 * the file's exit status is 1 when any check failed, 77 (CTest SKIP) when a case called SKIP() and
 * none failed, 0 otherwise. TALLY_TEST_ONLY=NAME runs only the case NAME (1 when there is none).
 */
#ifndef TALLY_TEST_HARNESS_H
#define TALLY_TEST_HARNESS_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int harness_failed;
static int harness_skipped;
static const char *harness_case;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: [%s] CHECK failed: %s\n", __FILE__, __LINE__,     \
			        harness_case, #cond);                                              \
			harness_failed++;                                                          \
		}                                                                                  \
	} while (0)

#define CHECK_INT(a, b)                                                                            \
	do {                                                                                       \
		long long va_ = (long long)(a), vb_ = (long long)(b);                              \
		if (va_ != vb_) {                                                                  \
			fprintf(stderr, "%s:%d: [%s] %s == %lld, expected %s == %lld\n", __FILE__, \
			        __LINE__, harness_case, #a, va_, #b, vb_);                         \
			harness_failed++;                                                          \
		}                                                                                  \
	} while (0)

#define CHECK_U64(a, b)                                                                            \
	do {                                                                                       \
		uint64_t va_ = (uint64_t)(a), vb_ = (uint64_t)(b);                                 \
		if (va_ != vb_) {                                                                  \
			fprintf(stderr, "%s:%d: [%s] %s == %#" PRIx64 ", expected %#" PRIx64 "\n", \
			        __FILE__, __LINE__, harness_case, #a, va_, vb_);                   \
			harness_failed++;                                                          \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *sa_ = (a), *sb_ = (b);                                                 \
		if (!sa_ || !sb_ || strcmp(sa_, sb_) != 0) {                                       \
			fprintf(stderr, "%s:%d: [%s] %s == \"%s\", expected \"%s\"\n", __FILE__,   \
			        __LINE__, harness_case, #a, sa_ ? sa_ : "(null)",                  \
			        sb_ ? sb_ : "(null)");                                             \
			harness_failed++;                                                          \
		}                                                                                  \
	} while (0)

/* Checks that haystack contains needle. */
#define CHECK_CONTAINS(haystack, needle)                                                           \
	do {                                                                                       \
		const char *h_ = (haystack), *n_ = (needle);                                       \
		if (!h_ || !strstr(h_, n_)) {                                                      \
			fprintf(stderr, "%s:%d: [%s] \"%s\" does not contain \"%s\"\n", __FILE__,  \
			        __LINE__, harness_case, h_ ? h_ : "(null)", n_);                   \
			harness_failed++;                                                          \
		}                                                                                  \
	} while (0)

/* Ends the current case as skipped, loudly, with the reason. */
#define SKIP(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "SKIP [%s]: ", harness_case);                                      \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fprintf(stderr, "\n");                                                             \
		harness_skipped++;                                                                 \
		return;                                                                            \
	} while (0)

struct harness_case {
	const char *name;
	void (*fn)(void);
};

static inline int harness_run(const struct harness_case *cases)
{
	const char *only = getenv("TALLY_TEST_ONLY");
	int ran = 0;
	for (const struct harness_case *c = cases; c->name; c++) {
		if (only && strcmp(only, c->name) != 0)
			continue;
		harness_case = c->name;
		int before = harness_failed, skipped_before = harness_skipped;
		c->fn();
		ran++;
		printf("%s %s\n",
		       harness_failed > before ? "FAIL"
		       : harness_skipped > skipped_before ? "SKIP"
		                                          : "ok  ",
		       c->name);
	}
	printf("%d cases, %d checks failed, %d skipped\n", ran, harness_failed, harness_skipped);
	/* A misspelt TALLY_TEST_ONLY ran nothing, and nothing run is no pass. */
	if (ran == 0) {
		fprintf(stderr, "no case %s%s\n", only ? "named " : "in the table", only ? only : "");
		return 1;
	}
	if (harness_failed)
		return 1;
	return harness_skipped ? 77 : 0;
}

#endif
