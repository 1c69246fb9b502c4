/* SPDX-License-Identifier: MIT */
#include "error.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* Per-thread, so that concurrent failures on different handles never mix their texts. */
static _Thread_local char last_error[TLY_ERROR_MAX];

/* Set once by the application (like libperf_init's callback); atomic so a late change is not a race. */
static _Atomic(tally_log_fn) log_fn;

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

static void log_va(enum tally_log_level level, const char *fmt, va_list ap)
{
	tally_log_fn fn = atomic_load_explicit(&log_fn, memory_order_acquire);
	if (fn)
		fn(level, fmt, ap);
}

void tly_log(enum tally_log_level level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_va(level, fmt, ap);
	va_end(ap);
}

int tly_error(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	tly_log(TALLY_LOG_ERROR, "%s\n", last_error);
	return code < 0 ? code : -code;
}

void tly_error_append(const char *fmt, ...)
{
	size_t used = strlen(last_error);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error + used, sizeof(last_error) - used, fmt, ap);
	va_end(ap);
}

void tally_set_log(tally_log_fn fn)
{
	atomic_store_explicit(&log_fn, fn, memory_order_release);
}

const char *tally_version(void)
{
	return TALLY_VERSION_STRING;
}
