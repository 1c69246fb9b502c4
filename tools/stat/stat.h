/* SPDX-License-Identifier: MIT */
/* tally stat: counts a command, threads, CPUs or cgroups. Takes its own argv (argv[0] is "stat") and
 * returns the process's exit status, as every command does. */
#ifndef TALLY_TOOLS_STAT_H
#define TALLY_TOOLS_STAT_H

int command_stat(int argc, char **argv);

#endif
