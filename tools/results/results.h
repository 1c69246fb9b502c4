/* SPDX-License-Identifier: MIT */
/* The commands over result files: tally merge and tally compare. Each takes its own argv (argv[0] is the
 * command's name) and returns the process's exit status. */
#ifndef TALLY_TOOLS_RESULTS_H
#define TALLY_TOOLS_RESULTS_H

int command_merge(int argc, char **argv);
int command_compare(int argc, char **argv);

#endif
