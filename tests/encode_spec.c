/* SPDX-License-Identifier: MIT */
/* Test helper (not a test itself): prints how tally encodes an event spec, one attr per line:
 *     <encoding> <TAB> <canonical> <TAB> <name>
 * or, with -p, the attrs of the counter's plan for a launched command (tally_counter_plan, what tally
 * stat opens), each as attr_dump.h prints it under "attr_K".
 * Usage: encode_spec [-s SYSFS_ROOT] [-p] SPEC. On a rejected spec prints tally's message and exits 1.
 * test_perf_agreement.sh compares its output with `perf stat -vv`; test_cli_encode.sh compares -p's with
 * the compiled output of `tally encode --c`. */
#include <stdio.h>
#include <string.h>
#include <tally/counter.h>
#include <tally/events.h>

#include "attr_dump.h"

static int print_plan(const char *spec, const char *root)
{
	TALLY_OPTS(tally_counter_opts, opts, .sysfs_root = root);
	tally_counter *counter;
	if (tally_counter_new(spec, &opts, &counter)) {
		fprintf(stderr, "%s\n", tally_last_error());
		return 1;
	}
	for (size_t k = 0; k < tally_counter_count(counter); k++) {
		TALLY_OPTS(tally_planned_event, p);
		char label[32];
		if (tally_counter_plan(counter, TALLY_TARGET_COMMAND, k, &p)) {
			fprintf(stderr, "%s\n", tally_last_error());
			return 1;
		}
		snprintf(label, sizeof(label), "attr_%zu", k);
		attr_dump(label, p.attr);
	}
	tally_counter_free(counter);
	return 0;
}

int main(int argc, char **argv)
{
	const char *root = NULL;
	bool plan = false;
	int arg = 1;
	for (; arg < argc - 1; arg++) {
		if (strcmp(argv[arg], "-s") == 0 && arg + 2 < argc)
			root = argv[++arg];
		else if (strcmp(argv[arg], "-p") == 0)
			plan = true;
		else
			break;
	}
	if (arg != argc - 1) {
		fprintf(stderr, "usage: %s [-s SYSFS_ROOT] [-p] SPEC\n", argv[0]);
		return 2;
	}
	if (plan)
		return print_plan(argv[arg], root);
	TALLY_OPTS(tally_parse_opts, opts, .sysfs_root = root);
	tally_events *events;
	int ret = tally_events_parse(argv[arg], &opts, &events);
	if (ret) {
		fprintf(stderr, "%s\n", tally_last_error());
		return 1;
	}
	for (size_t i = 0; i < tally_events_count(events); i++) {
		char encoding[512];
		TALLY_OPTS(tally_event_info, info);
		tally_events_encoding(events, i, encoding, sizeof(encoding));
		tally_events_at(events, i, &info);
		printf("%s\t%s\t%s\n", encoding, info.canonical, info.name);
	}
	tally_events_free(events);
	return 0;
}
