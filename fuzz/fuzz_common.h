/* SPDX-License-Identifier: MIT */
/* What every libFuzzer target here shares: the entry point's prototype, a check that holds in release
 * builds, and the input as a C string (the parsers under test read NUL-terminated text). */
#ifndef TALLY_FUZZ_COMMON_H
#define TALLY_FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Not assert(): a release build (NDEBUG) must check as well. */
#define REQUIRE(cond)                                                                              \
	do {                                                                                       \
		if (!(cond))                                                                       \
			abort();                                                                   \
	} while (0)

/* A NUL-terminated copy of the input for the caller to free; NULL when out of memory. */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (text) {
		memcpy(text, data, size);
		text[size] = '\0';
	}
	return text;
}

#endif
