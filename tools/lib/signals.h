/* SPDX-License-Identifier: MIT */
/*
 * The signals tally stat reacts to, as readable events: SIGINT, SIGTERM, SIGHUP and SIGPIPE end the run,
 * SIGCHLD wakes the wait for the command. Handlers write the signal number into a close-on-exec
 * self-pipe that the wait loop polls with a timeout (for -I ticks and --duration). Handlers rather than
 * blocked or ignored signals: the command starts with the dispositions tally's parent left and an empty
 * mask anyway (a handler is reset by the exec; the library's launcher empties the mask), and a handled
 * SIGPIPE turns a write to a closed pipe into EPIPE instead of killing tally before it can end the
 * command.
 */
#ifndef TALLY_TOOLS_SIGNALS_H
#define TALLY_TOOLS_SIGNALS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Installs the handlers (SA_RESTART), except for a SIGHUP that is ignored already (nohup: it stays
 * ignored), and creates the pipe; once. Returns 0 or -errno. tally stat installs them once its first
 * command is forked: that command then inherits tally's parent's dispositions untouched, so the
 * library's launcher has to set none of them (tally_target.inherit_signals). */
int signals_install(void);

/* Whether signals_install has run. */
bool signals_installed(void);

/* The signals tally's parent left ignored (nohup's SIGHUP, a background job's SIGINT and SIGQUIT), bit
 * n - 1 for signal n: a command launched once tally's handlers are in place (the runs of -r after the
 * first) starts with them ignored, as it would under perf or the shell alone. */
uint64_t signals_inherited_ignored(void);

/* Waits up to timeout_ms (-1: forever; 0: only looks) for a signal. Returns its number, 0 on timeout. */
int signals_wait(int timeout_ms);

/* The self-pipe's read end: readable while a signal waits to be taken by signals_wait. */
int signals_fd(void);

/* Whether signo is one of those that end tally stat (INT, TERM, HUP, PIPE). */
bool signals_ends_run(int signo);

/* Whether the child pid has exited (the SIGCHLD that wakes signals_wait may be another child's, or come
 * before the exit is visible): looks without reaping it, which is for the library that launched it. */
bool signals_child_exited(pid_t pid);

#endif
