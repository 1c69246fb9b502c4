/* SPDX-License-Identifier: MIT */
/*
 * The one UTF-8 decoder (src/shared/utf8.h) at its edges, in one table: the shortest and longest form of
 * each length, overlong forms, surrogates, code points past U+10FFFF, bytes that lead nothing, sequences
 * cut short by the length given or by a byte that is no continuation (NUL included). Then each of its
 * users, the library's (the spec parser's error text, the JSON escaper of the region writers) and the
 * CLI's (the same escaper through its JSON writer, the escaping of text for a terminal), is checked to
 * decide as the decoder does on every row, so that the one copy is proven for all of them.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "lib/text_escape.h"
#include "shared/json_escape.h"
#include "shared/utf8.h"
#include "spec/spec_error.h"

static const struct utf8_case {
	const char *what;
	const char *bytes;
	size_t n;      /* bytes the decoder may look at */
	size_t len;    /* the sequence's length, 0: invalid */
	uint32_t code; /* its code point when valid */
} cases[] = {
	{ "NUL", "\0", 1, 1, 0 },
	{ "ASCII", "A", 1, 1, 'A' },
	{ "DEL", "\x7f", 1, 1, 0x7f },
	{ "lone continuation 0x80", "\x80", 1, 0, 0 },
	{ "lone continuation 0xbf", "\xbf", 1, 0, 0 },
	{ "overlong 2-byte NUL (c0 80)", "\xc0\x80", 2, 0, 0 },
	{ "overlong 2-byte '/' (c1 af)", "\xc1\xaf", 2, 0, 0 },
	{ "shortest 2-byte U+0080", "\xc2\x80", 2, 2, 0x80 },
	{ "longest 2-byte U+07FF", "\xdf\xbf", 2, 2, 0x7ff },
	{ "overlong 3-byte U+07FF (e0 9f bf)", "\xe0\x9f\xbf", 3, 0, 0 },
	{ "overlong 3-byte '/' (e0 80 af)", "\xe0\x80\xaf", 3, 0, 0 },
	{ "shortest 3-byte U+0800", "\xe0\xa0\x80", 3, 3, 0x800 },
	{ "last before the surrogates U+D7FF", "\xed\x9f\xbf", 3, 3, 0xd7ff },
	{ "first surrogate U+D800", "\xed\xa0\x80", 3, 0, 0 },
	{ "last surrogate U+DFFF", "\xed\xbf\xbf", 3, 0, 0 },
	{ "first after the surrogates U+E000", "\xee\x80\x80", 3, 3, 0xe000 },
	{ "U+FFFF", "\xef\xbf\xbf", 3, 3, 0xffff },
	{ "overlong 4-byte U+FFFF (f0 8f bf bf)", "\xf0\x8f\xbf\xbf", 4, 0, 0 },
	{ "overlong 4-byte '/' (f0 80 80 af)", "\xf0\x80\x80\xaf", 4, 0, 0 },
	{ "shortest 4-byte U+10000", "\xf0\x90\x80\x80", 4, 4, 0x10000 },
	{ "U+1F600", "\xf0\x9f\x98\x80", 4, 4, 0x1f600 },
	{ "last code point U+10FFFF", "\xf4\x8f\xbf\xbf", 4, 4, 0x10ffff },
	{ "past U+10FFFF: U+110000 (f4 90 80 80)", "\xf4\x90\x80\x80", 4, 0, 0 },
	{ "lead 0xf5 (past U+10FFFF)", "\xf5\x80\x80\x80", 4, 0, 0 },
	{ "lead 0xf8 (a 5-byte form)", "\xf8\x88\x80\x80\x80", 5, 0, 0 },
	{ "lead 0xfe", "\xfe", 1, 0, 0 },
	{ "byte 0xff", "\xff", 1, 0, 0 },
	{ "2-byte cut by the length", "\xc3\xa9", 1, 0, 0 },
	{ "3-byte cut by the length", "\xe2\x82\xac", 2, 0, 0 },
	{ "4-byte cut by the length", "\xf0\x9f\x98\x80", 3, 0, 0 },
	{ "2-byte cut by NUL", "\xc3\0", 2, 0, 0 },
	{ "3-byte cut by NUL", "\xe2\x82\0", 3, 0, 0 },
	{ "3-byte cut by ASCII", "\xe2\x82" "A", 3, 0, 0 },
	{ "4-byte cut by a new lead", "\xf0\x9f\xc3\xa9", 4, 0, 0 },
	{ "3-byte with a trailing byte beyond", "\xe2\x82\xac" "A", 4, 3, 0x20ac },
};
#define NR_CASES (sizeof(cases) / sizeof(cases[0]))

