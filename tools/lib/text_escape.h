/* SPDX-License-Identifier: MIT */
/*
 * Text from outside (event names as the user wrote them, thread names a process chose, the command's
 * argv) on its way to a terminal or a CSV file: a control byte in it could move the cursor, retitle the
 * terminal or end a CSV record. Control characters (C0, DEL, C1) and bytes that are not valid UTF-8 are
 * written as \xHH (a C1 character as the \xHH of each of its bytes), a backslash as \\ so that the
 * escape stays unambiguous; everything else passes unchanged.
 */
#ifndef TALLY_TOOLS_TEXT_ESCAPE_H
#define TALLY_TOOLS_TEXT_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Writes s escaped to out; returns the number of bytes written (for padding a column). */
size_t text_escape_write(FILE *out, const char *s);

/* The same for a field of a record split on sep (CSV, -x): where sep occurs in s, its first byte is
 * written as \xHH, so that no field holds the separator. */
void text_escape_field(FILE *out, const char *s, const char *sep);

/* The same for a text of several lines (an explanation): its newlines pass unchanged. */
void text_escape_lines(FILE *out, const char *s);

/* Writes s escaped, then spaces up to width bytes (as printf's "%-*s" pads). */
void text_escape_pad(FILE *out, const char *s, size_t width);

#endif
