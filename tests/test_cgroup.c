/* SPDX-License-Identifier: MIT */
/*
 * Cgroup targets: the hierarchy found in /proc/self/mountinfo (fixture tables of v1, v2 and mixed
 * machines), the explained failures (no such cgroup, a path in a hierarchy without perf_event, no
 * hierarchy at all, injected open failures with nothing leaked), and, as root on a machine with the
 * hierarchy, real cgroups made here: two children with known page-fault counts, each in its own cgroup,
 * counted per cgroup and per CPU.
 */
#include "fault.h"
#include "harness.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <tally/cgroup.h>
#include <tally/counter.h>
#include <tally/snapshot.h>
#include <unistd.h>

/* ---- /proc/self/mountinfo replaced by a fixture --------------------------------------------------- */

static const char *mountinfo_fixture;

static int open_fixture_mountinfo(const char *path, int flags)
{
	if (strcmp(path, "/proc/self/mountinfo") == 0)
		path = mountinfo_fixture;
	return tly_sys_real.open(path, flags);
}

/* Runs the tally calls of fn with /proc/self/mountinfo read from fixtures/mountinfo/name. */
static void with_mountinfo(const char *name)
{
	static char path[4096];
	static struct tly_sys table;
	snprintf(path, sizeof(path), "%s/mountinfo/%s", getenv("TALLY_FIXTURES"), name);
	mountinfo_fixture = path;
	table = tly_sys_real;
	table.open = open_fixture_mountinfo;
	tly_sys_replace(&table);
}

static void mount_v1_perf_event_first(void)
{
	char buf[256];
	with_mountinfo("v1_perf_event");
	/* perf_event bound to a v1 hierarchy is absent from v2: v1 wins; the escaped space is decoded. */
	CHECK_INT(tally_cgroup_mount(buf, sizeof(buf)), (int)strlen("/sys/fs/cgroup/perf event"));
	CHECK_STR(buf, "/sys/fs/cgroup/perf event");
	/* The buffer convention: cut, NUL-terminated, the length it needed. */
	char small[8];
	CHECK_INT(tally_cgroup_mount(small, sizeof(small)), 25);
	CHECK_STR(small, "/sys/fs");
	tly_sys_replace(NULL);
}

static void mount_v2(void)
{
	char buf[256];
	with_mountinfo("v2_only");
	CHECK_INT(tally_cgroup_mount(buf, sizeof(buf)), (int)strlen("/sys/fs/cgroup"));
	CHECK_STR(buf, "/sys/fs/cgroup");
	tly_sys_replace(NULL);
}

static void mount_none_explained(void)
{
	char buf[256];
	with_mountinfo("v1_without_perf_event");
	CHECK_INT(tally_cgroup_mount(buf, sizeof(buf)), -ENOENT);
	CHECK_CONTAINS(tally_last_error(), "no cgroup hierarchy that counts perf events is mounted");
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_CGROUPS, .cgroups = (const char *const[]){ "a" },
	           .nr_cgroups = 1);
	tally_counter *c;
	CHECK_INT(tally_counter_new("page-faults", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, &t), -ENOENT);
	CHECK_CONTAINS(tally_last_error(), "no cgroup hierarchy");
	tally_counter_free(c);
	tly_sys_replace(NULL);
}

static void mountinfo_unreadable(void)
{
	char buf[256];
	fault_install();
	fault_arm(FAULT_OPEN, 1, EACCES);
	CHECK_INT(tally_cgroup_mount(buf, sizeof(buf)), -EACCES);
	CHECK(fault_fired());
	CHECK_CONTAINS(tally_last_error(), "/proc/self/mountinfo");
	fault_uninstall();
}

/* A mountinfo of one cgroup2 mount at "/" followed by n bytes ('a'; the last one an escaped space when
 * escaped), in a temporary file that path[] names. */
static void write_long_mount(char *path, size_t n, bool escaped)
{
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("29 22 0:26 / /", f);
	for (size_t i = 1; i < n - escaped; i++)
		fputc('a', f);
	fputs(escaped ? "\\040" : "", f);
	fputs(" rw,nosuid shared:9 - cgroup2 cgroup2 rw\n", f);
	fclose(f);
	mountinfo_fixture = path;
}

