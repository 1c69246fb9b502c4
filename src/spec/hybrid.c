/* SPDX-License-Identifier: MIT */
#include "spec/hybrid.h"

#include <errno.h>
#include <string.h>

bool tly_hybrid(const struct tally_pmus *pmus)
{
	return tally_pmus_core_count(pmus) > 1;
}

bool tly_x86_core_pmu(const char *name)
{
	return name && (strcmp(name, "cpu") == 0 || strncmp(name, "cpu_", 4) == 0);
}

/* ARMv8 PMUv3 architectural event numbers for the generic events, as the kernel's armv8_pmuv3_perf_map
 * and armv8_pmuv3_perf_cache_map give them (drivers/perf/arm_pmuv3.c). 0 means unmapped: event 0 is
 * SW_INCR, which no generic event stands for. branch-instructions uses PC_WRITE_RETIRED, the classic
 * mapping; kernels from 6.4 fall back to BR_RETIRED (0x21) on cores without it, which tally cannot see
 * from sysfs. */
static const uint16_t arm64_hw[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES] = 0x11,
	[PERF_COUNT_HW_INSTRUCTIONS] = 0x08,
	[PERF_COUNT_HW_CACHE_REFERENCES] = 0x04,
	[PERF_COUNT_HW_CACHE_MISSES] = 0x03,
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = 0x0c,
	[PERF_COUNT_HW_BRANCH_MISSES] = 0x10,
	[PERF_COUNT_HW_BUS_CYCLES] = 0x1d,
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = 0x23,
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = 0x24,
};

#define READ_ACCESS(c) [PERF_COUNT_HW_CACHE_##c][PERF_COUNT_HW_CACHE_OP_READ][PERF_COUNT_HW_CACHE_RESULT_ACCESS]
#define READ_MISS(c) [PERF_COUNT_HW_CACHE_##c][PERF_COUNT_HW_CACHE_OP_READ][PERF_COUNT_HW_CACHE_RESULT_MISS]
static const uint16_t arm64_cache[PERF_COUNT_HW_CACHE_MAX][PERF_COUNT_HW_CACHE_OP_MAX]
                                [PERF_COUNT_HW_CACHE_RESULT_MAX] = {
	READ_ACCESS(L1D) = 0x04, READ_MISS(L1D) = 0x03,   /* L1D_CACHE, L1D_CACHE_REFILL */
	READ_ACCESS(L1I) = 0x14, READ_MISS(L1I) = 0x01,   /* L1I_CACHE, L1I_CACHE_REFILL */
	READ_ACCESS(DTLB) = 0x25, READ_MISS(DTLB) = 0x05, /* L1D_TLB, L1D_TLB_REFILL */
	READ_ACCESS(ITLB) = 0x26, READ_MISS(ITLB) = 0x02, /* L1I_TLB, L1I_TLB_REFILL */
	READ_ACCESS(LL) = 0x36, READ_MISS(LL) = 0x37,     /* LL_CACHE_RD, LL_CACHE_MISS_RD */
	READ_ACCESS(BPU) = 0x12, READ_MISS(BPU) = 0x10,   /* BR_PRED, BR_MIS_PRED */
};

static unsigned arm64_event(uint32_t type, uint64_t config)
{
	if (type == PERF_TYPE_HARDWARE)
		return config < PERF_COUNT_HW_MAX ? arm64_hw[config] : 0;
	unsigned cache = config & 0xff, op = config >> 8 & 0xff, result = config >> 16 & 0xff;
	if (cache >= PERF_COUNT_HW_CACHE_MAX || op >= PERF_COUNT_HW_CACHE_OP_MAX ||
	    result >= PERF_COUNT_HW_CACHE_RESULT_MAX)
		return 0;
	return arm64_cache[cache][op][result];
}

int tly_generic_for_pmu(const struct tally_pmus *pmus, const struct tally_pmu *pmu, uint32_t type,
                        uint64_t config, struct perf_event_attr *attr)
{
	if (tly_x86_core_pmu(pmu->name)) {
		attr->type = type;
		attr->config = config;
		if (tly_hybrid(pmus))
			attr->config |= (uint64_t)pmu->type << PERF_PMU_TYPE_SHIFT;
		return 0;
	}
	unsigned event = arm64_event(type, config);
	if (!event)
		return -ENOENT;
	attr->type = pmu->type;
	attr->config = event;
	return 0;
}

/* On hybrid x86 (5.13+) the upper 32 bits of a generic event's config hold the core PMU's type. */
#define GENERIC_ID_MASK 0xffffffffULL

bool tly_counts_generic(const struct tly_event *ev, uint32_t type, uint64_t config)
{
	const struct perf_event_attr *a = &ev->attr;
	if (a->type == type)
		return (a->config & GENERIC_ID_MASK) == config;
	if (!ev->per_core_pmu || !ev->pmu || tly_x86_core_pmu(ev->pmu) || a->type < PERF_TYPE_MAX)
		return false;
	unsigned event = arm64_event(type, config);
	return event && a->config == event;
}
