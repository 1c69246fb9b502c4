/* SPDX-License-Identifier: MIT */
#include "command.h"

#include "error.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* The exit status of a child whose exec failed, as shells use it. */
#define EXEC_FAILED 127

/* The parent's side goes through the syscall table (fault injection); the child's calls the C library. */
static void close_fd(int *fd)
{
	if (*fd >= 0)
		tly_sys->close(*fd);
	*fd = -1;
}

/* In the child: wait for the go byte, then exec; any failure goes back through the error pipe. Only
 * async-signal-safe calls here (the parent may have threads). */
static void __attribute__((noreturn)) run_child(int go_fd, int err_fd, char *const argv[])
{
	char go;
	ssize_t n;
	do
		n = read(go_fd, &go, 1);
	while (n < 0 && errno == EINTR);
	/* EOF without the byte: the parent is gone; leave without running anything. */
	if (n != 1)
		_exit(EXEC_FAILED);
	execvp(argv[0], argv);
	int err = errno;
	ssize_t w = write(err_fd, &err, sizeof(err));
	(void)w;
	_exit(EXEC_FAILED);
}

int tly_command_fork(struct tly_command *cmd, char *const argv[])
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->go_fd = cmd->exec_err_fd = -1;
	if (!argv || !argv[0])
		return tly_error(-EINVAL, "no command to launch: argv is empty");

	snprintf(cmd->name, sizeof(cmd->name), "%s", argv[0]);
	/* The go channel is a socket pair, not a pipe: the release's send(MSG_NOSIGNAL) to a child that died
	 * before it fails with EPIPE, where a write to a pipe would raise SIGPIPE, whose default action kills
	 * the process that uses libtally. */
	int go[2], err[2];
	if (tly_sys->socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) < 0)
		return tly_error(-errno, "cannot launch '%s': socketpair: %s", argv[0], tally_strerror(errno));
	if (tly_sys->pipe2(err, O_CLOEXEC) < 0) {
		int e = errno;
		close_fd(&go[0]);
		close_fd(&go[1]);
		return tly_error(-e, "cannot launch '%s': pipe: %s", argv[0], tally_strerror(e));
	}
	pid_t pid = tly_sys->fork();
	if (pid < 0) {
		int e = errno;
		close_fd(&go[0]);
		close_fd(&go[1]);
		close_fd(&err[0]);
		close_fd(&err[1]);
		return tly_error(-e, "cannot launch '%s': fork: %s", argv[0], tally_strerror(e));
	}
	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		run_child(go[0], err[1], argv);
	}
	close_fd(&go[0]);
	close_fd(&err[1]);
	cmd->pid = pid;
	cmd->go_fd = go[1];
	cmd->exec_err_fd = err[0];
	return 0;
}

int tly_command_release(struct tly_command *cmd)
{
	const char *name = cmd->name;
	if (cmd->released)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &cmd->started);
	char go = 1;
	ssize_t n;
	do
		n = send(cmd->go_fd, &go, 1, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	int werr = errno;
	close_fd(&cmd->go_fd);
	cmd->released = true;
	if (n != 1)
		return tly_error(-werr, "cannot start '%s': the launched child is gone (%s)", name, tally_strerror(werr));

	/* The pipe's write end closes at a successful exec (O_CLOEXEC): EOF. Otherwise the child's errno. */
	int child_err = 0;
	do
		n = tly_sys->read(cmd->exec_err_fd, &child_err, sizeof(child_err));
	while (n < 0 && errno == EINTR);
	int rerr = errno;
	close_fd(&cmd->exec_err_fd);
	if (n < 0)
		return tly_error(-rerr, "cannot tell whether '%s' started: reading its exec status: %s", name,
		                 tally_strerror(rerr));
	if (n == (ssize_t)sizeof(child_err) && child_err > 0)
		return tly_error(-child_err, "cannot run '%s': %s (the command exits with %d)", name,
		                 tally_strerror(child_err), EXEC_FAILED);
	return 0;
}

static double timeval_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int tly_command_wait(struct tly_command *cmd)
{
	if (cmd->reaped)
		return 0;
	int status;
	struct rusage ru;
	pid_t got;
	do
		got = tly_sys->wait4(cmd->pid, &status, 0, &ru);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return tly_error(-errno, "waiting for command %d: %s", (int)cmd->pid, tally_strerror(errno));
	struct timespec end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	cmd->reaped = true;
	cmd->exit.pid = cmd->pid;
	cmd->exit.status = status;
	cmd->exit.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	cmd->exit.wall_s = cmd->released ? (double)(end.tv_sec - cmd->started.tv_sec) +
	                                           (double)(end.tv_nsec - cmd->started.tv_nsec) / 1e9
	                                 : 0;
	cmd->exit.user_s = timeval_s(ru.ru_utime);
	cmd->exit.sys_s = timeval_s(ru.ru_stime);
	return 0;
}

void tly_command_end(struct tly_command *cmd)
{
	/* An unreleased child runs none of its own code yet: kill it. Closing our go socket alone is no
	 * signal while another child forked later (another counter's command, still held) keeps a copy of it
	 * until its own exec; waiting for the EOF would hang. */
	if (cmd->pid > 0 && !cmd->released && !cmd->reaped)
		kill(cmd->pid, SIGKILL);
	close_fd(&cmd->go_fd);
	close_fd(&cmd->exec_err_fd);
	if (cmd->pid > 0 && !cmd->reaped)
		tly_command_wait(cmd);
	cmd->pid = 0;
}
