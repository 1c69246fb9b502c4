/* SPDX-License-Identifier: MIT */
#include "lib/text_escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "shared/utf8.h"

static size_t write_hex(FILE *out, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "\\x%02x", p[i]);
	return 4 * n;
}

/* sep, when not NULL, is a field separator: its first byte is written as \xHH where it occurs. */
static size_t escape(FILE *out, const char *s, bool keep_newlines, const char *sep)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, written = 0, sep_len = sep ? strlen(sep) : 0;
	while (i < n) {
		uint32_t cp;
		size_t seq = utf8_sequence(p + i, n - i, &cp);
		if (sep_len && n - i >= sep_len && memcmp(p + i, sep, sep_len) == 0) {
			written += write_hex(out, p + i, 1);
			i++;
		} else if (seq == 0) {
			written += write_hex(out, p + i, 1);
			i++;
		} else if ((cp < 0x20 && !(cp == '\n' && keep_newlines)) || (cp >= 0x7f && cp <= 0x9f)) {
			written += write_hex(out, p + i, seq);
			i += seq;
		} else if (cp == '\\') {
			fputs("\\\\", out);
			written += 2;
			i++;
		} else {
			fwrite(p + i, 1, seq, out);
			written += seq;
			i += seq;
		}
	}
	return written;
}

size_t text_escape_write(FILE *out, const char *s)
{
	return escape(out, s, false, NULL);
}

void text_escape_field(FILE *out, const char *s, const char *sep)
{
	escape(out, s, false, sep);
}

void text_escape_lines(FILE *out, const char *s)
{
	escape(out, s, true, NULL);
}

void text_escape_pad(FILE *out, const char *s, size_t width)
{
	for (size_t written = text_escape_write(out, s); written < width; written++)
		fputc(' ', out);
}
