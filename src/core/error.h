/* SPDX-License-Identifier: MIT */
/* Recording failures (the per-thread last-error text) and the library's log output. */
#ifndef TLY_ERROR_H
#define TLY_ERROR_H

#include <stdarg.h>
#include <tally/common.h>

/* Capacity of a last-error text, in bytes. Long enough for a spec with a caret line and a hint. */
#define TLY_ERROR_MAX 2048

/* Records a formatted explanation as this thread's last error and returns -abs(code), so that a failing
 * path can `return tly_error(-EINVAL, "...")`. The message also goes to the log at DEBUG level: the
 * failure is recorded where it happens, and the layer that gives up logs it at ERROR (tly_give_up). */
int tly_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The NULL-handle convention of libtally(3): a public function returning int given a NULL handle or a
 * NULL required pointer returns -EINVAL, with a last-error text naming it: `return tly_null_arg(__func__);`.
 */
int tly_null_arg(const char *fn);

/* Appends more text to this thread's last error (for hints and multi-line messages). */
void tly_error_append(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Formats a message (one, without a trailing newline) and sends it to the log callback, if one is set. */
void tly_log(enum tally_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* For the public call that gives up with `code` (negative): logs this thread's last error at ERROR and
 * returns code. */
int tly_give_up(int code);

/* This thread's last error, kept across failures that a call recovers from: save it before trying, and
 * restore it when the call succeeds, so that tally_last_error() changes only when a call fails. */
struct tly_error_saved {
	char text[TLY_ERROR_MAX];
};
void tly_error_save(struct tly_error_saved *saved);
void tly_error_restore(const struct tly_error_saved *saved);

#endif
