/* SPDX-License-Identifier: MIT */
#include "machine/pmu_family.h"

#include <ctype.h>
#include <string.h>

#define UNCORE "uncore_"

bool tly_pmu_family_member(const char *prefix, size_t len, const char *pmu_name)
{
	size_t uncore = strlen(UNCORE);
	/* perf lets "imc/.../" stand for the uncore_imc_<n> PMUs: it compares names without "uncore_" when
	 * the prefix was written without it. */
	if (strncmp(pmu_name, UNCORE, uncore) == 0 && !(len >= uncore && strncmp(prefix, UNCORE, uncore) == 0))
		pmu_name += uncore;
	if (len == 0 || strncmp(pmu_name, prefix, len) != 0)
		return false;
	/* The whole name: "imc" for a client's single "uncore_imc" (a PMU named like the prefix itself is
	 * found before any family is looked for). */
	const char *suffix = pmu_name + len;
	return suffix[0] == '\0' || (suffix[0] == '_' && isdigit((unsigned char)suffix[1]));
}

size_t tly_pmu_family_len(const char *pmu_name)
{
	size_t len = strlen(pmu_name), end = len;
	while (end > 0 && isdigit((unsigned char)pmu_name[end - 1]))
		end--;
	return end > 0 && end < len && pmu_name[end - 1] == '_' ? end - 1 : len;
}
