/* SPDX-License-Identifier: MIT */
#include "number_format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Copies digits into buf, with a ',' before every group of three counted from the right when group. */
static char *group_digits(const char *digits, const char *tail, bool group, char *buf, size_t len)
{
	size_t n = strlen(digits), out = 0;
	for (size_t i = 0; i < n && out + 1 < len; i++) {
		if (group && i > 0 && (n - i) % 3 == 0 && out + 2 < len)
			buf[out++] = ',';
		buf[out++] = digits[i];
	}
	for (size_t i = 0; tail[i] && out + 1 < len; i++)
		buf[out++] = tail[i];
	if (len)
		buf[out < len ? out : len - 1] = '\0';
	return buf;
}

char *number_format_grouped(uint64_t value, bool group, char *buf, size_t len)
{
	char digits[24];
	snprintf(digits, sizeof(digits), "%llu", (unsigned long long)value);
	return group_digits(digits, "", group, buf, len);
}

char *number_format_grouped_double(double value, int decimals, bool group, char *buf, size_t len)
{
	/* 1.8e19 is the first double past UINT64_MAX; beyond it grouping would need wider integers and no
	 * counter reaches it, so such values are printed plainly. */
	if (!isfinite(value) || fabs(value) >= 1.8e19) {
		snprintf(buf, len, "%g", value);
		return buf;
	}
	char text[NUMBER_FORMAT_MAX];
	snprintf(text, sizeof(text), "%.*f", decimals, fabs(value));
	char fraction[NUMBER_FORMAT_MAX] = "";
	char *point = strchr(text, '.');
	if (point) {
		snprintf(fraction, sizeof(fraction), "%s", point);
		*point = '\0';
	}
	if (value < 0 && len > 1) {
		buf[0] = '-';
		group_digits(text, fraction, group, buf + 1, len - 1);
		return buf;
	}
	return group_digits(text, fraction, group, buf, len);
}
