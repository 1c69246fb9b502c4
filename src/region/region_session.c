/* SPDX-License-Identifier: MIT */
/*
 * The zero-configuration regions: one process-wide region set made from the environment on the first
 * call, written at exit and on demand; a forked child drops its parent's and makes its own.
 */
#include "region/region.h"

#include "core/error.h"

#include <tally/rank.h>
#include <tally/region.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Names a program may use in its zero-configuration regions (each thread holds a pointer per name). */
#define SESSION_MAX_REGIONS 1024

static tally_region_set *_Atomic session;
static pthread_mutex_t session_lock = PTHREAD_MUTEX_INITIALIZER;
static bool hooks_set;
/* The session could not be made (no memory, no thread key): calls stay no-ops, nothing is retried. */
static _Atomic bool session_failed;

/* The forked child's copy of the session counts the parent's threads: the child starts over, with no
 * region open and an output of its own (%p). The parent's lock may have been held at the fork. */
static void session_after_fork(void)
{
	tally_region_set *old = atomic_exchange(&session, NULL);
	pthread_mutex_init(&session_lock, NULL);
	tally_region_set_free(old);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int session_write(tally_region_set *s)
{
	const char *pattern = secure_getenv("TALLY_OUTPUT");
	if (!pattern || !*pattern)
		return tally_region_set_write(s, stderr, TALLY_REGION_TABLE);
	char path[4096];
	int len = tally_path_expand(pattern, path, sizeof(path));
	if (len < 0)
		return len;
	if ((size_t)len >= sizeof(path))
		return tly_error(-ENAMETOOLONG, "TALLY_OUTPUT '%s' expands to a path of %d bytes", pattern, len);
	FILE *f = fopen(path, "we");
	if (!f)
		return tly_error(-errno, "cannot open TALLY_OUTPUT '%s'", path);
	enum tally_region_format format = ends_with(path, ".json") ? TALLY_REGION_JSON
	                                  : ends_with(path, ".csv") ? TALLY_REGION_CSV
	                                                            : TALLY_REGION_TABLE;
	int err = tally_region_set_write(s, f, format);
	return fclose(f) != 0 && err == 0 ? tly_error(-EIO, "writing TALLY_OUTPUT '%s' failed", path) : err;
}

/* SIGPIPE held back on the calling thread while the session writes: an output whose reader is gone (stderr
 * of `prog 2>&1 | head -1`, a FIFO) must not kill the program, nor run a handler of its own; the write fails
 * with EPIPE instead. A SIGPIPE the write raised is taken off the pending set (one that was pending before
 * is left there), then the program's mask is restored. */
struct pipe_held {
	sigset_t pipe, was;
	bool pending;
};

static void pipe_hold(struct pipe_held *h)
{
	sigset_t pending;
	sigemptyset(&h->pipe);
	sigaddset(&h->pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &h->pipe, &h->was);
	h->pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
}

static void pipe_release(struct pipe_held *h)
{
	static const struct timespec now = { 0 };
	if (!h->pending)
		sigtimedwait(&h->pipe, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &h->was, NULL);
}

int tally_regions_write(void)
{
	tally_region_set *s = atomic_load_explicit(&session, memory_order_acquire);
	if (!s)
		return tly_error(-TALLY_ESTATE, "no region was used in this process yet");
	struct pipe_held held;
	pipe_hold(&held);
	int err = session_write(s);
	pipe_release(&held);
	return err;
}

/* At exit nobody is left to see a return code: a TALLY_OUTPUT that cannot be used (a placeholder without a
 * value, a directory that is not there) is said on stderr, and the results go there as a table rather than
 * nowhere. A session that could not count (TALLY_EVENTS or TALLY_METRICS refused) says why on stderr too
 * when its results went to a file, which says it as well: a misspelt metric is not found only in a file
 * nobody reads. */
static void session_at_exit(void)
{
	tally_region_set *s = atomic_load_explicit(&session, memory_order_acquire);
	if (!s)
		return;
	struct pipe_held held;
	pipe_hold(&held);
	const char *output = secure_getenv("TALLY_OUTPUT");
	if (session_write(s) < 0) {
		fprintf(stderr, "tally regions: TALLY_OUTPUT not written (%s); the results follow here\n",
		        tally_last_error());
		tally_region_set_write(s, stderr, TALLY_REGION_TABLE);
	} else if (output && *output && tally_region_set_error(s)[0]) {
		fputs("tally regions: not counting: ", stderr);
		tly_region_text(stderr, tally_region_set_error(s), 0);
		fputc('\n', stderr);
	}
	pipe_release(&held);
}

static tally_region_set *session_make(void)
{
	pthread_mutex_lock(&session_lock);
	tally_region_set *s = atomic_load_explicit(&session, memory_order_acquire);
	if (!s && !atomic_load(&session_failed)) {
		const char *spec = secure_getenv("TALLY_EVENTS"), *metrics = secure_getenv("TALLY_METRICS");
		TALLY_OPTS(tally_region_opts, opts, .max_regions = SESSION_MAX_REGIONS,
		           .metrics = metrics && *metrics ? metrics : NULL);
		if (tally_region_set_new(spec && *spec ? spec : NULL, &opts, &s) != 0) {
			atomic_store(&session_failed, true);
			s = NULL;
		}
		/* The hooks are set once per process image: a child inherits both and they read its session. */
		if (s && !hooks_set)
			hooks_set = atexit(session_at_exit) == 0 && pthread_atfork(NULL, NULL, session_after_fork) == 0;
		atomic_store_explicit(&session, s, memory_order_release);
	}
	pthread_mutex_unlock(&session_lock);
	return s;
}

static tally_region_set *session_get(void)
{
	tally_region_set *s = atomic_load_explicit(&session, memory_order_acquire);
	return s ? s : session_make();
}

void tally_region_begin(const char *name)
{
	tally_region_set *s = name ? session_get() : NULL;
	if (s)
		tally_region_begin_id(s, tally_region_id(s, name));
}

void tally_region_end(const char *name)
{
	tally_region_set *s = name ? session_get() : NULL;
	if (s)
		tally_region_end_id(s, tally_region_id(s, name));
}
