/* SPDX-License-Identifier: MIT */
/* The libpfm4 encoder and listing in both build modes: with libpfm4 its generic perf:: and perf_raw:: PMUs
 * (present on every machine, hardware PMU or not) are listed and encode to the kernel's generic values;
 * without it every name and the listing are refused with an explanation. */
#include "harness.h"
#include "machine/pfm.h"

#include <pthread.h>
#include <tally/events.h>

/* Counts the events a walk reports; stops with stop_with after stop_after of them (0: never). */
struct pfm_walk {
	unsigned seen;
	unsigned stop_after;
	int stop_with;
	bool page_faults_seen;   /* perf::PERF_COUNT_SW_PAGE_FAULTS */
	bool malformed_seen;     /* a name without "::", or a NULL name or description */
};

static int count_pfm_event(const char *name, const char *description, void *arg)
{
	struct pfm_walk *walk = arg;
	walk->seen++;
	if (!name || !description || !strstr(name, "::"))
		walk->malformed_seen = true;
	else if (strcmp(name, "perf::PERF_COUNT_SW_PAGE_FAULTS") == 0)
		walk->page_faults_seen = true;
	return walk->stop_after && walk->seen == walk->stop_after ? walk->stop_with : 0;
}

#if TALLY_HAVE_LIBPFM
#include <dlfcn.h>
#include <perfmon/pfmlib.h>

static void reports_libpfm(void)
{
	CHECK(tally_have_libpfm());
}

struct pfm_case {
	const char *name;
	uint32_t type;
	uint64_t config;
	/* exclude_hv is libpfm4's to decide per PMU model (it differs under valgrind's emulated CPUID). */
	bool exclude_user, exclude_kernel;
};

