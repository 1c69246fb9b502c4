/* SPDX-License-Identifier: MIT */
/* Recording failures (the per-thread last-error text) and the library's log output. */
#ifndef TLY_ERROR_H
#define TLY_ERROR_H

#include <tally/common.h>

/* Capacity of a last-error text, in bytes. Long enough for a spec with a caret line and a hint. */
#define TLY_ERROR_MAX 2048

/* Records a formatted explanation as this thread's last error and returns -abs(code), so that a failing
 * path can `return tly_error(-EINVAL, "...")`. The message is also sent to the log at ERROR level. */
int tly_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends more text to this thread's last error (for hints and multi-line messages). */
void tly_error_append(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Sends a message to the log callback, if one is set. */
void tly_log(enum tally_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
