/* SPDX-License-Identifier: MIT */
/* Generic hardware and cache events on machines with several core PMUs (Intel cpu_core + cpu_atom, arm64
 * clusters), where one generic name becomes one attr per core PMU. */
#ifndef TLY_HYBRID_H
#define TLY_HYBRID_H

#include "machine/pmu.h"
#include "spec/event_list.h"

#include <linux/perf_event.h>
#include <stdbool.h>

/* Several core PMUs: generic events and raw codes are expanded once per core PMU. */
bool tly_hybrid(const struct tally_pmus *pmus);

/* Whether the PMU named name (NULL: none) is an x86 core PMU: "cpu", or "cpu_core"/"cpu_atom" on hybrid
 * parts. */
bool tly_x86_core_pmu(const char *name);

/* Encodes a generic event (type PERF_TYPE_HARDWARE or PERF_TYPE_HW_CACHE, config) for one core PMU into
 * attr->type and attr->config. x86 core PMUs ("cpu", "cpu_core", "cpu_atom") keep the generic type and,
 * on a hybrid machine, carry the PMU's type in config[63:32] (kernel 5.13+). Other core PMUs (arm64
 * clusters) take their own type with the architectural event number of the kernel's PMUv3 map. Returns 0,
 * or -ENOENT when that map has no event for it (ref-cycles, L1-dcache-stores, ... on arm64). */
int tly_generic_for_pmu(const struct tally_pmus *pmus, const struct tally_pmu *pmu, uint32_t type,
                        uint64_t config, struct perf_event_attr *attr);

/* Whether event ev counts generic event (type PERF_TYPE_HARDWARE or _HW_CACHE,
 * config): its own generic attr (on hybrid x86 the PMU's type in config[63:32] aside), or an arm64
 * cluster's attr of it (per_core_pmu: the cluster PMU's type with the PMUv3 event number
 * the kernel's map gives it, or a raw code of that number), so that a metric finds cycles on each cluster. */
bool tly_counts_generic(const struct tly_event *ev, uint32_t type, uint64_t config);

#endif
