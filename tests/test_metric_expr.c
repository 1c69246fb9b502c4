/* SPDX-License-Identifier: MIT */
/*
 * The metric expression language (src/metric/metric_expr*.c, metric_table.c): perf's grammar and
 * precedence, its tokens and escapes, the literals from a fixture machine, and the edge cases: division by
 * 0, d_ratio, nested if, a NaN branch, references three deep, a cycle, thresholds.
 */
#include "harness.h"
#include "metric/metric_expr.h"
#include "metric/metric_table.h"
#include "noted_opens.h"

#include <errno.h>
#include <math.h>
#include <tally/common.h>

/* The events of the cases: a name, a value; "scaled" is an estimate; "missing" has no value. */
static const struct {
	const char *name;
	double value;
} events[] = {
	{ "cycles", 1000 }, { "instructions", 2500 }, { "zero", 0 }, { "scaled", 10 },
	{ "cpu@INT_MISC.RECOVERY_CYCLES,cmask=1,edge@", 7 }, { "topdown-retiring", 30 }, { "msr@tsc@", 5000 },
	{ "duration_time", 2 }, { "power@energy-0@", 11 },
};

static struct tly_expr_val env_name(void *ctx, const char *name, bool source_count, char *reason)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (strcmp(events[i].name, name) == 0)
			return (struct tly_expr_val){ .v = source_count ? 1 : events[i].value, .ok = true,
				                      .scaled = strcmp(name, "scaled") == 0 };
	return tly_expr_fail(reason, "%s: not counted", name);
}

static int env_has_event(void *ctx, const char *name)
{
	(void)ctx;
	return strcmp(name, "cycles") == 0;
}

static int env_cpuid(void *ctx, const char *pattern)
{
	(void)ctx;
	return strcmp(pattern, "0x00000000410fd0c0") == 0;
}

static const struct tly_metric_facts facts = { .smt_on = 1, .num_cpus = 8, .num_cpus_online = 6,
	                                       .num_cores = 4, .num_dies = 1, .num_packages = 1,
	                                       .core_wide = 0, .slots = NAN, .system_tsc_freq = 2.1e9,
	                                       .has_pmem = 0 };
static const struct tly_expr_env env = { .name = env_name, .has_event = env_has_event,
	                                 .cpuid_match = env_cpuid, .facts = &facts };

/* Parses and evaluates text; *reason gets the reason of a value not available. */
static struct tly_expr_val eval(const char *text, char *reason)
{
	struct tly_expr *e = NULL;
	int err = tly_expr_parse(text, 0, &e);
	if (err) {
		fprintf(stderr, "cannot parse '%s': %s\n", text, tally_last_error());
		return (struct tly_expr_val){ .v = -12345 };
	}
	struct tly_expr_val v = tly_expr_eval(e, &env, reason);
	tly_expr_free(e);
	return v;
}

#define CHECK_VALUE(text, expected)                                                                \
	do {                                                                                       \
		char r_[TLY_EXPR_REASON];                                                          \
		struct tly_expr_val v_ = eval(text, r_);                                           \
		if (!v_.ok || fabs(v_.v - (double)(expected)) > 1e-12 * fabs((double)(expected))) {\
			fprintf(stderr, "%s:%d: '%s' = %g (%s), expected %g\n", __FILE__, __LINE__, \
			        text, v_.v, v_.ok ? "ok" : r_, (double)(expected));                \
			harness_failed++;                                                          \
		}                                                                                  \
	} while (0)

#define CHECK_NOT_AVAILABLE(text, why)                                                             \
	do {                                                                                       \
		char r_[TLY_EXPR_REASON];                                                          \
		struct tly_expr_val v_ = eval(text, r_);                                           \
		CHECK(!v_.ok);                                                                     \
		if (!v_.ok)                                                                        \
			CHECK_CONTAINS(r_, why);                                                   \
	} while (0)

