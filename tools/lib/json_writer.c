/* SPDX-License-Identifier: MIT */
#include "lib/json_writer.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void json_init(struct json_writer *w, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
}

/* Puts the separator and indentation a new value needs at the current position. */
static void begin_value(struct json_writer *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth == 0)
		return;
	fputs(w->has_items[w->depth] ? ",\n" : "\n", w->out);
	w->has_items[w->depth] = true;
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->out);
}

static void open_container(struct json_writer *w, char c)
{
	begin_value(w);
	fputc(c, w->out);
	if (w->depth + 1 < JSON_MAX_DEPTH)
		w->depth++;
	w->has_items[w->depth] = false;
}

static void close_container(struct json_writer *w, char c)
{
	bool had_items = w->has_items[w->depth];
	if (w->depth > 0)
		w->depth--;
	if (had_items) {
		fputc('\n', w->out);
		for (int i = 0; i < w->depth; i++)
			fputs("  ", w->out);
	}
	fputc(c, w->out);
	if (w->depth == 0)
		fputc('\n', w->out);
}

void json_begin_object(struct json_writer *w) { open_container(w, '{'); }
void json_end_object(struct json_writer *w) { close_container(w, '}'); }
void json_begin_array(struct json_writer *w) { open_container(w, '['); }
void json_end_array(struct json_writer *w) { close_container(w, ']'); }

void json_raw(struct json_writer *w, const char *text)
{
	size_t n = strlen(text);
	begin_value(w);
	fwrite(text, 1, n > 0 && text[n - 1] == '\n' ? n - 1 : n, w->out);
}

void json_key(struct json_writer *w, const char *key)
{
	begin_value(w);
	fputc('"', w->out);
	json_escape(w->out, key, strlen(key));
	fputs("\": ", w->out);
	w->after_key = true;
}

void json_string_n(struct json_writer *w, const char *s, size_t n)
{
	begin_value(w);
	fputc('"', w->out);
	json_escape(w->out, s, n);
	fputc('"', w->out);
}

void json_string(struct json_writer *w, const char *s)
{
	if (!s) {
		json_null(w);
		return;
	}
	json_string_n(w, s, strlen(s));
}

void json_uint(struct json_writer *w, uint64_t v)
{
	begin_value(w);
	fprintf(w->out, "%" PRIu64, v);
}

void json_int(struct json_writer *w, int64_t v)
{
	begin_value(w);
	fprintf(w->out, "%" PRId64, v);
}

void json_double(struct json_writer *w, double v)
{
	if (!isfinite(v)) {
		json_null(w);
		return;
	}
	begin_value(w);
	/* The shortest of 15 or 17 significant digits that reads back as the same double: 15 keeps common
	 * values short (0.1, not 0.10000000000000001), 17 always round-trips. The "C" locale is in force (see
	 * number_format.h), so the decimal point is '.'. */
	char text[32];
	snprintf(text, sizeof(text), "%.15g", v);
	if (strtod(text, NULL) != v)
		snprintf(text, sizeof(text), "%.17g", v);
	fputs(text, w->out);
}

void json_bool(struct json_writer *w, bool v)
{
	begin_value(w);
	fputs(v ? "true" : "false", w->out);
}

void json_null(struct json_writer *w)
{
	begin_value(w);
	fputs("null", w->out);
}

void json_member_string(struct json_writer *w, const char *key, const char *s)
{
	json_key(w, key);
	json_string(w, s);
}

void json_member_uint(struct json_writer *w, const char *key, uint64_t v)
{
	json_key(w, key);
	json_uint(w, v);
}

void json_member_int(struct json_writer *w, const char *key, int64_t v)
{
	json_key(w, key);
	json_int(w, v);
}

void json_member_double(struct json_writer *w, const char *key, double v)
{
	json_key(w, key);
	json_double(w, v);
}

void json_member_bool(struct json_writer *w, const char *key, bool v)
{
	json_key(w, key);
	json_bool(w, v);
}
