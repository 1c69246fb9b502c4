/* SPDX-License-Identifier: MIT */
/* libpfm4 names ("perf::PERF_COUNT_SW_PAGE_FAULTS", "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS:u") encoded
 * into perf_event_attr values, when the build found libpfm4; a clear refusal when it did not. */
#include "pfm.h"

#include "error.h"

#include <tally/events.h>

#if TALLY_HAVE_LIBPFM

/* pfm.h brought in <linux/perf_event.h> first, so libpfm4's header uses the kernel's perf_event_attr
 * instead of its own copy and both sides agree on the layout. */
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* libpfm4 keeps its PMU tables in process-wide state that pfm_initialize() fills once; pthread_once makes
 * the first encode from any thread do it exactly once, and every later call reads the recorded result. */
static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_init_status;

static void pfm_init(void)
{
	pfm_init_status = pfm_initialize();
}

bool tally_have_libpfm(void)
{
	return true;
}

int tly_pfm_encode(const char *name, struct perf_event_attr *attr)
{
	pthread_once(&pfm_once, pfm_init);
	if (pfm_init_status != PFM_SUCCESS)
		return tly_error(-TALLY_ENOPFM, "libpfm4 failed to initialise: %s", pfm_strerror(pfm_init_status));

	struct perf_event_attr encoded;
	memset(&encoded, 0, sizeof(encoded));
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	arg.attr = &encoded;
	arg.size = sizeof(arg);
	/* Default privilege levels: user, kernel and hypervisor, as perf counts an event without modifiers;
	 * libpfm4 turns its :u/:k/:h modifiers into the exclude bits from there. */
	int ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3 | PFM_PLMH, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS)
		return tly_error(-TALLY_ESPEC, "libpfm4 cannot encode '%s': %s", name, pfm_strerror(ret));

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
