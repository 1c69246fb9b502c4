/* SPDX-License-Identifier: MIT */
/*
 * UTF-8 validation (RFC 3629), the one decoder of the library (the spec parser's error text names a
 * whole character; the region writers' JSON) and of the CLI (its JSON reader and writer, the escaping of
 * text for a terminal or CSV).
 *
 * Shared as source, not exported: a decoder is no part of what libtally offers its callers, and the CLI
 * uses only the public API, so src/shared/ holds the code both compile (as the kernel's tools/lib/ holds
 * what its tools share). It sits below both rather than in tools/lib/, so that the library depends on
 * nothing of the CLI's. Header-only and static inline, so that no symbol passes between the two (the CLI
 * links the static libtally) and each compiles it into its own callers. Nothing here includes another
 * folder of src/ (the lowest row of docs/design.md's folder table, as tests/tree_layout.py checks), so
 * that the CLI, which may include src/shared/ alone of src/, reaches no internal header through it.
 */
#ifndef TALLY_SHARED_UTF8_H
#define TALLY_SHARED_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length of the valid UTF-8 sequence starting at s (at most n bytes, n >= 1), or 0 when it is not one;
 * the code point goes to *cp (an ASCII byte, NUL included, is a sequence of 1). Overlong forms,
 * surrogates, code points past U+10FFFF and sequences cut short (by n or by a byte that is no
 * continuation, a terminating NUL too) are invalid. */
static inline size_t utf8_sequence(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	/* 0x80-0xc1 lead nothing (continuations, or an overlong 2-byte form); 0xf5 and up start past
	 * U+10FFFF. */
	size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	if (len == 0 || len > n)
		return 0;
	uint32_t v = c & (0x7f >> len); /* the lead byte's bits: 5, 4 or 3 */
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	static const uint32_t least[5] = { 0, 0, 0x80, 0x800, 0x10000 }; /* the shortest form's first */
	if (v < least[len] || (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff)
		return 0;
	*cp = v;
	return len;
}

#endif
