/* SPDX-License-Identifier: MIT */
/*
 * tally: what every part of the public API shares: error codes, options structs that carry their size,
 * the log callback and the version.
 *
 * Conventions
 * - Every function that can fail returns int: 0 on success, a negative errno-style code on failure
 *   (-EINVAL, -ENOENT, ... or one of the TALLY_E* codes below). tally_strerror() names the code;
 *   tally_last_error() gives the full explanation of the latest failure on the calling thread.
 * - Options and info structs start with `size_t sz`; declare them with TALLY_OPTS() so that fields added
 *   in later versions never break a caller built against an older header. The library knows each up to
 *   its last field (<type>__last_field after each struct), not sizeof. A NULL options pointer means
 *   defaults.
 * - Handles are opaque. A NULL handle: -EINVAL from a function returning int, a no-op for free and close,
 *   the "none" value (NULL, 0, "", -1) from a query; NULL CPU and thread maps are the dummy maps.
 * - A buffer too small: text is cut and NUL-terminated and the length it needed is returned (snprintf);
 *   a listing returns its full size and fills what fits; a group read without room for all is -ENOSPC.
 * - Unless a function says otherwise, a handle may be used by one thread at a time; distinct handles may
 *   be used concurrently from different threads.
 * libtally(3), CONVENTIONS, states these rules in full.
 */
#ifndef TALLY_COMMON_H
#define TALLY_COMMON_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TALLY_API __attribute__((visibility("default")))

/* Declares a struct that carries its size (options going in, info coming out), zeroed in full and with
 * sz filled in: TALLY_OPTS(tally_pmus_opts, o, .sysfs_root = "x");
 * The memset clears the padding too (libbpf's LIBBPF_OPTS does the same): a later version may put a field
 * where today's struct has trailing padding, and the library refuses a struct whose bytes past the fields
 * it knows are not zero, so garbage there must never reach it. Needs GNU C (a statement expression). */
#define TALLY_OPTS(type, name, ...)                                                                 \
	struct type name = ({                                                                       \
		memset(&name, 0, sizeof(struct type));                                              \
		(struct type){ .sz = sizeof(struct type), __VA_ARGS__ };                            \
	})

/* The largest sz the library accepts in such a struct; a larger one is -TALLY_EOPTS, and the library then
 * reads and writes nothing past sz's own bytes. Far beyond any struct of this API, so a caller built
 * against any later header stays under it; a size like 1 << 30 is a bug, not a newer struct. */
#define TALLY_OPTS_MAX_SZ 4096

/* tally's own error codes, beyond the errno range, returned negated like errno values. */
enum tally_error {
	TALLY_EBASE = 4000,
	TALLY_ESPEC,        /* the event specification is malformed or names something unknown */
	TALLY_ENOPMU,       /* the event needs a hardware PMU and this machine exposes none */
	TALLY_ENOPFM,       /* a libpfm4 name was used but tally was built without libpfm4 */
	TALLY_ESYSFS,       /* a sysfs file has content tally cannot interpret */
	TALLY_ENOTCOUNTED,  /* a group was enabled but never scheduled on the PMU */
	TALLY_ESTATE,       /* the call does not fit the handle's state (e.g. read before open) */
	TALLY_EOPTS,        /* an options struct has unknown non-zero trailing bytes or a bad size */
	TALLY_ELAST
};

/* Short text for a code returned by any tally function (either sign accepted). Never NULL.
 * Thread-safe. */
TALLY_API const char *tally_strerror(int err);

/* The full explanation of the most recent failure of a tally call made by the calling thread: which
 * event or file, which errno, the likely cause and the fix; for a rejected spec, the spec with a caret
 * under the bad character. Empty string when nothing has failed. The text stays valid until the next
 * failing tally call on the same thread. Thread-safe (the text is per thread). */
TALLY_API const char *tally_last_error(void);

/* What a log message is about. Failures are logged where they happen, at DEBUG: the caller learns of
 * those it must know through return codes, results and tally_last_error(), never only through the log. */
enum tally_log_level {
	TALLY_LOG_ERROR, /* a call gives up: the same explanation is in tally_last_error() */
	TALLY_LOG_WARN,  /* something the caller asked for is not honoured and no result says so */
	TALLY_LOG_INFO,  /* a decision that changes what is measured, also told in the results and notes (an
	                  * event not supported, narrowed to user space, regrouped) */
	TALLY_LOG_DEBUG, /* each step, and each failure the library recovers from (a retry that worked) */
};

/* Receives one message: text is formatted, one message without a trailing newline, valid only during
 * the call; user is the pointer given to tally_set_log. Called on the thread whose tally call logs. */
typedef void (*tally_log_fn)(enum tally_log_level level, const char *text, void *user);

/* Sets the callback that receives the library's diagnostic output, with a pointer passed back to it
 * (NULL fn: silence, the default). Thread-safe: fn and user change together; a message in flight on
 * another thread may still reach the previous pair. */
TALLY_API void tally_set_log(tally_log_fn fn, void *user);

/* The library's version, "MAJOR.MINOR.PATCH". Thread-safe. */
TALLY_API const char *tally_version(void);

#ifdef __cplusplus
}
#endif
#endif
