/* SPDX-License-Identifier: MIT */
/*
 * Groups against the kernel's rules on a real kernel, software events only: a group's D and e modifiers
 * (pinned and exclusive are for leaders: members count), and the limit on a group's read (16 KiB since
 * Linux 6.7) for packed groups of many events and for explicit ones.
 */
#include "core/error.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <tally/counter.h>
#include <tally/evlist.h>
#include <unistd.h>

#define PAGES 256

/* "{task-clock,...}" or "task-clock,..." with n items; NULL when out of memory. */
static char *many_task_clocks(size_t n, bool braces)
{
	static const char item[] = "task-clock,";
	char *spec = malloc(n * (sizeof(item) - 1) + 3);
	if (!spec)
		return NULL;
	char *p = spec;
	if (braces)
		*p++ = '{';
	for (size_t i = 0; i < n; i++, p += sizeof(item) - 1)
		memcpy(p, item, sizeof(item) - 1);
	p--; /* the last comma */
	if (braces)
		*p++ = '}';
	*p = '\0';
	return spec;
}

/* Room for n descriptors and some, raising the soft limit toward the hard one; false when the hard limit
 * is below that. */
static bool room_for_fds(rlim_t n)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return false;
	rlim_t want = n + 64;
	if (rl.rlim_cur >= want)
		return true;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
		return false;
	rl.rlim_cur = want;
	return setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

/* Opens, starts, stops and reads spec (n events) into r; -errno of the open, with its text in *why. */
static int count(const char *spec, struct tally_result *r, size_t n, char *why, size_t why_len)
{
	tally_counter *c = NULL;
	int err = tally_counter_new(spec, NULL, &c);
	CHECK_INT(err, 0);
	if (err)
		return err;
	err = tally_counter_open(c, NULL);
	snprintf(why, why_len, "%s", err ? tally_counter_last_error(c) : "");
	if (!err) {
		long page = sysconf(_SC_PAGESIZE);
		char *pages = mmap(NULL, PAGES * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		                   -1, 0);
		CHECK(pages != MAP_FAILED);
		CHECK_INT(tally_counter_start(c), 0);
		for (size_t i = 0; pages != MAP_FAILED && i < PAGES; i++)
			((volatile char *)pages)[i * (size_t)page] = 1;
		CHECK_INT(tally_counter_stop(c), 0);
		CHECK_INT(tally_counter_read(c, r, n, sizeof(r[0])), (int)n);
		if (pages != MAP_FAILED)
			munmap(pages, PAGES * (size_t)page);
	}
	tally_counter_free(c);
	return err;
}

static void group_modifiers_leave_members_counting(void)
{
	static const char *const specs[] = { "{task-clock,page-faults,minor-faults}:D",
		                             "{task-clock,page-faults,minor-faults}:e" };
	for (size_t s = 0; s < 2; s++) {
		struct tally_result r[3];
		char why[TLY_ERROR_MAX] = "";
		int err = count(specs[s], r, 3, why, sizeof(why));
		CHECK_INT(err, 0);
		if (err)
			fprintf(stderr, "%s: %s\n", specs[s], why);
		for (int i = 0; i < 3; i++) {
			CHECK_INT(r[i].status, TALLY_STATUS_EXACT);
			CHECK_INT(r[i].group, 0);
		}
		CHECK(r[1].value >= PAGES);
		CHECK(r[2].value >= PAGES);
	}
}

/* Every event counts, in groups of at most 1022 (tly_read_max_group of tally's read layout). 700 used to
 * fail as one packed group (PERF_FORMAT_LOST made it 24 bytes an event: at most 681). */
static void many_events_pack_into_groups_that_fit(void)
{
	static const size_t sizes[] = { 700, 1100 };
	if (!room_for_fds(1100))
		SKIP("RLIMIT_NOFILE's hard limit is below 1164");
	for (size_t s = 0; s < 2; s++) {
		size_t n = sizes[s];
		char *spec = many_task_clocks(n, false);
		struct tally_result *r = calloc(n, sizeof(*r));
		CHECK(spec && r);
		char why[TLY_ERROR_MAX] = "";
		int err = spec && r ? count(spec, r, n, why, sizeof(why)) : -ENOMEM;
		CHECK_INT(err, 0);
		if (err)
			fprintf(stderr, "%zu task-clocks: %s\n", n, why);
		for (size_t i = 0; !err && i < n; i++) {
			CHECK_INT(r[i].status, TALLY_STATUS_EXACT);
			CHECK(r[i].value > 0);
			CHECK_INT(r[i].group, i < 1022 ? 0 : 1022);
		}
		free(spec);
		free(r);
	}
}

/* Kernels before 6.7 checked only the joining event's own read size (see TLY_GROUP_READ_MAX). */
static bool kernel_checks_group_read_size(void)
{
	struct utsname u;
	unsigned major = 0, minor = 0;
	if (uname(&u) != 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return true;
	return major > 6 || (major == 6 && minor >= 7);
}

/* An explicit group within the limit counts, as perf counts it; past it the open fails with the limit
 * named (perf stat fails too: "Argument list too long"). */
static void explicit_groups_and_the_read_limit(void)
{
	if (!room_for_fds(1100))
		SKIP("RLIMIT_NOFILE's hard limit is below 1164");
	char *spec = many_task_clocks(700, true);
	struct tally_result *r = calloc(1100, sizeof(*r));
	CHECK(spec && r);
	char why[TLY_ERROR_MAX] = "";
	int err = spec && r ? count(spec, r, 700, why, sizeof(why)) : -ENOMEM;
	CHECK_INT(err, 0);
	if (!err) {
		CHECK_INT(r[0].status, TALLY_STATUS_EXACT);
		CHECK_INT(r[699].status, TALLY_STATUS_EXACT);
		CHECK_INT(r[699].group, 0);
	}
	free(spec);
	spec = many_task_clocks(1100, true);
	CHECK(spec != NULL);
	if (spec && r) {
		err = count(spec, r, 1100, why, sizeof(why));
		if (kernel_checks_group_read_size() || err) {
			CHECK_INT(err, -E2BIG);
			CHECK_CONTAINS(why, "limit of 16384 bytes (16 KiB) on a group's read");
			CHECK_CONTAINS(why, "at most 1022 events, and this one has 1100");
		}
	}
	free(spec);
	free(r);
}

/* Counting reads ask for no PERF_FORMAT_LOST: lost samples are always 0 when counting. */
static void counting_reads_ask_for_no_lost(void)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK };
	tally_evsel *leader = NULL, *member = NULL;
	CHECK_INT(tally_evsel_new(&attr, &leader), 0);
	CHECK_INT(tally_evsel_new(&attr, &member), 0);
	if (leader && member) {
		CHECK_INT(tally_evsel_set_leader(member, leader), 0);
		uint64_t f = tally_evsel_attr(leader)->read_format;
		CHECK(!(f & PERF_FORMAT_LOST));
		CHECK(f & PERF_FORMAT_GROUP);
		CHECK(!(tally_evsel_attr(member)->read_format & PERF_FORMAT_LOST));
	}
	tally_evsel_free(member);
	tally_evsel_free(leader);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "group_modifiers_leave_members_counting", group_modifiers_leave_members_counting },
		{ "many_events_pack_into_groups_that_fit", many_events_pack_into_groups_that_fit },
		{ "explicit_groups_and_the_read_limit", explicit_groups_and_the_read_limit },
		{ "counting_reads_ask_for_no_lost", counting_reads_ask_for_no_lost },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
