/* SPDX-License-Identifier: MIT */
/* A strict recursive-descent JSON reader into a tree (json_reader.h). */
#include "lib/json_reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/utf8.h"

struct reader {
	const char *s;
	size_t len, pos;
	int depth;
	struct json_read_error *err;
	bool failed;
};

/* Records the first failure at the reader's position; an end of text where more was due is "truncated". */
static int fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct reader *r, const char *fmt, ...)
{
	if (r->failed)
		return -1;
	r->failed = true;
	struct json_read_error *e = r->err;
	e->offset = r->pos;
	e->line = 1;
	e->column = 1;
	for (size_t i = 0; i < r->pos && i < r->len; i++) {
		e->column = r->s[i] == '\n' ? 1 : e->column + 1;
		e->line += r->s[i] == '\n';
	}
	e->truncated = r->pos >= r->len;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
	if (e->truncated)
		snprintf(e->message, sizeof(e->message), "the text ends inside the document (truncated?)");
	return -1;
}

static int out_of_memory(struct reader *r)
{
	int err = fail(r, "out of memory");
	r->err->truncated = false;
	snprintf(r->err->message, sizeof(r->err->message), "out of memory");
	return err;
}

static void skip_space(struct reader *r)
{
	while (r->pos < r->len && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t' || r->s[r->pos] == '\n' ||
	                           r->s[r->pos] == '\r'))
		r->pos++;
}

static int peek(const struct reader *r)
{
	return r->pos < r->len ? (unsigned char)r->s[r->pos] : -1;
}

