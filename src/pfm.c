/* SPDX-License-Identifier: MIT */
/* libpfm4 names ("perf::PERF_COUNT_SW_PAGE_FAULTS", "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS:u") encoded
 * into perf_event_attr values, when the build found libpfm4; a clear refusal when it did not. */
#include "pfm.h"

#include "error.h"

#include <tally/events.h>

#if TALLY_HAVE_LIBPFM

/* pfm.h brought in <linux/perf_event.h> first, so libpfm4's header uses the kernel's perf_event_attr
 * instead of its own copy and both sides agree on the layout. */
#include <dlfcn.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * libpfm4 is loaded with dlopen() when the first libpfm4 name is encoded, not linked: linked, the dynamic
 * loader maps it into every program that uses libtally and applies its ~41,000 relocations (its PMU tables
 * are arrays of pointers) before main(): 1.1 ms of the 3.1 ms and 2.1 MiB of the 4.2 MiB peak RSS of
 * `tally stat -e task-clock -- true` (bench/bench_cli.c), while few specs use a libpfm4 name. The soname is libpfm4's
 * (stable since libpfm 4.0); the header still comes from the build, so the types and constants agree.
 *
 * The handle, the three entry points and pfm_initialize()'s result are process-wide because libpfm4's
 * own PMU tables are: pthread_once makes the first encode from any thread load and initialise it exactly
 * once, and every later call reads what was recorded. The library stays loaded until the process exits
 * (its tables are in use by then).
 */
#define PFM_SONAME "libpfm.so.4"

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_init_status;
static char pfm_load_error[256];
static const char *(*pfm_strerror_fn)(int code);
static pfm_err_t (*pfm_encode_fn)(const char *str, int dfl_plm, pfm_os_t os, void *args);

static void pfm_init(void)
{
	void *lib = dlopen(PFM_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *why = dlerror();
		snprintf(pfm_load_error, sizeof(pfm_load_error), "%s", why ? why : PFM_SONAME " not found");
		return;
	}
	pfm_err_t (*initialize)(void) = (pfm_err_t(*)(void))dlsym(lib, "pfm_initialize");
	pfm_strerror_fn = (const char *(*)(int))dlsym(lib, "pfm_strerror");
	pfm_encode_fn = (pfm_err_t(*)(const char *, int, pfm_os_t, void *))dlsym(lib, "pfm_get_os_event_encoding");
	if (!initialize || !pfm_strerror_fn || !pfm_encode_fn) {
		snprintf(pfm_load_error, sizeof(pfm_load_error), "%s lacks pfm_initialize, pfm_strerror or "
		         "pfm_get_os_event_encoding", PFM_SONAME);
		pfm_encode_fn = NULL;
		return;
	}
	pfm_init_status = initialize();
}

/* The build mode: libpfm4 itself is only loaded by the first encode, so that asking costs nothing. */
bool tally_have_libpfm(void)
{
	return true;
}

int tly_pfm_encode(const char *name, struct perf_event_attr *attr)
{
	pthread_once(&pfm_once, pfm_init);
	if (!pfm_encode_fn)
		return tly_error(-TALLY_ENOPFM, "'%s' is a libpfm4 name, but libpfm4 cannot be loaded: %s", name,
		                 pfm_load_error);
	if (pfm_init_status != PFM_SUCCESS)
		return tly_error(-TALLY_ENOPFM, "libpfm4 failed to initialise: %s", pfm_strerror_fn(pfm_init_status));

	struct perf_event_attr encoded;
	memset(&encoded, 0, sizeof(encoded));
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	arg.attr = &encoded;
	arg.size = sizeof(arg);
	/* Default privilege levels: user, kernel and hypervisor, as perf counts an event without modifiers;
	 * libpfm4 turns its :u/:k/:h modifiers into the exclude bits from there. */
	int ret = pfm_encode_fn(name, PFM_PLM0 | PFM_PLM3 | PFM_PLMH, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS)
		return tly_error(-TALLY_ESPEC, "libpfm4 cannot encode '%s': %s", name, pfm_strerror_fn(ret));

	/* libpfm4's period= and freq= modifiers configure sampling; tally only counts, and silently dropping
	 * them would hide what the user asked for. */
	if (encoded.sample_period || encoded.freq)
		return tly_error(-TALLY_ESPEC,
		                 "'%s': libpfm4's period=/freq= modifiers set up sampling, which tally does not do; "
		                 "remove them",
		                 name);

	attr->type = encoded.type;
	attr->config = encoded.config;
	attr->config1 = encoded.config1;
	attr->config2 = encoded.config2;
	attr->exclude_user = encoded.exclude_user;
	attr->exclude_kernel = encoded.exclude_kernel;
	attr->exclude_hv = encoded.exclude_hv;
	attr->exclude_host = encoded.exclude_host;
	attr->exclude_guest = encoded.exclude_guest;
	attr->precise_ip = encoded.precise_ip;
	attr->exclusive = encoded.exclusive;
	return 0;
}

#else

bool tally_have_libpfm(void)
{
	return false;
}

int tly_pfm_encode(const char *name, struct perf_event_attr *attr)
{
	(void)attr;
	return tly_error(-TALLY_ENOPFM,
	                 "'%s' is a libpfm4 name, but tally was built without libpfm4; install libpfm4-dev and "
	                 "rebuild to use PMU::EVENT names",
	                 name);
}

#endif
