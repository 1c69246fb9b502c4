/* SPDX-License-Identifier: MIT */
#include "report/number_format.h"

#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void number_style_of_locale(struct number_style *style, bool group)
{
	snprintf(style->thousands, sizeof(style->thousands), "%s", "");
	snprintf(style->decimal, sizeof(style->decimal), "%s", ".");
	/* "" reads the environment as setlocale(LC_NUMERIC, "") would, without changing the process's. */
	locale_t numeric = newlocale(LC_NUMERIC_MASK, "", (locale_t)0);
	if (!numeric)
		return;
	const char *thousands = nl_langinfo_l(THOUSEP, numeric), *decimal = nl_langinfo_l(RADIXCHAR, numeric);
	if (group && thousands && strlen(thousands) < sizeof(style->thousands))
		snprintf(style->thousands, sizeof(style->thousands), "%s", thousands);
	if (decimal && *decimal && strlen(decimal) < sizeof(style->decimal))
		snprintf(style->decimal, sizeof(style->decimal), "%s", decimal);
	freelocale(numeric);
}

/* Appends s to buf (room len, used *out), as much as fits with the NUL. */
static void put(char *buf, size_t len, size_t *out, const char *s)
{
	for (; *s && *out + 1 < len; s++)
		buf[(*out)++] = *s;
}

/* Copies digits into buf with thousands before every group of three counted from the right, then the
 * fraction's digits (fraction: "" or the digits after the point) behind the decimal point. */
static char *group_digits(const char *digits, const char *fraction, const char *thousands, const char *decimal,
                          char *buf, size_t len)
{
	size_t n = strlen(digits), out = 0;
	for (size_t i = 0; i < n && out + 1 < len; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			put(buf, len, &out, thousands);
		if (out + 1 < len)
			buf[out++] = digits[i];
	}
	if (*fraction) {
		put(buf, len, &out, decimal);
		put(buf, len, &out, fraction);
	}
	if (len)
		buf[out < len ? out : len - 1] = '\0';
	return buf;
}

char *number_format_grouped(uint64_t value, const struct number_style *style, char *buf, size_t len)
{
	char digits[24];
	snprintf(digits, sizeof(digits), "%llu", (unsigned long long)value);
	return group_digits(digits, "", style->thousands, style->decimal, buf, len);
}

/* value with decimals, its integer part grouped by thousands ("" for none). */
static char *format_double(double value, int decimals, const char *thousands, const struct number_style *style,
                           char *buf, size_t len)
{
	/* 1.8e19 is the first double past UINT64_MAX; beyond it grouping would need wider integers and no
	 * counter reaches it, so such values are printed plainly. */
	if (!isfinite(value) || fabs(value) >= 1.8e19) {
		snprintf(buf, len, "%g", value);
		return buf;
	}
	char text[NUMBER_FORMAT_MAX];
	snprintf(text, sizeof(text), "%.*f", decimals, fabs(value));
	const char *fraction = "";
	char *point = strchr(text, '.');
	if (point) {
		*point = '\0';
		fraction = point + 1;
	}
	if (value < 0 && len > 1) {
		buf[0] = '-';
		group_digits(text, fraction, thousands, style->decimal, buf + 1, len - 1);
		return buf;
	}
	return group_digits(text, fraction, thousands, style->decimal, buf, len);
}

char *number_format_grouped_double(double value, int decimals, const struct number_style *style, char *buf,
                                   size_t len)
{
	return format_double(value, decimals, style->thousands, style, buf, len);
}

char *number_format_fixed(double value, int decimals, const struct number_style *style, char *buf, size_t len)
{
	return format_double(value, decimals, "", style, buf, len);
}
