/* SPDX-License-Identifier: MIT */
/*
 * The command of `tally stat -a -- command` (or -C, -p, -t): the events are opened on CPUs or on other
 * processes, not on the command, so the command is an ordinary child here that only decides how long
 * counting lasts (a command target is launched by the library instead).
 */
#ifndef TALLY_TOOLS_LAUNCH_H
#define TALLY_TOOLS_LAUNCH_H

#include <sys/types.h>

#include <tally/evlist.h>

/* Starts argv (searched in $PATH), pinned to cpus unless that is NULL. Returns the pid, or -errno when it
 * could not be executed. */
pid_t launch_command(char *const *argv, const tally_cpus *cpus);

/* Pins an existing process to the CPUs. Returns 0 or -errno. */
int launch_pin(pid_t pid, const tally_cpus *cpus);

/* Waits for pid; returns its exit code (128 + signal when killed, 127 when it could not exec) and its
 * CPU times in seconds. */
int launch_wait(pid_t pid, double *user, double *sys);

#endif
