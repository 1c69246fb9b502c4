/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the event spec parser. Each input is parsed, as a NUL-terminated string, against
 * three fixture machines loaded once: Intel (one core PMU, topdown aliases, uncore, msr; no tracefs),
 * hybrid x86 (cpu_core + cpu_atom) and the PMU-less VM with a tracefs (tracepoints and their globs). Checked beyond "no crash, leak or UB": a rejected spec reports an offset inside
 * the spec and a caret message; an accepted one has canonical texts that parse back to the same attrs.
 * The fixtures come from $TALLY_FIXTURES, else from the source tree next to this file.
 */
#include "fuzz_common.h"
#include "spec/event_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/events.h>
#include <tally/pmu.h>

static tally_pmus *load(const char *machine)
{
	char root[4096];
	const char *fixtures = getenv("TALLY_FIXTURES");
	if (fixtures) {
		snprintf(root, sizeof(root), "%s/sysfs/%s", fixtures, machine);
	} else {
		/* __FILE__ is fuzz/fuzz_spec.c under the source tree. */
		const char *slash = strrchr(__FILE__, '/');
		int dir_len = slash ? (int)(slash - __FILE__) : 1;
		snprintf(root, sizeof(root), "%.*s/../tests/fixtures/sysfs/%s", dir_len, slash ? __FILE__ : ".", machine);
	}
	TALLY_OPTS(tally_pmus_opts, opts, .sysfs_root = root);
	tally_pmus *pmus = NULL;
	if (tally_pmus_load(&opts, &pmus) != 0) {
		fprintf(stderr, "fuzz_spec: cannot load %s: %s\n", root, tally_last_error());
		abort();
	}
	return pmus;
}

static bool same_attr(const struct perf_event_attr *a, const struct perf_event_attr *b)
{
	return a->type == b->type && a->config == b->config && a->config1 == b->config1 &&
	       a->config2 == b->config2 && a->exclude_user == b->exclude_user &&
	       a->exclude_kernel == b->exclude_kernel && a->exclude_hv == b->exclude_hv &&
	       a->exclude_guest == b->exclude_guest && a->exclude_host == b->exclude_host &&
	       a->exclude_idle == b->exclude_idle && a->precise_ip == b->precise_ip && a->pinned == b->pinned &&
	       a->exclusive == b->exclusive && a->bp_type == b->bp_type;
}

static void check(const tally_pmus *pmus, const char *spec, size_t len)
{
	size_t offset = (size_t)-1;
	TALLY_OPTS(tally_parse_opts, opts, .pmus = pmus, .error_offset = &offset);
	tally_events *events = NULL;
	int ret = tally_events_parse(spec, &opts, &events);
	if (ret) {
		REQUIRE(events == NULL);
		if (ret == -TALLY_ESPEC) {
			REQUIRE(offset <= len);
			REQUIRE(strncmp(tally_last_error(), "invalid event spec: ", 20) == 0);
		}
		return;
	}
	size_t n = tally_events_count(events);
	REQUIRE(n >= 1);
	for (size_t i = 0; i < n; i++) {
		const struct tly_event *ev = &events->v[i];
		REQUIRE(ev->name && ev->canonical);
		REQUIRE(tally_events_encoding(events, i, NULL, 0) > 0);
		/* libpfm4 names keep their own spelling; a group's modifiers are not in it */
		if (ev->libpfm)
			continue;
		TALLY_OPTS(tally_parse_opts, again_opts, .pmus = pmus);
		tally_events *again = NULL;
		REQUIRE(tally_events_parse(ev->canonical, &again_opts, &again) == 0);
		/* A topdown metric event alone comes back led by the slots event the parser adds (the kernel
		 * opens a metric only in a slots-led group): the metric is then the second event. */
		size_t at = ev->topdown == TLY_TOPDOWN_METRIC ? 1 : 0;
		REQUIRE(tally_events_count(again) == at + 1);
		REQUIRE(same_attr(&again->v[at].attr, &ev->attr));
		tally_events_free(again);
	}
	tally_events_free(events);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Loaded once for the whole run (libFuzzer offers no init hook that can fail cleanly); read-only
	 * afterwards. LeakSanitizer sees them as reachable. */
	static tally_pmus *intel, *hybrid, *novpmu, *server;
	if (!intel) {
		intel = load("intel");
		hybrid = load("hybrid");
		novpmu = load("novpmu");
		server = load("intel-server"); /* PMU families: six uncore_imc, four uncore_cha */
	}
	char *spec = fuzz_cstring(data, size);
	if (!spec)
		return 0;
	size_t len = strlen(spec);
	check(intel, spec, len);
	check(hybrid, spec, len);
	check(novpmu, spec, len);
	check(server, spec, len);
	free(spec);
	return 0;
}
