/* SPDX-License-Identifier: MIT */
/*
 * Intel topdown (Top-down Microarchitecture Analysis) as the kernel gives it, and what a CPU has of it.
 *
 * Ice Lake and later (PERF_METRICS, arch/x86/events/intel/core.c): fixed counter 3 counts `slots`
 * (INTEL_TD_SLOTS, event 0x00 umask 0x04) and the PERF_METRICS register holds one 8-bit fraction of those
 * slots per metric, byte n for the metric event 0x00 umask 0x80 + n (INTEL_TD_METRIC_RETIRING 0x8000 ..
 * INTEL_TD_METRIC_MEM_BOUND 0x8700). The level-1 fractions (bytes 0-3) sum to 0xff, give or take the
 * hardware's rounding; level 2 (bytes 4-7: heavy operations, branch mispredicts, fetch latency, memory
 * bound) exists from Sapphire Rapids and Alder Lake's P-cores on (events/topdown-heavy-ops). The kernel
 * turns each fraction into a count of slots, icl_get_metrics_event_value: slots * byte / 0xff, rounded
 * down (mul_u64_u32_div). A metric event opens only in a group led by slots (intel_pmu_hw_config: "The
 * metric events require a TopDown slots event as group leader"), and reading the group, with read(2) or
 * an ioctl reset, zeroes both registers (Documentation/arch/x86/topdown.rst).
 *
 * Before Ice Lake (Skylake .. Comet Lake) the kernel names five ordinary events instead
 * (topdown-total-slots, topdown-slots-issued, topdown-slots-retired, topdown-fetch-bubbles,
 * topdown-recovery-bubbles, with their .scale), from which level 1 is computed (perf's stat-shadow.c);
 * other CPUs have no topdown at all.
 *
 * Pure functions and sysfs lookups: the parser (grouping rules), the user-space read path and the
 * metric evaluator ask here.
 */
#ifndef TLY_TOPDOWN_H
#define TLY_TOPDOWN_H

#include "machine/pmu.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TLY_TOPDOWN_SLOTS_CONFIG 0x0400u  /* INTEL_TD_SLOTS */
#define TLY_TOPDOWN_METRIC_CONFIG 0x8000u /* INTEL_TD_METRIC_RETIRING; metric n is this + n x 0x100 */

/* The metrics of PERF_METRICS, by their byte in the register. */
enum tly_topdown_metric {
	TLY_TD_RETIRING,
	TLY_TD_BAD_SPEC,
	TLY_TD_FE_BOUND,
	TLY_TD_BE_BOUND,
	TLY_TD_HEAVY_OPS,     /* level 2 from here on */
	TLY_TD_BR_MISPREDICT,
	TLY_TD_FETCH_LAT,
	TLY_TD_MEM_BOUND,
	TLY_TD_NR_METRICS
};

/* What an event is to the kernel's topdown rules. */
enum tly_topdown_kind {
	TLY_TOPDOWN_NONE,
	TLY_TOPDOWN_SLOTS,  /* leads every group with metric events */
	TLY_TOPDOWN_METRIC, /* must follow slots in its group */
};

/* The topdown kind of an attr that a PMU with PERF_METRICS counts (tly_topdown_pmu): the event select
 * and umask (config bits 0-15, INTEL_ARCH_EVENT_MASK) only, as the kernel's is_slots_event and
 * is_metric_event test them; *metric (may be NULL) gets the metric's byte. */
enum tly_topdown_kind tly_topdown_kind(const struct perf_event_attr *attr, enum tly_topdown_metric *metric);

/* Whether pmu has PERF_METRICS: the kernel lists events/slots only then (perf's
 * topdown_sys_has_perf_metrics asks the same file). False when its details cannot be read. */
bool tly_topdown_pmu(const struct tally_pmu *pmu);

/* The slots of one metric from a slots count and a PERF_METRICS value, as the kernel computes the
 * metric event's count: slots * fraction / 0xff, rounded down, without overflow. */
uint64_t tly_topdown_value(uint64_t slots, uint64_t perf_metrics, enum tly_topdown_metric metric);

/* The level-2 metrics the hardware gives only as a difference from their level-1 parent (perf's
 * tma_light_operations = retiring - heavy operations, tma_machine_clears = bad speculation - branch
 * mispredicts, tma_fetch_bandwidth = frontend bound - fetch latency, tma_core_bound = backend bound -
 * memory bound). */
enum tly_topdown_derived {
	TLY_TD_LIGHT_OPS,
	TLY_TD_MACHINE_CLEARS,
	TLY_TD_FETCH_BW,
	TLY_TD_CORE_BOUND,
	TLY_TD_NR_DERIVED
};

/* A derived level-2 metric in slots from the parent's and the child's counts (tly_topdown_value or the
 * events' readings): parent - child, 0 where the child's rounding makes it exceed its parent. */
uint64_t tly_topdown_derived(const uint64_t counts[TLY_TD_NR_METRICS], enum tly_topdown_derived d);

/* What a core PMU has of topdown, for --topdown, --td-level and the tma_* metrics. */
enum tly_topdown_source {
	TLY_TD_SOURCE_NONE,         /* neither: the metrics are not available on this CPU (why says so) */
	TLY_TD_SOURCE_PERF_METRICS, /* slots and topdown-* metric events (Ice Lake and later) */
	TLY_TD_SOURCE_EVENTS,       /* topdown-total-slots and its four companions (Skylake .. Comet Lake) */
};

struct tly_topdown_support {
	enum tly_topdown_source source;
	unsigned levels;            /* 0, 1, or 2 (PERF_METRICS with topdown-heavy-ops) */
	char why[256];              /* with TLY_TD_SOURCE_NONE, or levels < 2: what the PMU lacks */
};

/* What pmu has of topdown, from its events/ directory. Returns 0, or the error of reading its details
 * (then *out says NONE with the reason). */
int tly_topdown_support(const struct tally_pmu *pmu, struct tly_topdown_support *out);

/* What the machine has of topdown: the best of its core PMUs (a hybrid's cpu_core), for --topdown and
 * --td-level. *out says NONE, with the reason, on a machine without such a PMU or without a core PMU. Returns
 * 0 or the error of listing the PMUs. */
int tly_topdown_machine(const struct tally_pmus *pmus, struct tly_topdown_support *out);

/* Level 1 of TLY_TD_SOURCE_EVENTS, as fractions of the total slots, in enum tly_topdown_metric's order:
 * perf 6.1's formulas (tools/perf/util/stat-shadow.c, td_retiring and its siblings):
 *   retiring = slots_retired / total_slots
 *   bad_speculation = (slots_issued - slots_retired + recovery_bubbles) / total_slots
 *   frontend_bound = fetch_bubbles / total_slots
 *   backend_bound = 1 - retiring - bad_speculation - frontend_bound
 * with perf's sanitize_val: a value just below 0 (down to -0.02, the events' skew) reads 0. The counts
 * are as the events read, their .scale applied. Returns false, out untouched, when total_slots is 0. */
struct tly_topdown_events {
	double total_slots, slots_issued, slots_retired, fetch_bubbles, recovery_bubbles;
};
bool tly_topdown_events_level1(const struct tly_topdown_events *in, double out[4]);

#endif
