/* SPDX-License-Identifier: MIT */
/* Messages for rejected event specs: the spec with a caret under the bad part, and the closest known name. */
#ifndef TLY_SPEC_ERROR_H
#define TLY_SPEC_ERROR_H

#include <stdbool.h>
#include <stddef.h>

/* Records this thread's last error as
 *     invalid event spec: <message>
 *       <spec>
 *       ^~~~~
 * with the caret under spec[offset .. offset+len) (at least one character), stores offset in
 * *error_offset when that is not NULL, and returns code (negative). */
int tly_spec_error(int code, const char *spec, size_t offset, size_t len, size_t *error_offset, const char *fmt,
                   ...) __attribute__((format(printf, 6, 7)));

/* Whether c is a byte no part of a spec holds but a name= value (neither printable ASCII nor whitespace):
 * perf's names, terms, modifiers and separators are ASCII. */
bool tly_spec_foreign(char c);

/* Describes the character at s (len bytes left, len >= 1) whole for a message: "'x'" for ASCII, "'，'
 * (U+FF0C, a look-alike of ',')" for a UTF-8 character, "byte 0xef (not UTF-8)", "control character
 * 0x01". Returns how many bytes it takes. */
size_t tly_spec_char(const char *s, size_t len, char *out, size_t out_len);

/* Finds the known name closest to a misspelt word (optimal string alignment distance: a swap of two
 * neighbouring letters counts as one edit). Offer every candidate, then read best (NULL when nothing is
 * close enough to be a plausible typo). */
struct tly_suggest {
	const char *word;
	size_t len;
	const char *best;
	size_t best_distance;
};
void tly_suggest_init(struct tly_suggest *s, const char *word, size_t len);
void tly_suggest_offer(struct tly_suggest *s, const char *candidate);

#endif
