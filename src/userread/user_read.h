/* SPDX-License-Identifier: MIT */
/*
 * Reading a hardware counter and the page's clock from user space, per architecture: the real functions
 * the protocol of mmap_page.h is given.
 *
 * x86: `rdpmc` of ECX = index - 1 (arch/x86/events/core.c, x86_pmu_event_idx returns the counter's
 * rdpmc number + 1), the clock is the TSC. Allowed by /sys/bus/event_source/devices/cpu/rdpmc: 0 never,
 * 1 (the default) while the event is mmap'd, 2 always.
 *
 * arm64: the kernel (arch/arm64/kernel/perf_event.c, armv8pmu_user_event_idx; Documentation/arch/arm64/
 * perf.rst) reports index 32 for the cycle counter, read as PMCCNTR_EL0, and k + 1 for event counter k,
 * read as PMEVCNTR<k>_EL0 (measured on QEMU with Debian's 6.1: index 32 and 1 .. 6). The clock is
 * CNTVCT_EL0. Allowed only when the event asks for it (the armv8_pmuv3 format's `rdpmc` term, config1
 * bit 1 on 6.1) and sysctl kernel.perf_user_access is 1; otherwise the index stays 0. Indexes above 32
 * (the PMUv3.9 instruction counter of 6.10+, PMICNTR_EL0) are left to read(2).
 *
 * Elsewhere there is no user read: TLY_USER_READ_ARCH is 0 and the counter never chooses this path.
 */
#ifndef TLY_USER_READ_H
#define TLY_USER_READ_H

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)

#define TLY_USER_READ_ARCH 1
/* The kernel's rdpmc numbers + 1 stay below 2^31: fixed counters (1 << 30) | k, topdown metrics 1 << 29
 * (arch/x86/events/core.c, x86_pmu_event_idx). rdpmc of any other number faults (#GP), so the index is
 * checked before: 0 wraps to the top, one comparison for both ends. */
#define TLY_USER_MAX_INDEX (UINT32_C(1) << 31)

/* Each rdpmc's address goes into the section tly_rdpmc_sites (as its offset from its entry: no dynamic
 * relocation), so that a #GP at it, which the machine raises where rdpmc was allowed when the page was
 * last updated but is not now, is recognised and turned into an unreadable read (user_fault.h): the
 * handler sets ECX to all ones (bit 31, which no index - 1 has) and steps over the rdpmc.
 *
 * No "memory" clobber, none needed: the asm reads no memory, its input is the index loaded (volatile)
 * after the pass's acquire fence, so it cannot run before that; and a volatile asm is not moved past
 * the volatile loads of the locks that end the pass (GCC and Clang keep side effects in order; the
 * CPU executes rdpmc out of order, but interrupts are precise, so a rdpmc never moves across the
 * context switch or update that moves a lock). The same holds for rdtsc. */
static inline uint64_t tly_arch_read_pmc(uint32_t index, uint32_t *unreadable)
{
	if (__builtin_expect(index - 1 >= TLY_USER_MAX_INDEX, 0)) {
		*unreadable = 1;
		return 0;
	}
	uint32_t lo, hi, select = index - 1;
	__asm__ volatile("1: rdpmc\n\t"
	                 ".pushsection tly_rdpmc_sites, \"a\"\n\t.balign 4\n\t.long 1b - .\n\t.popsection"
	                 : "=a"(lo), "=d"(hi), "+c"(select));
	*unreadable |= select >> 31;
	return lo | (uint64_t)hi << 32;
}

static inline uint64_t tly_arch_read_clock(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return lo | (uint64_t)hi << 32;
}

#elif defined(__aarch64__)

#define TLY_USER_READ_ARCH 1

/* The register is named in the instruction itself, so the index picks one of the 256 entries of a table
 * (user_read.c), called with `blr` at table + (index & 0xff) x entry: entries 1 .. 31 and 32 are
 * `mrs x16, <register>; ret` pairs, every other one (0, 33 and up) sets w17 to 1 (unreadable) and
 * returns. The kernel's indexes are at most 33 (31 event counters, the cycle counter and PMUv3.9's
 * instruction counter, armv8pmu_user_event_idx; the architecture has no more), so the low byte names
 * each of them, and the read takes no check: add, blr, mrs, ret. One table for every inlined read
 * instead of a copy in each. The entries touch x16, x17 and the link register alone, which the asm names.
 * With branch protection (BTI) every entry starts with its landing pad, padded to 16 bytes, and the
 * table has another name, so that code built with the other entry size fails to link instead of reading
 * the wrong entry. */
#if defined(__ARM_FEATURE_BTI_DEFAULT)
#define TLY_PMC_ENTRY_SHIFT "4"
#define TLY_PMC_ENTRY_SIZE 16
#define TLY_PMC_MRS_AT 4 /* after the landing pad */
#define TLY_PMC_TABLE tly_pmc_table_bti
#else
#define TLY_PMC_ENTRY_SHIFT "3"
#define TLY_PMC_ENTRY_SIZE 8
#define TLY_PMC_MRS_AT 0
#define TLY_PMC_TABLE tly_pmc_table
#endif

extern const char TLY_PMC_TABLE[] __attribute__((visibility("hidden")));

/* No "memory" clobber, none needed: the table reads no memory, and the index it is given is loaded
 * (volatile) after the pass's acquire fence; a volatile asm is not moved past the volatile loads of the
 * locks that end the pass. A trap at an entry's mrs (user access taken away) is made an unreadable read
 * by user_fault.c. */

static inline __attribute__((always_inline)) uint64_t tly_arch_read_pmc(uint32_t index, uint32_t *unreadable)
{
	register uint64_t v __asm__("x16");
	register uint32_t flag __asm__("x17") = *unreadable; /* 32 bits: GCC extends nothing between reads */
	uint64_t at;
	__asm__ volatile("add %1, %3, %w4, uxtb #" TLY_PMC_ENTRY_SHIFT "\n\t"
	                 "blr %1"
	                 : "=r"(v), "=&r"(at), "+r"(flag)
	                 : "r"(TLY_PMC_TABLE), "r"(index)
	                 : "x30");
	*unreadable = flag;
	return v;
}

static inline uint64_t tly_arch_read_clock(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

#else

#define TLY_USER_READ_ARCH 0

static inline uint64_t tly_arch_read_pmc(uint32_t index, uint32_t *unreadable)
{
	(void)index;
	*unreadable = 1;
	return 0;
}

static inline uint64_t tly_arch_read_clock(void)
{
	return 0;
}

#endif

#endif
