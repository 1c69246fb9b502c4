/* SPDX-License-Identifier: MIT */
#include "lib/signals.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The self-pipe: a signal handler can reach nothing else. Process-wide by nature (signals are). */
static int signal_pipe[2] = { -1, -1 };
/* The signals tally catches, and which of them tally's parent had left ignored (seen as the handlers went
 * in): bit n - 1 for signal n. */
static uint64_t replaced, replaced_ignored;
static bool installed;

static void on_signal(int signo)
{
	int saved = errno;
	unsigned char byte = (unsigned char)signo;
	ssize_t ignored = write(signal_pipe[1], &byte, 1);
	(void)ignored; /* a full pipe already holds a wake-up */
	errno = saved;
}

int signals_install(void)
{
	if (installed)
		return 0;
	if (signal_pipe[0] < 0 && pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD };
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		struct sigaction old;
		if (sigaction(signals[i], &sa, &old) < 0)
			return -errno;
		uint64_t bit = (uint64_t)1 << (signals[i] - 1);
		replaced |= bit;
		if (old.sa_handler == SIG_IGN)
			replaced_ignored |= bit;
		/* A SIGHUP that tally's parent ignores (nohup) stays ignored. Not SIGINT: a script's background
		 * job inherits it ignored, and `kill -INT` must still stop that tally. */
		if (signals[i] == SIGHUP && old.sa_handler == SIG_IGN && sigaction(SIGHUP, &old, NULL) < 0)
			return -errno;
	}
	installed = true;
	return 0;
}

bool signals_installed(void)
{
	return installed;
}

uint64_t signals_inherited_ignored(void)
{
	/* The signals tally did not touch still have the dispositions it inherited: asked once, when a
	 * command is first launched with the handlers in place (-r), one sigaction query each. */
	static bool asked;
	static uint64_t inherited;
	if (!asked) {
		inherited = replaced_ignored;
		for (int sig = 1; sig <= 64 && sig < NSIG; sig++) {
			struct sigaction now;
			if (!(replaced >> (sig - 1) & 1) && sigaction(sig, NULL, &now) == 0 && now.sa_handler == SIG_IGN)
				inherited |= (uint64_t)1 << (sig - 1);
		}
		asked = true;
	}
	return inherited;
}

int signals_wait(int timeout_ms)
{
	struct pollfd pfd = { .fd = signal_pipe[0], .events = POLLIN };
	int ready = poll(&pfd, 1, timeout_ms);
	if (ready <= 0)
		return 0;
	unsigned char byte;
	if (read(signal_pipe[0], &byte, 1) != 1)
		return 0;
	return byte;
}

int signals_fd(void)
{
	return signal_pipe[0];
}

bool signals_ends_run(int signo)
{
	return signo == SIGINT || signo == SIGTERM || signo == SIGHUP || signo == SIGPIPE;
}

bool signals_child_exited(pid_t pid)
{
	siginfo_t info;
	memset(&info, 0, sizeof(info));
	/* WNOWAIT: only look; the library, which launched the child, reaps it. */
	if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD;
	return info.si_pid == pid;
}
