/* SPDX-License-Identifier: MIT */
/*
 * What tally sees on this machine, through the public API only: the PMUs that sysfs describes, then the
 * perf_event_attr encoding of a few event specs (or, for a spec that is refused, tally's explanation), and
 * whether each can be counted here (or why not).
 *
 *   cc -o describe describe.c $(pkg-config --cflags --libs tally) && ./describe [SPEC...]
 */
#include <stdio.h>
#include <tally.h>

static const char *const default_specs[] = {
	"task-clock",
	"page-faults:u",
	"{task-clock,context-switches}",
	"cycles",
};

static void print_pmus(const tally_pmus *pmus)
{
	size_t n = tally_pmus_count(pmus);
	printf("PMUs (%zu, %zu of them core PMUs):\n", n, tally_pmus_core_count(pmus));
	printf("  %-24s %6s  %-4s  %7s  %6s  %4s\n", "name", "type", "core", "formats", "events", "caps");
	for (size_t i = 0; i < n; i++) {
		TALLY_OPTS(tally_pmu_info, info);
		if (tally_pmu_get_info(tally_pmus_at(pmus, i), &info) < 0)
			continue;
		printf("  %-24s %6u  %-4s  %7zu  %6zu  %4zu\n", info.name, info.type, info.is_core ? "yes" : "no",
		       info.nr_formats, info.nr_aliases, info.nr_caps);
	}
	if (tally_pmus_core_count(pmus) == 0)
		printf("No core PMU: hardware events (cycles, instructions, caches) cannot be counted here;\n"
		       "software events (task-clock, page-faults, context-switches, ...) can.\n");
}

/* Prints every attr of the spec, or the reason it was refused. Returns 0 when the spec parsed. */
static int describe_spec(const tally_pmus *pmus, const char *spec)
{
	printf("\n%s\n", spec);
	TALLY_OPTS(tally_parse_opts, opts, .pmus = pmus);
	tally_events *events;
	int err = tally_events_parse(spec, &opts, &events);
	if (err < 0) {
		printf("  refused (%s):\n%s\n", tally_strerror(err), tally_last_error());
		return err;
	}
	for (size_t i = 0; i < tally_events_count(events); i++) {
		TALLY_OPTS(tally_event_info, info);
		char encoding[256];
		if (tally_events_at(events, i, &info) < 0 ||
		    tally_events_encoding(events, i, encoding, sizeof(encoding)) < 0) {
			printf("  event %zu: %s\n", i, tally_last_error());
			continue;
		}
		char group[32] = "", expansion[48] = "";
		if (info.group >= 0)
			snprintf(group, sizeof(group), " [group %d%s]", info.group, info.leader ? ", leader" : "");
		/* A generic event on several core PMUs: the parts the engine sums back into one count. */
		if (info.nr_origins > 1)
			snprintf(expansion, sizeof(expansion), " [one of %u for item %u]", info.nr_origins, info.origin);
		printf("  %-20s %s%s%s\n", info.name, encoding, group, expansion);
		printf("  %-20s canonical: %s, PMU: %s\n", "", info.canonical, info.pmu ? info.pmu : "-");
	}
	tally_events_free(events);
	return 0;
}

/* Opens the spec on the calling thread and closes it again: parsing needs no PMU, counting does. */
static void try_counting(const tally_pmus *pmus, const char *spec)
{
	TALLY_OPTS(tally_counter_opts, opts, .pmus = pmus, .unsupported_is_error = true);
	tally_counter *counter;
	if (tally_counter_new(spec, &opts, &counter) < 0)
		return;
	if (tally_counter_open(counter, NULL) == 0)
		printf("  counts on this machine\n");
	else
		printf("  cannot be counted here:\n%s\n", tally_last_error());
	tally_counter_free(counter);
}

int main(int argc, char **argv)
{
	printf("tally %s, %s libpfm4\n", tally_version(), tally_have_libpfm() ? "with" : "without");
	tally_pmus *pmus;
	int err = tally_pmus_load(NULL, &pmus);
	if (err < 0) {
		fprintf(stderr, "cannot read the PMUs: %s\n", tally_last_error());
		return 1;
	}
	print_pmus(pmus);

	if (argc > 1) {
		/* Specs from the command line: the exit status says whether all of them parsed. */
		int refused = 0;
		for (int i = 1; i < argc; i++)
			refused |= describe_spec(pmus, argv[i]) < 0;
		tally_pmus_free(pmus);
		return refused;
	}
	for (size_t i = 0; i < sizeof(default_specs) / sizeof(default_specs[0]); i++)
		if (describe_spec(pmus, default_specs[i]) == 0)
			try_counting(pmus, default_specs[i]);
	tally_pmus_free(pmus);
	return 0;
}
