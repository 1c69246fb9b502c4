/* SPDX-License-Identifier: MIT */
/*
 * A privileged program embedding libtally ignores TALLY_SYSFS_ROOT and TALLY_PROCFS_ROOT: they come from
 * the unprivileged caller, whose tree could make the program read (and echo in an error) a file only it
 * may read. The test copies itself, makes the copy set-uid root, and runs it as nobody (setpriv) with both
 * variables pointing at a tree whose files link to a root-only secret; the copy prints what the library
 * read. The same copy without the set-uid bit shows the variables are honoured for an ordinary process.
 *
 * Needs root (to make a set-uid root file), setpriv, and a filesystem mounted without nosuid: SKIP
 * otherwise, with the reason.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tally/common.h>
#include <tally/pmu.h>
#include <tally/probe.h>

#define SECRET "TALLY-SECRET-4242"
#define NOBODY "65534"

static char dir[64];

/* "<dir>/<rel>" into out (PATH_MAX bytes); false when it does not fit. */
static bool in_dir(char *out, const char *rel)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", dir, rel);
	return n > 0 && n < PATH_MAX;
}

/* The copy's side: what the library read from the default roots, on stdout. */
static int child(void)
{
	tally_pmus *pmus;
	if (tally_pmus_load(NULL, &pmus) < 0) {
		printf("load failed: %s\n", tally_last_error());
	} else {
		for (size_t i = 0; i < tally_pmus_count(pmus); i++) {
			const tally_pmu *pmu = tally_pmus_at(pmus, i);
			struct tally_pmu_info info = { .sz = sizeof(info) };
			if (tally_pmu_get_info(pmu, &info) < 0) {
				printf("pmu %zu: %s\n", i, tally_last_error());
				continue;
			}
			printf("pmu %s\n", info.name);
			for (size_t k = 0; k < info.nr_aliases; k++) {
				struct tally_alias_info alias = { .sz = sizeof(alias) };
				if (tally_pmu_alias_at(pmu, k, &alias) == 0)
					printf("  %s = %s\n", alias.name, alias.terms);
				else
					printf("  alias %zu: %s\n", k, tally_last_error());
			}
		}
		tally_pmus_free(pmus);
	}
	struct tally_facts f = { .sz = sizeof(f) };
	if (tally_facts_probe(NULL, &f) == 0)
		printf("cpu model: %s\npmus: %s\n", f.cpu_model, f.pmu_names);
	return 0;
}

static bool put_file(const char *rel, const char *text, mode_t mode)
{
	char path[PATH_MAX];
	if (!in_dir(path, rel))
		return false;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0)
		return false;
	bool ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	return close(fd) == 0 && ok;
}

static bool put_dir(const char *rel)
{
	char path[PATH_MAX];
	return in_dir(path, rel) && mkdir(path, 0755) == 0;
}

static bool put_link(const char *rel, const char *target_rel)
{
	char path[PATH_MAX], target[PATH_MAX];
	return in_dir(path, rel) && in_dir(target, target_rel) && symlink(target, path) == 0;
}

/* An attacker's trees: sysfs-a has a PMU whose events/ is a link to a directory holding the secret, and
 * a PMU whose `type` links to it (a parse error would echo it); procfs has cpuinfo linked to it. */
static bool build_trees(void)
{
	static const char *const dirs[] = {
		"sysfs-a", "sysfs-a/bus", "sysfs-a/bus/event_source", "sysfs-a/bus/event_source/devices",
		"sysfs-a/bus/event_source/devices/evil", "secrets",
		"sysfs-b", "sysfs-b/bus", "sysfs-b/bus/event_source", "sysfs-b/bus/event_source/devices",
		"sysfs-b/bus/event_source/devices/evil", "procfs",
	};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (!put_dir(dirs[i]))
			return false;
	return put_file("secrets/leak", "model name\t: " SECRET "\n", 0600)  &&
	       put_file("sysfs-a/bus/event_source/devices/evil/type", "42\n", 0644) &&
	       put_link("sysfs-a/bus/event_source/devices/evil/events", "secrets") &&
	       put_link("sysfs-b/bus/event_source/devices/evil/type", "secrets/leak") &&
	       put_link("procfs/cpuinfo", "secrets/leak");
}

/* Runs program --child as nobody with the attacker's roots; its output in out. Returns its status. */
static int run_as_nobody(const char *program, const char *sysfs, char *out, size_t size)
{
	int pipefd[2];
	if (pipe(pipefd) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		char root[PATH_MAX], proc[PATH_MAX];
		if (!in_dir(root, sysfs) || !in_dir(proc, "procfs"))
			_exit(126);
		setenv("TALLY_SYSFS_ROOT", root, 1);
		setenv("TALLY_PROCFS_ROOT", proc, 1);
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		close(pipefd[0]);
		execlp("setpriv", "setpriv", "--reuid=" NOBODY, "--regid=" NOBODY, "--clear-groups", program, "--child",
		       (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	size_t used = 0;
	ssize_t n;
	while (used + 1 < size && (n = read(pipefd[0], out + used, size - 1 - used)) > 0)
		used += (size_t)n;
	out[used] = '\0';
	close(pipefd[0]);
	int status;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static bool copy_self(const char *to)
{
	int in = open("/proc/self/exe", O_RDONLY);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	bool ok = in >= 0 && out >= 0;
	char buf[65536];
	ssize_t n;
	while (ok && (n = read(in, buf, sizeof(buf))) > 0)
		ok = write(out, buf, (size_t)n) == n;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0)
		ok = false;
	return ok;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void setuid_ignores_caller_roots(void)
{
	if (geteuid() != 0)
		SKIP("needs root to make a set-uid root copy");
	if (system("command -v setpriv >/dev/null 2>&1") != 0)
		SKIP("setpriv (util-linux) is not installed");
	snprintf(dir, sizeof(dir), "/tmp/tally-secure-XXXXXX");
	if (!mkdtemp(dir))
		SKIP("no temporary directory: %s", strerror(errno));
	struct statvfs vfs;
	if (statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_NOSUID)) {
		nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
		SKIP("%s is on a filesystem mounted nosuid", dir);
	}
	char program[PATH_MAX];
	CHECK(in_dir(program, "probe"));
	CHECK(chmod(dir, 0755) == 0);
	CHECK(build_trees());
	CHECK(copy_self(program));

	/* An ordinary process: the roots are honoured (so the runs below test the variables, not a typo), and
	 * nobody may not read the secret. */
	char out[65536];
	CHECK_INT(run_as_nobody(program, "sysfs-a", out, sizeof(out)), 0);
	CHECK_CONTAINS(out, "devices/evil");
	CHECK(!strstr(out, SECRET));

	/* Set-uid root, run by nobody: AT_SECURE, so neither variable is read; the real trees are. */
	CHECK_INT(chown(program, 0, 0), 0);
	CHECK_INT(chmod(program, 04755), 0);
	static const char *const roots[] = { "sysfs-a", "sysfs-b" };
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		CHECK_INT(run_as_nobody(program, roots[i], out, sizeof(out)), 0);
		if (strstr(out, SECRET))
			fprintf(stderr, "%s leaked:\n%s\n", roots[i], out);
		CHECK(!strstr(out, SECRET));
		CHECK(!strstr(out, "evil"));
		CHECK_CONTAINS(out, "pmu software");
	}
	nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--child") == 0)
		return child();
	static const struct harness_case cases[] = {
		{ "setuid_ignores_caller_roots", setuid_ignores_caller_roots },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
