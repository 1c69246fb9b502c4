/* SPDX-License-Identifier: MIT */
/* Test helper (not a test itself): prints one struct perf_event_attr field by field (every field the
 * installed header has, through tools/describe/attr_names.c) and then byte by byte, so that two programs' attrs can
 * be compared with diff: test_cli_encode.sh compiles `tally encode --c` with it and compares the result
 * with what encode_spec -p prints of the library's plan. The bytes catch a field the names miss. */
#ifndef TALLY_TEST_ATTR_DUMP_H
#define TALLY_TEST_ATTR_DUMP_H

#include <stdio.h>

#include "describe/attr_names.h"

static void attr_dump_field(const struct attr_field *f, void *arg)
{
	(void)arg;
	printf("  %s=%#llx\n", f->name, (unsigned long long)f->value);
}

static inline void attr_dump(const char *label, const struct perf_event_attr *attr)
{
	printf("%s\n", label);
	attr_fields_each(attr, attr_dump_field, NULL);
	printf("  bytes=");
	for (size_t i = 0; i < sizeof(*attr); i++)
		printf("%02x", ((const unsigned char *)attr)[i]);
	printf("\n");
}

#endif
