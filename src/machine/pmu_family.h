/* SPDX-License-Identifier: MIT */
/* PMU families: the instances a PMU name that no PMU has stands for ("uncore_imc" for uncore_imc_0,
 * uncore_imc_1, ...), by perf's rule. */
#ifndef TLY_PMU_FAMILY_H
#define TLY_PMU_FAMILY_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the PMU named pmu_name is an instance of the family prefix[0 .. len): its name, less a leading
 * "uncore_" when the prefix has none, is the prefix, alone or followed by '_' and a digit. perf 6.1 (parse-events.y
 * and x86's perf_pmu__valid_suffix) takes the same names: "uncore_imc_3" for "uncore_imc" and "imc",
 * "uncore_cha_12" for "uncore_cha", not "uncore_imc_free_running_0" for "uncore_imc". */
bool tly_pmu_family_member(const char *prefix, size_t len, const char *pmu_name);

/* The length of a PMU's family name: pmu_name less a trailing "_<digits>" ("uncore_imc" of uncore_imc_3);
 * the whole length when it has no such suffix. */
size_t tly_pmu_family_len(const char *pmu_name);

#endif
