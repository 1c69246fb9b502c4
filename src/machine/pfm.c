/* SPDX-License-Identifier: MIT */
/* libpfm4 names ("perf::PERF_COUNT_SW_PAGE_FAULTS", "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS:u") encoded
 * into perf_event_attr values and listed, when the build found libpfm4; a clear refusal when it did not. */
#include "machine/pfm.h"

#include "core/error.h"

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
 * The handle, the entry points and pfm_initialize()'s result are process-wide because libpfm4's own PMU
 * tables are: pthread_once makes the first encode or listing from any thread load and initialise it
 * exactly once, and every later call reads what was recorded. The library stays loaded until the process
 * exits (its tables are in use by then).
 */
#define PFM_SONAME "libpfm.so.4"

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_init_status;
static char pfm_load_error[256];
static const char *(*pfm_strerror_fn)(int code);
static pfm_err_t (*pfm_encode_fn)(const char *str, int dfl_plm, pfm_os_t os, void *args);
static pfm_err_t (*pfm_pmu_info_fn)(pfm_pmu_t pmu, pfm_pmu_info_t *output);
static int (*pfm_event_next_fn)(int idx);
static pfm_err_t (*pfm_event_info_fn)(int idx, pfm_os_t os, pfm_event_info_t *output);
/* Whether every entry point above was found: set last, so that a library lacking one is not used at all. */
static bool pfm_loaded;

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
	pfm_pmu_info_fn = (pfm_err_t(*)(pfm_pmu_t, pfm_pmu_info_t *))dlsym(lib, "pfm_get_pmu_info");
	pfm_event_next_fn = (int (*)(int))dlsym(lib, "pfm_get_event_next");
	pfm_event_info_fn = (pfm_err_t(*)(int, pfm_os_t, pfm_event_info_t *))dlsym(lib, "pfm_get_event_info");
	if (!initialize || !pfm_strerror_fn || !pfm_encode_fn || !pfm_pmu_info_fn || !pfm_event_next_fn ||
	    !pfm_event_info_fn) {
		snprintf(pfm_load_error, sizeof(pfm_load_error), "%s lacks one of pfm_initialize, pfm_strerror, "
		         "pfm_get_os_event_encoding, pfm_get_pmu_info, pfm_get_event_next, pfm_get_event_info",
		         PFM_SONAME);
		return;
	}
	pfm_init_status = initialize();
	pfm_loaded = true;
}

/* Loads and initialises libpfm4 on the first call from any thread. 0 when it can be used; otherwise
 * -TALLY_ENOPFM with a last-error text that names what needed it (the name being encoded, or the listing
 * when name is NULL) and why it cannot be had. */
static int pfm_ready(const char *name)
{
	pthread_once(&pfm_once, pfm_init);
	if (pfm_loaded && pfm_init_status == PFM_SUCCESS)
		return 0;
	char purpose[512];
	if (name)
		snprintf(purpose, sizeof(purpose), "'%s' is a libpfm4 name", name);
	else
		snprintf(purpose, sizeof(purpose), "listing libpfm4 events needs libpfm4");
	if (!pfm_loaded)
		return tly_error(-TALLY_ENOPFM, "%s, but libpfm4 cannot be loaded: %s", purpose, pfm_load_error);
	return tly_error(-TALLY_ENOPFM, "%s, but libpfm4 failed to initialise: %s", purpose,
	                 pfm_strerror_fn(pfm_init_status));
}

/* The build mode: libpfm4 itself is only loaded by the first encode or listing, so that asking costs
 * nothing. */
bool tally_have_libpfm(void)
{
	return true;
}

int tly_pfm_encode(const char *name, struct perf_event_attr *attr)
{
	int err = pfm_ready(name);
	if (err < 0)
		return err;

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

int tally_pfm_events(tally_pfm_event_fn fn, void *arg)
{
	if (!fn)
		return tly_null_arg(__func__);
	int err = pfm_ready(NULL);
	if (err < 0)
		return err;
	/* The PMU ids end at this build's header's PFM_PMU_MAX: a newer libpfm.so.4 may know PMUs added after
	 * it, and those are not listed (libpfm4 numbers PMUs only by that enum). An id the loaded libpfm4 was
	 * built without fails pfm_get_pmu_info and is skipped like an absent PMU. */
	for (int pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; pmu++) {
		/* libpfm4 checks .size and that any bytes it does not know are zero (its ABI versioning). */
		pfm_pmu_info_t pmu_info;
		memset(&pmu_info, 0, sizeof(pmu_info));
		pmu_info.size = sizeof(pmu_info);
		if (pfm_pmu_info_fn((pfm_pmu_t)pmu, &pmu_info) != PFM_SUCCESS || !pmu_info.is_present)
			continue;
		for (int idx = pmu_info.first_event; idx != -1; idx = pfm_event_next_fn(idx)) {
			pfm_event_info_t info;
			memset(&info, 0, sizeof(info));
			info.size = sizeof(info);
			/* PFM_OS_NONE: only the name and description are wanted, not the OS layer's modifiers. */
			int ret = pfm_event_info_fn(idx, PFM_OS_NONE, &info);
			if (ret != PFM_SUCCESS)
				return tly_error(-EIO, "libpfm4 lists event %d of PMU %s but cannot describe it: %s", idx,
				                 pmu_info.name, pfm_strerror_fn(ret));
			char name[256];
			int len = snprintf(name, sizeof(name), "%s::%s", pmu_info.name, info.name);
			if (len < 0 || (size_t)len >= sizeof(name))
				return tly_error(-ENAMETOOLONG, "libpfm4 event %s::%s is longer than %zu bytes",
				                 pmu_info.name, info.name, sizeof(name) - 1);
			int stop = fn(name, info.desc ? info.desc : "", arg);
			if (stop)
				return stop;
		}
	}
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

int tally_pfm_events(tally_pfm_event_fn fn, void *arg)
{
	(void)arg;
	if (!fn)
		return tly_null_arg(__func__);
	return tly_error(-TALLY_ENOPFM, "listing libpfm4 events needs libpfm4, but tally was built without it; "
	                 "install libpfm4-dev and rebuild");
}

#endif