/* A point of PATH_MAX - 1 bytes is a path; one byte more is none, and its first bytes would name another
 * folder: refused, never cut. The escaped space counts as the one byte it decodes to. */
static void mount_point_at_path_max(void)
{
	static char buf[PATH_MAX + 16];
	static struct tly_sys table;
	table = tly_sys_real;
	table.open = open_fixture_mountinfo;
	tly_sys_replace(&table);
	for (int escaped = 0; escaped <= 1; escaped++) {
		char path[] = "/tmp/tally-mountinfo-XXXXXX";
		write_long_mount(path, PATH_MAX - 1, escaped);
		CHECK_INT(tally_cgroup_mount(buf, sizeof(buf)), PATH_MAX - 1);
		CHECK_INT((int)strlen(buf), PATH_MAX - 1);
		CHECK_INT(buf[PATH_MAX - 2], escaped ? ' ' : 'a');
		unlink(path);
		char longer[] = "/tmp/tally-mountinfo-XXXXXX";
		write_long_mount(longer, PATH_MAX, escaped);
		CHECK_INT(tally_cgroup_mount(buf, sizeof(buf)), -ENAMETOOLONG);
		CHECK_CONTAINS(tally_last_error(), "4096 bytes or longer");
		unlink(longer);
	}
	tly_sys_replace(NULL);
}

/* ---- the machine's own hierarchy ---------------------------------------------------------------- */

static char mount_point[4096];

/* The machine's perf_event hierarchy, as root (only root makes cgroups here); false: SKIP. */
static bool have_hierarchy(bool need_root)
{
	if (tally_cgroup_mount(mount_point, sizeof(mount_point)) < 0) {
		fprintf(stderr, "SKIP [%s]: no perf_event cgroup hierarchy mounted: %s\n", harness_case, tally_last_error());
		harness_skipped++;
		return false;
	}
	if (need_root && geteuid() != 0) {
		fprintf(stderr, "SKIP [%s]: making cgroups needs root\n", harness_case);
		harness_skipped++;
		return false;
	}
	return true;
}

static int open_on(const char *const *names, size_t n, tally_counter **c)
{
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_CGROUPS, .cgroups = names, .nr_cgroups = n);
	int err = tally_counter_new("page-faults", NULL, c);
	return err ? err : tally_counter_open(*c, &t);
}

static void missing_cgroup_explained(void)
{
	if (!have_hierarchy(false))
		return;
	tally_counter *c = NULL;
	int before = fault_open_fds();
	CHECK_INT(open_on((const char *const[]){ "/", "tally-test-no-such-cgroup" }, 2, &c), -ENOENT);
	CHECK_CONTAINS(tally_last_error(), "cgroup 'tally-test-no-such-cgroup' does not exist");
	CHECK_CONTAINS(tally_last_error(), mount_point);
	/* The root's directory, opened first, was closed again. */
	CHECK_INT(fault_open_fds(), before);
	tally_counter_free(c);
}

/* "..": the directory above the hierarchy is no cgroup, and the kernel's EBADF would not say so. */
static void climbing_out_explained(void)
{
	if (!have_hierarchy(false))
		return;
	static const char *const names[] = { "..", "a/../..", "/..", "./.." };
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		tally_counter *c = NULL;
		CHECK_INT(open_on(&names[i], 1, &c), -EINVAL);
		CHECK_CONTAINS(tally_last_error(), "climbs out of the perf_event cgroup hierarchy");
		CHECK_CONTAINS(tally_last_error(), mount_point);
		tally_counter_free(c);
	}
}

