/* SPDX-License-Identifier: MIT */
/*
 * The cost of a named region (tally_region_begin_id + tally_region_end_id) on a 4-event software group
 * {task-clock, page-faults, minor-faults, context-switches} of the calling thread (read(2) path), against
 * two bare group reads of the same events: a group opened here with perf_event_open(2), each read one
 * read(2) of its leader and the values matched to events by id, as a caller without a library writes it.
 * The region does more than the two reads (the deltas, their scaling, the running statistics and the wall
 * clock), so its extra cost is what this measures.
 *
 * Both sides run in interleaved rounds (the order alternates) and each round gives ns per pair for each
 * side and their ratio; printed: the median ns of each side and the median of the per-round ratios. Under
 * callgrind each side is one out-of-line function (region_pair, bare_pair), so the instruction counts
 * of both come from one run and are the same in every run:
 *
 *   bench_region [pairs-per-round [rounds]]      (default 20000 pairs, 21 rounds)
 *   valgrind --tool=callgrind --callgrind-out-file=cg.out bench_region 1000 1
 *   callgrind_annotate --inclusive=yes cg.out | grep -E 'region_pair|bare_pair'
 *
 * On an x86-64 VM with GCC 12 (1001 pairs): 474,422 user instructions for the regions against 311,963
 * for the bare reads (1.52x); tests/test_read_cost.sh holds it under 1.65x. The rest is the statistics
 * of 4 events (sums of the counts and of their squares, min, max: some 25 instructions an event per
 * call), the two moments of the wall clock (CLOCK_MONOTONIC), and the set's bookkeeping (the thread's
 * state, the record, nesting); the read's checks (the group's size and each member's id, in place) cost
 * less than the bare reads' decode by id.
 */
#include "bench_timing.h"
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <tally.h>
#include <time.h>
#include <unistd.h>

#define SPEC "{task-clock,page-faults,minor-faults,context-switches}"
enum { NR_EVENTS = 4, MAX_ROUNDS = 1001 };
static const uint64_t configs[NR_EVENTS] = { PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS,
	                                     PERF_COUNT_SW_PAGE_FAULTS_MIN, PERF_COUNT_SW_CONTEXT_SWITCHES };

struct bare {
	int fd[NR_EVENTS];
	uint64_t ids[NR_EVENTS];
	uint64_t buf[3 + 2 * NR_EVENTS];
};

static int bare_open(struct bare *b)
{
	for (int i = 0; i < NR_EVENTS; i++) {
		struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(attr), .config = configs[i],
			                        .read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
			                                       PERF_FORMAT_TOTAL_TIME_ENABLED |
			                                       PERF_FORMAT_TOTAL_TIME_RUNNING };
		b->fd[i] = (int)syscall(SYS_perf_event_open, &attr, 0, -1, i ? b->fd[0] : -1, PERF_FLAG_FD_CLOEXEC);
		if (b->fd[i] < 0 || ioctl(b->fd[i], PERF_EVENT_IOC_ID, &b->ids[i]) != 0)
			return -1;
	}
	return 0;
}

/* One read(2) and the values matched to events by id. */
static int bare_read(struct bare *b, uint64_t *values)
{
	if (read(b->fd[0], b->buf, sizeof(b->buf)) != (ssize_t)sizeof(b->buf) || b->buf[0] != NR_EVENTS)
		return -1;
	const uint64_t *entry = &b->buf[3];
	for (size_t i = 0; i < NR_EVENTS; i++, entry += 2)
		for (size_t k = 0; k < NR_EVENTS; k++)
			if (b->ids[k] == entry[1])
				values[k] = entry[0];
	return 0;
}

__attribute__((noinline)) static int bare_pair(struct bare *b)
{
	uint64_t before[NR_EVENTS], after[NR_EVENTS];
	return bare_read(b, before) | bare_read(b, after);
}

__attribute__((noinline)) static int region_pair(tally_region_set *s, int id)
{
	return tally_region_begin_id(s, id) | tally_region_end_id(s, id);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double region_ns[MAX_ROUNDS], bare_ns[MAX_ROUNDS], ratio[MAX_ROUNDS];

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	long rounds = argc > 2 ? atol(argv[2]) : 21;
	if (n <= 0 || rounds <= 0 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: bench_region [pairs-per-round [rounds (1..%d)]]\n", MAX_ROUNDS);
		return 2;
	}
	struct bare b;
	tally_region_set *s = NULL;
	TALLY_OPTS(tally_region_opts, opts, .no_user_reads = true);
	if (bare_open(&b) != 0 || tally_region_set_new(SPEC, &opts, &s) != 0 || tally_region_set_error(s)[0]) {
		fprintf(stderr, "bench_region: %s\n", s ? tally_region_set_error(s) : tally_last_error());
		return 1;
	}
	int id = tally_region_id(s, "empty");
	int err = region_pair(s, id) | bare_pair(&b); /* first uses */
	for (long r = 0; r < rounds && !err; r++) {
		for (int side = 0; side < 2; side++) {
			bool region = (side + r) % 2 == 0;
			uint64_t t0 = now_ns();
			for (long i = 0; i < n && !err; i++)
				err = region ? region_pair(s, id) : bare_pair(&b);
			double ns = (double)(now_ns() - t0) / (double)n;
			*(region ? &region_ns[r] : &bare_ns[r]) = ns;
		}
		ratio[r] = region_ns[r] / bare_ns[r];
	}
	if (err) {
		fprintf(stderr, "bench_region: a read failed\n");
		return 1;
	}
	printf("region begin+end %.0f ns, two bare group reads %.0f ns (medians of %ld rounds of %ld); "
	       "median per-round ratio %.3fx\n",
	       bench_median(region_ns, (size_t)rounds), bench_median(bare_ns, (size_t)rounds), rounds, n,
	       bench_median(ratio, (size_t)rounds));
	tally_region_set_free(s);
	return 0;
}
