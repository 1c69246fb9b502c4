/* SPDX-License-Identifier: MIT */
/* format/ file parsing and the depositing of term values into config bits. */
#include "harness.h"
#include "machine/pmu.h"

#include <errno.h>

static void parse_accepts_kernel_formats(void)
{
	static const struct {
		const char *text;
		enum tly_config_field field;
		uint64_t mask;
		unsigned width;
	} cases[] = {
		{ "config:0-7", TLY_CONFIG, 0xff, 8 },
		{ "config:8-15", TLY_CONFIG, 0xff00, 8 },
		{ "config:18", TLY_CONFIG, 1u << 18, 1 },
		{ "config:24-31", TLY_CONFIG, 0xff000000, 8 },
		{ "config:0-7,32-35", TLY_CONFIG, 0xf000000ffull, 12 },          /* AMD event select */
		{ "config:0-7,32-35,59-60", TLY_CONFIG, 0x1800000f000000ffull, 14 }, /* AMD DF, Zen 2 */
		{ "config:32-35,0-7", TLY_CONFIG, 0xf000000ffull, 12 },          /* order does not matter */
		{ "config:0-63", TLY_CONFIG, UINT64_MAX, 64 },                    /* msr, cstate */
		{ "config:63", TLY_CONFIG, 1ull << 63, 1 },
		{ "config:5-5", TLY_CONFIG, 1u << 5, 1 },
		{ "config1:0-63", TLY_CONFIG1, UINT64_MAX, 64 },                  /* offcore_rsp */
		{ "config1:0-15", TLY_CONFIG1, 0xffff, 16 },                      /* ldlat */
		{ "config1:0", TLY_CONFIG1, 1, 1 },                               /* arm64 long */
		{ "config1:1", TLY_CONFIG1, 2, 1 },                               /* arm64 rdpmc */
		{ "config2:0-31", TLY_CONFIG2, 0xffffffff, 32 },
		{ "config:007", TLY_CONFIG, 1u << 7, 1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum tly_config_field field = TLY_NR_CONFIG_FIELDS;
		uint64_t mask = 0;
		int rc = tly_format_parse(cases[i].text, &field, &mask);
		if (rc != 0)
			fprintf(stderr, "case \"%s\"\n", cases[i].text);
		CHECK_INT(rc, 0);
		CHECK_INT(field, cases[i].field);
		CHECK_U64(mask, cases[i].mask);
		CHECK_INT(tly_format_width(mask), cases[i].width);
	}
}

static void parse_rejects_garbage(void)
{
	static const struct {
		const char *text;
		int err;
	} cases[] = {
		{ "", -EINVAL },
		{ "config", -EINVAL },
		{ "config:", -EINVAL },
		{ "conflg:8-15", -EINVAL },
		{ "config4:0", -EINVAL },
		{ "Config:0", -EINVAL },
		{ "config :0-7", -EINVAL },
		{ "config: 0-7", -EINVAL },
		{ "config:0-7 ", -EINVAL },
		{ "config:0-", -EINVAL },
		{ "config:-7", -EINVAL },
		{ "config:0-7,", -EINVAL },
		{ "config:0-7,,8", -EINVAL },
		{ "config:7-0", -EINVAL },
		{ "config:0x1", -EINVAL },
		{ "config:1:2", -EINVAL },
		{ "config:0-7;8", -EINVAL },
		{ "config:64", -ERANGE },
		{ "config:60-64", -ERANGE },
		{ "config:99999999999999999999999", -ERANGE },
		{ "config:0-7,4-11", -EEXIST },
		{ "config:3,3", -EEXIST },
		{ "config:0-63,63", -EEXIST },
		{ "config3:0-63", -EOPNOTSUPP },
		{ "config3:0-7,x", -EINVAL }, /* config3 is checked for form before it is set aside */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum tly_config_field field = TLY_CONFIG2;
		uint64_t mask = 42;
		int rc = tly_format_parse(cases[i].text, &field, &mask);
		if (rc != cases[i].err)
			fprintf(stderr, "case \"%s\"\n", cases[i].text);
		CHECK_INT(rc, cases[i].err);
		CHECK_INT(field, TLY_CONFIG2);
		CHECK_U64(mask, 42);
		CHECK(tly_format_reason(rc)[0] != '\0');
	}
	CHECK_CONTAINS(tly_format_reason(-ERANGE), "63");
	CHECK_CONTAINS(tly_format_reason(-EINVAL), "config");
}

static void deposit_fills_the_mask_bits(void)
{
	static const struct {
		const char *format;
		uint64_t start;
		uint64_t value;
		uint64_t expect;
	} cases[] = {
		{ "config:0-7", 0, 0x3c, 0x3c },
		{ "config:8-15", 0x3c, 0x01, 0x13c },
		{ "config:18", 0, 1, 1u << 18 },
		{ "config:18", 1u << 18, 0, 0 },                  /* a later term replaces an earlier one */
		{ "config:0-7", 0xffff, 0x12, 0xff12 },          /* other bits survive */
		{ "config:0-7,32-35", 0, 0x1d6, 0x1000000d6ull }, /* AMD event 0x1d6: low 8 bits, then bits 32+ */
		{ "config:0-7,32-35", 0, 0xfff, 0xf000000ffull },
		{ "config:0-7,32-35,59-60", 0, 0x3fff, 0x1800000f000000ffull },
		{ "config:0-63", 0, UINT64_MAX, UINT64_MAX },
		{ "config:0-63", 5, 0, 0 },
		{ "config:63", 0, 1, 1ull << 63 },
		{ "config1:0-15", 0, 3, 3 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum tly_config_field field;
		uint64_t mask, config = cases[i].start;
		CHECK_INT(tly_format_parse(cases[i].format, &field, &mask), 0);
		CHECK_INT(tly_format_deposit(mask, cases[i].value, &config), 0);
		CHECK_U64(config, cases[i].expect);
	}
}

static void deposit_rejects_values_too_wide(void)
{
	static const struct {
		uint64_t mask;
		uint64_t value;
	} cases[] = {
		{ 0xff, 0x100 },
		{ 1u << 18, 2 },
		{ 0xf000000ffull, 0x1000 },
		{ 0xffff, UINT64_MAX },
		{ 0, 1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t config = 0x5a5a;
		CHECK_INT(tly_format_deposit(cases[i].mask, cases[i].value, &config), -ERANGE);
		CHECK_U64(config, 0x5a5a);
	}
}

static void width_counts_bits(void)
{
	CHECK_INT(tly_format_width(0), 0);
	CHECK_INT(tly_format_width(1), 1);
	CHECK_INT(tly_format_width(0xf000000ffull), 12);
	CHECK_INT(tly_format_width(UINT64_MAX), 64);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "parse_accepts_kernel_formats", parse_accepts_kernel_formats },
		{ "parse_rejects_garbage", parse_rejects_garbage },
		{ "deposit_fills_the_mask_bits", deposit_fills_the_mask_bits },
		{ "deposit_rejects_values_too_wide", deposit_rejects_values_too_wide },
		{ "width_counts_bits", width_counts_bits },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
