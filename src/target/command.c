/* SPDX-License-Identifier: MIT */
#include "target/command.h"

#include "core/error.h"
#include "core/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <tally/evlist.h>
#include <unistd.h>

extern char **environ;

/* The exit status of a child whose exec failed, as shells use it. */
#define EXEC_FAILED 127

/* Where the held child gave up; sent with its errno through the close-on-exec pipe. */
enum child_stage { STAGE_WAIT = 1, STAGE_SIGNALS, STAGE_PIN, STAGE_MASK, STAGE_EXEC };

struct child_failure {
	int stage;
	int err;
};

/* Everything the child needs, prepared by the parent before the spawn: between spawn and exec the child of
 * a process that may have threads can only make async-signal-safe calls, so no allocation, no PATH
 * parsing, no CPU list parsing there (execvp(3) itself is not on POSIX's list). The child shares the
 * parent's memory until its exec (tly_sys->spawn): the plan holds copies of argv and of the environment's
 * list, and stays, with the child's stack, until the child exec'd or was reaped. */
struct child_plan {
	char **argv;           /* a copy of the launch's argv (strings included) */
	char **envp;           /* the environment's list as it was at the launch */
	char **paths;          /* where to try argv[0], in $PATH order; one entry when it names a path */
	size_t nr_paths;
	bool searched;         /* the paths came from $PATH: ENOENT, EACCES, ... go on to the next one */
	char **script;         /* "/bin/sh", <path>, argv[1..]: a file without #! runs as a shell script */
	char *buf;             /* the paths' text */
	cpu_set_t cpus;
	bool pinned;
	int sigrtmin;          /* glibc reserves the signals below it (from 32) for itself */
	uint64_t ignored;      /* signals the command starts with ignored: bit n - 1 for signal n */
	bool inherit_signals;  /* only those of `ignored` are set; the exec resets the caught ones */
	int go_fd, err_fd;
	int go_parent, err_parent; /* the parent's ends, which the child closes */
	void *stack;           /* the child's stack (CHILD_STACK bytes), mapped */
};

/* The child's stack: run_child and exec_plan need a few hundred bytes; a fault would corrupt nothing of
 * the parent's, the mapping being the child's alone. */
#define CHILD_STACK (64 * 1024)

/* The parent's side goes through the syscall table (fault injection), and so do the child's calls. */
static void close_fd(int *fd)
{
	if (*fd >= 0)
		tly_sys->close(*fd);
	*fd = -1;
}

static void plan_free(struct child_plan *p)
{
	if (!p)
		return;
	if (p->stack)
		tly_sys->munmap(p->stack, CHILD_STACK);
	for (size_t i = 0; p->argv && p->argv[i]; i++)
		free(p->argv[i]);
	free(p->argv);
	free(p->envp);
	free(p->paths);
	free(p->script);
	free(p->buf);
	free(p);
}

/* Copies of argv and of the environment's list: the caller may free or change either while the child,
 * which shares its memory, waits for the release. */
static int plan_copy(struct child_plan *p, char *const argv[])
{
	size_t nargs = 0, nenv = 0;
	while (argv[nargs])
		nargs++;
	while (environ && environ[nenv])
		nenv++;
	p->argv = calloc(nargs + 1, sizeof(*p->argv));
	p->envp = calloc(nenv + 1, sizeof(*p->envp));
	if (!p->argv || !p->envp)
		return tly_error(-ENOMEM, "cannot launch '%s': out of memory", argv[0]);
	for (size_t i = 0; i < nargs; i++)
		if (!(p->argv[i] = strdup(argv[i])))
			return tly_error(-ENOMEM, "cannot launch '%s': out of memory", argv[0]);
	if (nenv)
		memcpy(p->envp, environ, nenv * sizeof(*p->envp));
	return 0;
}

/* The candidates execvp(3) would try: argv[0] itself when it holds a '/', else each directory of $PATH
 * ("/bin:/usr/bin" when unset; an empty entry is the current directory). */
