/* SPDX-License-Identifier: MIT */
/* PMU families: the instances a PMU name that no PMU has stands for ("uncore_imc" for uncore_imc_0,
 * uncore_imc_1, ...), by perf's rule. */
#ifndef TLY_PMU_FAMILY_H
#define TLY_PMU_FAMILY_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the PMU named pmu_name is an instance of the family prefix[0 .. len): its name, less a leading
 * "uncore_" when the prefix has none, is the prefix, alone or followed by digits with an optional '_'
 * before them. perf 6.1 (parse-events.y and perf_pmu__valid_suffix) takes the same names: "uncore_imc_3"
 * for "uncore_imc" and "imc", "imx8_ddr0" for "imx8_ddr", not "uncore_imc_free_running_0" for
 * "uncore_imc". */
bool tly_pmu_family_member(const char *prefix, size_t len, const char *pmu_name);

/* Whether the PMU named pmu_name takes a vendor table's events of Unit unit[0 .. len) ("uncore_imc",
 * "imx8_ddr", "hisi_sccl,ddrc"), by perf 6.1's pmu_uncore_alias_match: the unit's comma-separated tokens
 * are found in the name in order, the first at its start, and the last ends the name or is followed by
 * digits, with an optional '_' before them (perf_pmu__valid_suffix): uncore_imc_0, imx8_ddr0,
 * hisi_sccl1_ddrc0; not uncore_imc_free_running_0. */
bool tly_pmu_unit_member(const char *unit, size_t len, const char *pmu_name);

/* The length of a PMU's family name: pmu_name less a trailing "_<digits>" ("uncore_imc" of uncore_imc_3);
 * the whole length when it has no such suffix. */
size_t tly_pmu_family_len(const char *pmu_name);

#endif
