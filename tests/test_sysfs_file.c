/* SPDX-License-Identifier: MIT */
/*
 * Reading sysfs and procfs files from trees that may be anyone's: a FIFO, a huge file, a symbolic link in
 * place of an attribute, and roots too long for a path. Each tree is built at test time in a temporary
 * directory. alarm() turns a read that would hang into a failure instead of a stuck test.
 */
#include "core/sys.h"
#include "core/sysfs_file.h"
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tally/common.h>
#include <tally/evlist.h>
#include <tally/pmu.h>

/* A hang is a failure: ten seconds is far more than any of these loads takes. */
#define HANG_SECONDS 10

static char tree[PATH_MAX];

/* "<dir>/<name>" into out (PATH_MAX bytes); a path that does not fit fails the case. */
static void join(char *out, const char *dir, const char *name)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", dir, name);
	CHECK(n > 0 && n < PATH_MAX);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	join(path, dir, name);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void make_dirs(const char *path)
{
	char partial[PATH_MAX];
	snprintf(partial, sizeof(partial), "%s", path);
	for (char *p = partial + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(partial, 0755);
		*p = '/';
	}
	mkdir(partial, 0755);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* A fresh tree with one PMU directory devices/<pmu>, its path in pmu_dir. */
static void new_tree(const char *pmu, char *pmu_dir, size_t size)
{
	snprintf(tree, sizeof(tree), "/tmp/tally-sysfs-XXXXXX");
	CHECK(mkdtemp(tree) != NULL);
	char devices[PATH_MAX];
	join(devices, tree, "bus/event_source/devices");
	CHECK(size == PATH_MAX);
	join(pmu_dir, devices, pmu);
	make_dirs(pmu_dir);
}

static void drop_tree(void)
{
	nftw(tree, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int load(tally_pmus **pmus)
{
	TALLY_OPTS(tally_pmus_opts, opts, .sysfs_root = tree);
	*pmus = NULL;
	alarm(HANG_SECONDS);
	int rc = tally_pmus_load(&opts, pmus);
	alarm(0);
	return rc;
}

/* Loads the tree and asks for PMU pmu's events (loaded only when first used): the error of either. */
static int load_events(const char *pmu_name)
{
	tally_pmus *pmus;
	int rc = load(&pmus);
	if (rc == 0) {
		const tally_pmu *pmu = tally_pmus_find(pmus, pmu_name);
		struct tally_alias_info info = { .sz = sizeof(info) };
		alarm(HANG_SECONDS);
		rc = pmu ? tally_pmu_alias_at(pmu, 0, &info) : -ENOENT;
		alarm(0);
	}
	tally_pmus_free(pmus);
	return rc;
}

static void fifo_type_fails_without_hanging(void)
{
	char dir[PATH_MAX], fifo[PATH_MAX];
	new_tree("evil", dir, sizeof(dir));
	join(fifo, dir, "type");
	CHECK_INT(mkfifo(fifo, 0644), 0);
	CHECK_INT(load_events("evil"), -TALLY_ESYSFS);
	CHECK_CONTAINS(tally_last_error(), "evil/type");
	CHECK_CONTAINS(tally_last_error(), "not a regular file");
	drop_tree();
}

static void fifo_alias_fails_without_hanging(void)
{
	char dir[PATH_MAX], events[PATH_MAX], fifo[PATH_MAX];
	new_tree("evil", dir, sizeof(dir));
	write_file(dir, "type", "42\n");
	join(events, dir, "events");
	make_dirs(events);
	join(fifo, events, "boom");
	CHECK_INT(mkfifo(fifo, 0644), 0);
	CHECK_INT(load_events("evil"), -TALLY_ESYSFS);
	CHECK_CONTAINS(tally_last_error(), "evil/events/boom");
	CHECK_CONTAINS(tally_last_error(), "not a regular file");
	drop_tree();
}

/* Counts what read(2) returns through the table: a bounded read stops near the buffer's size. */
static size_t bytes_read;

static ssize_t counting_read(int fd, void *buf, size_t count)
{
	ssize_t n = tly_sys_real.read(fd, buf, count);
	if (n > 0)
		bytes_read += (size_t)n;
	return n;
}

static void huge_file_refused_after_a_bounded_read(void)
{
	char dir[PATH_MAX], events[PATH_MAX], big[PATH_MAX];
	new_tree("cpu", dir, sizeof(dir));
	write_file(dir, "type", "4\n");
	join(events, dir, "events");
	make_dirs(events);
	join(big, events, "huge");
	/* 1 GiB of zero bytes, sparse: nothing is written to disk. */
	int fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	CHECK_INT(ftruncate(fd, 1L << 30), 0);
	close(fd);

	struct tly_sys table = tly_sys_real;
	table.read = counting_read;
	const struct tly_sys *previous = tly_sys_replace(&table);
	bytes_read = 0;
	int rc = load_events("cpu");
	tly_sys_replace(previous);
	CHECK_INT(rc, -TALLY_ESYSFS);
	CHECK_CONTAINS(tally_last_error(), "cpu/events/huge");
	CHECK_CONTAINS(tally_last_error(), "larger than a sysfs page");
	CHECK(bytes_read <= 2 * 4096 + 16);

	/* The reader itself: -EFBIG after one buffer and one byte more, whatever the file's size. */
	char text[64];
	bytes_read = 0;
	previous = tly_sys_replace(&table);
	CHECK_INT(tly_sysfs_read(big, text, sizeof(text), TLY_SYSFS_WHOLE), -EFBIG);
	tly_sys_replace(previous);
	CHECK_INT(bytes_read, sizeof(text));
	drop_tree();
}

static void head_mode_reads_the_start_only(void)
{
	char dir[PATH_MAX], path[PATH_MAX];
	new_tree("cpu", dir, sizeof(dir));
	write_file(tree, "long", "model name\t: Example CPU\nflags\t: a b c d e f g h i j k l m n o p\n");
	join(path, tree, "long");
	char text[16];
	CHECK_INT(tly_sysfs_read(path, text, sizeof(text), TLY_SYSFS_HEAD), 15);
	CHECK_STR(text, "model name\t: Ex");
	CHECK_INT(tly_sysfs_read(path, text, sizeof(text), TLY_SYSFS_WHOLE), -EFBIG);
	/* Exactly full: the file fits. */
	write_file(tree, "exact", "123456789012345");
	join(path, tree, "exact");
	CHECK_INT(tly_sysfs_read(path, text, sizeof(text), TLY_SYSFS_WHOLE), 15);
	CHECK_STR(text, "123456789012345");
	drop_tree();
}

static void symlinked_attribute_not_followed(void)
{
	char dir[PATH_MAX], secret[PATH_MAX], link[PATH_MAX];
	new_tree("evil", dir, sizeof(dir));
	join(secret, tree, "secret");
	write_file(tree, "secret", "TALLY-SECRET-7\n");
	join(link, dir, "type");
	CHECK_INT(symlink(secret, link), 0);
	CHECK_INT(load_events("evil"), -ELOOP);
	CHECK_CONTAINS(tally_last_error(), "evil/type");
	CHECK_CONTAINS(tally_last_error(), "symbolic link");
	CHECK(!strstr(tally_last_error(), "TALLY-SECRET"));
	drop_tree();
}

/* A root of n characters: the temporary tree, then directories named "ddd...", as real directories. */
static void long_root(char *root, size_t n)
{
	snprintf(root, PATH_MAX, "%s", tree);
	while (strlen(root) < n) {
		size_t used = strlen(root), left = n - used - 1;
		size_t len = left > 200 ? 200 : left;
		root[used] = '/';
		memset(root + used + 1, 'd', len);
		root[used + 1 + len] = '\0';
		CHECK_INT(mkdir(root, 0755), 0);
	}
}

/* Old code truncated the path to PATH_MAX - 1 bytes and read whatever file that named: here
 * .../topology/phys and .../topology/core, planted to be found. */
static void truncated_topology_path_is_an_error(void)
{
	char dir[PATH_MAX], root[PATH_MAX], topo[PATH_MAX];
	new_tree("cpu", dir, sizeof(dir));
	static const char phys[] = "/devices/system/cpu/cpu0/topology/phys";
	long_root(root, PATH_MAX - 1 - (sizeof(phys) - 1));
	join(topo, root, "devices/system/cpu/cpu0/topology");
	make_dirs(topo);
	write_file(topo, "phys", "7\n");
	write_file(topo, "core", "3\n");
	struct tally_cpu_topology t = { .sz = sizeof(t) };
	CHECK_INT(tally_cpu_topology(root, 0, &t), -ENAMETOOLONG);
	CHECK_CONTAINS(tally_last_error(), "longer than");
	drop_tree();
}

static void long_roots_are_refused(void)
{
	char dir[PATH_MAX];
	new_tree("cpu", dir, sizeof(dir));
	char root[PATH_MAX];
	/* A 4000-byte root (of 100-byte names) leaves room for the paths under it: absent, not too long. */
	for (size_t i = 0; i < 4000; i++)
		root[i] = i % 101 ? 'r' : '/';
	root[4000] = '\0';
	tally_pmus *pmus;
	TALLY_OPTS(tally_pmus_opts, opts, .sysfs_root = root);
	CHECK_INT(tally_pmus_load(&opts, &pmus), -ENOENT);
	tally_cpus *cpus;
	CHECK_INT(tally_cpus_online(root, &cpus), -ENOENT);
	/* 4090 bytes do not. */
	for (size_t i = 4000; i < 4090; i++)
		root[i] = i % 101 ? 'r' : '/';
	root[4090] = '\0';
	CHECK_INT(tally_pmus_load(&opts, &pmus), -ENAMETOOLONG);
	CHECK_CONTAINS(tally_last_error(), "too long");
	CHECK_INT(tally_cpus_online(root, &cpus), -ENAMETOOLONG);
	CHECK_CONTAINS(tally_last_error(), "too long");
	struct tally_cpu_topology t = { .sz = sizeof(t) };
	CHECK_INT(tally_cpu_topology(root, 0, &t), -ENAMETOOLONG);
	char path[16];
	CHECK_INT(tly_path_join(path, sizeof(path), "/sys", "devices/xyz"), -ENAMETOOLONG);
	CHECK_INT(tly_path_join(path, sizeof(path), "/sys", "devices"), 0);
	CHECK_STR(path, "/sys/devices");
	drop_tree();
}

static void long_pmu_name_is_refused(void)
{
	/* A PMU directory whose path, with the root, reaches PATH_MAX: the files under it do not fit. */
	char dir[PATH_MAX], root[PATH_MAX], pmu_dir[PATH_MAX];
	new_tree("cpu", dir, sizeof(dir));
	write_file(dir, "type", "4\n");
	static const char devices[] = "/bus/event_source/devices/";
	long_root(root, PATH_MAX - 1 - (sizeof(devices) - 1) - 200);
	char name[201];
	memset(name, 'p', 200);
	name[200] = '\0';
	join(pmu_dir, root, devices + 1);
	make_dirs(pmu_dir);
	strncat(pmu_dir, name, sizeof(pmu_dir) - strlen(pmu_dir) - 1);
	CHECK_INT(mkdir(pmu_dir, 0755), 0);
	/* The tree under the long root is used in place of the temporary one. */
	char temporary[PATH_MAX];
	memcpy(temporary, tree, sizeof(tree));
	memcpy(tree, root, sizeof(tree));
	CHECK_INT(load_events(name), -ENAMETOOLONG);
	CHECK_CONTAINS(tally_last_error(), "too long");
	memcpy(tree, temporary, sizeof(tree));
	drop_tree();
}

int main(void)
{
	/* SIGALRM's default action ends the test: a hang fails it. */
	signal(SIGALRM, SIG_DFL);
	static const struct harness_case cases[] = {
		{ "fifo_type_fails_without_hanging", fifo_type_fails_without_hanging },
		{ "fifo_alias_fails_without_hanging", fifo_alias_fails_without_hanging },
		{ "huge_file_refused_after_a_bounded_read", huge_file_refused_after_a_bounded_read },
		{ "head_mode_reads_the_start_only", head_mode_reads_the_start_only },
		{ "symlinked_attribute_not_followed", symlinked_attribute_not_followed },
		{ "truncated_topology_path_is_an_error", truncated_topology_path_is_an_error },
		{ "long_roots_are_refused", long_roots_are_refused },
		{ "long_pmu_name_is_refused", long_pmu_name_is_refused },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