static const struct pfm_case pfm_cases[] = {
	{ "perf::PERF_COUNT_SW_PAGE_FAULTS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, 0 },
	{ "perf::PERF_COUNT_SW_CONTEXT_SWITCHES", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 0 },
	{ "perf::PERF_COUNT_SW_TASK_CLOCK", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, 0 },
	{ "perf::CYCLES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0 },
	{ "perf::INSTRUCTIONS", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 0 },
	{ "perf::PERF_COUNT_HW_BRANCH_MISSES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 0, 0 },
	/* Hardware cache events: id | op << 8 | result << 16, as the kernel's perf_event_attr documents. */
	{ "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS", PERF_TYPE_HW_CACHE,
	  PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 | PERF_COUNT_HW_CACHE_RESULT_MISS << 16,
	  0, 0 },
	{ "perf::PERF_COUNT_HW_CACHE_DTLB:WRITE:ACCESS", PERF_TYPE_HW_CACHE,
	  PERF_COUNT_HW_CACHE_DTLB | PERF_COUNT_HW_CACHE_OP_WRITE << 8 | PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16,
	  0, 0 },
	{ "perf_raw::r1234", PERF_TYPE_RAW, 0x1234, 0, 0 },
	/* libpfm4's own privilege modifiers become exclude bits. */
	{ "perf::CYCLES:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 1 },
	{ "perf::CYCLES:k", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1, 0 },
	{ "perf::PERF_COUNT_SW_PAGE_FAULTS:u", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, 1 },
};

static void encodes_generic_perf_pmu(void)
{
	for (size_t i = 0; i < sizeof(pfm_cases) / sizeof(pfm_cases[0]); i++) {
		const struct pfm_case *c = &pfm_cases[i];
		struct perf_event_attr attr = { .size = sizeof(attr), .config1 = 7, .config2 = 9 };
		int ret = tly_pfm_encode(c->name, &attr);
		if (ret != 0) {
			fprintf(stderr, "  %s: %d %s\n", c->name, ret, tally_last_error());
			CHECK_INT(ret, 0);
			continue;
		}
		CHECK_INT(attr.type, c->type);
		CHECK_U64(attr.config, c->config);
		/* Fields the encoder owns are overwritten, not merged with what the caller had. */
		CHECK_U64(attr.config1, 0);
		CHECK_U64(attr.config2, 0);
		CHECK_INT(attr.exclude_user, c->exclude_user);
		CHECK_INT(attr.exclude_kernel, c->exclude_kernel);
		/* Fields it does not own stay as they were. */
		CHECK_INT(attr.size, sizeof(attr));
		CHECK_U64(attr.sample_period, 0);
	}
}

static void unknown_names_get_libpfm_message(void)
{
	static const char *const bad[] = { "perf::NO_SUCH_EVENT", "nosuchpmu::CYCLES", "::", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct perf_event_attr attr = { 0 };
		CHECK_INT(tly_pfm_encode(bad[i], &attr), -TALLY_ESPEC);
		CHECK_CONTAINS(tally_last_error(), "libpfm4 cannot encode");
		CHECK_CONTAINS(tally_last_error(), "event not found");
	}
	struct perf_event_attr attr = { 0 };
	CHECK_INT(tly_pfm_encode("perf::CYCLES:nosuchmodifier", &attr), -TALLY_ESPEC);
	CHECK_CONTAINS(tally_last_error(), "perf::CYCLES:nosuchmodifier");
	CHECK_CONTAINS(tally_last_error(), "invalid event attribute");
}

static void sampling_modifiers_refused(void)
{
	struct perf_event_attr attr = { 0 };
	CHECK_INT(tly_pfm_encode("perf::CYCLES:period=1000", &attr), -TALLY_ESPEC);
	CHECK_CONTAINS(tally_last_error(), "sampling");
	CHECK_INT(tly_pfm_encode("perf::CYCLES:freq=100", &attr), -TALLY_ESPEC);
	CHECK_CONTAINS(tally_last_error(), "period=/freq=");
}

/* The first encode or listing initialises libpfm4; racing threads must all see a finished
 * initialisation. */
static void *encode_in_thread(void *arg)
{
	struct perf_event_attr attr = { 0 };
	int ret = tly_pfm_encode("perf::PERF_COUNT_SW_CPU_CLOCK", &attr);
	*(int *)arg = ret == 0 && attr.type == PERF_TYPE_SOFTWARE && attr.config == PERF_COUNT_SW_CPU_CLOCK;
	return NULL;
}

static void *list_in_thread(void *arg)
{
	struct pfm_walk walk = { 0 };
	*(int *)arg = tally_pfm_events(count_pfm_event, &walk) == 0 && walk.page_faults_seen;
	return NULL;
}

static void concurrent_first_use(void)
{
	pthread_t threads[8];
	int ok[8] = { 0 };
	for (int i = 0; i < 8; i++)
		CHECK_INT(pthread_create(&threads[i], NULL, i % 2 ? list_in_thread : encode_in_thread, &ok[i]), 0);
	for (int i = 0; i < 8; i++) {
		pthread_join(threads[i], NULL);
		CHECK(ok[i]);
	}
}

/* libpfm4's generic perf PMU is present everywhere, so its software events are always listed. */
static void lists_present_pmus(void)
{
	struct pfm_walk walk = { 0 };
	int ret = tally_pfm_events(count_pfm_event, &walk);
	if (ret != 0)
		fprintf(stderr, "  tally_pfm_events: %d %s\n", ret, tally_last_error());
	CHECK_INT(ret, 0);
	CHECK(walk.page_faults_seen);
	CHECK(!walk.malformed_seen);
	/* perf:: alone has a name and an alias for each of the kernel's generic and software events. */
	CHECK(walk.seen >= 2 * PERF_COUNT_SW_MAX);
}

/* The PMUs the walk names (the part of each name before "::"), at most 64 of them. */
struct pmu_names {
	char name[64][64];
	unsigned count;
};

static int note_pmu_name(const char *name, const char *description, void *arg)
{
	(void)description;
	struct pmu_names *seen = arg;
	const char *sep = strstr(name, "::");
	size_t len = sep ? (size_t)(sep - name) : strlen(name);
	for (unsigned i = 0; i < seen->count; i++)
		if (strlen(seen->name[i]) == len && strncmp(seen->name[i], name, len) == 0)
			return 0;
	if (seen->count < 64 && len < 64)
		snprintf(seen->name[seen->count++], 64, "%.*s", (int)len, name);
	return 0;
}

/* The walk names exactly the PMUs that libpfm4 itself says are present on this machine: libpfm4 knows
 * tables of every CPU it supports (x86 models, arm64 cores), whose events this CPU cannot count. The
 * oracle is libpfm4, asked here directly. */
static void lists_only_present_pmus(void)
{
	struct pmu_names seen = { .count = 0 };
	CHECK_INT(tally_pfm_events(note_pmu_name, &seen), 0);
	void *lib = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);
	CHECK(lib != NULL);
	if (!lib)
		return;
	pfm_err_t (*init)(void) = (pfm_err_t(*)(void))dlsym(lib, "pfm_initialize");
	pfm_err_t (*pmu_info)(pfm_pmu_t, pfm_pmu_info_t *) =
	        (pfm_err_t(*)(pfm_pmu_t, pfm_pmu_info_t *))dlsym(lib, "pfm_get_pmu_info");
	CHECK(init && pmu_info && init() == PFM_SUCCESS);
	unsigned present = 0, absent = 0;
	for (int pmu = PFM_PMU_NONE; init && pmu_info && pmu < PFM_PMU_MAX; pmu++) {
		pfm_pmu_info_t info;
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pmu_info((pfm_pmu_t)pmu, &info) != PFM_SUCCESS || !info.name)
			continue;
		bool listed = false;
		for (unsigned i = 0; i < seen.count; i++)
			listed |= strcmp(seen.name[i], info.name) == 0;
		if (listed != (bool)info.is_present)
			fprintf(stderr, "  PMU %s: present %d, listed %d\n", info.name, info.is_present, listed);
		CHECK_INT(listed, (bool)info.is_present);
		present += info.is_present;
		absent += !info.is_present;
	}
	/* The check means something only where libpfm4 knows PMUs this machine lacks (it always does). */
	CHECK(present >= 1);
	CHECK(absent >= 1);
}

/* Every listed perf:: software event (PERF_COUNT_SW_* and its alias, whose description libpfm4 gives as
 * the PERF_COUNT_SW_* name) parses back through the spec parser as a software event. */
struct round_trip {
	unsigned checked;
	unsigned failed;
};

static int parse_software_event(const char *name, const char *description, void *arg)
{
	struct round_trip *rt = arg;
	if (strncmp(name, "perf::", 6) != 0 ||
	    (strncmp(name, "perf::PERF_COUNT_SW_", 20) != 0 && strncmp(description, "PERF_COUNT_SW_", 14) != 0))
		return 0;
	rt->checked++;
	tally_events *events = NULL;
	int ret = tally_events_parse(name, NULL, &events);
	TALLY_OPTS(tally_event_info, info);
	if (ret != 0 || tally_events_count(events) != 1 || tally_events_at(events, 0, &info) != 0 ||
	    info.attr->type != PERF_TYPE_SOFTWARE || info.attr->config >= PERF_COUNT_SW_MAX) {
		fprintf(stderr, "  %s (%s) does not parse to one software event: %d %s\n", name, description, ret,
		        ret ? tally_last_error() : "");
		rt->failed++;
	}
	tally_events_free(events);
	return 0;
}

static void listed_software_events_parse(void)
{
	struct round_trip rt = { 0 };
	CHECK_INT(tally_pfm_events(parse_software_event, &rt), 0);
	CHECK_INT(rt.failed, 0);
	/* At least the software events every kernel since 3.x has: cpu-clock to emulation-faults. */
	CHECK(rt.checked >= PERF_COUNT_SW_EMULATION_FAULTS + 1);
}

static void callback_stops_walk(void)
{
	struct pfm_walk walk = { .stop_after = 3, .stop_with = 42 };
	CHECK_INT(tally_pfm_events(count_pfm_event, &walk), 42);
	CHECK_INT(walk.seen, 3);
	/* A negative value comes back as it is, too: the caller's to tell from the walk's own codes. */
	walk = (struct pfm_walk){ .stop_after = 1, .stop_with = -7 };
	CHECK_INT(tally_pfm_events(count_pfm_event, &walk), -7);
	CHECK_INT(walk.seen, 1);
}

static void null_callback_refused(void)
{
	CHECK_INT(tally_pfm_events(NULL, NULL), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "tally_pfm_events: a required pointer argument is NULL");
}

int main(void)
{
	/* Runs first so that the threads race on libpfm4's initialisation. */
	static const struct harness_case cases[] = {
		{ "concurrent_first_use", concurrent_first_use },
		{ "reports_libpfm", reports_libpfm },
		{ "encodes_generic_perf_pmu", encodes_generic_perf_pmu },
		{ "unknown_names_get_libpfm_message", unknown_names_get_libpfm_message },
		{ "sampling_modifiers_refused", sampling_modifiers_refused },
		{ "lists_present_pmus", lists_present_pmus },
		{ "lists_only_present_pmus", lists_only_present_pmus },
		{ "listed_software_events_parse", listed_software_events_parse },
		{ "callback_stops_walk", callback_stops_walk },
		{ "null_callback_refused", null_callback_refused },
		{ NULL, NULL },
	};
	return harness_run(cases);
}

#else

static void reports_no_libpfm(void)
{
	CHECK(!tally_have_libpfm());
}

static void every_name_refused_with_advice(void)
{
	static const char *const names[] = { "perf::CYCLES", "perf::PERF_COUNT_SW_PAGE_FAULTS", "x::y" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct perf_event_attr attr = { .type = 99, .config = 42 };
		CHECK_INT(tly_pfm_encode(names[i], &attr), -TALLY_ENOPFM);
		CHECK_CONTAINS(tally_last_error(), names[i]);
		CHECK_CONTAINS(tally_last_error(), "built without libpfm4");
		CHECK_CONTAINS(tally_last_error(), "install libpfm4-dev and rebuild");
		/* A refused name leaves the attr untouched. */
		CHECK_INT(attr.type, 99);
		CHECK_U64(attr.config, 42);
	}
}

static void listing_refused_with_advice(void)
{
	struct pfm_walk walk = { 0 };
	CHECK_INT(tally_pfm_events(count_pfm_event, &walk), -TALLY_ENOPFM);
	CHECK_INT(walk.seen, 0);
	CHECK_CONTAINS(tally_last_error(), "built without");
	CHECK_CONTAINS(tally_last_error(), "install libpfm4-dev and rebuild");
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "reports_no_libpfm", reports_no_libpfm },
		{ "every_name_refused_with_advice", every_name_refused_with_advice },
		{ "listing_refused_with_advice", listing_refused_with_advice },
		{ NULL, NULL },
	};
	return harness_run(cases);
}

#endif