/* One cgroup, however it is written, has one name: what the exporter's series are labelled with. */
static void names_made_canonical(void)
{
	static const char *const cases[][2] = {
		{ "a", "a" },
		{ "/sys/fs/cgroup/a", "a" },         /* a path that starts with the mount */
		{ "/sys/fs/cgroup/a/", "a" },        /* a trailing slash */
		{ "/sys/fs/cgroup//a//b", "a/b" },   /* repeated slashes */
		{ "/sys/fs/cgroup/./a/./b/.", "a/b" },
		{ "a/x/../b", "a/b" },
		{ "/a", "a" },                       /* perf's rule: "/a" is a of the hierarchy */
		{ "/", "/" },
		{ ".", "/" },
		{ "/sys/fs/cgroup", "/" },
		{ "/sys/fs/cgroup/", "/" },
		{ "/sys/fs/cgroupx", "sys/fs/cgroupx" }, /* not the mount: a name under it */
	};
	char buf[64];
	with_mountinfo("v2_only");
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		CHECK_INT(tally_cgroup_name(cases[i][0], buf, sizeof(buf)), (int)strlen(cases[i][1]));
		CHECK_STR(buf, cases[i][1]);
	}
	/* The buffer convention: cut, NUL-terminated, the length it needed. */
	char small[3];
	CHECK_INT(tally_cgroup_name("/sys/fs/cgroup/abcd/", small, sizeof(small)), 4);
	CHECK_STR(small, "ab");
	CHECK_INT(tally_cgroup_name("a/../..", buf, sizeof(buf)), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "climbs out of the perf_event cgroup hierarchy");
	CHECK_INT(tally_cgroup_name("", buf, sizeof(buf)), -EINVAL);
	CHECK_INT(tally_cgroup_name(NULL, buf, sizeof(buf)), -EINVAL);
	tly_sys_replace(NULL);
	with_mountinfo("v1_without_perf_event");
	CHECK_INT(tally_cgroup_name("a", buf, sizeof(buf)), -ENOENT);
	tly_sys_replace(NULL);
}

static void other_hierarchy_explained(void)
{
	if (!have_hierarchy(false))
		return;
	/* A v1 hierarchy of another controller: present on this kind of machine (cgroup v1 mounts beside
	 * the unified one), absent on a v2-only one. */
	struct stat st;
	if (stat("/sys/fs/cgroup/memory/cgroup.procs", &st) != 0 || strcmp(mount_point, "/sys/fs/cgroup/memory") == 0) {
		SKIP("no cgroup v1 memory hierarchy at /sys/fs/cgroup/memory to point at");
		return;
	}
	tally_counter *c = NULL;
	CHECK_INT(open_on((const char *const[]){ "/sys/fs/cgroup/memory" }, 1, &c), -EBADF);
	CHECK_CONTAINS(tally_last_error(), "which has no perf_event controller");
	CHECK_CONTAINS(tally_last_error(), mount_point);
	tally_counter_free(c);
}

/* ---- real cgroups ------------------------------------------------------------------------------- */

#define PAGES_A 3000
#define PAGES_B 7000
/* A forked child's own faults besides its pages: the stack, the pages it writes after the fork (copy
 * on write), exit. Software page faults count exactly; this bounds the child's housekeeping. */
#define SLACK 300

static char cg_a[4200], cg_b[4200];

static bool make_cgroups(void)
{
	snprintf(cg_a, sizeof(cg_a), "%s/tally-test-a-%d", mount_point, (int)getpid());
	snprintf(cg_b, sizeof(cg_b), "%s/tally-test-b-%d", mount_point, (int)getpid());
	if (mkdir(cg_a, 0755) != 0 || mkdir(cg_b, 0755) != 0) {
		fprintf(stderr, "SKIP [%s]: cannot make cgroups under %s: %s\n", harness_case, mount_point,
		        strerror(errno));
		harness_skipped++;
		rmdir(cg_a);
		return false;
	}
	return true;
}

/* One write to each of `pages` fresh pages: one page fault each. Not instrumented: AddressSanitizer's
 * check of each write would fault in its shadow pages too (about one per eight pages). */
__attribute__((no_sanitize_address)) static void touch_pages(long pages)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(4);
	for (long i = 0; i < pages; i++)
		p[i * page] = 1;
}

