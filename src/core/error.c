/* SPDX-License-Identifier: MIT */
#include "core/error.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* Per-thread, so that concurrent failures on different handles never mix their texts. The text lives in
 * pages of its own, mapped at the thread's first failure; thread-local storage holds only their address.
 * The hot path's initial-exec variables (regions, user-space reads) put libtally's whole thread-local
 * block into the static TLS that glibc keeps for dlopen, about 1.6 KiB beyond the program's own (glibc
 * 2.36): with the text's 2 KiB in that block, dlopen of libtally (a Python extension, any plugin) failed
 * with "cannot allocate memory in static TLS block". mmap, not malloc: the text must survive the
 * allocation failures it reports (tests/alloc_fault.h fails and counts malloc), and it is no system call
 * a test swaps. A thread whose map fails keeps a short text in `fallback`. */
static _Thread_local char *last_error;
static _Thread_local char fallback[128];
static pthread_key_t text_key;
static pthread_once_t text_once = PTHREAD_ONCE_INIT;
static bool have_text_key;

static void text_unmap(void *text)
{
	munmap(text, TLY_ERROR_MAX);
}

static void text_key_make(void)
{
	have_text_key = pthread_key_create(&text_key, text_unmap) == 0;
}

/* The calling thread's text buffer and its size, mapped on first use. */
static char *text_buffer(size_t *size)
{
	if (!last_error) {
		void *page = mmap(NULL, TLY_ERROR_MAX, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		pthread_once(&text_once, text_key_make);
		if (page != MAP_FAILED && have_text_key && pthread_setspecific(text_key, page) == 0)
			last_error = page;
		else if (page != MAP_FAILED)
			munmap(page, TLY_ERROR_MAX);
	}
	*size = last_error ? TLY_ERROR_MAX : sizeof(fallback);
	return last_error ? last_error : fallback;
}

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
	return last_error ? last_error : fallback;
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
	size_t size;
	char *text = text_buffer(&size);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, size, fmt, ap);
	va_end(ap);
	/* Where a failure happens, not where it is given up on: an upper layer may still recover (a retry). */
	tly_log(TALLY_LOG_DEBUG, "%s", text);
	return code < 0 ? code : -code;
}

int tly_null_arg(const char *fn)
{
	return tly_error(-EINVAL, "%s: a required pointer argument is NULL", fn);
}

int tly_give_up(int code)
{
	tly_log(TALLY_LOG_ERROR, "%s", tally_last_error());
	return code;
}

void tly_error_append(const char *fmt, ...)
{
	size_t size;
	char *text = text_buffer(&size);
	size_t used = strnlen(text, size - 1);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text + used, size - used, fmt, ap);
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
	snprintf(saved->text, sizeof(saved->text), "%s", tally_last_error());
}

void tly_error_restore(const struct tly_error_saved *saved)
{
	size_t size;
	char *text = text_buffer(&size);
	snprintf(text, size, "%s", saved->text);
}

const char *tally_version(void)
{
	return TALLY_VERSION_STRING;
}
