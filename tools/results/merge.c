/* SPDX-License-Identifier: MIT */
/*
 * tally merge FILE...: the per-rank JSON results of one parallel run (tally stat -j -o out.%r.json under
 * mpirun, or the regions' TALLY_OUTPUT=r.%r.json) as one report: per event sum, mean, min and max with the
 * rank holding them, standard deviation and imbalance, over all ranks and per host; regions by name.
 * The command: its options, then the model (merge_model.c) loaded and written (merge_output.c).
 */
#include "results/merge.h"

#include <getopt.h>
#include <stdlib.h>

#include "results/results.h"

#define EXIT_USAGE 2

static int usage(FILE *out, int status)
{
	fputs("usage: tally merge [-j | -x SEP] FILE...\n"
	      "  the per-rank JSON results of one run (tally stat -j -o out.%r.json, TALLY_OUTPUT=r.%r.json)\n"
	      "  as one report: per event sum, mean, min and max (rank), stddev and imbalance, overall and per host\n"
	      "  -j, --json               one JSON document\n"
	      "  -x, --field-separator S  CSV with separator S\n"
	      "  -h, --help               this help\n",
	      out);
	return status;
}

int command_merge(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum merge_format format = MERGE_TABLE;
	const char *separator = ",";
	optind = 1;
	for (int opt; (opt = getopt_long(argc, argv, "+jx:h", longs, NULL)) != -1;) {
		switch (opt) {
		case 'j': format = MERGE_JSON; break;
		case 'x': format = MERGE_CSV; separator = optarg; break;
		case 'h': return usage(stdout, 0);
		default: return usage(stderr, EXIT_USAGE);
		}
	}
	if (optind == argc) {
		fputs("tally merge: no files to merge (give the per-rank JSON results: tally merge out.*.json)\n", stderr);
		return EXIT_USAGE;
	}
	if (format == MERGE_CSV && !*separator) {
		fputs("tally merge: -x needs a separator\n", stderr);
		return EXIT_USAGE;
	}
	struct merge m = { .size = -1 };
	int status = merge_load(&m, argv + optind, (size_t)(argc - optind));
	if (status == 0)
		merge_write(&m, format, separator, stdout);
	merge_free(&m);
	return status == 0 ? 0 : EXIT_USAGE;
}
