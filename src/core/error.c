/* SPDX-License-Identifier: MIT */
#include "core/error.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* Per-thread, so that concurrent failures on different handles never mix their texts. */
static _Thread_local char last_error[TLY_ERROR_MAX];

/* The log callback and its user pointer change together, so a reader never pairs one callback with
 * another's pointer. Logging is off the hot path (opens, failures), so a mutex costs nothing that counts. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static tally_log_fn log_fn;
static void *log_user;

static const char *const tally_messages[] = {
	[TALLY_ESPEC - TALLY_EBASE] = "invalid event specification",
	[TALLY_ENOPMU - TALLY_EBASE] = "no hardware PMU on this machine",
	[TALLY_ENOPFM - TALLY_EBASE] = "built without libpfm4",
	[TALLY_ESYSFS - TALLY_EBASE] = "unreadable sysfs PMU description",
	[TALLY_ENOTCOUNTED - TALLY_EBASE] = "event group never scheduled on the PMU",
	[TALLY_ESTATE - TALLY_EBASE] = "call not valid in the handle's current state",
	[TALLY_EOPTS - TALLY_EBASE] = "options struct has an unknown size or non-zero unknown fields",
};

const char *tally_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err == 0)
		return "success";
	if (err > TALLY_EBASE && err < TALLY_ELAST)
		return tally_messages[err - TALLY_EBASE];
	/* strerrordesc_np (glibc 2.32+) is thread-safe and returns static text. */
	const char *text = strerrordesc_np(err);
	return text ? text : "unknown error";
}

const char *tally_last_error(void)
{
	return last_error;
}

void tly_log(enum tally_log_level level, const char *fmt, ...)
{
	pthread_mutex_lock(&log_lock);
	tally_log_fn fn = log_fn;
	void *user = log_user;
	pthread_mutex_unlock(&log_lock);
	if (!fn)
		return;
	char text[TLY_ERROR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fn(level, text, user);
}

int tly_error(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	/* Where a failure happens, not where it is given up on: an upper layer may still recover (a retry). */
	tly_log(TALLY_LOG_DEBUG, "%s", last_error);
	return code < 0 ? code : -code;
}

int tly_null_arg(const char *fn)
{
	return tly_error(-EINVAL, "%s: a required pointer argument is NULL", fn);
}

int tly_give_up(int code)
{
	tly_log(TALLY_LOG_ERROR, "%s", last_error);
	return code;
}

void tly_error_append(const char *fmt, ...)
{
	size_t used = strlen(last_error);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error + used, sizeof(last_error) - used, fmt, ap);
	va_end(ap);
}

void tally_set_log(tally_log_fn fn, void *user)
{
	pthread_mutex_lock(&log_lock);
	log_fn = fn;
	log_user = user;
	pthread_mutex_unlock(&log_lock);
}

void tly_error_save(struct tly_error_saved *saved)
{
	memcpy(saved->text, last_error, sizeof(saved->text));
}

void tly_error_restore(const struct tly_error_saved *saved)
{
	memcpy(last_error, saved->text, sizeof(last_error));
}

const char *tally_version(void)
{
	return TALLY_VERSION_STRING;
}