static int literal(struct reader *r, const char *word, enum json_type type, struct json_value *v)
{
	size_t n = strlen(word);
	for (size_t i = 0; i < n; i++, r->pos++)
		if (r->pos >= r->len || r->s[r->pos] != word[i])
			return fail(r, "expected %s", word);
	v->type = type;
	return 0;
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int digits(struct reader *r, const char *what)
{
	if (!is_digit(peek(r)))
		return fail(r, "expected a digit %s", what);
	while (is_digit(peek(r)))
		r->pos++;
	return 0;
}

static int number(struct reader *r, struct json_value *v)
{
	size_t start = r->pos;
	if (peek(r) == '-')
		r->pos++;
	if (peek(r) == '0') {
		r->pos++;
		if (is_digit(peek(r)))
			return fail(r, "a number with a leading zero");
	} else if (digits(r, "in a number") < 0) {
		return -1;
	}
	if (peek(r) == '.') {
		r->pos++;
		if (digits(r, "after the decimal point") < 0)
			return -1;
	}
	if (peek(r) == 'e' || peek(r) == 'E') {
		r->pos++;
		if (peek(r) == '+' || peek(r) == '-')
			r->pos++;
		if (digits(r, "in the exponent") < 0)
			return -1;
	}
	v->type = JSON_NUMBER;
	v->len = r->pos - start;
	v->text = strndup(r->s + start, v->len);
	if (!v->text)
		return out_of_memory(r);
	v->number = strtod(v->text, NULL);
	return 0;
}

static int hex4(struct reader *r, uint32_t *out)
{
	*out = 0;
	for (int i = 0; i < 4; i++, r->pos++) {
		int c = peek(r);
		int d = is_digit(c) ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return fail(r, "expected four hex digits after \\u");
		*out = *out << 4 | (uint32_t)d;
	}
	return 0;
}

/* The code point of a \u escape (r at the 'u'), pairing a high surrogate with the low one that must follow. */
static int unicode_escape(struct reader *r, uint32_t *cp)
{
	r->pos++;
	if (hex4(r, cp) < 0)
		return -1;
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return fail(r, "a low surrogate without its high one");
	if (*cp < 0xd800 || *cp > 0xdbff)
		return 0;
	uint32_t low;
	if (peek(r) != '\\' || r->pos + 1 >= r->len || r->s[r->pos + 1] != 'u')
		return fail(r, "a high surrogate without its low one");
	r->pos += 2;
	if (hex4(r, &low) < 0)
		return -1;
	if (low < 0xdc00 || low > 0xdfff)
		return fail(r, "a high surrogate without its low one");
	*cp = 0x10000 + ((*cp - 0xd800) << 10) + (low - 0xdc00);
	return 0;
}

static size_t put_utf8(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string (r at the opening quote) into *text / *len. The unescaped text is never longer than the escaped
 * one, so one allocation of the rest of the input's size bounds it; it is shrunk to fit at the end. */
static int string(struct reader *r, char **text, size_t *len)
{
	r->pos++;
	size_t start = r->pos, end = start;
	while (end < r->len && r->s[end] != '"')
		end += r->s[end] == '\\' ? 2 : 1;
	char *out = malloc((end > r->len ? r->len : end) - start + 1);
	if (!out)
		return out_of_memory(r);
	size_t n = 0;
	for (;;) {
		int c = peek(r);
		if (c < 0 || c == '"')
			break;
		if (c < 0x20) {
			free(out);
			return fail(r, "a control character (0x%02x) in a string", c);
		}
		if (c == '\\') {
			r->pos++;
			static const char escaped[] = "\"\\/bfnrt", meant[] = "\"\\/\b\f\n\r\t";
			int e = peek(r);
			const char *k = e > 0 ? strchr(escaped, e) : NULL;
			uint32_t cp;
			if (k) {
				out[n++] = meant[k - escaped];
				r->pos++;
			} else if (e == 'u' && unicode_escape(r, &cp) == 0) {
				n += put_utf8(out + n, cp);
			} else {
				free(out);
				return e == 'u' ? -1 : fail(r, "an unknown escape \\%c", e > 0 ? e : '?');
			}
			continue;
		}
		uint32_t cp;
		size_t k = utf8_sequence((const unsigned char *)r->s + r->pos, r->len - r->pos, &cp);
		if (k == 0) {
			free(out);
			return fail(r, "invalid UTF-8 in a string");
		}
		memcpy(out + n, r->s + r->pos, k);
		n += k;
		r->pos += k;
	}
	if (peek(r) != '"') {
		free(out);
		return fail(r, "unterminated string");
	}
	r->pos++;
	out[n] = '\0';
	*text = out;
	*len = n;
	return 0;
}

static int value(struct reader *r, struct json_value *v);

/* Appends a fresh zeroed slot to v's items (and keys, for an object). */
static struct json_value *grow(struct reader *r, struct json_value *v, size_t *cap)
{
	if (v->n == *cap) {
		size_t more = *cap ? *cap * 2 : 8;
		struct json_value *items = realloc(v->items, more * sizeof(*items));
		if (!items)
			return out_of_memory(r), NULL;
		v->items = items;
		if (v->type == JSON_OBJECT) {
			char **keys = realloc(v->keys, more * sizeof(*keys));
			if (!keys)
				return out_of_memory(r), NULL;
			v->keys = keys;
		}
		*cap = more;
	}
	memset(&v->items[v->n], 0, sizeof(v->items[0]));
	return &v->items[v->n];
}

static int container(struct reader *r, struct json_value *v, enum json_type type)
{
	char close = type == JSON_ARRAY ? ']' : '}';
	if (++r->depth > JSON_READ_MAX_DEPTH)
		return fail(r, "nested deeper than %d", JSON_READ_MAX_DEPTH);
	v->type = type;
	r->pos++;
	skip_space(r);
	size_t cap = 0;
	if (peek(r) == close) {
		r->pos++;
		r->depth--;
		return 0;
	}
	for (;;) {
		skip_space(r);
		struct json_value *slot = grow(r, v, &cap);
		if (!slot)
			return -1;
		if (type == JSON_OBJECT) {
			char *key;
			size_t key_len;
			if (peek(r) != '"')
				return fail(r, "expected a member's name in quotes");
			if (string(r, &key, &key_len) < 0)
				return -1;
			for (size_t i = 0; i < v->n; i++)
				if (strcmp(v->keys[i], key) == 0) {
					free(key);
					return fail(r, "a second member named \"%.60s\"", v->keys[i]);
				}
			v->keys[v->n] = key;
			skip_space(r);
			if (peek(r) != ':') {
				free(key);
				return fail(r, "expected ':' after a member's name");
			}
			r->pos++;
		}
		v->n++; /* counted now: the slot is freed with v whatever value() leaves in it */
		if (value(r, slot) < 0)
			return -1;
		skip_space(r);
		int c = peek(r);
		r->pos++;
		if (c == close)
			break;
		if (c != ',') {
			r->pos--;
			return fail(r, "expected ',' or '%c'", close);
		}
	}
	r->depth--;
	return 0;
}

static int value(struct reader *r, struct json_value *v)
{
	skip_space(r);
	int c = peek(r);
	switch (c) {
	case '{': return container(r, v, JSON_OBJECT);
	case '[': return container(r, v, JSON_ARRAY);
	case '"': v->type = JSON_STRING; return string(r, &v->text, &v->len);
	case 't': return literal(r, "true", JSON_TRUE, v);
	case 'f': return literal(r, "false", JSON_FALSE, v);
	case 'n': return literal(r, "null", JSON_NULL, v);
	default:
		if (c == '-' || is_digit(c))
			return number(r, v);
		if (c < 0)
			return fail(r, "no value");
		/* Any other byte by its number: the message goes to a terminal, the file's bytes must not. */
		return c > ' ' && c < 0x7f ? fail(r, "unexpected character '%c'", c) : fail(r, "unexpected byte 0x%02x", c);
	}
}

int json_read(const char *text, size_t len, struct json_value *root, struct json_read_error *err)
{
	struct reader r = { .s = text, .len = len, .err = err };
	memset(root, 0, sizeof(*root));
	memset(err, 0, sizeof(*err));
	skip_space(&r);
	if (r.pos == r.len) {
		fail(&r, "empty");
		err->truncated = false;
		snprintf(err->message, sizeof(err->message), "no JSON document (the file is empty or blank)");
		return -1;
	}
	if (value(&r, root) == 0) {
		skip_space(&r);
		if (r.pos == r.len)
			return 0;
		fail(&r, "text after the document");
	}
	json_value_free(root);
	memset(root, 0, sizeof(*root));
	return -1;
}

void json_value_free(struct json_value *v)
{
	for (size_t i = 0; i < v->n; i++) {
		json_value_free(&v->items[i]);
		if (v->type == JSON_OBJECT)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->text);
}

const struct json_value *json_member(const struct json_value *v, const char *key)
{
	if (!v || v->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->keys[i], key) == 0)
			return &v->items[i];
	return NULL;
}

bool json_as_u64(const struct json_value *v, uint64_t *out)
{
	if (!v || v->type != JSON_NUMBER || v->text[0] == '-' || strpbrk(v->text, ".eE"))
		return false;
	errno = 0;
	unsigned long long n = strtoull(v->text, NULL, 10);
	if (errno)
		return false;
	*out = n;
	return true;
}

bool json_as_double(const struct json_value *v, double *out)
{
	if (!v || v->type != JSON_NUMBER)
		return false;
	*out = v->number;
	return true;
}

const char *json_as_string(const struct json_value *v)
{
	return v && v->type == JSON_STRING ? v->text : NULL;
}
