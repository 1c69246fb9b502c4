/* SPDX-License-Identifier: MIT */
/*
 * The format/ files of a PMU: which bits of perf_event_attr.config, config1 or config2 a term such as
 * `umask` fills. The kernel writes them as "config:8-15"; a field split across places is a list, as AMD's
 * 12-bit event select "config:0-7,32-35" (Documentation/ABI/testing/sysfs-bus-event_source-devices-format).
 */
#include "machine/pmu.h"

#include <errno.h>
#include <string.h>

static const struct {
	const char *name;
	int field; /* an enum tly_config_field, or -1 for a field tally does not fill */
} config_fields[] = {
	{ "config", TLY_CONFIG },
	{ "config1", TLY_CONFIG1 },
	{ "config2", TLY_CONFIG2 },
	/* perf_event_attr.config3 arrived in Linux 6.3 (Arm SPE filters use it). */
	{ "config3", -1 },
};

/* Reads a bit number (decimal, 0-63) at *p and moves *p past it. */
static int parse_bit(const char **p, unsigned *bit)
{
	const char *s = *p;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	unsigned value = 0;
	while (*s >= '0' && *s <= '9') {
		if (value > 63)
			break; /* already too big; keep scanning digits without overflowing */
		value = value * 10 + (unsigned)(*s - '0');
		s++;
	}
	while (*s >= '0' && *s <= '9')
		s++;
	*p = s;
	if (value > 63)
		return -ERANGE;
	*bit = value;
	return 0;
}

static uint64_t bit_range(unsigned lo, unsigned hi)
{
	uint64_t upto_hi = hi == 63 ? UINT64_MAX : (UINT64_C(1) << (hi + 1)) - 1;
	return upto_hi & ~((UINT64_C(1) << lo) - 1);
}

int tly_format_parse(const char *text, enum tly_config_field *field, uint64_t *mask)
{
	const char *colon = strchr(text, ':');
	if (!colon)
		return -EINVAL;
	int found = -2;
	for (size_t i = 0; i < sizeof(config_fields) / sizeof(config_fields[0]); i++) {
		size_t len = strlen(config_fields[i].name);
		if ((size_t)(colon - text) == len && memcmp(text, config_fields[i].name, len) == 0)
			found = config_fields[i].field;
	}
	if (found == -2)
		return -EINVAL;

	uint64_t bits = 0;
	const char *p = colon + 1;
	for (;;) {
		unsigned lo, hi;
		int err = parse_bit(&p, &lo);
		if (err)
			return err;
		hi = lo;
		if (*p == '-') {
			p++;
			err = parse_bit(&p, &hi);
			if (err)
				return err;
			if (hi < lo)
				return -EINVAL;
		}
		uint64_t range = bit_range(lo, hi);
		if (bits & range)
			return -EEXIST;
		bits |= range;
		if (*p == '\0')
			break;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
	if (found < 0)
		return -EOPNOTSUPP;
	*field = (enum tly_config_field)found;
	*mask = bits;
	return 0;
}

const char *tly_format_reason(int err)
{
	switch (err) {
	case -ERANGE:
		return "names a bit beyond 63";
	case -EEXIST:
		return "lists a bit twice";
	case -EOPNOTSUPP:
		return "fills perf_event_attr.config3, which tally does not support yet";
	default:
		return "is not of the form config[1|2]:BIT[-BIT][,BIT[-BIT]...]";
	}
}

unsigned tly_format_width(uint64_t mask)
{
	return (unsigned)__builtin_popcountll(mask);
}

int tly_format_deposit(uint64_t mask, uint64_t value, uint64_t *config)
{
	unsigned width = tly_format_width(mask);
	if (width < 64 && (value >> width) != 0)
		return -ERANGE;
	uint64_t bits = 0;
	/* Walk the mask's set bits from the lowest, handing each the next bit of value. */
	for (uint64_t rest = mask; rest; rest &= rest - 1, value >>= 1)
		if (value & 1)
			bits |= rest & -rest;
	*config = (*config & ~mask) | bits;
	return 0;
}
