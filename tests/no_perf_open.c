/* SPDX-License-Identifier: MIT */
/* Test helper (not a test itself): runs a command with perf_event_open(2) forbidden by a seccomp filter
 * that kills the process at its first call (SIGSYS), so that a command that exits normally under it made
 * no such call, whatever perf_event_paranoid or the PMUs allow. Usage: no_perf_open [--refuse] COMMAND
 * [ARGS...]. With --refuse every call fails with EACCES instead, as for a user without CAP_PERFMON at
 * perf_event_paranoid 3 (Debian's kernels' default, so a package's build machine): what must then skip.
 * Exits 77 (skip) when the kernel refuses the filter. The filter matches the native system call number
 * only: tally makes no 32-bit (x32, i386) calls. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int refuse = argc > 1 && strcmp(argv[1], "--refuse") == 0;
	if (argc < 2 + refuse) {
		fprintf(stderr, "usage: %s [--refuse] COMMAND [ARGS...]\n", argv[0]);
		return 2;
	}
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, refuse ? SECCOMP_RET_ERRNO | EACCES : SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(filter) / sizeof(filter[0]), .filter = filter };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		fprintf(stderr, "no_perf_open: seccomp refused: %s\n", strerror(errno));
		return 77;
	}
	execvp(argv[1 + refuse], argv + 1 + refuse);
	fprintf(stderr, "no_perf_open: %s: %s\n", argv[1 + refuse], strerror(errno));
	return 127;
}