static void decoder_edges(void)
{
	for (size_t i = 0; i < NR_CASES; i++) {
		const struct utf8_case *c = &cases[i];
		uint32_t code = 0xdeadbeef;
		size_t len = utf8_sequence((const unsigned char *)c->bytes, c->n, &code);
		if (len != c->len || (len && code != c->code))
			fprintf(stderr, "  case %s: length %zu code %#x\n", c->what, len, code);
		CHECK_INT(len, c->len);
		if (c->len)
			CHECK_INT(code, c->code);
	}
}

static char *escaped(void (*write)(FILE *f, const char *s, size_t n), const char *s, size_t n)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	write(f, s, n);
	fclose(f);
	return text;
}

/* The bytes of the case's first sequence, or of its first byte when that is no sequence. */
static size_t first(const struct utf8_case *c)
{
	return c->len ? c->len : 1;
}

static void json_write(FILE *f, const char *s, size_t n)
{
	json_escape(f, s, n);
}

/* The escaper (the region writers' and the CLI's JSON): a valid multi-byte sequence passes as it is, an
 * invalid byte is U+FFFD. */
static void json_escaper_decides_as_the_decoder(void)
{
	for (size_t i = 0; i < NR_CASES; i++) {
		const struct utf8_case *c = &cases[i];
		if (c->len == 1)
			continue; /* ASCII: escaped or not by its own rules, below */
		char *text = escaped(json_write, c->bytes, first(c));
		char want[8] = "\\ufffd";
		if (c->len)
			memcpy(want, c->bytes, c->len), want[c->len] = '\0';
		if (!text || strcmp(text, want) != 0)
			fprintf(stderr, "  case %s\n", c->what);
		CHECK_STR(text, want);
		free(text);
	}
	static const char ascii[] = "q\"\\\n\r\t\b\f\x01\x1f\x7f\0z";
	char *text = escaped(json_write, ascii, sizeof(ascii) - 1);
	CHECK_STR(text, "q\\\"\\\\\\n\\r\\t\\b\\f\\u0001\\u001f\\u007f\\u0000z");
	free(text);
}

static void text_write(FILE *f, const char *s, size_t n)
{
	char copy[8];
	snprintf(copy, sizeof(copy), "%.*s", (int)n, s);
	text_escape_write(f, copy);
}

/* The CLI's terminal and CSV escaping: an invalid byte is \xHH, as is each byte of a C1 control
 * character; a printable character passes. */
static void text_escape_decides_as_the_decoder(void)
{
	for (size_t i = 0; i < NR_CASES; i++) {
		const struct utf8_case *c = &cases[i];
		if (c->len == 1 || memchr(c->bytes, '\0', first(c)))
			continue; /* a C string: no NUL inside */
		char *text = escaped(text_write, c->bytes, first(c));
		char want[16];
		if (c->len && c->code >= 0x80 && c->code <= 0x9f)
			snprintf(want, sizeof(want), "\\x%02x\\x%02x", (unsigned char)c->bytes[0],
			         (unsigned char)c->bytes[1]);
		else if (c->len)
			snprintf(want, sizeof(want), "%.*s", (int)c->len, c->bytes);
		else
			snprintf(want, sizeof(want), "\\x%02x", (unsigned char)c->bytes[0]);
		if (!text || strcmp(text, want) != 0)
			fprintf(stderr, "  case %s\n", c->what);
		CHECK_STR(text, want);
		free(text);
	}
}

/* The spec parser's error text: a valid character named whole with its code point, an invalid lead byte
 * alone. */
static void spec_error_decides_as_the_decoder(void)
{
	for (size_t i = 0; i < NR_CASES; i++) {
		const struct utf8_case *c = &cases[i];
		if (c->len == 1)
			continue;
		char out[96], want[96];
		size_t n = tly_spec_char(c->bytes, c->n, out, sizeof(out));
		if (c->len)
			snprintf(want, sizeof(want), "'%.*s' (U+%04X)", (int)c->len, c->bytes, (unsigned)c->code);
		else
			snprintf(want, sizeof(want), "byte %#04x (not UTF-8)", (unsigned char)c->bytes[0]);
		if (n != first(c) || strcmp(out, want) != 0)
			fprintf(stderr, "  case %s\n", c->what);
		CHECK_INT(n, first(c));
		CHECK_STR(out, want);
	}
}

int main(void)
{
	static const struct harness_case list[] = {
		{ "decoder_edges", decoder_edges },
		{ "json_escaper_decides_as_the_decoder", json_escaper_decides_as_the_decoder },
		{ "text_escape_decides_as_the_decoder", text_escape_decides_as_the_decoder },
		{ "spec_error_decides_as_the_decoder", spec_error_decides_as_the_decoder },
		{ NULL, NULL },
	};
	return harness_run(list);
}
