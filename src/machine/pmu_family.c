/* SPDX-License-Identifier: MIT */
#include "machine/pmu_family.h"

#include <ctype.h>
#include <string.h>

#define UNCORE "uncore_"

/* What may follow a family's name or a unit's last token in an instance's name, as perf 6.1's
 * perf_pmu__valid_suffix says: nothing, or digits after an optional '_' (uncore_imc_0, imx8_ddr0). */
static bool valid_suffix(const char *s)
{
	if (*s == '\0')
		return true;
	s += *s == '_';
	if (!isdigit((unsigned char)*s))
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	return *s == '\0';
}

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
	return valid_suffix(pmu_name + len);
}

bool tly_pmu_unit_member(const char *unit, size_t len, const char *pmu_name)
{
	const char *end = unit + len, *comma = memchr(unit, ',', len);
	if (len == 0 || strncmp(pmu_name, unit, (size_t)((comma ? comma : end) - unit)) != 0)
		return false;
	/* perf 6.1 moves past a found token by the next token's length, an oversight that the tables' units
	 * ("hisi_sccl,ddrc") never show: this moves past the token found. */
	const char *name = pmu_name;
	for (const char *tok = unit; tok < end;) {
		const char *tok_end = memchr(tok, ',', (size_t)(end - tok));
		tok_end = tok_end ? tok_end : end;
		size_t n = (size_t)(tok_end - tok);
		const char *at = name;
		while ((at = strchr(at, tok[0])) && strncmp(at, tok, n) != 0)
			at++;
		if (!at || n == 0)
			return false;
		name = at + n;
		if (tok_end == end)
			return valid_suffix(name);
		tok = tok_end + 1;
	}
	return false;
}

size_t tly_pmu_family_len(const char *pmu_name)
{
	size_t len = strlen(pmu_name), end = len;
	while (end > 0 && isdigit((unsigned char)pmu_name[end - 1]))
		end--;
	return end > 0 && end < len && pmu_name[end - 1] == '_' ? end - 1 : len;
}
