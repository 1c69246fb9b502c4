/* SPDX-License-Identifier: MIT */
/*
 * The floor for any tool that counts a command: fork, one perf group (task-clock, enable_on_exec and
 * inherit, so the count starts at the exec and takes in the command's children), exec, wait, one read,
 * one line printed. Nothing is parsed, looked up or explained; bench_cli divides tally's start-up by this.
 *
 *   floor_launcher COMMAND [ARG...]
 *
 * As tally does, the child is held on a pipe while the parent opens the counter for its pid (enable_on_exec
 * needs the counter in place before the exec), then released. Exit status: the command's, 127 when it cannot be
 * run, 1 when the counter cannot be opened or read.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: floor_launcher COMMAND [ARG...]\n");
		return 2;
	}
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
		.disabled = 1,
		.enable_on_exec = 1,
		.inherit = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int ready[2];
	if (pipe(ready) < 0)
		return 1;
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		char go;
		close(ready[1]);
		/* Held until the parent has the counter open: enable_on_exec needs the counter before exec. */
		if (read(ready[0], &go, 1) != 1)
			_exit(127);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	close(ready[0]);
	int fd = (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (write(ready[1], "g", 1) != 1)
		return 1;
	close(ready[1]);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	uint64_t counts[3];
	if (fd < 0 || read(fd, counts, sizeof(counts)) != (ssize_t)sizeof(counts)) {
		fprintf(stderr, "floor_launcher: cannot count task-clock: %s\n", strerror(errno));
		return 1;
	}
	fprintf(stderr, "%llu task-clock (ns)\n", (unsigned long long)counts[0]);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
