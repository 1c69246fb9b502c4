/* SPDX-License-Identifier: MIT */
/*
 * The cost of reading a 4-event software group {task-clock, page-faults, minor-faults, context-switches}
 * through tally (tally_evsel_read_group: one read(2), decoded and matched by id) against a bare read(2)
 * of the same leader fd with a hand-written decode (also by id, as seed 000 does). Both run in
 * alternating rounds on the same open group; the best round of each is compared, so that a burst of
 * noise in one round does not decide the ratio.
 *
 *   bench_read [reads-per-round]      (default 200000; 7 rounds of each)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <tally.h>
#include <time.h>
#include <unistd.h>

enum { NR_EVENTS = 4, ROUNDS = 7 };

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The layout tally asks for: GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID, plus LOST if the attr
 * has it (read back from the attr, so the bare decode follows the same format). */
struct bare {
	int fd;
	uint64_t ids[NR_EVENTS];
	int has_lost;
	uint64_t buf[3 + NR_EVENTS * 3];
};

static int bare_read(struct bare *b, uint64_t *values)
{
	size_t per = b->has_lost ? 3 : 2;
	size_t size = sizeof(uint64_t) * (3 + NR_EVENTS * per);
	if (read(b->fd, b->buf, size) != (ssize_t)size || b->buf[0] != NR_EVENTS)
		return -1;
	const uint64_t *entry = &b->buf[3];
	for (size_t i = 0; i < NR_EVENTS; i++, entry += per)
		for (size_t k = 0; k < NR_EVENTS; k++)
			if (b->ids[k] == entry[1])
				values[k] = entry[0];
	return 0;
}

static int open_group(tally_evlist **out)
{
	static const struct {
		uint64_t config;
		const char *name;
	} events[NR_EVENTS] = {
		{ PERF_COUNT_SW_TASK_CLOCK, "task-clock" },
		{ PERF_COUNT_SW_PAGE_FAULTS, "page-faults" },
		{ PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults" },
		{ PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches" },
	};
	int err = tally_evlist_new(out);
	for (int i = 0; !err && i < NR_EVENTS; i++) {
		struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .config = events[i].config,
			                        .disabled = i == 0 };
		tally_evsel *e = NULL;
		err = tally_evsel_new(&attr, &e);
		if (!err)
			err = tally_evsel_set_name(e, events[i].name);
		if (!err)
			err = tally_evlist_add(*out, e);
		else
			tally_evsel_free(e);
	}
	if (!err)
		err = tally_evlist_set_leader(*out);
	if (!err)
		err = tally_evlist_open(*out);
	if (!err)
		err = tally_evlist_enable(*out);
	return err;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	if (n <= 0) {
		fprintf(stderr, "usage: bench_read [reads-per-round]\n");
		return 2;
	}
	tally_evlist *list = NULL;
	int err = open_group(&list);
	if (err) {
		fprintf(stderr, "bench_read: %s\n", tally_last_error());
		tally_evlist_free(list);
		return 1;
	}
	tally_evsel *leader = tally_evlist_at(list, 0);
	struct bare b = { .fd = tally_evsel_fd(leader, 0, 0),
		          .has_lost = (tally_evsel_attr(leader)->read_format & PERF_FORMAT_LOST) != 0 };
	for (int k = 0; k < NR_EVENTS; k++)
		b.ids[k] = tally_evsel_id(tally_evlist_at(list, (size_t)k), 0, 0);

	struct tally_count counts[NR_EVENTS];
	uint64_t values[NR_EVENTS] = { 0 }, sink = 0;
	uint64_t best_tally = UINT64_MAX, best_bare = UINT64_MAX;
	for (int round = 0; round < ROUNDS && !err; round++) {
		uint64_t t0 = now_ns();
		for (long i = 0; i < n && !err; i++) {
			err = tally_evsel_read_group(leader, 0, 0, counts, NR_EVENTS, sizeof(counts[0]));
			sink += counts[1].value;
		}
		uint64_t t1 = now_ns();
		for (long i = 0; i < n && !err; i++) {
			err = bare_read(&b, values);
			sink += values[1];
		}
		uint64_t t2 = now_ns();
		if (t1 - t0 < best_tally)
			best_tally = t1 - t0;
		if (t2 - t1 < best_bare)
			best_bare = t2 - t1;
	}
	if (err) {
		fprintf(stderr, "bench_read: read failed: %s\n", tally_last_error());
		tally_evlist_free(list);
		return 1;
	}
	double tally_ns = (double)best_tally / (double)n, bare_ns = (double)best_bare / (double)n;
	printf("4-event software group, %ld reads x %d rounds (best round):\n", n, ROUNDS);
	printf("  tally_evsel_read_group: %8.1f ns/read\n", tally_ns);
	printf("  bare read(2) + decode:  %8.1f ns/read\n", bare_ns);
	printf("  ratio tally/bare: %.3fx (goal <= 1.03x)   [page-faults %" PRIu64 ", checksum %" PRIu64 "]\n",
	       tally_ns / bare_ns, counts[1].value, sink & 0xff);
	tally_evlist_free(list);
	return 0;
}
