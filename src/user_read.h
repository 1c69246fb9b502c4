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
#define TLY_USER_MAX_INDEX UINT32_MAX

static inline uint64_t tly_arch_read_pmc(uint32_t index)
{
	uint32_t lo, hi;
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(index - 1));
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
#define TLY_USER_MAX_INDEX 32

/* The event counter's register is named in the instruction itself: one case per counter. */
#define TLY_MRS_EVCNTR(k)                                                                                  \
	case k + 1:                                                                                        \
		__asm__ volatile("mrs %0, pmevcntr" #k "_el0" : "=r"(v));                                  \
		return v

static inline uint64_t tly_arch_read_pmc(uint32_t index)
{
	uint64_t v;
	switch (index) {
	case 32:
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		return v;
		TLY_MRS_EVCNTR(0); TLY_MRS_EVCNTR(1); TLY_MRS_EVCNTR(2); TLY_MRS_EVCNTR(3);
		TLY_MRS_EVCNTR(4); TLY_MRS_EVCNTR(5); TLY_MRS_EVCNTR(6); TLY_MRS_EVCNTR(7);
		TLY_MRS_EVCNTR(8); TLY_MRS_EVCNTR(9); TLY_MRS_EVCNTR(10); TLY_MRS_EVCNTR(11);
		TLY_MRS_EVCNTR(12); TLY_MRS_EVCNTR(13); TLY_MRS_EVCNTR(14); TLY_MRS_EVCNTR(15);
		TLY_MRS_EVCNTR(16); TLY_MRS_EVCNTR(17); TLY_MRS_EVCNTR(18); TLY_MRS_EVCNTR(19);
		TLY_MRS_EVCNTR(20); TLY_MRS_EVCNTR(21); TLY_MRS_EVCNTR(22); TLY_MRS_EVCNTR(23);
		TLY_MRS_EVCNTR(24); TLY_MRS_EVCNTR(25); TLY_MRS_EVCNTR(26); TLY_MRS_EVCNTR(27);
		TLY_MRS_EVCNTR(28); TLY_MRS_EVCNTR(29); TLY_MRS_EVCNTR(30);
	}
	return 0; /* not reached: the protocol reads only indexes 1 .. 32 here */
}

static inline uint64_t tly_arch_read_clock(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

#else

#define TLY_USER_READ_ARCH 0
#define TLY_USER_MAX_INDEX 0

static inline uint64_t tly_arch_read_pmc(uint32_t index)
{
	return index;
}

static inline uint64_t tly_arch_read_clock(void)
{
	return 0;
}

#endif

#endif
