/* SPDX-License-Identifier: MIT */
/* Messages for rejected event specs: the spec with a caret under the bad part, and the closest known name. */
#ifndef TLY_SPEC_ERROR_H
#define TLY_SPEC_ERROR_H

#include <stddef.h>

/* Records this thread's last error as
 *     invalid event spec: <message>
 *       <spec>
 *       ^~~~~
 * with the caret under spec[offset .. offset+len) (at least one character), stores offset in
 * *error_offset when that is not NULL, and returns code (negative). */
int tly_spec_error(int code, const char *spec, size_t offset, size_t len, size_t *error_offset, const char *fmt,
                   ...) __attribute__((format(printf, 6, 7)));

/* Finds the first byte of spec that no event spec holds (perf's are ASCII: names, terms, modifiers and
 * separators) and describes it whole for a message: "'，' (U+FF0C, a look-alike of ',')" for a UTF-8
 * character, "byte 0xef (not UTF-8)", "control character 0x01". Returns its offset, or (size_t)-1 when
 * every byte is printable ASCII or whitespace. */
size_t tly_spec_find_foreign(const char *spec, size_t len, char *what, size_t what_len);

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
