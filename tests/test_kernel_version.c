/* SPDX-License-Identifier: MIT */
/*
 * Every kernel-version decision at its boundary and next to it, from a release injected through the
 * syscall table's uname: CAP_PERFMON is honoured from 5.8 on (the user-only retry and the advice on how
 * to grant access), and PERF_FORMAT_LOST is assumed from 6.0 on when the probe's open is refused. An off-by-one
 * (`>` for `>=`, the minor compared alone) fails a row here.
 */
#include "fixture_tree.h"
#include "harness.h"

#include "core/sys.h"
#include "diagnose/diagnose.h"

#include <errno.h>
#include <linux/capability.h>
#include <sys/utsname.h>

#include <tally/probe.h>

static const char *release;

static int fake_uname(struct utsname *u)
{
	memset(u, 0, sizeof(*u));
	snprintf(u->release, sizeof(u->release), "%s", release);
	return 0;
}

/* CAP_PERFMON (38) alone in the effective set. */
static int perfmon_only(struct __user_cap_header_struct *header, struct __user_cap_data_struct *data)
{
	(void)header;
	memset(data, 0, 2 * sizeof(*data));
	data[1].effective = 1U << (38 - 32);
	return 0;
}

/* Refused outright (paranoid 3, seccomp): the release decides PERF_FORMAT_LOST. */
static int refused(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	(void)attr, (void)pid, (void)cpu, (void)group_fd, (void)flags;
	errno = EACCES;
	return -1;
}

/* The facts of a machine running `rel`, probed through the table. */
static struct tally_facts probe(const char *rel)
{
	struct tly_sys table = tly_sys_real;
	table.uname = fake_uname;
	table.capget = perfmon_only;
	table.perf_event_open = refused;
	release = rel;
	tly_sys_replace(&table);
	char sys_path[4096], proc_path[4096];
	fixture_sysfs(sys_path, sizeof(sys_path), "intel");
	snprintf(proc_path, sizeof(proc_path), "%s/procfs/paranoid2-nmi1", fixtures_dir());
	TALLY_OPTS(tally_facts_opts, opts, .sysfs_root = sys_path, .procfs_root = proc_path);
	struct tally_facts f = { .sz = sizeof(f) };
	CHECK_INT(tally_facts_probe(&opts, &f), 0);
	tly_sys_replace(NULL);
	return f;
}

static const struct perf_event_attr cycles = { .size = sizeof(struct perf_event_attr),
	                                       .type = PERF_TYPE_HARDWARE,
	                                       .config = PERF_COUNT_HW_CPU_CYCLES };

static const struct {
	const char *release;
	unsigned major, minor;
	bool perfmon;  /* CAP_PERFMON honoured: 5.8+ */
	bool lost;     /* PERF_FORMAT_LOST assumed: 6.0+ */
} rows[] = {
	{ "4.19.0-27-amd64", 4, 19, false, false },
	{ "4.20", 4, 20, false, false },
	{ "5.7.19", 5, 7, false, false },
	{ "5.8.0-1-generic", 5, 8, true, false },
	{ "5.8", 5, 8, true, false },
	{ "5.9.3", 5, 9, true, false },
	{ "5.19.17", 5, 19, true, false },
	{ "6.0.0", 6, 0, true, true },
	{ "6.1.0-18-amd64", 6, 1, true, true },
	{ "7.0", 7, 0, true, true },
};

static void boundaries(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct tally_facts f = probe(rows[i].release);
		CHECK_STR(f.kernel_release, rows[i].release);
		CHECK_INT(f.kernel_major, rows[i].major);
		CHECK_INT(f.kernel_minor, rows[i].minor);
		CHECK(f.cap_perfmon);
		CHECK_INT(f.perf_event_paranoid, 2);
		if (f.has_format_lost != rows[i].lost)
			fprintf(stderr, "  %s: PERF_FORMAT_LOST %d, expected %d\n", rows[i].release,
			        f.has_format_lost, rows[i].lost);
		CHECK(f.has_format_lost == rows[i].lost);

		/* At paranoid 2, kernel mode is refused only to a caller whose CAP_PERFMON the kernel ignores:
		 * only then is the user-only retry the answer. */
		struct tly_diag d = { .op = TLY_DIAG_OPEN, .err = EACCES, .event = "cycles", .attr = &cycles,
			              .facts = &f };
		bool retry = tly_diag_retry_user_only(&d);
		if (retry == rows[i].perfmon)
			fprintf(stderr, "  %s: user-only retry %d, expected %d\n", rows[i].release, retry,
			        !rows[i].perfmon);
		CHECK(retry == !rows[i].perfmon);

		/* At paranoid 3 the advice names CAP_SYS_ADMIN on a kernel that predates CAP_PERFMON. */
		f.perf_event_paranoid = 3;
		f.cap_perfmon = false;
		char text[2048];
		tly_diagnose(&d, text, sizeof(text));
		if (rows[i].perfmon) {
			CHECK_CONTAINS(text, "grant CAP_PERFMON");
			CHECK(!strstr(text, "predates CAP_PERFMON"));
		} else {
			CHECK_CONTAINS(text, "predates CAP_PERFMON");
			CHECK_CONTAINS(text, rows[i].release);
		}
	}
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "boundaries", boundaries },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