static int plan_exec(struct child_plan *p, char *const argv[])
{
	size_t nargs = 0;
	while (argv[nargs])
		nargs++;
	const char *file = argv[0];
	p->searched = !strchr(file, '/');
	const char *path = p->searched ? getenv("PATH") : NULL;
	if (p->searched && !path)
		path = "/bin:/usr/bin";
	size_t dirs = 1;
	for (const char *c = path; c && *c; c++)
		dirs += *c == ':';
	size_t text = p->searched ? strlen(path) + dirs * (strlen(file) + 2) : strlen(file) + 1;
	p->paths = calloc(dirs, sizeof(*p->paths));
	p->script = calloc(nargs + 2, sizeof(*p->script));
	p->buf = malloc(text);
	if (!p->paths || !p->script || !p->buf)
		return tly_error(-ENOMEM, "cannot launch '%s': out of memory", file);
	p->script[0] = "/bin/sh";
	for (size_t i = 1; i < nargs; i++)
		p->script[i + 1] = argv[i];
	if (!*file) {
		p->nr_paths = 0; /* execvp(""): ENOENT */
		return 0;
	}
	if (!p->searched) {
		memcpy(p->buf, file, strlen(file) + 1);
		p->paths[p->nr_paths++] = p->buf;
		return 0;
	}
	char *out = p->buf;
	for (const char *dir = path;; dir++) {
		const char *end = strchrnul(dir, ':');
		p->paths[p->nr_paths++] = out;
		if (end > dir) {
			memcpy(out, dir, (size_t)(end - dir));
			out += end - dir;
			*out++ = '/';
		}
		out = stpcpy(out, file) + 1;
		if (!*end)
			break;
		dir = end;
	}
	return 0;
}

static int plan_pin(struct child_plan *p, struct tly_command *cmd, const char *pin)
{
	CPU_ZERO(&p->cpus);
	if (!pin)
		return 0;
	tally_cpus *cpus;
	int err = tally_cpus_parse(pin, &cpus);
	if (err)
		return err;
	for (size_t i = 0; i < tally_cpus_count(cpus); i++) {
		int cpu = tally_cpus_at(cpus, i);
		if (cpu >= 0 && cpu < CPU_SETSIZE)
			CPU_SET(cpu, &p->cpus);
	}
	tally_cpus_free(cpus);
	p->pinned = true;
	snprintf(cmd->pin, sizeof(cmd->pin), "%s", pin);
	return 0;
}

static void __attribute__((noreturn)) child_fail(const struct child_plan *p, int stage, int err)
{
	struct child_failure f = { .stage = stage, .err = err };
	/* A failed write: the parent is gone, or reads EOF and learns nothing more than the exit status says. */
	tly_sys->child_write(p->err_fd, &f, sizeof(f));
	_exit(EXEC_FAILED);
}

/* execvp(3)'s search with execve alone: the first path that execs wins; ENOEXEC (no #! line) runs the
 * file with /bin/sh; while searching $PATH, a directory that does not hold it (or may not be searched)
 * passes to the next, and EACCES is reported if no path worked and one of them said so. */
static int exec_plan(struct child_plan *p)
{
	int err = ENOENT;
	bool eacces = false;
	for (size_t i = 0; i < p->nr_paths; i++) {
		err = (int)-tly_sys->child_execve(p->paths[i], p->argv, p->envp);
		if (err == ENOEXEC) {
			p->script[1] = p->paths[i];
			err = (int)-tly_sys->child_execve(p->script[0], p->script, p->envp);
		}
		if (!p->searched)
			return err;
		if (err == EACCES)
			eacces = true;
		else if (err != ENOENT && err != ESTALE && err != ENOTDIR && err != ENODEV && err != ETIMEDOUT)
			return err;
	}
	return eacces ? EACCES : err;
}

/* In the child, every signal still blocked from the fork (so that no handler of the caller's runs here):
 * the wait for the go byte, then every disposition set: the default, or SIG_IGN for those the launch asks
 * to start ignored (an ignored signal stays ignored through exec; a handler would run here if its signal
 * came between the unmasking and the exec), the pinning, an empty mask and the exec. (Setting all of them,
 * about 60 calls, costs what finding the few that differ from /proc/self/status would: ~20 us. A launch
 * that inherits the dispositions sets only the ignored ones: its caller has no handler to run here.)
 * Whatever fails is reported at the release, after the wait, so that the events of a command target can
 * still be opened on this pid first. Only async-signal-safe calls, through the syscall table's errno-free
 * child calls (this runs in the parent's memory), and nothing written but the child's own stack. */
