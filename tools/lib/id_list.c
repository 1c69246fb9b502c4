/* SPDX-License-Identifier: MIT */
#include "lib/id_list.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int compare_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Reads one decimal number at *p, advancing it. */
static bool read_number(const char **p, int min, int max, int *value)
{
	if (!isdigit((unsigned char)**p))
		return false;
	char *end;
	errno = 0;
	long v = strtol(*p, &end, 10);
	if (errno || v < min || v > max)
		return false;
	*p = end;
	*value = (int)v;
	return true;
}

long id_list_parse(const char *text, int min, int max, int **out)
{
	size_t n = 0, cap = 0;
	int *list = NULL;
	const char *p = text;
	*out = NULL;
	while (*p) {
		int lo, hi;
		if (!read_number(&p, min, max, &lo))
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if (!read_number(&p, min, max, &hi) || hi < lo)
				goto bad;
		}
		for (long v = lo; v <= hi; v++) {
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				int *grown = realloc(list, cap * sizeof(*list));
				if (!grown)
					goto bad;
				list = grown;
			}
			list[n++] = (int)v;
		}
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
	}
	if (n == 0)
		goto bad;
	qsort(list, n, sizeof(*list), compare_ints);
	size_t unique = 1;
	for (size_t i = 1; i < n; i++)
		if (list[i] != list[unique - 1])
			list[unique++] = list[i];
	*out = list;
	return (long)unique;
bad:
	free(list);
	return -1;
}
