/* SPDX-License-Identifier: MIT */
/*
 * The minimal hand-written user-space reader of one perf event, what tally_counter_read's fast path is
 * measured against (bench/bench_user_read.c here, the arm64 suite's fast_read_cost on the rig): the
 * reader loop of include/uapi/linux/perf_event.h as libperf's perf_mmap__read_self writes it (seqlock,
 * the counter sign-extended from pmc_width, the times extrapolated with cap_user_time), per event, with
 * nothing else: no ids, no window, no scaling, no results. The counter and clock reads are tally's
 * (src/user_read.h), so both sides pay the same for the registers. A caller must use all three results
 * (or the compiler drops the arithmetic that makes the unused ones, and measures a reader that
 * computes nothing).
 */
#ifndef TALLY_BENCH_USER_READER_H
#define TALLY_BENCH_USER_READER_H

#include <linux/perf_event.h>
#include <stdint.h>

#include "../src/user_read.h"

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
	                 : "r"(tly_pmc_table), "r"(idx)
	                 : "x17", "x30");
	return v;
#else
	uint32_t unreadable = 0;
	return tly_arch_read_pmc(idx, &unreadable);
#endif
}

/* Reads the event of page pc: 0, or -1 when it is not on a counter (then use read(2)). */
static inline int user_reader_read(const volatile struct perf_event_mmap_page *pc, uint64_t *value,
                                   uint64_t *enabled, uint64_t *running)
{
	uint32_t seq, idx;
	uint64_t cyc = 0, cnt, time_offset = 0, time_cycles = 0, time_mask = ~(uint64_t)0;
	uint32_t time_mult = 0;
	uint16_t time_shift = 0;
	do {
		seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
		*enabled = pc->time_enabled;
		*running = pc->time_running;
		if (pc->cap_user_time) {
			cyc = tly_arch_read_clock();
			time_mult = pc->time_mult;
			time_shift = pc->time_shift;
			time_offset = pc->time_offset;
			if (pc->cap_user_time_short) {
				time_cycles = pc->time_cycles;
				time_mask = pc->time_mask;
			}
		}
		idx = pc->index;
		cnt = (uint64_t)pc->offset;
		if (!pc->cap_user_rdpmc || !idx)
			return -1;
		unsigned shift = 64 - pc->pmc_width;
		cnt += (uint64_t)((int64_t)(user_reader_pmc(idx) << shift) >> shift);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (pc->lock != seq);
	cyc = time_cycles + ((cyc - time_cycles) & time_mask);
	uint64_t quot = cyc >> time_shift, rem = cyc & (((uint64_t)1 << time_shift) - 1);
	uint64_t delta = time_offset + quot * time_mult + ((rem * time_mult) >> time_shift);
	*enabled += delta;
	*running += delta;
	*value = cnt;
	return 0;
}

#endif
