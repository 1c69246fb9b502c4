/* SPDX-License-Identifier: MIT */
/*
 * Runs a program of the initramfs (an example, the tally CLI, the loop workload) and captures what it
 * prints, for the suite's cases to check.
 */
#ifndef TALLY_ARM64_PROGRAM_H
#define TALLY_ARM64_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>

/* Runs argv[0] (a path) with argv, its standard output captured into out (NUL-terminated, cut at
 * len - 1), and its standard error too when with_stderr (the CLI prints its results there, as perf
 * does; the examples' stderr carries log lines that their checks do not parse). Returns the exit status,
 * 128 + the signal that killed it, or a negative errno when it could not be started. */
int run_program(char *const argv[], bool with_stderr, char *out, size_t len);

#endif
