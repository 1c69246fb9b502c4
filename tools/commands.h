/* SPDX-License-Identifier: MIT */
/* The subcommands of tally: each takes its own argv (argv[0] is the subcommand's name) and returns the
 * process's exit status. */
#ifndef TALLY_TOOLS_COMMANDS_H
#define TALLY_TOOLS_COMMANDS_H

int command_stat(int argc, char **argv);
int command_list(int argc, char **argv);
int command_doctor(int argc, char **argv);
int command_encode(int argc, char **argv);
int command_merge(int argc, char **argv);
int command_compare(int argc, char **argv);
int command_exporter(int argc, char **argv);

#endif
