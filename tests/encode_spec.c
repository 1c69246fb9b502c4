/* SPDX-License-Identifier: MIT */
/* Test helper (not a test itself): prints how tally encodes an event spec, one attr per line:
 *     <encoding> <TAB> <canonical> <TAB> <name>
 * Usage: encode_spec [-s SYSFS_ROOT] SPEC. On a rejected spec prints tally's message and exits 1.
 * test_perf_agreement.sh compares its output with `perf stat -vv`. */
#include <stdio.h>
#include <string.h>
#include <tally/events.h>

int main(int argc, char **argv)
{
	const char *root = NULL;
	int arg = 1;
	if (argc > 3 && strcmp(argv[1], "-s") == 0) {
		root = argv[2];
		arg = 3;
	}
	if (arg != argc - 1) {
		fprintf(stderr, "usage: %s [-s SYSFS_ROOT] SPEC\n", argv[0]);
		return 2;
	}
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