static int run_child(void *arg)
{
	struct child_plan *p = arg;
	/* The C library's close would write errno on a failure: the raw call's result is enough here.
	 * These are the parent's ends; a held copy of the go socket's would keep the child from seeing
	 * the parent's end as EOF. */
	tly_sys->child_close(p->go_parent);
	tly_sys->child_close(p->err_parent);
	char go;
	long n;
	do
		n = tly_sys->child_recv(p->go_fd, &go, 1);
	while (n == -EINTR);
	/* EOF without the byte: the parent is gone; leave without running anything. */
	if (n == 0)
		_exit(EXEC_FAILED);
	if (n < 0)
		child_fail(p, STAGE_WAIT, (int)-n);
	for (int sig = 1; sig < NSIG; sig++) {
		/* KILL and STOP cannot be changed; glibc refuses its own (32 up to SIGRTMIN) with EINVAL, and
		 * nothing can have made a process ignore them. */
		if (sig == SIGKILL || sig == SIGSTOP || (sig > SIGSYS && sig < p->sigrtmin) || sig > 64)
			continue;
		if (p->inherit_signals && !(p->ignored >> (sig - 1) & 1))
			continue;
		long err = tly_sys->child_signal(sig, p->ignored >> (sig - 1) & 1);
		if (err < 0)
			child_fail(p, STAGE_SIGNALS, (int)-err);
	}
	long err = p->pinned ? tly_sys->child_pin(&p->cpus) : 0;
	if (err < 0)
		child_fail(p, STAGE_PIN, (int)-err);
	if ((err = tly_sys->child_unblock()) < 0)
		child_fail(p, STAGE_MASK, (int)-err);
	child_fail(p, STAGE_EXEC, exec_plan(p));
}

int tly_command_fork(struct tly_command *cmd, const struct tly_launch *launch)
{
	char *const *argv = launch->argv;
	memset(cmd, 0, sizeof(*cmd));
	cmd->go_fd = cmd->exec_err_fd = -1;
	if (!argv || !argv[0])
		return tly_error(-EINVAL, "no command to launch: argv is empty");
	snprintf(cmd->name, sizeof(cmd->name), "%s", argv[0]);

	struct child_plan *plan = calloc(1, sizeof(*plan));
	if (!plan)
		return tly_error(-ENOMEM, "cannot launch '%s': out of memory", argv[0]);
	plan->sigrtmin = SIGRTMIN;
	plan->ignored = launch->ignored;
	plan->inherit_signals = launch->inherit_signals;
	int err = plan_pin(plan, cmd, launch->pin);
	if (err)
		tly_error_append(" (pinning '%s')", argv[0]);
	if (!err)
		err = plan_copy(plan, argv);
	if (!err)
		err = plan_exec(plan, argv);
	if (!err) {
		void *stack = tly_sys->mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
		                            -1, 0);
		if (stack == MAP_FAILED)
			err = tly_error(-errno, "cannot launch '%s': mapping its stack: %s", argv[0], tally_strerror(errno));
		else
			plan->stack = stack;
	}
	if (err) {
		plan_free(plan);
		return err;
	}
	/* The go channel is a socket pair, not a pipe: the release's send(MSG_NOSIGNAL) to a child that died
	 * before it fails with EPIPE, where a write to a pipe would raise SIGPIPE, whose default action kills
	 * the process that uses libtally. */
	int go[2], errp[2];
	if (tly_sys->socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) < 0) {
		int e = errno;
		plan_free(plan);
		return tly_error(-e, "cannot launch '%s': socketpair: %s", argv[0], tally_strerror(e));
	}
	if (tly_sys->pipe2(errp, O_CLOEXEC) < 0) {
		int e = errno;
		close_fd(&go[0]);
		close_fd(&go[1]);
		plan_free(plan);
		return tly_error(-e, "cannot launch '%s': pipe: %s", argv[0], tally_strerror(e));
	}
	plan->go_fd = go[0];
	plan->err_fd = errp[1];
	plan->go_parent = go[1];
	plan->err_parent = errp[0];
	/* Every signal blocked across the spawn, so that none reaches the child while it still has the
	 * caller's handlers; the child unblocks them only for its exec. (pthread_sigmask with a full set
	 * cannot fail; it stays out of the syscall table, whose calls in the child are the child's.) */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid_t pid = tly_sys->spawn(run_child, plan, (char *)plan->stack + CHILD_STACK);
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close_fd(&go[0]);
	close_fd(&errp[1]);
	if (pid < 0) {
		close_fd(&go[1]);
		close_fd(&errp[0]);
		plan_free(plan);
		return tly_error(-e, "cannot launch '%s': fork: %s", argv[0], tally_strerror(e));
	}
	cmd->pid = pid;
	cmd->go_fd = go[1];
	cmd->exec_err_fd = errp[0];
	cmd->plan = plan;
	return 0;
}

