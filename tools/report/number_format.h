/* SPDX-License-Identifier: MIT */
/*
 * Numbers of the tables, as perf stat prints them: digits grouped in threes by the thousands separator of
 * the environment's locale (LC_ALL, LC_NUMERIC, LANG: none in the C and POSIX locales, ',' in en_US, '.' in
 * de_DE; none with -B) and its decimal point. tally never calls setlocale(): printf stays in the "C" locale,
 * CSV and JSON always print '.' and no separator, and the table's numbers are made here from the locale's
 * two strings (read once, with newlocale(3)).
 */
#ifndef TALLY_TOOLS_NUMBER_FORMAT_H
#define TALLY_TOOLS_NUMBER_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Enough for a uint64_t with separators, or a double of that magnitude with decimals. */
#define NUMBER_FORMAT_MAX 64

/* How a table writes numbers. */
struct number_style {
	char thousands[8];  /* between groups of three digits; "" for none */
	char decimal[8];    /* the decimal point */
};

/* The style of the environment's locale (LC_ALL, else LC_NUMERIC, else LANG; the C locale's where it
 * names none or one that is not installed), without grouping when group is false (-B). */
void number_style_of_locale(struct number_style *style, bool group);

/* 1234567 -> "1,234,567" (en_US), "1234567" (C, or -B). Returns buf. */
char *number_format_grouped(uint64_t value, const struct number_style *style, char *buf, size_t len);

/* 1234567.891 with 2 decimals -> "1,234,567.89" (en_US), "1.234.567,89" (de_DE); negative values keep
 * their sign; values too large for a uint64_t and non-finite ones are printed plainly with %g. Returns
 * buf. */
char *number_format_grouped_double(double value, int decimals, const struct number_style *style, char *buf,
                                   size_t len);

/* As number_format_grouped_double without the thousands separator: times, ratios, percentages, as perf
 * prints them with printf's %f in the locale. Returns buf. */
char *number_format_fixed(double value, int decimals, const struct number_style *style, char *buf, size_t len);

/* A count held in a double (a mean, a scaled value) to the nearest integer: 0 for negative or NaN values,
 * UINT64_MAX from 2^64 on. Without libm's llround, so that the CLI loads no libm. */
static inline uint64_t count_of(double value)
{
	if (!(value > 0))
		return 0;
	if (value >= 18446744073709551616.0)
		return UINT64_MAX;
	return (uint64_t)(value + 0.5);
}

#endif
