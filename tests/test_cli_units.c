/* SPDX-License-Identifier: MIT */
/* The CLI's pure pieces, compiled here from tools/: number formatting (grouping, never the locale's),
 * the JSON writer (escaping of any bytes, nesting, numbers), the escaping of names for the table and CSV,
 * and the -p/-t id lists. The CLI under a comma-decimal
 * locale is tests/test_cli_locale.sh. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "lib/id_list.h"
#include "lib/json_writer.h"
#include "lib/text_escape.h"
#include "report/number_format.h"

static const struct number_style en = { ",", "." }, de = { ".", "," }, plain = { "", "." };

static void test_grouped(void)
{
	char buf[NUMBER_FORMAT_MAX];
	CHECK_STR(number_format_grouped(0, &en, buf, sizeof(buf)), "0");
	CHECK_STR(number_format_grouped(999, &en, buf, sizeof(buf)), "999");
	CHECK_STR(number_format_grouped(1000, &en, buf, sizeof(buf)), "1,000");
	CHECK_STR(number_format_grouped(1234567, &en, buf, sizeof(buf)), "1,234,567");
	CHECK_STR(number_format_grouped(UINT64_MAX, &en, buf, sizeof(buf)), "18,446,744,073,709,551,615");
	char tiny[6];
	CHECK_STR(number_format_grouped(1234567, &en, tiny, sizeof(tiny)), "1,234");
	CHECK_STR(number_format_grouped(1234567, &plain, buf, sizeof(buf)), "1234567");
	CHECK_STR(number_format_grouped(1234567, &de, buf, sizeof(buf)), "1.234.567");
	CHECK_STR(number_format_grouped_double(-9876543.25, 2, &plain, buf, sizeof(buf)), "-9876543.25");
}

static void test_grouped_double(void)
{
	char buf[NUMBER_FORMAT_MAX];
	CHECK_STR(number_format_grouped_double(0.5, 2, &en, buf, sizeof(buf)), "0.50");
	CHECK_STR(number_format_grouped_double(1234.567, 2, &en, buf, sizeof(buf)), "1,234.57");
	CHECK_STR(number_format_grouped_double(-9876543.2, 1, &en, buf, sizeof(buf)), "-9,876,543.2");
	CHECK_STR(number_format_grouped_double(1e6, 0, &en, buf, sizeof(buf)), "1,000,000");
	/* de_DE: '.' groups, ',' is the point, as perf prints it there. */
	CHECK_STR(number_format_grouped_double(1234567.891, 2, &de, buf, sizeof(buf)), "1.234.567,89");
	CHECK_STR(number_format_fixed(1234567.891, 3, &de, buf, sizeof(buf)), "1234567,891");
	CHECK_STR(number_format_fixed(0.001310628, 9, &en, buf, sizeof(buf)), "0.001310628");
}

static char *json_of(void (*write)(struct json_writer *w))
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct json_writer w;
	json_init(&w, f);
	write(&w);
	fclose(f);
	return text;
}

static void write_bytes(struct json_writer *w)
{
	/* quote, backslash, tab, newline, 0x01, DEL, valid é, invalid 0xff, truncated 3-byte sequence,
	 * an overlong '/', a surrogate, valid 4-byte U+1F600 */
	static const char s[] = "q\"b\\t\t\n\x01\x7f\xc3\xa9\xff\xe2\x82\xc0\xaf\xed\xa0\x80\xf0\x9f\x98\x80";
	json_string_n(w, s, sizeof(s) - 1);
}

static void test_escaping(void)
{
	char *text = json_of(write_bytes);
	/* Each invalid byte is U+FFFD: never the Latin-1 character of the byte (\u00ff is 'ÿ', which the
	 * text did not hold). */
	CHECK_STR(text, "\"q\\\"b\\\\t\\t\\n\\u0001\\u007f\xc3\xa9\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd"
	                "\\ufffd\\ufffd\\ufffd\xf0\x9f\x98\x80\"");
	free(text);
}

static void write_nested(struct json_writer *w)
{
	json_begin_object(w);
	json_key(w, "a");
	json_begin_array(w);
	json_uint(w, UINT64_MAX);
	json_int(w, -5);
	json_double(w, 0.1);
	json_double(w, INFINITY);
	json_bool(w, true);
	json_string(w, NULL);
	json_end_array(w);
	json_key(w, "empty");
	json_begin_object(w);
	json_end_object(w);
	json_end_object(w);
}

static void test_nesting_and_numbers(void)
{
	char *text = json_of(write_nested);
	CHECK_STR(text, "{\n  \"a\": [\n    18446744073709551615,\n    -5,\n    0.1,\n    null,\n    true,\n"
	                "    null\n  ],\n  \"empty\": {}\n}\n");
	free(text);
}

