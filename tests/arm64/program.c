/* SPDX-License-Identifier: MIT */
#include "program.h"

#include <errno.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int run_program(char *const argv[], bool with_stderr, char *out, size_t len)
{
	int pipefd[2];
	if (pipe(pipefd) != 0)
		return -errno;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], STDOUT_FILENO);
		if (with_stderr)
			dup2(pipefd[1], STDERR_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	int err = pid < 0 ? -errno : 0;
	close(pipefd[1]);
	/* Read to the end even past len, so that a talkative program never blocks on a full pipe. */
	size_t used = 0;
	char discard[512];
	for (;;) {
		bool room = used < len - 1;
		ssize_t got = read(pipefd[0], room ? out + used : discard, room ? len - 1 - used : sizeof(discard));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (room)
			used += (size_t)got;
	}
	out[used] = '\0';
	close(pipefd[0]);
	if (err)
		return err;
	int status = 0;
	if (waitpid(pid, &status, 0) != pid)
		return -ECHILD;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
