/* SPDX-License-Identifier: MIT */
/* Whether what was written to a stdio stream reached its file: every write, flush and close of tally's
 * output is checked, so that a full disk or a closed descriptor is said, not lost without a word. */
#ifndef TALLY_TOOLS_STREAM_H
#define TALLY_TOOLS_STREAM_H

#include <stdio.h>

/* Flushes f. Returns 0 when everything written to it so far reached the kernel, else the errno of the
 * failure, or -1 when an earlier write failed and its errno is no longer known (stdio keeps only a
 * flag). */
int stream_flush(FILE *f);

/* The text of stream_flush's result for a message: strerrordesc_np (untranslated, as every message of
 * tally) or, for -1, "a write failed". */
const char *stream_strerror(int err);

#endif
