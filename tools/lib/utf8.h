/* SPDX-License-Identifier: MIT */
/* UTF-8 validation, shared by the writers that must not pass invalid bytes on (JSON) or that must tell a
 * printable character from a control one (the table, CSV). */
#ifndef TALLY_TOOLS_UTF8_H
#define TALLY_TOOLS_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length of the valid UTF-8 sequence starting at s (at most n bytes, n >= 1), or 0 when it is not one;
 * the code point goes to *cp. Overlong forms, surrogates and code points past U+10FFFF are invalid
 * (RFC 3629). */
size_t utf8_sequence(const unsigned char *s, size_t n, uint32_t *cp);

#endif
