/* SPDX-License-Identifier: MIT */
#include "spec/breakpoint.h"

#include "spec/spec_error.h"

#include <ctype.h>
#include <linux/hw_breakpoint.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PREFIX "mem:"
/* perf's event modifier letters (parse-events.l, modifier_event): one of them ends the breakpoint and
 * starts the modifiers. */
#define MODIFIER_LETTERS "ukhpPGHSDIWeb"

static int fail(struct tly_term_error *err, size_t offset, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(struct tly_term_error *err, size_t offset, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	err->offset = offset;
	err->len = len ? len : 1;
	return -1;
}

bool tly_breakpoint_is(const char *s, size_t len)
{
	return len >= strlen(PREFIX) && memcmp(s, PREFIX, strlen(PREFIX)) == 0;
}

/* perf's num_dec [0-9]+ or num_hex 0x[a-fA-F0-9]+ (lower-case x only), read with strtoull: a value
 * past 64 bits is an error, not a wrap. Returns the digits' length, 0 when there is no number. */
static size_t parse_number(const char *s, size_t len, uint64_t *value, bool *overflow)
{
	unsigned base = 10;
	size_t i = 0;
	if (len > 2 && s[0] == '0' && s[1] == 'x' && isxdigit((unsigned char)s[2])) {
		base = 16;
		i = 2;
	}
	uint64_t v = 0;
	*overflow = false;
	size_t start = i;
	for (; i < len && (base == 16 ? isxdigit((unsigned char)s[i]) : isdigit((unsigned char)s[i])); i++) {
		unsigned digit = isdigit((unsigned char)s[i]) ? (unsigned)(s[i] - '0')
		                                              : (unsigned)(tolower((unsigned char)s[i]) - 'a' + 10);
		if (v > (UINT64_MAX - digit) / base)
			*overflow = true;
		v = v * base + digit;
	}
	*value = v;
	return i == start ? 0 : i;
}

static size_t number(const char *s, size_t len, size_t pos, uint64_t *value, const char *what,
                     struct tly_term_error *err, int *ret)
{
	bool overflow;
	size_t n = parse_number(s + pos, len - pos, value, &overflow);
	*ret = 0;
	if (!n)
		*ret = fail(err, pos, 1, "expected %s (decimal or 0x hex): mem:ADDR[/LEN][:rwx]", what);
	else if (overflow)
		*ret = fail(err, pos, n, "%s does not fit in 64 bits", what);
	return n;
}

static bool is_access(char c)
{
	return c == 'r' || c == 'w' || c == 'x';
}

static bool ends_item(char c)
{
	return c == ',' || c == '}' || c == ':' || isspace((unsigned char)c) || strchr(MODIFIER_LETTERS, c);
}

int tly_breakpoint_parse(const char *s, size_t len, struct perf_event_attr *attr, size_t *used,
                         struct tly_term_error *err)
{
	size_t pos = strlen(PREFIX);
	uint64_t addr, bp_len = 0;
	int ret;
	pos += number(s, len, pos, &addr, "the address to watch", err, &ret);
	if (ret)
		return ret;
	if (pos < len && s[pos] == '/') {
		pos++;
		pos += number(s, len, pos, &bp_len, "the length in bytes", err, &ret);
		if (ret)
			return ret;
	}
	unsigned type = 0;
	if (pos + 1 < len && s[pos] == ':' && is_access(s[pos + 1])) {
		pos++;
		for (size_t n = 0; n < 3 && pos < len && is_access(s[pos]); n++, pos++) {
			unsigned bit = s[pos] == 'r' ? HW_BREAKPOINT_R : s[pos] == 'w' ? HW_BREAKPOINT_W : HW_BREAKPOINT_X;
			if (type & bit)
				return fail(err, pos, 1, "access '%c' is given twice", s[pos]);
			type |= bit;
		}
	}
	/* What follows must end the item or start its modifiers, never run into a letter no one takes. */
	if (pos < len && !ends_item(s[pos])) {
		char found[64];
		tly_spec_char(s + pos, len - pos, found, sizeof(found));
		return fail(err, pos, 1, "unexpected %s in a breakpoint: mem:ADDR[/LEN][:rwx][:modifiers]", found);
	}
	if (pos + 1 < len && s[pos] == ':' && isalpha((unsigned char)s[pos + 1]) && !strchr(MODIFIER_LETTERS, s[pos + 1]))
		return fail(err, pos + 1, 1, "expected access letters (r w x) or modifiers after ':', found '%c'",
		            s[pos + 1]);
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_BREAKPOINT;
	attr->bp_type = type ? type : HW_BREAKPOINT_RW;
	/* perf's defaults (parse_events_add_breakpoint): an instruction breakpoint covers one long, a data
	 * breakpoint 4 bytes; a length of 0 means the default too. */
	attr->bp_len = bp_len ? bp_len : attr->bp_type == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_4;
	attr->bp_addr = addr;
	*used = pos;
	return 0;
}

const char *tly_breakpoint_access(uint32_t bp_type, char out[static 4])
{
	size_t n = 0;
	if (bp_type & HW_BREAKPOINT_R)
		out[n++] = 'r';
	if (bp_type & HW_BREAKPOINT_W)
		out[n++] = 'w';
	if (bp_type & HW_BREAKPOINT_X)
		out[n++] = 'x';
	out[n] = '\0';
	return out;
}

char *tly_breakpoint_text(const struct perf_event_attr *attr)
{
	char access[4];
	tly_breakpoint_access(attr->bp_type, access);
	char *text;
	if (asprintf(&text, PREFIX "%#llx/%llu:%s", (unsigned long long)attr->bp_addr,
	             (unsigned long long)attr->bp_len, access) < 0)
		return NULL;
	return text;
}