/* A child that joins the cgroup dir, waits for the go byte, touches `pages` fresh pages and exits. */
static pid_t spawn_in(const char *dir, long pages, int go)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	char path[4300], self[32];
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	int fd = open(path, O_WRONLY);
	int n = snprintf(self, sizeof(self), "%d", (int)getpid());
	if (fd < 0 || write(fd, self, (size_t)n) != n)
		_exit(2);
	close(fd);
	char byte;
	if (read(go, &byte, 1) != 1)
		_exit(3);
	touch_pages(pages);
	_exit(0);
}

static void two_cgroups_counted_apart(void)
{
	if (!have_hierarchy(true) || !make_cgroups())
		return;
	int go[2];
	CHECK_INT(pipe(go), 0);
	pid_t a = spawn_in(cg_a, PAGES_A, go[0]), b = spawn_in(cg_b, PAGES_B, go[0]);
	/* Relative to the mount (perf's rule) and absolute: both name a cgroup. */
	const char *names[] = { cg_a + strlen(mount_point) + 1, cg_b };
	tally_counter *c = NULL;
	int fds_before = fault_open_fds();
	int err = open_on(names, 2, &c);
	CHECK_INT(err, 0);
	if (err)
		fprintf(stderr, "%s\n", tally_last_error());
	/* Every event x CPU x cgroup: the descriptors the budget counts (plus the two dirs). */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	CHECK_INT(fault_open_fds() - fds_before, 2 * cpus + 2);
	tally_snapshot *s0 = NULL, *s1 = NULL;
	CHECK_INT(tally_counter_start(c), 0);
	CHECK_INT(tally_snapshot_new(c, &s0), 0);
	CHECK_INT(tally_snapshot_new(c, &s1), 0);
	CHECK_INT(tally_counter_snapshot(c, s0), 0);
	CHECK_INT(write(go[1], "gg", 2), 2);
	int status;
	CHECK_INT(waitpid(a, &status, 0), a);
	CHECK_INT(status, 0);
	CHECK_INT(waitpid(b, &status, 0), b);
	CHECK_INT(status, 0);
	CHECK_INT(tally_counter_snapshot(c, s1), 0);
	CHECK_INT(tally_counter_stop(c), 0);

	struct tally_result r;
	CHECK_INT(tally_counter_read(c, &r, 1, sizeof(r)), 1);
	CHECK_INT((long long)r.nr_parts, 2 * cpus);
	struct tally_part parts[2 * 512];
	int n = tally_counter_parts(c, 0, parts, 2 * 512, sizeof(parts[0]));
	CHECK_INT(n, 2 * cpus);
	uint64_t per[2] = { 0, 0 }, delta[2] = { 0, 0 }, enabled[2] = { 0, 0 }, running[2] = { 0, 0 };
	for (int i = 0; i < n; i++) {
		CHECK_INT(parts[i].tid, -1);
		CHECK(parts[i].cgroup == 0 || parts[i].cgroup == 1);
		CHECK(parts[i].cpu >= 0);
		per[parts[i].cgroup & 1] += parts[i].value;
		enabled[parts[i].cgroup & 1] += parts[i].enabled;
		running[parts[i].cgroup & 1] += parts[i].running;
	}
	/* Each cgroup's result is the sum of its parts, and the two make the whole event's. */
	struct tally_result of[2];
	for (size_t k = 0; k < 2; k++) {
		CHECK_INT(tally_counter_cgroup_results(c, k, &of[k], 1, sizeof(of[k])), 1);
		CHECK_INT((long long)of[k].value, (long long)per[k]);
		CHECK_INT((long long)of[k].scaled, (long long)per[k]);
		CHECK_INT((long long)of[k].enabled, (long long)enabled[k]);
		CHECK_INT((long long)of[k].running, (long long)running[k]);
		CHECK_INT((long long)of[k].nr_parts, cpus);
		CHECK_INT(of[k].status, TALLY_STATUS_EXACT);
		CHECK_INT((int)of[k].origin, (int)r.origin);
	}
	CHECK_INT((long long)(of[0].value + of[1].value), (long long)r.value);
	n = tally_snapshot_delta_parts(s0, s1, 0, parts, 2 * 512, sizeof(parts[0]));
	CHECK_INT(n, 2 * cpus);
	for (int i = 0; i < n; i++)
		delta[parts[i].cgroup & 1] += parts[i].scaled;
	for (size_t k = 0; k < 2; k++) {
		CHECK_INT(tally_snapshot_delta_cgroup(s0, s1, k, &of[k], 1, sizeof(of[k])), 1);
		CHECK_INT((long long)of[k].scaled, (long long)delta[k]);
		CHECK_INT((long long)of[k].nr_parts, cpus);
	}
	/* Past the target's cgroups: refused, explained. */
	CHECK_INT(tally_counter_cgroup_results(c, 2, &of[0], 1, sizeof(of[0])), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "cgroup 2 out of range (the target has 2)");
	CHECK_INT(tally_snapshot_delta_cgroup(s0, s1, 2, &of[0], 1, sizeof(of[0])), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "cgroup 2 out of range (the target has 2)");
	printf("page faults: cgroup a %" PRIu64 " (%d pages), cgroup b %" PRIu64 " (%d pages)\n", per[0],
	       PAGES_A, per[1], PAGES_B);
	CHECK(per[0] >= PAGES_A && per[0] <= PAGES_A + SLACK);
	CHECK(per[1] >= PAGES_B && per[1] <= PAGES_B + SLACK);
	CHECK(delta[0] >= PAGES_A && delta[0] <= per[0]);
	CHECK(delta[1] >= PAGES_B && delta[1] <= per[1]);
	tally_snapshot_free(s0);
	tally_snapshot_free(s1);
	tally_counter_free(c);
	CHECK_INT(fault_open_fds(), fds_before);
	close(go[0]);
	close(go[1]);
	CHECK_INT(rmdir(cg_a), 0);
	CHECK_INT(rmdir(cg_b), 0);
}

