/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the sysfs values tally interprets: format/ files ("config:0-7,32-35") and the
 * companion files of events/ aliases (.scale numbers, .per-pkg/.snapshot flags). The input is one file's
 * content; its first 8 bytes, if there are that many, also serve as a term value to deposit.
 */
#include "fuzz_common.h"
#include "machine/pmu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The inverse of tly_format_deposit: gathers the bits of config under mask, lowest first. */
static uint64_t extract(uint64_t mask, uint64_t config)
{
	uint64_t value = 0, out_bit = 1;
	for (uint64_t rest = mask; rest; rest &= rest - 1, out_bit <<= 1)
		if (config & rest & -rest)
			value |= out_bit;
	return value;
}

static void check_format(const char *text, uint64_t value)
{
	enum tly_config_field field = TLY_NR_CONFIG_FIELDS;
	uint64_t mask = 0;
	int rc = tly_format_parse(text, &field, &mask);
	if (rc != 0) {
		REQUIRE(rc == -EINVAL || rc == -ERANGE || rc == -EEXIST || rc == -EOPNOTSUPP);
		REQUIRE(field == TLY_NR_CONFIG_FIELDS && mask == 0);
		REQUIRE(tly_format_reason(rc)[0] != '\0');
		return;
	}
	REQUIRE(field < TLY_NR_CONFIG_FIELDS);
	REQUIRE(mask != 0);
	unsigned width = tly_format_width(mask);
	REQUIRE(width >= 1 && width <= 64);

	uint64_t config = ~mask; /* bits outside the mask must survive */
	rc = tly_format_deposit(mask, value, &config);
	bool fits = width == 64 || value >> width == 0;
	if (!fits) {
		REQUIRE(rc == -ERANGE && config == ~mask);
		value &= width == 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
		rc = tly_format_deposit(mask, value, &config);
	}
	REQUIRE(rc == 0);
	REQUIRE((config & ~mask) == ~mask);
	REQUIRE(extract(mask, config) == value);
}

static void check_companions(const char *text)
{
	double scale = -1;
	int rc = tly_alias_parse_scale(text, &scale);
	if (rc == 0)
		REQUIRE(isfinite(scale) && scale > 0);
	else
		REQUIRE((rc == -EINVAL || rc == -ENOMEM) && scale == -1);

	bool flag = false;
	rc = tly_alias_parse_flag(text, &flag);
	REQUIRE(rc == 0 ? strlen(text) == 1 : rc == -EINVAL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* sysfs files are at most a page; longer inputs only slow the search down. */
	if (size > 4096)
		return 0;
	char *text = fuzz_cstring(data, size);
	if (!text)
		return 0;
	uint64_t value = 0;
	if (size >= sizeof(value))
		memcpy(&value, data, sizeof(value));

	check_format(text, value);
	check_companions(text);
	free(text);
	return 0;
}
