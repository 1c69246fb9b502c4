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

/* The register is named in the instruction itself, so index picks one of 33 entries of a table of
 * `mrs; b` pairs with a computed branch: 5 instructions a read, where a switch costs 9 (its range check,
 * already done by the protocol, and its table of offsets). Entry 0 (index 0, never read) gives 0. With
 * branch protection (BTI) every entry starts with its landing pad, padded to 16 bytes. */
#if defined(__ARM_FEATURE_BTI_DEFAULT)
#define TLY_PMC_ENTRY(mrs) "hint 36\n\t" mrs "\n\tb 2f\n\tnop\n\t"
#define TLY_PMC_ENTRY_SHIFT "4"
#else
#define TLY_PMC_ENTRY(mrs) mrs "\n\tb 2f\n\t"
#define TLY_PMC_ENTRY_SHIFT "3"
#endif

static inline __attribute__((always_inline)) uint64_t tly_arch_read_pmc(uint32_t index)
{
	uint64_t v, at;
	__asm__ volatile("adr %1, 1f\n\t"
	                 "add %1, %1, %w2, uxtw #" TLY_PMC_ENTRY_SHIFT "\n\t"
	                 "br %1\n"
	                 "1:\n\t"
	                 TLY_PMC_ENTRY("mov %0, #0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr0_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr1_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr2_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr3_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr4_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr5_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr6_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr7_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr8_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr9_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr10_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr11_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr12_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr13_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr14_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr15_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr16_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr17_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr18_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr19_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr20_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr21_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr22_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr23_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr24_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr25_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr26_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr27_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr28_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr29_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmevcntr30_el0")
	                 TLY_PMC_ENTRY("mrs %0, pmccntr_el0")
	                 "2:"
	                 : "=r"(v), "=&r"(at)
	                 : "r"(index));
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
