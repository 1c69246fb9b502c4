/* SPDX-License-Identifier: MIT */
#include "spec_error.h"

#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tly_spec_error(int code, const char *spec, size_t offset, size_t len, size_t *error_offset, const char *fmt,
                   ...)
{
	char message[TLY_ERROR_MAX / 2];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);

	size_t spec_len = strlen(spec);
	if (offset > spec_len)
		offset = spec_len;
	if (len == 0)
		len = 1;
	code = tly_error(code, "invalid event spec: %s\n  %s\n  %*s^", message, spec, (int)offset, "");
	for (size_t i = 1; i < len && offset + i < spec_len; i++)
		tly_error_append("~");
	if (error_offset)
		*error_offset = offset;
	return code;
}

void tly_suggest_init(struct tly_suggest *s, const char *word, size_t len)
{
	s->word = word;
	s->len = len;
	s->best = NULL;
	s->best_distance = (size_t)-1;
}

/* Longer names than this are never typos of a spec word worth suggesting; it bounds the work. */
#define SUGGEST_MAX_LEN 64

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;
	return m < c ? m : c;
}

/* Optimal string alignment distance over three rolling rows of the classic table. */
static size_t osa_distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t rows[3][SUGGEST_MAX_LEN + 1];
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

void tly_suggest_offer(struct tly_suggest *s, const char *candidate)
{
	size_t lc = strlen(candidate);
	if (s->len == 0 || s->len > SUGGEST_MAX_LEN || lc > SUGGEST_MAX_LEN)
		return;
	size_t gap = lc > s->len ? lc - s->len : s->len - lc;
	/* A plausible typo is at most a third of the word away (and never more than 3 edits). */
	size_t limit = s->len / 3 < 3 ? (s->len / 3 ? s->len / 3 : 1) : 3;
	if (gap > limit)
		return;
	size_t d = osa_distance(s->word, s->len, candidate, lc);
	if (d <= limit && d < s->best_distance) {
		s->best = candidate;
		s->best_distance = d;
	}
}
