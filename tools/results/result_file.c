/* SPDX-License-Identifier: MIT */
/* Reading a tally JSON result file back (result_file.h). */
#include "results/result_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <tally/common.h>

#include "lib/text_escape.h"

/* Result files are small (one stat document, or a program's regions); a bigger one is not a result. */
#define RESULT_FILE_MAX (256u << 20)

int result_file_error(const char *command, const char *file, const char *fmt, ...)
{
	/* The file's name and what the message quotes from it (event names, member names) are outside text on
	 * its way to a terminal: escaped. */
	char *text;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	fprintf(stderr, "tally %s: ", command);
	text_escape_write(stderr, file);
	fputs(": ", stderr);
	text_escape_write(stderr, text ? text : fmt);
	fputc('\n', stderr);
	free(text);
	return -1;
}

int result_file_parse(const char *command, const char *file, const char *text, size_t len, struct json_value *doc)
{
	struct json_read_error err;
	if (json_read(text, len, doc, &err) == 0)
		return 0;
	if (err.truncated)
		return result_file_error(command, file, "truncated: the JSON ends after %zu bytes, inside the document "
		                         "(was it still being written?)", len);
	return result_file_error(command, file, "not JSON: %s at line %zu, column %zu", err.message, err.line,
	                         err.column);
}

int result_file_read(const char *command, const char *file, struct json_value *doc)
{
	FILE *f = fopen(file, "re");
	if (!f)
		return result_file_error(command, file, "cannot open: %s", tally_strerror(errno));
	struct stat st;
	size_t cap = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size < RESULT_FILE_MAX
	                     ? (size_t)st.st_size + 1 : RESULT_FILE_MAX;
	char *text = malloc(cap);
	size_t len = text ? fread(text, 1, cap, f) : 0;
	int read_error = ferror(f) ? errno : 0;
	fclose(f);
	int status;
	if (!text)
		status = result_file_error(command, file, "out of memory");
	else if (read_error)
		status = result_file_error(command, file, "cannot read: %s", tally_strerror(read_error));
	else if (len == cap)
		status = result_file_error(command, file, "larger than 256 MiB, or growing while read: not a finished "
		                           "tally result");
	else
		status = result_file_parse(command, file, text, len, doc);
	free(text);
	return status;
}