static void test_precedence(void)
{
	CHECK_VALUE("1 + 2 * 3", 7);
	CHECK_VALUE("(1 + 2) * 3", 9);
	CHECK_VALUE("2 - 3 - 4", -5);
	CHECK_VALUE("8 / 4 / 2", 1);
	CHECK_VALUE("-2 * 3", -6);
	CHECK_VALUE("- - 2", 2);
	CHECK_VALUE("7 % 4", 3);
	CHECK_VALUE("-7.5 % 2", -1);
	CHECK_NOT_AVAILABLE("1e21 % 0.5", "0.5 is 0");
	CHECK_VALUE("1e21 % 7", fmod(1e21, 7));
	CHECK_VALUE("1 + 2 < 4", 1);
	CHECK_VALUE("3 > 1 + 5", 0);
	CHECK_VALUE("1 | 0 & 0", 1);  /* & binds tighter than | */
	CHECK_VALUE("0 & 1 | 1", 1);
	CHECK_VALUE("1 ^ 1", 0);
	CHECK_VALUE("1 ^ 0 & 0", 1);
	CHECK_VALUE("0 < 1 & 2 < 1", 0); /* comparisons bind tighter than & */
}

static void test_numbers(void)
{
	CHECK_VALUE("1e3", 1000);
	CHECK_VALUE("2.5e-1", 0.25);
	CHECK_VALUE(".5", 0.5);
	CHECK_VALUE("1.", 1);
	CHECK_VALUE("1.e2", 100);
	CHECK_VALUE("100 * 1e-9", 1e-7);
	CHECK_VALUE("  42\t", 42);
}

static void test_if_else(void)
{
	CHECK_VALUE("1 if 0 else 2", 2);
	CHECK_VALUE("1 if 3 else 2", 1);
	CHECK_VALUE("1 + 2 if 1 else 3", 3);          /* if is the loosest */
	CHECK_VALUE("1 if 0 else 2 if 1 else 3", 2);  /* the else part nests */
	CHECK_VALUE("1 if 0 else 2 if 0 else 3", 3);
	CHECK_VALUE("(10 if 1 else 20) if 0 else (30 if 0 else 40)", 40);
	CHECK_VALUE("((1 if 1 else 2) if (0 if 1 else 1) else 5) * 2", 10);
	/* only the branch taken is evaluated: its missing input does not matter */
	CHECK_VALUE("cycles if 1 else missing", 1000);
	CHECK_VALUE("missing if 0 else 3", 3);
	CHECK_NOT_AVAILABLE("missing if 1 else 3", "missing: not counted");
	CHECK_NOT_AVAILABLE("1 if missing else 3", "missing: not counted");
	CHECK_NOT_AVAILABLE("NaN if 1 else 3", "NaN");
	CHECK_VALUE("NaN if 0 else 3", 3);
}

static void test_functions(void)
{
	CHECK_VALUE("min(3, 2)", 2);
	CHECK_VALUE("max(3, 2 + 2)", 4);
	CHECK_VALUE("d_ratio(1, 4)", 0.25);
	CHECK_VALUE("d_ratio(cycles, zero)", 0); /* perf's division that is 0 when the divisor is */
	CHECK_VALUE("d_ratio(missing, 0)", 0); /* a 0 divisor needs no numerator, as perf's */
}

static void test_division_by_zero(void)
{
	CHECK_NOT_AVAILABLE("cycles / zero", "zero is 0");
	CHECK_NOT_AVAILABLE("1 / (cycles - 1000)", "cycles - 1000 is 0");
	CHECK_NOT_AVAILABLE("5 % 0", "0 is 0");
	CHECK_NOT_AVAILABLE("instructions / cycles + 1 / zero", "zero is 0");
	CHECK_VALUE("1 / zero if 0 else 9", 9);
}

