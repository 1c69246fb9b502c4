/* SPDX-License-Identifier: MIT */
/* Intel topdown: the kernel's event kinds, PERF_METRICS decoding, and what a CPU has of it (topdown.h). */
#include "machine/topdown.h"

#include <stdio.h>

enum tly_topdown_kind tly_topdown_kind(const struct perf_event_attr *attr, enum tly_topdown_metric *metric)
{
	uint64_t code = attr->config & 0xffff;
	if (code == TLY_TOPDOWN_SLOTS_CONFIG)
		return TLY_TOPDOWN_SLOTS;
	/* Event 0x00 with umask 0x80 .. 0x87. */
	if ((code & 0xff) || code < TLY_TOPDOWN_METRIC_CONFIG ||
	    code >= TLY_TOPDOWN_METRIC_CONFIG + (TLY_TD_NR_METRICS << 8))
		return TLY_TOPDOWN_NONE;
	if (metric)
		*metric = (enum tly_topdown_metric)((code - TLY_TOPDOWN_METRIC_CONFIG) >> 8);
	return TLY_TOPDOWN_METRIC;
}

bool tly_topdown_pmu(const struct tally_pmu *pmu)
{
	return pmu && tly_pmu_is_core(pmu) && tly_pmu_alias(pmu, "slots") != NULL;
}

uint64_t tly_topdown_value(uint64_t slots, uint64_t perf_metrics, enum tly_topdown_metric metric)
{
	unsigned fraction = (unsigned)(perf_metrics >> (8 * metric)) & 0xff;
	return (uint64_t)((unsigned __int128)slots * fraction / 0xff);
}

uint64_t tly_topdown_derived(const uint64_t counts[TLY_TD_NR_METRICS], enum tly_topdown_derived d)
{
	/* Parent d (level 1) and its child at d + 4 (level 2), in both enums' order. */
	uint64_t parent = counts[d], child = counts[d + TLY_TD_HEAVY_OPS];
	return parent > child ? parent - child : 0;
}

int tly_topdown_support(const struct tally_pmu *pmu, struct tly_topdown_support *out)
{
	*out = (struct tly_topdown_support){ .source = TLY_TD_SOURCE_NONE };
	int err = tly_pmu_details(pmu);
	if (err) {
		snprintf(out->why, sizeof(out->why), "the events of PMU %s cannot be read", pmu->name);
		return err;
	}
	if (tly_topdown_pmu(pmu) && tly_pmu_alias(pmu, "topdown-retiring")) {
		out->source = TLY_TD_SOURCE_PERF_METRICS;
		out->levels = tly_pmu_alias(pmu, "topdown-heavy-ops") ? 2 : 1;
		if (out->levels == 1)
			snprintf(out->why, sizeof(out->why),
			         "PMU %s has level 1 only: no events/topdown-heavy-ops (level 2 came with Sapphire "
			         "Rapids and Alder Lake)", pmu->name);
		return 0;
	}
	static const char *const events[] = { "topdown-total-slots", "topdown-slots-issued", "topdown-slots-retired",
		                              "topdown-fetch-bubbles", "topdown-recovery-bubbles" };
	size_t have = 0;
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		have += tly_pmu_alias(pmu, events[i]) != NULL;
	if (have == sizeof(events) / sizeof(events[0])) {
		out->source = TLY_TD_SOURCE_EVENTS;
		out->levels = 1;
		snprintf(out->why, sizeof(out->why),
		         "PMU %s has level 1 only, from the topdown-total-slots events (no PERF_METRICS before Ice "
		         "Lake)", pmu->name);
		return 0;
	}
	if (!tly_pmu_is_core(pmu))
		snprintf(out->why, sizeof(out->why), "not available on PMU %s: it is not a CPU's core PMU", pmu->name);
	else
		snprintf(out->why, sizeof(out->why),
		         "not available on this CPU: core PMU %s has neither PERF_METRICS (events/slots, Intel Ice "
		         "Lake and later P-cores) nor the topdown-total-slots events (Intel Skylake to Comet Lake)",
		         pmu->name);
	return 0;
}

int tly_topdown_machine(const struct tally_pmus *pmus, struct tly_topdown_support *out)
{
	*out = (struct tly_topdown_support){ .source = TLY_TD_SOURCE_NONE };
	snprintf(out->why, sizeof(out->why), "not available on this machine: it has no CPU core PMU (no hardware "
	         "PMU, as in a VM without a virtual PMU)");
	int err = tly_pmus_list(pmus);
	if (err)
		return err;
	bool core = false;
	for (size_t i = 0; i < pmus->nr; i++) {
		struct tly_topdown_support s;
		if (!tly_pmu_is_core(&pmus->pmus[i]) || tly_topdown_support(&pmus->pmus[i], &s) != 0)
			continue;
		/* The first core PMU's reason, unless another has more. */
		if (!core || s.levels > out->levels)
			*out = s;
		core = true;
	}
	return 0;
}

/* perf's sanitize_val: the events' skew may take a fraction just below 0. */
static double sanitize(double x)
{
	return x < 0 && x >= -0.02 ? 0.0 : x;
}

bool tly_topdown_events_level1(const struct tly_topdown_events *in, double out[4])
{
	if (in->total_slots == 0)
		return false;
	out[TLY_TD_RETIRING] = sanitize(in->slots_retired / in->total_slots);
	out[TLY_TD_BAD_SPEC] =
		sanitize((in->slots_issued - in->slots_retired + in->recovery_bubbles) / in->total_slots);
	out[TLY_TD_FE_BOUND] = sanitize(in->fetch_bubbles / in->total_slots);
	double sum = out[TLY_TD_RETIRING] + out[TLY_TD_BAD_SPEC] + out[TLY_TD_FE_BOUND];
	out[TLY_TD_BE_BOUND] = sum == 0 ? 0 : sanitize(1.0 - sum);
	return true;
}
