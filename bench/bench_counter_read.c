/* SPDX-License-Identifier: MIT */
/*
 * The cost of tally_counter_read on a 4-event software group {task-clock, page-faults, minor-faults,
 * context-switches}, counting the calling thread, against a bare read(2) of the SAME group leader fd with a
 * hand-written decode by id. The counter does not hand out its fds, so they are found as the perf_event
 * descriptors that tally_counter_open added to /proc/self/fd (opened in spec order: the lowest leads),
 * and their ids come from PERF_EVENT_IOC_ID.
 *
 * Both sides run in interleaved rounds (the order alternates from round to round) on the same running
 * counter; each round gives ns/read for each side and their ratio. Printed: best and median ns/read of
 * each side, the ratio of the bests, of the medians, and the median of the per-round ratios (each from
 * two neighbouring windows, so the least sensitive to a machine that is busy with other work).
 *
 *   bench_counter_read [reads-per-round [rounds]]      (default 20000 reads, 41 rounds)
 */
#include "bench_timing.h"
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <tally.h>
#include <time.h>
#include <unistd.h>

#define SPEC "{task-clock,page-faults,minor-faults,context-switches}"
enum { NR_EVENTS = 4, MAX_FDS = 1024, MAX_ROUNDS = 1001 };

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* is_perf[fd] for every perf_event descriptor this process holds now. */
static int perf_fds(unsigned char *is_perf)
{
	memset(is_perf, 0, MAX_FDS);
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	struct dirent *de;
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);
		char target[64];
		ssize_t n = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);
		if (n < 0 || fd < 0 || fd >= MAX_FDS)
			continue;
		target[n] = '\0';
		is_perf[fd] = strcmp(target, "anon_inode:[perf_event]") == 0;
	}
	closedir(d);
	return 0;
}

/* The leader fd and per-event ids of the counter's one group, in the layout its reads come back in. */
struct bare {
	int fd;
	uint64_t ids[NR_EVENTS];
	size_t size;      /* bytes a group read returns */
	size_t per;       /* u64s per entry: value, id (, lost) */
	uint64_t buf[3 + NR_EVENTS * 3];
};

static int find_group(const unsigned char *before, struct bare *b)
{
	unsigned char after[MAX_FDS];
	if (perf_fds(after) != 0)
		return -1;
	int found = 0;
	for (int fd = 0; fd < MAX_FDS; fd++) {
		if (!after[fd] || before[fd])
			continue;
		if (found == NR_EVENTS || ioctl(fd, PERF_EVENT_IOC_ID, &b->ids[found]) != 0)
			return -1;
		if (found++ == 0)
			b->fd = fd;
	}
	if (found != NR_EVENTS)
		return -1;
	ssize_t n = read(b->fd, b->buf, sizeof(b->buf));
	if (n < 24 || b->buf[0] != NR_EVENTS)
		return -1;
	b->size = (size_t)n;
	b->per = ((size_t)n / sizeof(uint64_t) - 3) / NR_EVENTS;
	return 0;
}

/* One read(2) and the values matched to events by id, as a caller without a library would write it. Out
 * of line, as tally_counter_read is, so that each side is one call and callgrind counts them apart. */
__attribute__((noinline)) static int bare_read(struct bare *b, uint64_t *values)
{
	if (read(b->fd, b->buf, b->size) != (ssize_t)b->size || b->buf[0] != NR_EVENTS)
		return -1;
	const uint64_t *entry = &b->buf[3];
	for (size_t i = 0; i < NR_EVENTS; i++, entry += b->per)
		for (size_t k = 0; k < NR_EVENTS; k++)
			if (b->ids[k] == entry[1])
				values[k] = entry[0];
	return 0;
}

static double best(const double *v, size_t n)
{
	double m = v[0];
	for (size_t i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

static double tally_ns[MAX_ROUNDS], bare_ns[MAX_ROUNDS], ratio[MAX_ROUNDS];

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	long rounds = argc > 2 ? atol(argv[2]) : 41;
	if (n <= 0 || rounds <= 0 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: bench_counter_read [reads-per-round [rounds (1..%d)]]\n", MAX_ROUNDS);
		return 2;
	}
	unsigned char before[MAX_FDS];
	tally_counter *c = NULL;
	struct bare b = { .fd = -1 };
	int err = perf_fds(before) ? -1 : tally_counter_new(SPEC, NULL, &c);
	if (!err)
		err = tally_counter_open(c, NULL);
	if (!err && find_group(before, &b) != 0) {
		fprintf(stderr, "bench_counter_read: could not find the counter's group of %d fds\n", NR_EVENTS);
		tally_counter_free(c);
		return 1;
	}
	if (!err)
		err = tally_counter_start(c);
	if (err) {
		fprintf(stderr, "bench_counter_read: %s\n", c ? tally_counter_last_error(c) : tally_last_error());
		tally_counter_free(c);
		return 1;
	}

	struct tally_result r[NR_EVENTS];
	uint64_t values[NR_EVENTS] = { 0 }, sink = 0;
	for (long round = 0; round < rounds && !err; round++) {
		uint64_t side_ns[2];
		for (int k = 0; k < 2 && !err; k++) {
			bool tally_side = (round + k) % 2 == 0;
			uint64_t t0 = now_ns();
			if (tally_side)
				for (long i = 0; i < n && !err; i++) {
					err = tally_counter_read(c, r, NR_EVENTS, sizeof(r[0])) == NR_EVENTS ? 0 : -1;
					sink += r[1].scaled;
				}
			else
				for (long i = 0; i < n && !err; i++) {
					err = bare_read(&b, values);
					sink += values[1];
				}
			side_ns[tally_side ? 0 : 1] = now_ns() - t0;
		}
		tally_ns[round] = (double)side_ns[0] / (double)n;
		bare_ns[round] = (double)side_ns[1] / (double)n;
		ratio[round] = tally_ns[round] / bare_ns[round];
	}
	if (err) {
		fprintf(stderr, "bench_counter_read: read failed: %s\n", tally_counter_last_error(c));
		tally_counter_free(c);
		return 1;
	}
	/* The two sides read one group: the same page-faults but for faults taken in between (none here). */
	tally_counter_read(c, r, NR_EVENTS, sizeof(r[0]));
	bare_read(&b, values);
	size_t nr = (size_t)rounds;
	double best_tally = best(tally_ns, nr), best_bare = best(bare_ns, nr);
	double median_tally = bench_median(tally_ns, nr), median_bare = bench_median(bare_ns, nr);
	printf("%s, calling thread, %ld reads x %ld interleaved rounds:\n", SPEC, n, rounds);
	printf("  %-36s best %7.1f  median %7.1f ns/read\n", "tally_counter_read:", best_tally, median_tally);
	printf("  %-36s best %7.1f  median %7.1f ns/read\n", "bare read(2) of the leader fd + decode:",
	       best_bare, median_bare);
	printf("  ratio tally/bare: best %.3fx, median %.3fx, median of per-round ratios %.3fx (goal <= 1.03x)\n",
	       best_tally / best_bare, median_tally / median_bare, bench_median(ratio, nr));
	printf("  [page-faults: tally %" PRIu64 ", bare %" PRIu64 "; checksum %" PRIu64 "]\n", r[1].value,
	       values[1], sink & 0xff);
	tally_counter_free(c);
	return 0;
}
