/* SPDX-License-Identifier: MIT */
/*
 * libtally.so loaded with dlopen(3), as a Python extension or any plugin loads it: its thread-local block
 * must fit the static TLS glibc keeps for dlopen (the hot path's initial-exec variables put the whole
 * block there), and the last error must still explain on the loading thread and on another.
 */
#include "harness.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <tally.h>

static void *lib;

static void *open_lib(void)
{
	if (lib)
		return lib;
	const char *build = getenv("TALLY_BUILD");
	char path[4096];
	snprintf(path, sizeof(path), "%s/libtally.so.0", build ? build : ".");
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		fprintf(stderr, "dlopen: %s\n", dlerror());
	return lib;
}

typedef int (*parse_fn)(const char *, const void *, tally_events **);
typedef const char *(*text_fn)(void);

/* A bad spec through the loaded library: its own last error says why, with the caret. */
static void *bad_spec_explains(void *unused)
{
	(void)unused;
	parse_fn parse = (parse_fn)dlsym(lib, "tally_events_parse");
	text_fn last = (text_fn)dlsym(lib, "tally_last_error");
	CHECK(parse && last);
	if (!parse || !last)
		return NULL;
	CHECK(last()[0] == '\0');
	tally_events *ev = NULL;
	CHECK_INT(parse("task-clok", NULL, &ev), -TALLY_ESPEC);
	CHECK_CONTAINS(last(), "task-clock");
	CHECK_CONTAINS(last(), "^");
	return NULL;
}

static void loads_with_dlopen(void)
{
	CHECK(open_lib() != NULL);
}

static void last_error_on_the_loading_thread(void)
{
	if (open_lib())
		bad_spec_explains(NULL);
}

static void last_error_on_another_thread(void)
{
	pthread_t t;
	if (!open_lib())
		return;
	CHECK_INT(pthread_create(&t, NULL, bad_spec_explains, NULL), 0);
	pthread_join(t, NULL);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "loads_with_dlopen", loads_with_dlopen },
		{ "last_error_on_the_loading_thread", last_error_on_the_loading_thread },
		{ "last_error_on_another_thread", last_error_on_another_thread },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
