/* SPDX-License-Identifier: MIT */
#include "lib/stream.h"

#include <errno.h>
#include <string.h>

int stream_flush(FILE *f)
{
	errno = 0;
	if (fflush(f) != 0)
		return errno ? errno : -1;
	/* glibc drops the buffer after its first failed flush: a later flush succeeds and only the error
	 * flag remembers the loss. */
	return ferror(f) ? -1 : 0;
}

const char *stream_strerror(int err)
{
	const char *text = err > 0 ? strerrordesc_np(err) : NULL;
	return text ? text : "a write failed";
}
