/* SPDX-License-Identifier: MIT */
/* The commands that describe without counting: tally list, tally doctor, tally encode. Each takes its own
 * argv (argv[0] is the command's name) and returns the process's exit status. */
#ifndef TALLY_TOOLS_DESCRIBE_H
#define TALLY_TOOLS_DESCRIBE_H

int command_list(int argc, char **argv);
int command_doctor(int argc, char **argv);
int command_encode(int argc, char **argv);

#endif