static void test_names(void)
{
	CHECK_VALUE("instructions / cycles", 2.5);
	CHECK_VALUE("cpu@INT_MISC.RECOVERY_CYCLES\\,cmask\\=1\\,edge@", 7);
	CHECK_VALUE("topdown\\-retiring / 10", 3);
	CHECK_VALUE("msr@tsc@ / duration_time", 2500);
	CHECK_VALUE("power@energy\\-0@", 11);
	CHECK_VALUE("source_count(cycles)", 1);
	CHECK_VALUE("has_event(cycles) + has_event(nosuch)", 1);
	CHECK_VALUE("strcmp_cpuid_str(0x00000000410fd0c0)", 1);
	CHECK_VALUE("cycles if has_event(cycles) else nosuch", 1000);
	CHECK_NOT_AVAILABLE("instructions / nosuch", "nosuch: not counted");
	char reason[TLY_EXPR_REASON];
	struct tly_expr_val v = eval("scaled * 2 + cycles", reason);
	CHECK(v.ok && v.scaled && v.v == 1020);
	v = eval("cycles * 2", reason);
	CHECK(v.ok && !v.scaled);
	/* a keyword is a keyword only as a whole symbol; a symbol longer than a number is a symbol */
	struct tly_expr *e = NULL;
	CHECK_INT(tly_expr_parse("iffy + min_x + 2abc + NaNx", 0, &e), 0);
	if (e) {
		CHECK_INT(e->nodes[0].op, TLY_EXPR_NAME);
		CHECK_STR(e->nodes[0].name, "iffy");
		CHECK_STR(e->nodes[1].name, "min_x");
		CHECK_STR(e->nodes[3].name, "2abc");
		CHECK_STR(e->nodes[5].name, "NaNx");
	}
	tly_expr_free(e);
	/* '?' is perf's runtime parameter */
	CHECK_INT(tly_expr_parse("PM_RUN_CYC_?", 3, &e), 0);
	if (e)
		CHECK_STR(e->nodes[e->root].name, "PM_RUN_CYC_3");
	tly_expr_free(e);
	char spec[128];
	CHECK_INT(tly_expr_event_spec("cpu@INT_MISC.RECOVERY_CYCLES,cmask=1,edge@", spec, sizeof(spec)), 0);
	CHECK_STR(spec, "cpu/INT_MISC.RECOVERY_CYCLES,cmask=1,edge/");
	CHECK_INT(tly_expr_event_spec("msr@tsc@", spec, 4), -ENAMETOOLONG);
}

static void test_literals(void)
{
	CHECK_VALUE("#smt_on", 1);
	CHECK_VALUE("#SMT_on + 0", 1); /* perf compares #smt_on without case */
	CHECK_VALUE("#num_cpus_online * 10 + #num_cpus", 68);
	CHECK_VALUE("#num_packages + #num_dies + #num_cores", 6);
	CHECK_VALUE("#core_wide", 0);
	CHECK_VALUE("#system_tsc_freq / 1e9", 2.1);
	CHECK_NOT_AVAILABLE("cycles / #slots", "#slots: unknown on this machine");
	struct tly_expr *e = NULL;
	CHECK_INT(tly_expr_parse("#no_such_literal", 0, &e), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "unknown literal");
}

static void test_parse_errors(void)
{
	static const char *const bad[] = {
		"", "1 +", "(1", "1)", "min(1)", "min(1, 2", "1 2", "a if b", "a if b else", "$", "a ** b",
		"source_count(1 + 2)", "d_ratio(a b)", "#", "a \\ b",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct tly_expr *e = NULL;
		int err = tly_expr_parse(bad[i], 0, &e);
		if (err != -EINVAL)
			fprintf(stderr, "'%s' gives %d\n", bad[i], err);
		CHECK_INT(err, -EINVAL);
		CHECK(e == NULL);
		CHECK_CONTAINS(tally_last_error(), "^");
	}
	/* deep nesting is refused, not a stack overflow */
	char deep[4096];
	memset(deep, '(', 2000);
	strcpy(deep + 2000, "1");
	struct tly_expr *e = NULL;
	CHECK_INT(tly_expr_parse(deep, 0, &e), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "too deep");
}

/* A table: references three deep (A -> B -> C -> events), a cycle, a self-reference, thresholds. */
static const struct tly_metric_def defs[] = {
	{ .name = "A", .expr = "B * 2", .threshold = "A > 5" },
	{ .name = "B", .expr = "c + 1", .threshold = "B > 5 & A > 5" },
	{ .name = "C", .expr = "instructions / cycles", .threshold = "missing > 1" },
	{ .name = "X", .expr = "Y + 1" },
	{ .name = "Y", .expr = "Z * 2" },
	{ .name = "Z", .expr = "X / 3" },
	{ .name = "SELF", .expr = "self + 1" },
	{ .name = "BAD", .expr = "1 +" },
	{ .name = "USES_BAD", .expr = "BAD * 2" },
	{ .name = "NO_C", .expr = "C / zero" },
};
#define NR_DEFS (sizeof(defs) / sizeof(defs[0]))

