/* SPDX-License-Identifier: MIT */
/*
 * The CLI's pieces for tally merge and tally compare that hold no I/O: the strict JSON reader (every kind of
 * malformed text refused, a cut one said to be truncated), Student's t quantiles against published table
 * values, and Welch's interval against figures worked by hand.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#include "lib/json_reader.h"
#include "results/student_t.h"
#include "results/welch.h"

static void reader_accepts_json(void)
{
	const char *text = " {\"a\": [1, -2.5e3, true, false, null], \"s\": \"x\\u00e9\\ud83d\\ude00\\n\", "
	                   "\"big\": 18446744073709551615, \"o\": {}} ";
	struct json_value v;
	struct json_read_error err;
	CHECK_INT(json_read(text, strlen(text), &v, &err), 0);
	const struct json_value *a = json_member(&v, "a");
	CHECK(a && a->type == JSON_ARRAY && a->n == 5);
	double d;
	CHECK(json_as_double(&a->items[1], &d) && d == -2500);
	CHECK(a->items[2].type == JSON_TRUE && a->items[4].type == JSON_NULL);
	CHECK_STR(json_as_string(json_member(&v, "s")), "x\xc3\xa9\xf0\x9f\x98\x80\n");
	uint64_t big;
	CHECK(json_as_u64(json_member(&v, "big"), &big) && big == UINT64_MAX);
	CHECK(!json_as_u64(&a->items[1], &big));
	CHECK(json_member(&v, "o")->type == JSON_OBJECT && json_member(&v, "missing") == NULL);
	json_value_free(&v);
}

static void reader_refuses_malformed(void)
{
	static const struct {
		const char *text, *message;
		bool truncated;
	} cases[] = {
		{ "", "empty", false },
		{ "  \n", "empty", false },
		{ "{\"a\": [1, 2", "truncated", true },
		{ "{\"a\": \"abc", "truncated", true },
		{ "{\"a\": tru", "truncated", true },
		{ "{\"a\": 1,}", "expected a member's name", false },
		{ "[1, 2,]", "unexpected character ']'", false },
		{ "[01]", "leading zero", false },
		{ "[1.]", "after the decimal point", false },
		{ "[1e]", "in the exponent", false },
		{ "[NaN]", "unexpected character 'N'", false },
		{ "{\"a\": 1} x", "text after the document", false },
		{ "{\"a\": 1, \"a\": 2}", "a second member named \"a\"", false },
		{ "[\"a\tb\"]", "control character", false },
		{ "[\"\\x\"]", "unknown escape", false },
		{ "[\"\\ud83d\"]", "high surrogate without its low one", false },
		{ "[\"\\ude00\"]", "low surrogate without its high one", false },
		{ "[\"\xff\"]", "invalid UTF-8", false },
		{ "{1: 2}", "expected a member's name", false },
		{ "// comment\n{}", "unexpected character '/'", false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct json_value v;
		struct json_read_error err;
		CHECK_INT(json_read(cases[i].text, strlen(cases[i].text), &v, &err), -1);
		if (cases[i].truncated)
			CHECK_CONTAINS(err.message, "truncated");
		else
			CHECK_CONTAINS(err.message, strcmp(cases[i].message, "empty") == 0 ? "empty" : cases[i].message);
		CHECK_INT(err.truncated, cases[i].truncated);
	}
	/* Nesting past the limit is refused, not followed down the stack. */
	char deep[2 * JSON_READ_MAX_DEPTH + 8];
	size_t n = 0;
	for (int i = 0; i <= JSON_READ_MAX_DEPTH; i++)
		deep[n++] = '[';
	for (int i = 0; i <= JSON_READ_MAX_DEPTH; i++)
		deep[n++] = ']';
	struct json_value v;
	struct json_read_error err;
	CHECK_INT(json_read(deep, n, &v, &err), -1);
	CHECK_CONTAINS(err.message, "nested deeper");
	CHECK_INT((int)err.line, 1);
}

