/* SPDX-License-Identifier: MIT */
/*
 * The minimal hand-written user-space reader of one perf event, what tally_counter_read's fast path is
 * measured against (bench/bench_user_read.c here, the arm64 suite's fast_read_cost on the rig): the
 * reader loop of include/uapi/linux/perf_event.h, as libperf's perf_mmap__read_self follows it (seqlock,
 * the counter sign-extended from pmc_width, the times extrapolated with cap_user_time), per event, with
 * nothing else: no ids, no window, no scaling, no results. The counter and clock reads are tally's
 * (src/userread/user_read.h), so both sides pay the same for the registers. A caller must use all three results
 * (or the compiler drops the arithmetic that makes the unused ones, and measures a reader that
 * computes nothing).
 */
#ifndef TALLY_BENCH_USER_READER_H
#define TALLY_BENCH_USER_READER_H

#include <linux/perf_event.h>
#include <stdint.h>

#include "../src/userread/user_read.h"

/* The counter of index idx (not 0), as tly_arch_read_pmc reads it, without the output that says an
 * index is unreadable, which this reader does not take (it checks idx for 0 alone, as libperf's does):
 * on arm64 the same table, whose unreadable entries write x17. */
static inline uint64_t user_reader_pmc(uint32_t idx)
{
#if defined(__aarch64__)
	register uint64_t v __asm__("x16");
	uint64_t at;
	__asm__ volatile("add %1, %2, %w3, uxtb #" TLY_PMC_ENTRY_SHIFT "\n\tblr %1"
	                 : "=r"(v), "=&r"(at)
	                 : "r"(TLY_PMC_TABLE), "r"(idx)
	                 : "x17", "x30");
	return v;
#else
	uint32_t unreadable = 0;
	return tly_arch_read_pmc(idx, &unreadable);
#endif
}

/* The capability bits of perf_event_mmap_page (bitfields in the uapi header, little-endian order). */
#define USER_READER_CAP_RDPMC ((uint64_t)1 << 2)
#define USER_READER_CAP_TIME ((uint64_t)1 << 3)
#define USER_READER_CAP_TIME_SHORT ((uint64_t)1 << 5)

/* Reads the event of page vpc: 0, or -1 when it is not on a counter (then use read(2)). As a careful
 * hand-written reader reads it: the lock and the index as volatile loads, the other fields as plain
 * memory between the fences (as the uapi header's example and tally's own pass read them), the
 * capabilities once. */
static inline __attribute__((always_inline)) int user_reader_read(const volatile struct perf_event_mmap_page *vpc,
                                                                  uint64_t *value, uint64_t *enabled,
                                                                  uint64_t *running)
{
	const struct perf_event_mmap_page *pc = (const struct perf_event_mmap_page *)vpc;
	uint64_t caps, cnt, time_enabled, time_running, cyc, time_offset, time_cycles, time_mask, raw;
	uint32_t seq, idx, time_mult;
	uint16_t time_shift, width;
	do {
		seq = vpc->lock;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		caps = pc->capabilities;
		idx = vpc->index;
		if (!(caps & USER_READER_CAP_RDPMC) || !idx)
			return -1;
		time_enabled = pc->time_enabled;
		time_running = pc->time_running;
		cnt = (uint64_t)pc->offset;
		width = pc->pmc_width;
		time_mult = pc->time_mult;
		time_shift = pc->time_shift;
		time_offset = pc->time_offset;
		time_cycles = pc->time_cycles;
		time_mask = pc->time_mask;
		cyc = tly_arch_read_clock();
		raw = user_reader_pmc(idx);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (vpc->lock != seq);
	uint64_t delta = 0;
	if (caps & USER_READER_CAP_TIME) {
		if (caps & USER_READER_CAP_TIME_SHORT)
			cyc = time_cycles + ((cyc - time_cycles) & time_mask);
		uint64_t quot = cyc >> time_shift, rem = cyc & (((uint64_t)1 << time_shift) - 1);
		delta = time_offset + quot * time_mult + ((rem * time_mult) >> time_shift);
	}
	unsigned shift = 64 - width;
	*value = cnt + (uint64_t)((int64_t)(raw << shift) >> shift);
	*enabled = time_enabled + delta;
	*running = time_running + delta;
	return 0;
}

#endif
