/* SPDX-License-Identifier: MIT */
/*
 * A small strict JSON reader (RFC 8259) for the files tally merge and tally compare read back: the whole
 * text is parsed into a tree, or refused with where and why. Strict: no trailing commas, comments, NaN,
 * leading zeros, control characters in strings, unpaired surrogates, invalid UTF-8, duplicate keys or
 * text after the document; nesting deeper than JSON_READ_MAX_DEPTH is refused. A document cut short says
 * so (truncated), apart from a document that is malformed, since a file cut while being written is the
 * common failure of per-rank results.
 */
#ifndef TALLY_TOOLS_JSON_READER_H
#define TALLY_TOOLS_JSON_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_READ_MAX_DEPTH 64

enum json_type { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json_value {
	enum json_type type;
	double number;             /* JSON_NUMBER */
	char *text;                /* JSON_STRING: the unescaped text (NUL-terminated; a \u0000 ends it
	                            * early, len says the whole); JSON_NUMBER: the literal as written */
	size_t len;
	size_t n;                  /* JSON_ARRAY: items; JSON_OBJECT: members */
	struct json_value *items;  /* the items, or the members' values */
	char **keys;               /* JSON_OBJECT: the members' keys, in document order */
};

struct json_read_error {
	size_t offset, line, column; /* where the reader stopped (line and column from 1) */
	bool truncated;              /* the text ended inside the document */
	char message[128];
};

/* Parses text[0 .. len) into *root. 0, or -1 with *err filled (nothing to free then); -ENOMEM is -1 too,
 * with "out of memory" as the message. */
int json_read(const char *text, size_t len, struct json_value *root, struct json_read_error *err);

/* Frees what json_read made under v (not v itself). */
void json_value_free(struct json_value *v);

/* The member named key of an object, or NULL (also when v is not an object). */
const struct json_value *json_member(const struct json_value *v, const char *key);

/* The value as an unsigned 64-bit count: true when v is a number written as a non-negative integer that
 * fits (a count above 2^53 keeps its exact value, which a double would not). */
bool json_as_u64(const struct json_value *v, uint64_t *out);

/* The value as a double: true for a number. */
bool json_as_double(const struct json_value *v, double *out);

/* The string's text, or NULL when v is not a string. */
const char *json_as_string(const struct json_value *v);

#endif
