/* SPDX-License-Identifier: MIT */
#include "spec/spec_error.h"

#include "core/error.h"
#include "shared/utf8.h"

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

/* Characters that pass for ASCII punctuation of the grammar (full-width forms, CJK and typographic
 * punctuation), found in specs pasted from documents or typed with an input method on. */
static const struct {
	unsigned code;
	char ascii;
} look_alikes[] = {
	{ 0xff0c, ',' }, { 0x3001, ',' }, { 0xff1a, ':' }, { 0xff0f, '/' }, { 0xff5b, '{' }, { 0xff5d, '}' },
	{ 0xff1d, '=' }, { 0x2018, '\'' }, { 0x2019, '\'' }, { 0x201c, '"' }, { 0x201d, '"' }, { 0x2010, '-' },
	{ 0x2013, '-' }, { 0x2014, '-' }, { 0x2212, '-' }, { 0x00a0, ' ' }, { 0x3000, ' ' },
};

bool tly_spec_foreign(char c)
{
	unsigned char u = (unsigned char)c;
	return !((u >= 0x20 && u < 0x7f) || (u >= '\t' && u <= '\r'));
}

size_t tly_spec_char(const char *s, size_t len, char *out, size_t out_len)
{
	unsigned char c = (unsigned char)s[0];
	uint32_t code;
	size_t n = utf8_sequence((const unsigned char *)s, len, &code);
	if (!tly_spec_foreign(s[0])) {
		snprintf(out, out_len, "'%c'", c);
	} else if (c < 0x80) {
		snprintf(out, out_len, "control character %#04x", c);
	} else if (n == 0) {
		snprintf(out, out_len, "byte %#04x (not UTF-8)", c);
		n = 1;
	} else {
		char ascii = 0;
		for (size_t k = 0; k < sizeof(look_alikes) / sizeof(look_alikes[0]); k++)
			if (look_alikes[k].code == code)
				ascii = look_alikes[k].ascii;
		if (ascii)
			snprintf(out, out_len, "'%.*s' (U+%04X, a look-alike of '%c')", (int)n, s, code, ascii);
		else
			snprintf(out, out_len, "'%.*s' (U+%04X)", (int)n, s, code);
	}
	return n;
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