/* Frees what the child used, once it no longer runs in the parent's memory (it exec'd, or was reaped). */
static void child_done(struct tly_command *cmd)
{
	plan_free(cmd->plan);
	cmd->plan = NULL;
}

/* The last-error text of a failure of the child's side. */
static int child_error(const struct tly_command *cmd, const struct child_failure *f)
{
	const char *name = cmd->name, *why = tally_strerror(f->err);
	switch (f->stage) {
	case STAGE_SIGNALS:
		return tly_error(-f->err, "cannot start '%s': resetting its signal dispositions: %s (the command "
		                 "exits with %d)", name, why, EXEC_FAILED);
	case STAGE_PIN:
		return tly_error(-f->err, "cannot pin '%s' to CPUs %s: %s (the command exits with %d)", name,
		                 cmd->pin, why, EXEC_FAILED);
	case STAGE_WAIT:
		return tly_error(-f->err, "cannot start '%s': waiting for its release: %s (the command exits with "
		                 "%d)", name, why, EXEC_FAILED);
	case STAGE_MASK:
		return tly_error(-f->err, "cannot start '%s': clearing its signal mask: %s (the command exits with "
		                 "%d)", name, why, EXEC_FAILED);
	default:
		return tly_error(-f->err, "cannot run '%s': %s (the command exits with %d)", name, why,
		                 EXEC_FAILED);
	}
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
	bool sent = n == 1;
	int werr = errno;
	close_fd(&cmd->go_fd);
	cmd->released = true;

	/* The pipe's write end closes at a successful exec (O_CLOEXEC): EOF. Otherwise where the child gave
	 * up and its errno: also when the release found it gone (EPIPE), since a child whose wait for the
	 * release failed at once says why and exits before the release is sent. */
	struct child_failure f = { 0, 0 };
	do
		n = tly_sys->read(cmd->exec_err_fd, &f, sizeof(f));
	while (n < 0 && errno == EINTR);
	int rerr = errno;
	close_fd(&cmd->exec_err_fd);
	/* EOF: the child exec'd (or died), and runs no more in this process's memory. */
	if (n == 0)
		child_done(cmd);
	if (n == (ssize_t)sizeof(f) && f.err > 0)
		return child_error(cmd, &f);
	if (!sent)
		return tly_error(-werr, "cannot start '%s': the launched child is gone (%s)", name,
		                 tally_strerror(werr));
	if (n < 0)
		return tly_error(-rerr, "cannot tell whether '%s' started: reading its exec status: %s", name,
		                 tally_strerror(rerr));
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
	cmd->rusage = ru;
	cmd->exit.user_s = timeval_s(ru.ru_utime);
	cmd->exit.sys_s = timeval_s(ru.ru_stime);
	child_done(cmd);
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
	/* Reaped, or gone where this process cannot wait for it (another waiter reaped it): it runs no more
	 * in this memory either way. */
	child_done(cmd);
	cmd->pid = 0;
}
