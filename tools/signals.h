/* SPDX-License-Identifier: MIT */
/*
 * SIGINT, SIGTERM and SIGCHLD as readable events: handlers write the signal number into a close-on-exec
 * self-pipe that the wait loop polls with a timeout (for -I ticks and --duration). Handlers rather than
 * blocked signals, because a blocked mask would be inherited by the command through fork and exec, while
 * handlers are reset to the default at exec.
 */
#ifndef TALLY_TOOLS_SIGNALS_H
#define TALLY_TOOLS_SIGNALS_H

#include <stdbool.h>

/* Installs the handlers (SA_RESTART) and creates the pipe. Returns 0 or -errno. */
int signals_install(void);

/* Waits up to timeout_ms (-1: forever) for a signal. Returns its number, 0 on timeout. */
int signals_wait(int timeout_ms);

#endif