/* Two-sided 95% quantiles t(0.975, df) from published tables (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2). */
static void t_quantiles_match_tables(void)
{
	static const struct {
		double df, t;
	} table[] = {
		{ 1, 12.706 }, { 2, 4.303 }, { 3, 3.182 }, { 4, 2.776 }, { 5, 2.571 }, { 8, 2.306 },
		{ 10, 2.228 }, { 20, 2.086 }, { 30, 2.042 }, { 100, 1.984 }, { 1e6, 1.960 },
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		double t = student_t_quantile(0.975, table[i].df);
		if (fabs(t - table[i].t) > 0.0006) {
			fprintf(stderr, "df %g: t %.6f, table %.3f\n", table[i].df, t, table[i].t);
			CHECK(false);
		}
		CHECK(fabs(student_t_cdf(t, table[i].df) - 0.975) < 1e-9);
	}
	/* A fractional df (Welch's) falls between its neighbours. */
	double t25 = student_t_quantile(0.975, 2.5);
	CHECK(t25 < student_t_quantile(0.975, 2) && t25 > student_t_quantile(0.975, 3));
	CHECK(fabs(student_t_cdf(0, 7.3) - 0.5) < 1e-12);
}

static void welch_worked_by_hand(void)
{
	/* s = 1.5811 on both sides, se = sqrt(2.5/5 + 2.5/5) = 1, df = 1 / (0.25/4 + 0.25/4) = 8,
	 * t(0.975, 8) = 2.306004. */
	const double a[] = { 1, 2, 3, 4, 5 }, near[] = { 3, 4, 5, 6, 7 }, far[] = { 6, 7, 8, 9, 10 };
	struct welch w;
	welch_compare(a, 5, near, 5, 0.95, &w);
	CHECK(fabs(w.diff - 2) < 1e-12 && fabs(w.se - 1) < 1e-12 && fabs(w.df - 8) < 1e-9);
	CHECK(fabs(w.t - 2.306004) < 1e-5);
	CHECK(fabs(w.lo - (2 - 2.306004)) < 1e-5 && fabs(w.hi - (2 + 2.306004)) < 1e-5);
	CHECK_INT(w.verdict, WELCH_NO_EVIDENCE);
	CHECK(fabs(w.rel - 2.0 / 3) < 1e-12);
	welch_compare(a, 5, far, 5, 0.95, &w);
	CHECK_INT(w.verdict, WELCH_MORE);
	welch_compare(far, 5, a, 5, 0.95, &w);
	CHECK_INT(w.verdict, WELCH_LESS);
	/* Without spread: exact, whatever n. */
	const double five[] = { 5, 5, 5 }, six[] = { 6, 6 };
	welch_compare(five, 3, five, 3, 0.95, &w);
	CHECK(w.exact && w.verdict == WELCH_SAME && w.lo == 0 && w.hi == 0);
	welch_compare(five, 3, six, 2, 0.95, &w);
	CHECK(w.exact && w.verdict == WELCH_MORE && w.lo == 1 && w.hi == 1 && fabs(w.rel - 0.2) < 1e-15);
	/* One side without spread: df is the other's n - 1; diff -2, se sqrt(2.5 / 5), t(0.975, 4) = 2.776445. */
	welch_compare(five, 3, a, 5, 0.95, &w);
	CHECK(!w.exact && fabs(w.df - 4) < 1e-9 && w.verdict == WELCH_LESS);
	CHECK(fabs(w.hi - (-2 + 2.776445 * sqrt(0.5))) < 1e-5);
	/* One value with spread on the other side: no interval. */
	const double one[] = { 3 };
	welch_compare(one, 1, a, 5, 0.95, &w);
	CHECK_INT(w.verdict, WELCH_TOO_FEW);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "reader_accepts_json", reader_accepts_json },
		{ "reader_refuses_malformed", reader_refuses_malformed },
		{ "t_quantiles_match_tables", t_quantiles_match_tables },
		{ "welch_worked_by_hand", welch_worked_by_hand },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
