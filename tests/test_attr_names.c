/* SPDX-License-Identifier: MIT */
/* tools/describe/attr_names.c, compiled here: every field of an attr that is set is reported, each under the name a
 * designated initializer uses (bp_addr/bp_len for breakpoints, config1/config2 otherwise), with the
 * headers' symbol for its value where they have one; so `tally encode` stays generic over new forms
 * (tracepoints, breakpoints, uncore PMUs) and over new bits of the installed <linux/perf_event.h>. */
#include <linux/hw_breakpoint.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#include "describe/attr_names.h"

/* The fields reported, as "name=value[=symbol] ..." (type, size and config always), and whether a symbol
 * needs <linux/hw_breakpoint.h>. */
static char shown[2048];
static bool needs_bp_header;

static void collect(const struct attr_field *f, void *arg)
{
	(void)arg;
	size_t len = strlen(shown);
	needs_bp_header |= f->needs_hw_breakpoint_h;
	snprintf(shown + len, sizeof(shown) - len, "%s%s=%#llx%s%s", len ? " " : "", f->name,
	         (unsigned long long)f->value, f->symbol[0] ? "=" : "", f->symbol);
}

static const char *show(const struct perf_event_attr *a)
{
	shown[0] = '\0';
	needs_bp_header = false;
	attr_fields_each(a, collect, NULL);
	return shown;
}

static void breakpoint_fields_have_their_names(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_BREAKPOINT, .bp_type = HW_BREAKPOINT_W,
		                     .bp_addr = 0x601040, .bp_len = 4, .exclude_kernel = 1 };
	CHECK_STR(show(&a), "type=0x5=PERF_TYPE_BREAKPOINT size=0 config=0 exclude_kernel=0x1 "
	                    "bp_type=0x2=HW_BREAKPOINT_W bp_addr=0x601040 bp_len=0x4=HW_BREAKPOINT_LEN_4");
	CHECK(needs_bp_header);
	struct perf_event_attr sw = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY };
	CHECK_STR(show(&sw), "type=0x1=PERF_TYPE_SOFTWARE size=0 config=0x9=PERF_COUNT_SW_DUMMY");
	CHECK(!needs_bp_header);
}

static void tracepoint_and_pmu_events(void)
{
	struct perf_event_attr tp = { .type = PERF_TYPE_TRACEPOINT, .config = 316, .size = sizeof(tp) };
	CHECK_STR(show(&tp), "type=0x2=PERF_TYPE_TRACEPOINT size=0x80=sizeof(struct perf_event_attr) config=0x13c");
	/* A dynamic PMU (uncore_imc_0, type 15): numbers only, config1 and config2 under those names. */
	struct perf_event_attr imc = { .type = 15, .config = 0x304, .config1 = 1, .config2 = 2 };
	CHECK_STR(show(&imc), "type=0xf size=0 config=0x304 config1=0x1 config2=0x2");
}

static void generic_configs_are_spelled(void)
{
	struct perf_event_attr c = { .type = PERF_TYPE_HW_CACHE, .config = 0x10000 };
	CHECK_STR(show(&c), "type=0x3=PERF_TYPE_HW_CACHE size=0 config=0x10000=PERF_COUNT_HW_CACHE_L1D | "
	                    "(PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)");
	struct perf_event_attr h = { .type = PERF_TYPE_HARDWARE, .config = (10ULL << 32) | 1 };
	CHECK_STR(show(&h), "type=0=PERF_TYPE_HARDWARE size=0 config=0xa00000001=(10ULL << PERF_PMU_TYPE_SHIFT) | "
	                    "PERF_COUNT_HW_INSTRUCTIONS");
	/* Codes the headers do not name stay numbers. */
	struct perf_event_attr odd = { .type = PERF_TYPE_HARDWARE, .config = 99, .read_format = 1ULL << 40 };
	CHECK_STR(show(&odd), "type=0=PERF_TYPE_HARDWARE size=0 config=0x63 read_format=0x10000000000");
}

static void unions_follow_their_selectors(void)
{
	struct perf_event_attr a = { .freq = 1, .sample_freq = 4000, .watermark = 1, .wakeup_watermark = 64,
		                     .clockid = -1, .use_clockid = 1 };
	CHECK_STR(show(&a), "type=0=PERF_TYPE_HARDWARE size=0 config=0=PERF_COUNT_HW_CPU_CYCLES sample_freq=0xfa0 "
	                    "freq=0x1 watermark=0x1 use_clockid=0x1 wakeup_watermark=0x40 clockid=0xffffffffffffffff");
}

/* Each bit of the flags word that the installed header names is reported alone, whatever the header's age. */
static void every_named_bit_is_reported(void)
{
	struct perf_event_attr all;
	memset(&all, 0xff, sizeof(all));
	unsigned reserved = (unsigned)__builtin_popcountll(all.__reserved_1);
	size_t flags = offsetof(struct perf_event_attr, read_format) + sizeof(all.read_format);
	for (unsigned bit = 0; bit < 64 - reserved; bit++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		uint64_t word = 1ULL << bit;
		memcpy((char *)&a + flags, &word, sizeof(word));
		const char *s = show(&a);
		if (!strstr(s, "config=0=PERF_COUNT_HW_CPU_CYCLES ")) {
			fprintf(stderr, "bit %u of the flags word is not reported: %s\n", bit, s);
			harness_failed++;
		}
	}
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "breakpoint_fields_have_their_names", breakpoint_fields_have_their_names },
		{ "tracepoint_and_pmu_events", tracepoint_and_pmu_events },
		{ "generic_configs_are_spelled", generic_configs_are_spelled },
		{ "unions_follow_their_selectors", unions_follow_their_selectors },
		{ "every_named_bit_is_reported", every_named_bit_is_reported },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