/* json_raw embeds a JSON text (the regions' document) as a value: its one closing newline is dropped,
 * so that the comma or bracket after it follows on its line; one without a newline is kept whole. */
static void write_raw(struct json_writer *w)
{
	/* Each text in a buffer of its own exact size, so that a read past its end is one ASan sees. */
	char *with = strdup("{\"x\": 1}\n"), *without = strdup("[2]");
	json_begin_array(w);
	json_raw(w, with);
	json_raw(w, without);
	json_end_array(w);
	free(with);
	free(without);
}

static void test_raw(void)
{
	char *text = json_of(write_raw);
	CHECK_STR(text, "[\n  {\"x\": 1},\n  [2]\n]\n");
	free(text);
}

static void test_cpu_list(void)
{
	int *list;
	CHECK_INT(id_list_parse("0-3,8,2,10-11", 0, 1000, &list), 7);
	CHECK_INT(list[0], 0);
	CHECK_INT(list[3], 3);
	CHECK_INT(list[4], 8);
	CHECK_INT(list[6], 11);
	free(list);
	CHECK_INT(id_list_parse("5", 0, 1000, &list), 1);
	free(list);
	const char *bad[] = { "", "-1", "3-1", "1,", "a", "1-", "2000", "1,,2" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(id_list_parse(bad[i], 0, 1000, &list), -1);
		CHECK(list == NULL);
	}
}

/* s as text_escape_lines (lines), text_escape_field (sep not NULL) or text_escape_write writes it. */
static char *escaped(const char *s, bool lines, const char *sep)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (lines)
		text_escape_lines(f, s);
	else if (sep)
		text_escape_field(f, s, sep);
	else
		text_escape_write(f, s);
	fclose(f);
	return text;
}

/* Names and labels on their way to a terminal or a CSV record: controls (C0, DEL, C1 in UTF-8) and
 * invalid bytes become \xHH, a backslash \\; printable UTF-8 passes. */
static void test_text_escape(void)
{
	static const struct {
		const char *in, *out, *lines;
	} cases[] = {
		{ "task-clock", "task-clock", "task-clock" },
		{ "a\x1b[31mred", "a\\x1b[31mred", "a\\x1b[31mred" },
		{ "two\nlines\r", "two\\x0alines\\x0d", "two\nlines\\x0d" },
		{ "del\x7f", "del\\x7f", "del\\x7f" },
		{ "c1\xc2\x9b", "c1\\xc2\\x9b", "c1\\xc2\\x9b" },
		{ "bad\xff\xe2\x82", "bad\\xff\\xe2\\x82", "bad\\xff\\xe2\\x82" },
		{ "back\\slash", "back\\\\slash", "back\\\\slash" },
		{ "caf\xc3\xa9 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xf0\x9f\x98\x80" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = escaped(cases[i].in, false, NULL);
		CHECK_STR(text, cases[i].out);
		free(text);
		text = escaped(cases[i].in, true, NULL);
		CHECK_STR(text, cases[i].lines);
		free(text);
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	text_escape_pad(f, "a\x01", 8);
	fclose(f);
	CHECK_STR(text, "a\\x01   ");
	free(text);
}

/* A CSV field holds no separator (-x, with name='x,y' gave one column too many): the separator's first
 * byte becomes \xHH wherever the separator occurs, so a reader splitting on it finds every field. */
static void test_text_escape_field(void)
{
	static const struct {
		const char *in, *sep, *out;
	} cases[] = {
		{ "x,y", ",", "x\\x2cy" },
		{ "sched:sched_switch", ",", "sched:sched_switch" },
		{ "sched:sched_switch", ":", "sched\\x3asched_switch" },
		{ "a;;b;c", ";;", "a\\x3b;b;c" },
		{ "a\x01,\\", ",", "a\\x01\\x2c\\\\" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = escaped(cases[i].in, false, cases[i].sep);
		CHECK_STR(text, cases[i].out);
		free(text);
	}
}

static void test_cpu_list_ids(void)
{
	int *list;
	/* -p and -t: 0 would count tally itself; a sign, an empty item or a word is not an id. */
	const char *bad[] = { "0", "1,0", "0-2", "-5", "", "1,,2", "x", " 1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT(id_list_parse(bad[i], 1, 1000, &list), -1);
	CHECK_INT(id_list_parse("1,3-4", 1, 1000, &list), 3);
	free(list);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "grouped", test_grouped },
		{ "grouped_double", test_grouped_double },
		{ "json_escaping", test_escaping },
		{ "json_raw", test_raw },
		{ "json_nesting_and_numbers", test_nesting_and_numbers },
		{ "cpu_list", test_cpu_list },
		{ "cpu_list_ids", test_cpu_list_ids },
		{ "text_escape", test_text_escape },
		{ "text_escape_field", test_text_escape_field },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
