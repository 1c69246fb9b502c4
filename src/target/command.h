/* SPDX-License-Identifier: MIT */
/*
 * A command that tally launches. It is forked first and held before exec, so that events can be opened on
 * its pid (with enable_on_exec) before it runs any of its own code, or be enabled elsewhere before it
 * starts; then released. It starts with an empty signal mask, every signal at its default disposition,
 * and, when asked, pinned to a set of CPUs.
 */
#ifndef TLY_COMMAND_H
#define TLY_COMMAND_H

#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <tally/counter.h>
#include <time.h>

struct tly_command {
	pid_t pid;            /* 0 when there is no child */
	int go_fd;            /* our end of the socket pair the child waits on; -1 once released */
	int exec_err_fd;      /* read end of the child's close-on-exec pipe: EOF means the exec happened */
	char name[256];       /* argv[0], for messages */
	char pin[64];         /* the CPU list it is pinned to, for messages; "" when not pinned */
	struct timespec started;
	bool released;
	bool reaped;
	struct tally_exit exit;
	struct rusage rusage; /* of the reaped child: the tool events' user_time, system_time in full */
	struct child_plan *plan; /* what the child reads and runs on until its exec: kept until then */
};

/* What to launch and how (tally_target's argv, pin and ignored). */
struct tly_launch {
	char *const *argv;
	const char *pin;              /* a CPU list to pin the command to; NULL: no pinning */
	uint64_t ignored;             /* signals the command starts with ignored: bit n - 1 for signal n */
	bool inherit_signals;         /* set only those of `ignored`, leave the others to the exec */
};

/* Forks the child, which waits for a byte on a socket, sets every signal to its default disposition (those
 * of `ignored` to SIG_IGN; with inherit_signals, those of `ignored` only) and empties its mask, pins itself to the CPUs of the list `pin` and execs
 * argv as execvp(3) would: argv[0] searched in $PATH, a file without a #! line run by /bin/sh. A bad pin
 * list: -EINVAL, nothing forked. */
int tly_command_fork(struct tly_command *cmd, const struct tly_launch *launch);

/* Lets the child exec. Returns 0 once the exec happened, or the failure of the child's side (the exec's
 * -ENOENT, -EACCES, ...; a pinning or signal-reset failure; the child then exits with 127), with a
 * last-error text naming the command. */
int tly_command_release(struct tly_command *cmd);

/* Waits for the released child to exit (retrying EINTR) and fills cmd->exit. */
int tly_command_wait(struct tly_command *cmd);

/* Ends a child: one that was never released is killed (SIGKILL: it has run nothing of its own) and
 * reaped; a released one that has not been waited for is waited for. Closes the descriptors. */
void tly_command_end(struct tly_command *cmd);

#endif
