/* SPDX-License-Identifier: MIT */
/*
 * The body of a JSON string (RFC 8259) from bytes that need not be UTF-8, the one escaper of the library
 * (the region writers' JSON: a region's name is the program's bytes) and of the CLI (tools/lib/json_writer.c
 * and perf's JSON). Source both compile, as src/shared/utf8.h says why; static inline for the same reason.
 *
 * Valid UTF-8 passes through; '"' and '\\' are escaped, as are the control characters (the short forms
 * \n \r \t \b \f, \u00XX for the others and for DEL); each byte that is no part of a valid sequence is
 * written as \ufffd (U+FFFD, the replacement character, as a reader's UTF-8 decoder takes it: \u00XX
 * would claim the text held the Latin-1 character XX, which it never did), so the document is always
 * valid JSON and never shows a character the text did not hold.
 */
#ifndef TALLY_SHARED_JSON_ESCAPE_H
#define TALLY_SHARED_JSON_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "shared/utf8.h"

/* Writes the n bytes at s to out as the body of a JSON string (no quotes), escaped as said above. */
static inline void json_escape(FILE *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		unsigned char c = p[i];
		uint32_t cp;
		size_t seq = utf8_sequence(p + i, n - i, &cp);
		if (seq == 0) {
			fputs("\\ufffd", out);
			i++;
			continue;
		}
		if (seq > 1) {
			fwrite(p + i, 1, seq, out);
			i += seq;
			continue;
		}
		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(out, "\\u%04x", c);
			else
				fputc(c, out);
		}
		i++;
	}
}

#endif
