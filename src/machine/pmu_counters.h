/* SPDX-License-Identifier: MIT */
/*
 * Which hardware counters an event may take, from the vendor tables: a PMU's numbers of generic and fixed
 * counters (the model's counter.json, perf 6.12's data: CountersNumGeneric, CountersNumFixed per Unit),
 * an event record's Counter field ("0,1,2,3", "2", "Fixed counter 1", uncore's "FIXED"), and the
 * kernel's own rules for the fixed counters (arch/x86/events/intel/core.c, 6.12): an event whose code is
 * a fixed counter's (0x00c0 instructions on fixed 0, 0x003c cycles on fixed 1) may take that fixed counter
 * or any generic one; a pseudo-encoding (event 0, umask i + 1: 0x0300 ref-cycles on fixed 2, 0x0400 slots
 * on fixed 3) only its fixed counter; a topdown metric (event 0, umask 0x80..) no counter of its own (it
 * is read with slots); on an uncore PMU, event 0xff is the fixed counter (UNCORE_FIXED_EVENT) and only it.
 *
 * A set of counters is a mask in the kernel's x86 numbering: bit i generic counter i, bit 32 + i fixed
 * counter i (INTEL_PMC_IDX_FIXED). 0 means none is known (no table, no counts for the PMU, a software
 * PMU): the event takes no counter the packer counts, as before the tables had counts.
 */
#ifndef TLY_PMU_COUNTERS_H
#define TLY_PMU_COUNTERS_H

#include "machine/pmu.h"
#include "machine/pmu_events.h"

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

#define TLY_COUNTER_FIXED 32 /* the bit of fixed counter 0 */

struct tly_pmu_counts {
	unsigned generic, fixed;
};

/* pmu's numbers of counters from its vendor table, where a name of the spec chose that table already:
 * a spec of generic, raw and sysfs events alone reads no table (`tally stat -e cycles` and the default
 * events open none, issue 24's cost rule) and is packed as the kernel's answers split it, as before the
 * tables had counts. Returns whether the table has them for this PMU (a family's instance takes its
 * family's). Thread-safe. */
bool tly_pmu_counts(const struct tally_pmu *pmu, struct tly_pmu_counts *out);

/* The counters a record's Counter field lists, as a mask ("0,1,2,3": 0xf; "Fixed counter 1": bit 33;
 * "FIXED" or "Fixed": bit 32); 0 for an empty or unknown text. Not clipped to any PMU's counts. */
uint64_t tly_counter_list(struct tly_span counter);

/* The counters an event of pmu (whose counts are n, from tly_pmu_counts) with this attr may take: those
 * listed (tly_counter_list of its table record, 0 when it has none) within the PMU's generic counters,
 * all of them when none is listed, and the fixed counter its code is (the rules above). Thread-safe. */
uint64_t tly_pmu_event_counters(const struct tally_pmu *pmu, const struct tly_pmu_counts *n,
                                const struct perf_event_attr *attr, uint64_t listed);

#endif
