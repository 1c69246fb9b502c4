/* SPDX-License-Identifier: MIT */
/*
 * One rank's results as tally merge reads them back: a `tally stat -j` document (schema 3, its closing
 * events and its regions object when --regions wrote one) or the regions' own JSON (TALLY_OUTPUT=*.json,
 * version 2). Every way a file can be unfit says so with its own message, naming the file; a file of
 * another version is read no further than its kind and version, for the caller to say how the files differ.
 */
#ifndef TALLY_TOOLS_MERGE_INPUT_H
#define TALLY_TOOLS_MERGE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/json_reader.h"
#include "report/report.h"

/* The schema versions tally merge reads (output.h and src/region/region_write.c write them). */
#define MERGE_STAT_SCHEMA 3
#define MERGE_REGIONS_VERSION 2

enum merge_kind { MERGE_STAT, MERGE_REGIONS };

/* One event's value on one rank (a display value: scaled × unit_scale, msec for task-clock). */
struct merge_value {
	double value;
	enum report_status status;
};

struct merge_region {
	char *name;
	uint64_t calls;
	struct merge_value *values; /* one per region event: the sum over the rank's threads */
};

struct merge_rank {
	const char *file;
	enum merge_kind kind;
	int version;               /* schema_version, or the regions object's version */
	bool supported;            /* the version is the one read: only then is the rest filled */
	long rank, size;           /* -1: null in the file */
	char *host, *job;          /* job NULL when null */
	size_t nr_events;
	char **event_names, **units;
	struct merge_value *values;
	bool has_regions;          /* a regions object (null or absent for a stat file without --regions) */
	size_t nr_region_events;
	char **region_event_names;
	size_t nr_regions;
	struct merge_region *regions;
};

/* Reads file into *out. 0, or -1 after a message on stderr ("tally merge: FILE: why"). */
int merge_input_read(const char *file, struct merge_rank *out);

/* The rank's results from a parsed document that came from `file` (the name is only for messages): what
 * merge_input_read does once the file is read. 0, or -1 after a message. */
int merge_input_from(const char *file, const struct json_value *doc, struct merge_rank *out);

void merge_input_free(struct merge_rank *r);

#endif
