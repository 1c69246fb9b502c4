/* SPDX-License-Identifier: MIT */
/*
 * A perf-format pmu-events tree read at run time (TALLY_PMU_EVENTS=DIR naming the kernel's
 * tools/perf/pmu-events/arch or a vendor's perf export): one model's JSON files converted in memory into
 * the text the data files hold, by the rules of tools/pmu_events/generate.py (whose output the built-in
 * tables are), then searched by the same reader. Slower than a converted folder (every file of the model
 * parsed at first use), never different: test_pmu_events_agreement.sh checks both against perf 6.1.
 *
 * The JSON reader takes what pmu-events files are: a top-level array of objects whose values are strings
 * (numbers and literals kept as their text; nested values skipped). A file of another shape (the
 * metricgroups.json dictionary) has no events.
 */
#include "machine/pmu_events.h"

#include "core/error.h"
#include "core/sys.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* A pmu-events JSON file is at most a few megabytes (the largest upstream is under 2 MB). */
#define JSON_FILE_MAX (32 << 20)

/* ---- The JSON reader ---- */

struct json_reader {
	const char *s, *end;
	const char *error;
};

static void skip_space(struct json_reader *r)
{
	while (r->s < r->end && (*r->s == ' ' || *r->s == '\t' || *r->s == '\n' || *r->s == '\r'))
		r->s++;
}

static unsigned hex4(const char *s)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++)
		v = v * 16 + (unsigned)(isdigit((unsigned char)s[i]) ? s[i] - '0' : (tolower((unsigned char)s[i]) - 'a' + 10));
	return v;
}

