/* SPDX-License-Identifier: MIT */
/*
 * A small streaming JSON writer: values are written to a FILE as they come, so that `tally stat -j -I`
 * can emit one document whose interval records appear while the command runs. Commas, nesting and
 * indentation are tracked here; callers only say what comes next.
 *
 * Strings may hold any bytes: they are escaped by json_escape (src/shared/json_escape.h, the library's
 * escaper too), so the document is always valid JSON and never shows a character the text did not hold.
 */
#ifndef TALLY_TOOLS_JSON_WRITER_H
#define TALLY_TOOLS_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "shared/json_escape.h" /* json_escape(out, s, n): a string's body, for perf's JSON too */

#define JSON_MAX_DEPTH 16

struct json_writer {
	FILE *out;
	int depth;
	bool has_items[JSON_MAX_DEPTH]; /* whether the container at each depth already holds a value */
	bool after_key;                 /* a key was written: the next value goes on the same line */
};

void json_init(struct json_writer *w, FILE *out);
void json_begin_object(struct json_writer *w);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w);
void json_end_array(struct json_writer *w);
void json_key(struct json_writer *w, const char *key);
/* A value that is already JSON text (one line; a final newline is left out). */
void json_raw(struct json_writer *w, const char *text);
void json_string(struct json_writer *w, const char *s);      /* NULL writes null */
void json_string_n(struct json_writer *w, const char *s, size_t n);
void json_uint(struct json_writer *w, uint64_t v);
void json_int(struct json_writer *w, int64_t v);
void json_double(struct json_writer *w, double v);          /* NaN and infinities write null */
void json_bool(struct json_writer *w, bool v);
void json_null(struct json_writer *w);

/* A key and its value in one call, for the common case of an object member with a scalar value. */
void json_member_string(struct json_writer *w, const char *key, const char *s);
void json_member_uint(struct json_writer *w, const char *key, uint64_t v);
void json_member_int(struct json_writer *w, const char *key, int64_t v);
void json_member_double(struct json_writer *w, const char *key, double v);
void json_member_bool(struct json_writer *w, const char *key, bool v);

#endif