/* An open(2) of the directory of cgroup "." fails: the descriptor limit. */
static int open_failing_dot(const char *path, int flags)
{
	size_t n = strlen(path);
	if (n >= 2 && strcmp(path + n - 2, "/.") == 0) {
		errno = EMFILE;
		return -1;
	}
	return tly_sys_real.open(path, flags);
}

/* Every perf_event_open of a cgroup open failing in turn: a clean error, the cgroup directories closed. */
static void injected_open_failures(void)
{
	if (!have_hierarchy(false))
		return;
	const char *names[] = { "/", "" };
	fault_install();
	tally_counter *c = NULL;
	CHECK_INT(open_on(names, 2, &c), 0);
	unsigned long opens = fault_calls(FAULT_PERF_EVENT_OPEN);
	tally_counter_free(c);
	int before = fault_open_fds();
	for (unsigned long k = 1; k <= opens; k++) {
		TALLY_OPTS(tally_counter_opts, o, .unsupported_is_error = true);
		TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_CGROUPS, .cgroups = names, .nr_cgroups = 2);
		CHECK_INT(tally_counter_new("page-faults", &o, &c), 0);
		fault_arm(FAULT_PERF_EVENT_OPEN, k, EBADF);
		CHECK(tally_counter_open(c, &t) < 0);
		CHECK(fault_fired());
		CHECK_CONTAINS(tally_last_error(), "page-faults");
		tally_counter_free(c);
		CHECK_INT(fault_open_fds(), before);
	}
	fault_uninstall();
	/* The open of the second cgroup's directory, after the first's. */
	const char *two[] = { "/", "." };
	CHECK_INT(tally_counter_new("page-faults", NULL, &c), 0);
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_CGROUPS, .cgroups = two, .nr_cgroups = 2);
	static struct tly_sys table;
	table = tly_sys_real;
	table.open = open_failing_dot;
	tly_sys_replace(&table);
	CHECK_INT(tally_counter_open(c, &t), -EMFILE);
	tly_sys_replace(NULL);
	CHECK_CONTAINS(tally_last_error(), "cgroup '.': cannot open");
	tally_counter_free(c);
	CHECK_INT(fault_open_fds(), before);
}

