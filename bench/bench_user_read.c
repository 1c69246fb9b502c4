/* SPDX-License-Identifier: MIT */
/*
 * Reads of a running 4-event hardware group on the calling thread: tally_counter_read_values and
 * tally_counter_read from user space against the minimal hand-written reader of bench/user_reader.h over
 * pages this program maps itself (the same 4 events), and tally_counter_read with no_user_reads
 * (read(2)). Prints ns/read of each and the ratios. Needs a hardware PMU that allows user-space reads (x86: /sys/.../cpu/rdpmc not 0; arm64:
 * kernel.perf_user_access=1); says why and exits 0 where there is none. The deterministic instruction
 * counts come from the arm64 rig (tests/arm64/suite.c, fast_read_cost).
 *
 *   bench_user_read [reads]      (default 1,000,000)
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <tally.h>
#include <time.h>
#include <unistd.h>

#include "user_reader.h"

#define SPEC "{instructions:u,cycles:u,branches:u,branch-misses:u}"
enum { NR = 4 };

static const uint64_t generic[NR] = { PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES,
	                              PERF_COUNT_HW_BRANCH_INSTRUCTIONS, PERF_COUNT_HW_BRANCH_MISSES };

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double time_counter(tally_counter *c, unsigned reads)
{
	struct tally_result r[NR];
	double t0 = now_ns();
	for (unsigned i = 0; i < reads; i++)
		tally_counter_read(c, r, NR, sizeof(r[0]));
	return (now_ns() - t0) / reads;
}

static double time_values(tally_counter *c, unsigned reads)
{
	uint64_t v[NR];
	double t0 = now_ns();
	for (unsigned i = 0; i < reads; i++)
		tally_counter_read_values(c, v, NR);
	return (now_ns() - t0) / reads;
}

static tally_counter *started(bool no_user_reads)
{
	tally_counter *c = NULL;
	TALLY_OPTS(tally_counter_opts, o, .no_user_reads = no_user_reads);
	if (tally_counter_new(SPEC, &o, &c) != 0 || tally_counter_open(c, NULL) != 0 || tally_counter_start(c) != 0) {
		printf("bench_user_read: %s: skipped\n", tally_last_error());
		tally_counter_free(c);
		return NULL;
	}
	return c;
}

int main(int argc, char **argv)
{
	unsigned reads = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000000;
	if (reads == 0)
		reads = 1;
	tally_counter *fast = started(false);
	if (!fast)
		return 0;
	TALLY_OPTS(tally_read_info, info);
	tally_counter_read_info(fast, 0, &info);
	if (info.path != TALLY_READ_USER) {
		printf("bench_user_read: no user-space reads here (%s): skipped\n", tally_read_reason_str(info.reason));
		tally_counter_free(fast);
		return 0;
	}
	double fast_ns = time_counter(fast, reads), values_ns = time_values(fast, reads);
	tally_counter_free(fast);

	int fd[NR];
	volatile struct perf_event_mmap_page *pages[NR];
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	for (size_t k = 0; k < NR; k++) {
		struct perf_event_attr attr = { .type = PERF_TYPE_HARDWARE, .size = sizeof(attr), .config = generic[k],
			                        .exclude_kernel = 1, .exclude_hv = 1, .disabled = k == 0 };
#if defined(__aarch64__)
		attr.config1 = 2; /* armv8_pmuv3's rdpmc term: user access is asked per event */
#endif
		fd[k] = (int)syscall(SYS_perf_event_open, &attr, 0, -1, k ? fd[0] : -1, 0);
		void *p = fd[k] < 0 ? MAP_FAILED : mmap(NULL, page, PROT_READ, MAP_SHARED, fd[k], 0);
		if (p == MAP_FAILED) {
			printf("bench_user_read: the minimal reader's event %zu cannot be opened and mapped: skipped\n", k);
			return 0;
		}
		pages[k] = p;
	}
	ioctl(fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	uint64_t v, e, r, sum = 0;
	double t0 = now_ns();
	for (unsigned i = 0; i < reads; i++)
		for (size_t k = 0; k < NR; k++)
			if (user_reader_read(pages[k], &v, &e, &r) == 0)
				sum += v + e + r; /* every result used, or the compiler drops the arithmetic behind it */
	double minimal_ns = (now_ns() - t0) / reads;
	for (size_t k = 0; k < NR; k++) {
		munmap((void *)pages[k], page);
		close(fd[k]);
	}

	tally_counter *slow = started(true);
	double slow_ns = slow ? time_counter(slow, reads) : 0;
	tally_counter_free(slow);
	printf("%s, calling thread, %u reads each:\n", SPEC, reads);
	printf("  minimal reader (bench/user_reader.h): %8.1f ns/read\n", minimal_ns);
	printf("  tally_counter_read_values, user space: %7.1f ns/read (%.3fx the minimal reader)\n", values_ns,
	       values_ns / minimal_ns);
	printf("  tally_counter_read from user space:   %8.1f ns/read (%.3fx)\n", fast_ns, fast_ns / minimal_ns);
	printf("  tally_counter_read through read(2):   %8.1f ns/read (%.3fx)\n", slow_ns, slow_ns / minimal_ns);
	printf("  [checksum %llu]\n", (unsigned long long)sum);
	return 0;
}
