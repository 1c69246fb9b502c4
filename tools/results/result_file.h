/* SPDX-License-Identifier: MIT */
/*
 * A tally JSON result file read back whole and parsed strictly (json_reader.h), for tally merge and tally
 * compare: a file that cannot be read, is empty, was cut short or is not JSON is said on stderr as
 * "tally COMMAND: FILE: why", each case in its own words.
 */
#ifndef TALLY_TOOLS_RESULT_FILE_H
#define TALLY_TOOLS_RESULT_FILE_H

#include <stddef.h>

#include "lib/json_reader.h"

/* Reads file into *doc (free it with json_value_free). 0, or -1 after the message. */
int result_file_read(const char *command, const char *file, struct json_value *doc);

/* Parses text[0 .. len) that came from file (the name is for the message) into *doc. 0, or -1 after the
 * message. */
int result_file_parse(const char *command, const char *file, const char *text, size_t len, struct json_value *doc);

/* "tally COMMAND: FILE: " and the formatted rest, on stderr, as every message about a file. Returns -1. */
int result_file_error(const char *command, const char *file, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