/* A hardware event's open answers ENOENT, as on a machine with no PMU (a VM without one). */
static int open_no_pmu(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	if (attr->type == PERF_TYPE_HARDWARE) {
		errno = ENOENT;
		return -1;
	}
	return tly_sys_real.perf_event_open(attr, pid, cpu, group_fd, flags);
}

/* An event the machine cannot count: each cgroup's result says not supported (the event's status), not
 * not counted (what a cgroup says in which the event never ran); the other event counts in each. */
static void unsupported_in_every_cgroup(void)
{
	if (!have_hierarchy(false))
		return;
	const char *names[] = { "/", "" };
	static struct tly_sys table;
	table = tly_sys_real;
	table.perf_event_open = open_no_pmu;
	tly_sys_replace(&table);
	tally_counter *c = NULL;
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_CGROUPS, .cgroups = names, .nr_cgroups = 2);
	CHECK_INT(tally_counter_new("cycles,task-clock", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, &t), 0);
	tly_sys_replace(NULL);
	/* Read while counting: this thread runs in the window, so task-clock counts in "/" (and in "", the
	 * same root cgroup). */
	CHECK_INT(tally_counter_start(c), 0);
	struct tally_result r[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	CHECK_INT(r[0].status, TALLY_STATUS_NOT_SUPPORTED);
	for (size_t k = 0; k < 2; k++) {
		CHECK_INT(tally_counter_cgroup_results(c, k, r, 2, sizeof(r[0])), 2);
		CHECK_INT(r[0].status, TALLY_STATUS_NOT_SUPPORTED);
		CHECK_INT((long long)r[0].value, 0);
		CHECK(r[1].status == TALLY_STATUS_EXACT || r[1].status == TALLY_STATUS_SCALED);
	}
	tally_counter_free(c);
}

/* The results of one cgroup of a counter that counts no cgroups: refused, explained. */
static void cgroup_results_of_other_targets(void)
{
	tally_counter *c;
	struct tally_result r;
	CHECK_INT(tally_counter_new("page-faults", NULL, &c), 0);
	CHECK_INT(tally_counter_cgroup_results(c, 0, &r, 1, sizeof(r)), -TALLY_ESTATE);
	CHECK_INT(tally_counter_open(c, NULL), 0);
	CHECK_INT(tally_counter_read(c, &r, 1, sizeof(r)), 1);
	CHECK_INT(tally_counter_cgroup_results(c, 0, &r, 1, sizeof(r)), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "not TALLY_TARGET_CGROUPS");
	tally_snapshot *a, *b;
	CHECK_INT(tally_snapshot_new(c, &a), 0);
	CHECK_INT(tally_snapshot_new(c, &b), 0);
	CHECK_INT(tally_counter_snapshot(c, b), 0);
	CHECK_INT(tally_snapshot_delta_cgroup(a, b, 0, &r, 1, sizeof(r)), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "not of a TALLY_TARGET_CGROUPS counter");
	tally_snapshot_free(a);
	tally_snapshot_free(b);
	tally_counter_free(c);
}

static void no_cgroups_refused(void)
{
	tally_counter *c;
	CHECK_INT(tally_counter_new("page-faults", NULL, &c), 0);
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_CGROUPS);
	CHECK_INT(tally_counter_open(c, &t), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "no cgroups given");
	tally_counter_free(c);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "mount_v1_perf_event_first", mount_v1_perf_event_first },
		{ "mount_v2", mount_v2 },
		{ "mount_none_explained", mount_none_explained },
		{ "mountinfo_unreadable", mountinfo_unreadable },
		{ "mount_point_at_path_max", mount_point_at_path_max },
		{ "no_cgroups_refused", no_cgroups_refused },
		{ "cgroup_results_of_other_targets", cgroup_results_of_other_targets },
		{ "missing_cgroup_explained", missing_cgroup_explained },
		{ "other_hierarchy_explained", other_hierarchy_explained },
		{ "climbing_out_explained", climbing_out_explained },
		{ "names_made_canonical", names_made_canonical },
		{ "injected_open_failures", injected_open_failures },
		{ "two_cgroups_counted_apart", two_cgroups_counted_apart },
		{ "unsupported_in_every_cgroup", unsupported_in_every_cgroup },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