static bool is_hex4(const char *s, const char *end)
{
	for (int i = 0; i < 4; i++)
		if (s + i >= end || !isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* Writes c as UTF-8 at *o, moving it on. (A \\u escape is 6 bytes of source for at most 3 of UTF-8, a
 * surrogate pair 12 for 4: the decoded string never outgrows its source.) */
static void add_utf8(char **o, unsigned c)
{
	size_t n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
	char *u = *o;
	if (n == 1)
		u[0] = (char)c;
	else {
		for (size_t i = n - 1; i > 0; i--, c >>= 6)
			u[i] = (char)(0x80 | (c & 0x3f));
		u[0] = (char)((n == 2 ? 0xc0 : n == 3 ? 0xe0 : 0xf0) | c);
	}
	*o += n;
}

/* The escape after a backslash at r->s (past it); false when malformed. */
static bool escape(struct json_reader *r, char **o)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k = r->s < r->end ? strchr(from, *r->s) : NULL;
	if (k && *r->s) {
		*(*o)++ = to[k - from];
		r->s++;
		return true;
	}
	if (r->s >= r->end || *r->s != 'u' || !is_hex4(r->s + 1, r->end))
		return false;
	unsigned c = hex4(r->s + 1);
	r->s += 5;
	if (c >= 0xd800 && c < 0xdc00 && r->end - r->s >= 6 && r->s[0] == '\\' && r->s[1] == 'u' &&
	    is_hex4(r->s + 2, r->end) && hex4(r->s + 2) >= 0xdc00 && hex4(r->s + 2) < 0xe000) {
		c = 0x10000 + ((c - 0xd800) << 10) + (hex4(r->s + 2) - 0xdc00);
		r->s += 6;
	}
	add_utf8(o, c);
	return true;
}

/* A string at r->s (its opening quote) into a new string; NULL when malformed or out of memory. */
static char *json_string(struct json_reader *r)
{
	const char *end = r->s + 1;
	while (end < r->end && *end != '"')
		end += *end == '\\' ? 2 : 1;
	if (end >= r->end) {
		r->error = "a string never closed";
		return NULL;
	}
	char *out = malloc((size_t)(end - r->s)), *o = out;
	if (!out) {
		r->error = "out of memory";
		return NULL;
	}
	for (r->s++; r->s < end;) {
		if ((unsigned char)*r->s < 0x20) {
			r->error = "a control character in a string";
			break;
		}
		if (*r->s != '\\') {
			*o++ = *r->s++;
			continue;
		}
		r->s++;
		if (!escape(r, &o)) {
			r->error = "a malformed escape";
			break;
		}
	}
	if (r->error || r->s != end) {
		r->error = r->error ? r->error : "a malformed escape";
		free(out);
		return NULL;
	}
	*o = '\0';
	r->s = end + 1;
	return out;
}

/* Skips a nested array or object (values of no interest), matching brackets outside strings. */
static bool skip_nested(struct json_reader *r)
{
	int depth = 0;
	do {
		if (r->s >= r->end)
			return false;
		if (*r->s == '"') {
			free(json_string(r));
			if (r->error)
				return false;
			continue;
		}
		depth += *r->s == '[' || *r->s == '{';
		depth -= *r->s == ']' || *r->s == '}';
		r->s++;
	} while (depth > 0);
	return true;
}

/* A value: a string, or a scalar as its text; NULL with no error for a nested value. */
static char *json_value(struct json_reader *r)
{
	skip_space(r);
	if (r->s >= r->end) {
		r->error = "a value missing";
		return NULL;
	}
	if (*r->s == '"')
		return json_string(r);
	if (*r->s == '[' || *r->s == '{') {
		if (!skip_nested(r))
			r->error = "a nested value never closed";
		return NULL;
	}
	const char *start = r->s;
	while (r->s < r->end && (isalnum((unsigned char)*r->s) || strchr("+-.", *r->s)))
		r->s++;
	if (r->s == start) {
		r->error = "not a value";
		return NULL;
	}
	char *v = strndup(start, (size_t)(r->s - start));
	if (!v)
		r->error = "out of memory";
	return v;
}

static void object_free(struct tly_json_object *o)
{
	for (size_t i = 0; i < o->nr; i++) {
		free(o->key[i]);
		free(o->value[i]);
	}
	free(o->key);
	free(o->value);
}

void tly_json_objects_free(struct tly_json_objects *list)
{
	for (size_t i = 0; i < list->nr; i++)
		object_free(&list->v[i]);
	free(list->v);
	*list = (struct tly_json_objects){ 0 };
}

static bool add_member(struct tly_json_object *o, char *key, char *value)
{
	char **k = realloc(o->key, (o->nr + 1) * sizeof(*k));
	if (k)
		o->key = k;
	char **v = k ? realloc(o->value, (o->nr + 1) * sizeof(*v)) : NULL;
	if (v)
		o->value = v;
	if (!v) {
		free(key);
		free(value);
		return false;
	}
	o->key[o->nr] = key;
	o->value[o->nr++] = value;
	return true;
}

/* An object at r->s (its '{'). */
static bool json_object(struct json_reader *r, struct tly_json_object *o)
{
	r->s++;
	skip_space(r);
	if (r->s < r->end && *r->s == '}') {
		r->s++;
		return true;
	}
	for (;;) {
		skip_space(r);
		if (r->s >= r->end || *r->s != '"') {
			r->error = "a member name missing";
			return false;
		}
		char *key = json_string(r);
		if (!key)
			return false;
		skip_space(r);
		if (r->s >= r->end || *r->s != ':') {
			free(key);
			r->error = "':' missing after a member name";
			return false;
		}
		r->s++;
		char *value = json_value(r);
		if (r->error) {
			free(key);
			return false;
		}
		if (!add_member(o, key, value)) {
			r->error = "out of memory";
			return false;
		}
		skip_space(r);
		if (r->s < r->end && *r->s == ',') {
			r->s++;
			continue;
		}
		if (r->s < r->end && *r->s == '}') {
			r->s++;
			return true;
		}
		r->error = "',' or '}' missing after a member";
		return false;
	}
}

int tly_json_objects_parse(const char *text, size_t len, struct tly_json_objects *out, size_t *at)
{
	*out = (struct tly_json_objects){ 0 };
	struct json_reader r = { text, text + len, NULL };
	skip_space(&r);
	if (r.s >= r.end || *r.s != '[')
		return 0; /* not a list of events (metricgroups.json) */
	r.s++;
	for (skip_space(&r); !r.error && r.s < r.end && *r.s != ']';) {
		struct tly_json_object o = { 0 };
		if (*r.s != '{')
			r.error = "an array member that is no object";
		else if (json_object(&r, &o)) {
			struct tly_json_object *v = realloc(out->v, (out->nr + 1) * sizeof(*v));
			if (v) {
				out->v = v;
				out->v[out->nr++] = o;
			} else {
				object_free(&o);
				r.error = "out of memory";
			}
		} else {
			object_free(&o);
		}
		skip_space(&r);
		if (!r.error && r.s < r.end && *r.s == ',') {
			r.s++;
			skip_space(&r);
			if (r.s < r.end && *r.s == ']')
				r.error = "a trailing ','";
		} else if (!r.error && (r.s >= r.end || *r.s != ']'))
			r.error = "',' or ']' missing after an object";
	}
	if (!r.error && r.s >= r.end)
		r.error = "the array is never closed";
	if (r.error) {
		*at = (size_t)(r.s - text);
		tly_json_objects_free(out);
		return -EBADMSG;
	}
	return 0;
}

const char *tly_json_get(const struct tly_json_object *o, const char *key)
{
	for (size_t i = 0; o && i < o->nr; i++)
		if (strcmp(o->key[i], key) == 0)
			return o->value[i];
	return NULL;
}
