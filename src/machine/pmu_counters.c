/* SPDX-License-Identifier: MIT */
/* Which counters an event may take (pmu_counters.h gives the rules and their kernel sources). */
#include "machine/pmu_counters.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* The bits of an x86 event select that the kernel's fixed-counter constraints compare (FIXED_EVENT_FLAGS:
 * event, umask, edge, inv, cmask, in_tx, in_tx_cp; not AnyThread): a cmask or inv makes 0x00c0 a generic
 * event. */
#define X86_FIXED_MATCH 0x3ff84ffffULL
#define UNCORE_FIXED_EVENT 0xff

bool tly_pmu_counts(const struct tally_pmu *pmu, struct tly_pmu_counts *out)
{
	const struct tly_pmu_events *table = tly_pmu_table_chosen(pmu);
	if (!table)
		return false;
	struct tly_pmu_events_counts rec;
	for (size_t pos = 0; tly_pmu_events_counts_next(table, &pos, &rec) == 1;) {
		if (tly_pmu_table_takes(pmu, table, rec.pmu)) {
			*out = (struct tly_pmu_counts){ rec.generic, rec.fixed };
			return true;
		}
	}
	return false;
}

uint64_t tly_counter_list(struct tly_span counter)
{
	static const char fixed_counter[] = "Fixed counter ";
	size_t prefix = sizeof(fixed_counter) - 1;
	if ((counter.len == 5 || counter.len == 6) && strncasecmp(counter.s, "fixed", 5) == 0 &&
	    (counter.len == 5 || counter.s[5] == ' '))
		return 1ULL << TLY_COUNTER_FIXED;
	bool fixed = counter.len > prefix && strncasecmp(counter.s, fixed_counter, prefix) == 0;
	uint64_t mask = 0;
	unsigned n = 0;
	bool digits = false;
	for (size_t i = fixed ? prefix : 0; i <= counter.len; i++) {
		char c = i < counter.len ? counter.s[i] : ',';
		if (isdigit((unsigned char)c) && n < 64) {
			n = n * 10 + (unsigned)(c - '0');
			digits = true;
		} else if (c == ',' && digits && n < 32) {
			mask |= 1ULL << (n + (fixed ? TLY_COUNTER_FIXED : 0));
			n = 0;
			digits = false;
		} else {
			return 0; /* a text of another form: nothing known */
		}
	}
	return mask;
}

static uint64_t low_bits(unsigned n)
{
	return n >= 32 ? 0xffffffffULL : (1ULL << n) - 1;
}

/* The event select an attr of a core PMU programs: generic events as the kernel maps them on Intel
 * (intel_perfmon_event_map: cycles 0x003c, instructions 0x00c0, ref-cycles the pseudo-encoding 0x0300),
 * a cache event or another generic one as no fixed counter's (0xffff: no event 0 nor 0xff). */
static uint64_t core_code(const struct tally_pmu *pmu, const struct perf_event_attr *attr)
{
	if (attr->type == PERF_TYPE_HARDWARE) {
		switch (attr->config & PERF_HW_EVENT_MASK) {
		case PERF_COUNT_HW_CPU_CYCLES: return 0x003c;
		case PERF_COUNT_HW_INSTRUCTIONS: return 0x00c0;
		case PERF_COUNT_HW_REF_CPU_CYCLES: return 0x0300;
		default: return 0xffff;
		}
	}
	if (attr->type == PERF_TYPE_RAW || attr->type == pmu->type)
		return attr->config & X86_FIXED_MATCH;
	return 0xffff;
}

uint64_t tly_pmu_event_counters(const struct tally_pmu *pmu, const struct tly_pmu_counts *n,
                                const struct perf_event_attr *attr, uint64_t listed)
{
	uint64_t generic = low_bits(n->generic), fixed = low_bits(n->fixed) << TLY_COUNTER_FIXED;
	uint64_t any = listed & generic ? listed & generic : generic;
	if (!tly_pmu_is_core(pmu)) {
		/* Uncore: the fixed counter takes its pseudo-event alone, and nothing else. */
		bool is_fixed = (listed >> TLY_COUNTER_FIXED) || (attr->config == UNCORE_FIXED_EVENT && n->fixed);
		return is_fixed ? fixed & (1ULL << TLY_COUNTER_FIXED) : any;
	}
	uint64_t code = core_code(pmu, attr);
	if (!n->fixed)
		return any;
	if (code == 0x00c0 || code == 0x003c)
		return any | (fixed & (1ULL << (TLY_COUNTER_FIXED + (code == 0x003c))));
	if ((code & 0xff) == 0 && code >> 8 >= 0x80)
		return 0; /* a topdown metric event: read with slots, on no counter of its own */
	if ((code & 0xff) == 0 && code >> 8 >= 1 && code >> 8 <= 32)
		return fixed & (1ULL << (TLY_COUNTER_FIXED + (code >> 8) - 1));
	return any;
}