static void test_table(void)
{
	struct tly_metric_table *t = NULL;
	struct tly_metric_results res;
	CHECK_INT(tly_metric_table_new(defs, NR_DEFS, &t), 0);
	CHECK_INT(tly_metric_results_init(&res, NR_DEFS), 0);
	if (!t)
		return;
	struct tly_expr_val v = tly_metric_table_eval(t, &env, &res, 0);
	CHECK(v.ok && v.v == 7); /* (2500 / 1000 + 1) * 2 */
	CHECK_INT(tly_metric_table_find(t, "c"), 2);
	CHECK_INT(res.state[2], 2); /* C was evaluated once, through B, and kept */
	CHECK_INT(tly_metric_table_threshold(t, &env, &res, 0, NULL), 1);
	CHECK_INT(tly_metric_table_threshold(t, &env, &res, 1, NULL), 0);
	char reason[TLY_EXPR_REASON];
	CHECK_INT(tly_metric_table_threshold(t, &env, &res, 2, reason), -ENODATA);
	CHECK_CONTAINS(reason, "missing");
	CHECK_INT(tly_metric_table_threshold(t, &env, &res, 3, NULL), -ENOENT);
	for (size_t i = 3; i <= 5; i++) {
		v = tly_metric_table_eval(t, &env, &res, i);
		CHECK(!v.ok);
		CHECK_CONTAINS(res.reasons[i], "a cycle");
	}
	v = tly_metric_table_eval(t, &env, &res, 6);
	CHECK(!v.ok);
	CHECK_CONTAINS(res.reasons[6], "SELF refers to itself");
	v = tly_metric_table_eval(t, &env, &res, 8);
	CHECK(!v.ok);
	CHECK_CONTAINS(res.reasons[8], "BAD: metric expression: unexpected end");
	v = tly_metric_table_eval(t, &env, &res, 9);
	CHECK(!v.ok);
	CHECK_CONTAINS(res.reasons[9], "zero is 0");
	tly_metric_results_reset(&res);
	CHECK_INT(res.state[0], 0);
	tly_metric_results_free(&res);
	tly_metric_table_free(t);
}

/* The facts of a fixture, the topology's (every online CPU's package, die and core) read only when a
 * literal asks, once. */
static void test_facts(void)
{
	const char *fixtures = getenv("TALLY_FIXTURES");
	if (!fixtures)
		SKIP("TALLY_FIXTURES is not set (run through ctest)");
	char root[4096];
	snprintf(root, sizeof(root), "%s/sysfs/intel-server", fixtures);
	struct tly_metric_facts f;
	const struct tly_sys *old = noting_start();
	tly_metric_facts_read(root, true, &f);
	/* the fixture has no smt/active (before 4.19): #smt_on from the siblings' lists, read now */
	CHECK(strstr(noted_opens, "/topology/physical_package_id") == NULL && strstr(noted_opens, "/topology/die_id") == NULL);
	CHECK(f.num_cpus_online == 8);
	CHECK(tly_metric_literal(&f, "#num_packages") == 2);
	CHECK_CONTAINS(noted_opens, "cpu7/topology/physical_package_id");
	noted_opens[0] = '\0';
	CHECK(tly_metric_literal(&f, "#num_dies") == 2);
	CHECK(tly_metric_literal(&f, "#NUM_CORES") > 0);
	CHECK(strstr(noted_opens, "/topology/") == NULL); /* read once */
	tly_sys_replace(old);
	CHECK(f.core_wide == 1);
	CHECK(isnan(f.slots));
	tly_metric_facts_fini(&f);
	snprintf(root, sizeof(root), "%s/sysfs/arm64", fixtures);
	tly_metric_facts_read(root, false, &f);
	CHECK(f.slots > 0);
	tly_metric_facts_fini(&f);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "precedence", test_precedence },
		{ "numbers", test_numbers },
		{ "if_else", test_if_else },
		{ "functions", test_functions },
		{ "division_by_zero", test_division_by_zero },
		{ "names", test_names },
		{ "literals", test_literals },
		{ "parse_errors", test_parse_errors },
		{ "table", test_table },
		{ "facts", test_facts },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
