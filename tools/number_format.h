/* SPDX-License-Identifier: MIT */
/*
 * Numbers as the CLI prints them: digits grouped by ',' in threes and '.' as the decimal point, always,
 * whatever the environment's locale says. tally never calls setlocale(), so the C library stays in the
 * "C" locale for printf; the grouping is done here by hand because the "C" locale has none.
 */
#ifndef TALLY_TOOLS_NUMBER_FORMAT_H
#define TALLY_TOOLS_NUMBER_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Enough for a uint64_t with separators, or a double of that magnitude with decimals. */
#define NUMBER_FORMAT_MAX 48

/* 1234567 -> "1,234,567" ("1234567" without group: perf stat -B). Returns buf. */
char *number_format_grouped(uint64_t value, bool group, char *buf, size_t len);

/* 1234567.891 with 2 decimals -> "1,234,567.89"; negative values keep their sign; values too large for a
 * uint64_t and non-finite ones are printed plainly with %g. Returns buf. */
char *number_format_grouped_double(double value, int decimals, bool group, char *buf, size_t len);

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
