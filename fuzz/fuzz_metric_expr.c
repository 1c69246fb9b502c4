/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the metric expression parser (src/metric/metric_expr_parse.c) and its evaluation.
 * Checked beyond "no crash, leak or UB": a rejected text leaves an error with a caret; an accepted one
 * evaluates (each name a value from its hash, some names missing, some 0) to a finite value or to "not
 * available" with a reason, and every node's span lies inside the text.
 */
#include "fuzz_common.h"
#include "metric/metric_expr.h"

#include <math.h>
#include <tally/common.h>

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static struct tly_expr_val name_value(void *ctx, const char *name, bool source_count, char *reason)
{
	(void)ctx;
	unsigned h = hash(name);
	if (h % 7 == 0)
		return tly_expr_fail(reason, "%s: not counted", name);
	return (struct tly_expr_val){ .v = source_count ? 1 : (double)(h % 5), .ok = true, .scaled = h % 3 == 0 };
}

static int has_event(void *ctx, const char *name)
{
	(void)ctx;
	return (int)(hash(name) % 3) - 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstring(data, size);
	if (!text)
		return 0;
	struct tly_expr *e = NULL;
	if (tly_expr_parse(text, 1, &e) != 0) {
		REQUIRE(e == NULL);
		REQUIRE(strchr(tally_last_error(), '^'));
	} else {
		size_t len = strlen(text);
		for (uint32_t i = 0; i < e->n; i++)
			REQUIRE(e->nodes[i].start <= e->nodes[i].end && e->nodes[i].end <= len);
		struct tly_metric_facts facts = { .smt_on = 1, .num_cpus = 4, .num_cpus_online = 4, .num_cores = 2,
			                          .num_dies = 1, .num_packages = 1, .core_wide = 1, .slots = NAN,
			                          .system_tsc_freq = 1e9, .has_pmem = 0 };
		struct tly_expr_env env = { .name = name_value, .has_event = has_event, .facts = &facts };
		char reason[TLY_EXPR_REASON];
		struct tly_expr_val v = tly_expr_eval(e, &env, reason);
		REQUIRE(v.ok ? isfinite(v.v) : reason[0] != '\0');
	}
	tly_expr_free(e);
	free(text);
	return 0;
}
