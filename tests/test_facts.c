/* SPDX-License-Identifier: MIT */
/* Machine facts: the real machine against independent readings, fixture trees, and a replaced table. */
#include "core/sys.h"
#include "diagnose/diagnose.h"
#include "fixture_tree.h"
#include "harness.h"
#include "temp_tree.h"
#include "machine/pmu.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <tally/probe.h>

#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4)
#endif

/* The procfs fixture tree `name` (tests/fixtures/procfs/<name>). */
static void fixture_procfs(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/procfs/%s", fixtures_dir(), name);
}

static int probe_roots(const char *sysfs, const char *procfs, struct tally_facts *f)
{
	char sys_path[4096], proc_path[4096];
	fixture_sysfs(sys_path, sizeof(sys_path), sysfs);
	fixture_procfs(proc_path, sizeof(proc_path), procfs);
	TALLY_OPTS(tally_facts_opts, opts, .sysfs_root = sys_path, .procfs_root = proc_path);
	*f = (struct tally_facts){ .sz = sizeof(*f) };
	return tally_facts_probe(&opts, f);
}

static int probe_real(struct tally_facts *f)
{
	*f = (struct tally_facts){ .sz = sizeof(*f) };
	return tally_facts_probe(NULL, f);
}

/* Independent readings: stdio and direct syscalls, not the library's table. */
static bool read_long(const char *path, long *v)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return false;
	bool ok = fscanf(fp, "%ld", v) == 1;
	fclose(fp);
	return ok;
}

static bool status_field(const char *key, char *value, size_t size)
{
	FILE *fp = fopen("/proc/self/status", "r");
	if (!fp)
		return false;
	char line[512];
	bool found = false;
	while (fgets(line, sizeof(line), fp)) {
		size_t n = strlen(key);
		if (strncmp(line, key, n) == 0 && line[n] == ':') {
			snprintf(value, size, "%s", line + n + 1);
			found = true;
			break;
		}
	}
	fclose(fp);
	return found;
}

static void real_permissions_match_procfs(void)
{
	struct tally_facts f;
	CHECK_INT(probe_real(&f), 0);
	long paranoid;
	if (read_long("/proc/sys/kernel/perf_event_paranoid", &paranoid))
		CHECK_INT(f.perf_event_paranoid, paranoid);
	else
		CHECK_INT(f.perf_event_paranoid, TALLY_FACT_UNKNOWN);
	long nmi;
	if (read_long("/proc/sys/kernel/nmi_watchdog", &nmi))
		CHECK_INT(f.nmi_watchdog, nmi);
	else
		CHECK_INT(f.nmi_watchdog, TALLY_FACT_UNKNOWN);
	char value[128];
	if (status_field("Seccomp", value, sizeof(value)))
		CHECK_INT(f.seccomp, strtol(value, NULL, 10));
	/* CapEff is the effective set in hex: CAP_SYS_ADMIN is bit 21, CAP_PERFMON bit 38. */
	CHECK(f.caps_known);
	if (status_field("CapEff", value, sizeof(value))) {
		unsigned long long eff = strtoull(value, NULL, 16);
		CHECK_INT(f.cap_sys_admin, (eff >> 21) & 1);
		CHECK_INT(f.cap_perfmon, (eff >> 38) & 1);
	}
}

static void real_limits_and_kernel(void)
{
	struct tally_facts f;
	CHECK_INT(probe_real(&f), 0);
	CHECK_INT(f.online_cpus, sysconf(_SC_NPROCESSORS_ONLN));
	struct rlimit rl;
	CHECK_INT(getrlimit(RLIMIT_NOFILE, &rl), 0);
	CHECK_U64(f.nofile_soft, rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : rl.rlim_cur);
	CHECK_U64(f.nofile_hard, rl.rlim_max == RLIM_INFINITY ? UINT64_MAX : rl.rlim_max);
	struct utsname u;
	CHECK_INT(uname(&u), 0);
	CHECK_STR(f.kernel_release, u.release);
	CHECK_INT(f.kernel_major, strtol(u.release, NULL, 10));
	CHECK(f.kernel_major >= 3);
}

static void real_pmus_match_sysfs(void)
{
	struct tally_facts f;
	CHECK_INT(probe_real(&f), 0);
	DIR *d = opendir("/sys/bus/event_source/devices");
	if (!d)
		SKIP("no /sys/bus/event_source/devices");
	unsigned n = 0;
	bool any_core = false, any_hw = false;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		n++;
		char path[512];
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/cpus", e->d_name);
		if (access(path, F_OK) == 0 || strcmp(e->d_name, "cpu") == 0)
			any_core = true;
		if (!tly_pmu_is_software_context(e->d_name))
			any_hw = true;
		CHECK_CONTAINS(f.pmu_names, e->d_name);
	}
	closedir(d);
	CHECK(f.pmus_known);
	CHECK_INT(f.nr_pmus, n);
	CHECK_INT(f.nr_core_pmus > 0, any_core);
	CHECK_INT(f.has_hw_pmu, any_hw);
	/* This project's machines are VMs without a virtual PMU: no core PMU, nothing but software ones. */
	if (!any_core)
		CHECK_INT(f.nr_core_pmus, 0);
}

static int open_dummy(uint64_t read_format)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .type = PERF_TYPE_SOFTWARE,
		                        .config = PERF_COUNT_SW_DUMMY, .disabled = 1, .exclude_kernel = 1,
		                        .exclude_hv = 1, .read_format = read_format };
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

static void real_features_match_a_direct_probe(void)
{
	struct tally_facts f;
	CHECK_INT(probe_real(&f), 0);
	int fd = open_dummy(PERF_FORMAT_LOST);
	if (fd < 0 && errno != EINVAL)
		SKIP("perf_event_open refused here (%s)", strerror(errno));
	CHECK_INT(f.has_format_lost, fd >= 0);
	if (fd < 0)
		fd = open_dummy(0);
	CHECK(fd >= 0);
	void *page = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	CHECK(page != MAP_FAILED);
	if (page != MAP_FAILED) {
		CHECK_INT(f.has_user_time, ((const struct perf_event_mmap_page *)page)->cap_user_time);
		munmap(page, (size_t)sysconf(_SC_PAGESIZE));
	}
	close(fd);
	/* The kernel gained PERF_FORMAT_LOST in 6.0; a newer kernel without it would be a probe bug. */
	if (f.kernel_major >= 6)
		CHECK(f.has_format_lost);
}

static void fixture_paranoid2_nmi1_intel(void)
{
	struct tally_facts f;
	CHECK_INT(probe_roots("intel", "paranoid2-nmi1", &f), 0);
	CHECK_INT(f.perf_event_paranoid, 2);
	CHECK_INT(f.nmi_watchdog, 1);
	CHECK_INT(f.seccomp, 0);
	CHECK_INT(f.perf_user_access, TALLY_FACT_UNKNOWN);
	CHECK_INT(f.rdpmc, 1);
	CHECK(f.pmus_known);
	CHECK_INT(f.nr_core_pmus, 1);
	CHECK(f.has_hw_pmu);
	CHECK_INT(f.nr_pmus, 11);
	CHECK_CONTAINS(f.pmu_names, "uncore_imc_0");
	/* The first CPU's "model name", nothing of the second. */
	CHECK_STR(f.cpu_model, "Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz");
}

static void fixture_paranoid3_seccomp2_hybrid(void)
{
	struct tally_facts f;
	CHECK_INT(probe_roots("hybrid", "paranoid3-seccomp2", &f), 0);
	CHECK_INT(f.perf_event_paranoid, 3);
	CHECK_INT(f.nmi_watchdog, 0);
	CHECK_INT(f.seccomp, 2);
	CHECK_INT(f.nr_core_pmus, 2);
	/* Hybrid x86 has no cpu/ directory; rdpmc comes from cpu_core/. */
	CHECK_INT(f.rdpmc, 1);
}

static void fixture_paranoid_minus1_arm64(void)
{
	struct tally_facts f;
	CHECK_INT(probe_roots("arm64", "paranoid-1-arm64", &f), 0);
	CHECK_INT(f.perf_event_paranoid, -1);
	CHECK_INT(f.perf_user_access, 1);
	CHECK_INT(f.nmi_watchdog, TALLY_FACT_UNKNOWN);
	CHECK_INT(f.seccomp, TALLY_FACT_UNKNOWN);
	CHECK_INT(f.rdpmc, TALLY_FACT_UNKNOWN);
	CHECK_INT(f.nr_core_pmus, 1);
	/* arm64's cpuinfo has no "model name": the implementer and part identify the core (Neoverse N1). */
	CHECK_STR(f.cpu_model, "implementer 0x41 part 0xd0c");
}

/* A snapshot the caller passes replaces the scan of sysfs_root: the intel snapshot over the novpmu root
 * must give intel's PMUs, while the other facts still come from the roots. */
static void given_pmus_replace_the_scan(void)
{
	tally_pmus *intel = fixture_pmus("intel");
	CHECK(intel != NULL);
	if (!intel)
		return;
	char sys_path[4096], proc_path[4096];
	fixture_sysfs(sys_path, sizeof(sys_path), "novpmu");
	fixture_procfs(proc_path, sizeof(proc_path), "paranoid2-nmi1");
	TALLY_OPTS(tally_facts_opts, opts, .sysfs_root = sys_path, .procfs_root = proc_path, .pmus = intel);
	TALLY_OPTS(tally_facts, f);
	CHECK_INT(tally_facts_probe(&opts, &f), 0);
	CHECK_INT(f.nr_pmus, 11);
	CHECK_INT(f.nr_core_pmus, 1);
	CHECK(f.has_hw_pmu);
	CHECK_INT(f.perf_event_paranoid, 2);
	tally_pmus_free(intel);
}

static void fixture_novpmu_noperf(void)
{
	struct tally_facts f;
	CHECK_INT(probe_roots("novpmu", "noperf", &f), 0);
	CHECK_INT(f.perf_event_paranoid, TALLY_FACT_UNKNOWN);
	CHECK_INT(f.nr_core_pmus, 0);
	CHECK(!f.has_hw_pmu);
	CHECK_INT(f.nr_pmus, 5);
	CHECK_STR(f.pmu_names, "breakpoint, msr, software, tracepoint, uprobe");
	/* The fixture trees hold no devices/system/cpu/online. */
	CHECK_INT(f.online_cpus, 0);
}

static void fixture_missing_sysfs_is_unknown(void)
{
	struct tally_facts f;
	CHECK_INT(probe_roots("bad/no-devices", "noperf", &f), 0);
	CHECK(!f.pmus_known);
	CHECK_INT(f.nr_pmus, 0);
}

static void env_roots_are_the_defaults(void)
{
	char proc_path[4096], sys_path[4096];
	fixture_procfs(proc_path, sizeof(proc_path), "paranoid3-seccomp2");
	fixture_sysfs(sys_path, sizeof(sys_path), "novpmu");
	setenv("TALLY_PROCFS_ROOT", proc_path, 1);
	setenv("TALLY_SYSFS_ROOT", sys_path, 1);
	struct tally_facts f;
	CHECK_INT(probe_real(&f), 0);
	unsetenv("TALLY_PROCFS_ROOT");
	unsetenv("TALLY_SYSFS_ROOT");
	CHECK_INT(f.perf_event_paranoid, 3);
	CHECK_INT(f.seccomp, 2);
	CHECK_INT(f.nr_pmus, 5);
}

/* A replaced table: capabilities, limits and the kernel release as another machine would give them. */
static int fake_perf_errno;
static const char *fake_release;

static int fake_capget(struct __user_cap_header_struct *header, struct __user_cap_data_struct *data)
{
	CHECK_U64(header->version, _LINUX_CAPABILITY_VERSION_3);
	memset(data, 0, 2 * sizeof(*data));
	data[1].effective = 1U << (38 - 32); /* CAP_PERFMON only */
	return 0;
}

static int failing_capget(struct __user_cap_header_struct *header, struct __user_cap_data_struct *data)
{
	(void)header;
	(void)data;
	errno = EPERM;
	return -1;
}

static int fake_getrlimit(int resource, struct rlimit *rl)
{
	CHECK_INT(resource, RLIMIT_NOFILE);
	rl->rlim_cur = 1024;
	rl->rlim_max = RLIM_INFINITY;
	return 0;
}

static int fake_uname(struct utsname *u)
{
	memset(u, 0, sizeof(*u));
	snprintf(u->release, sizeof(u->release), "%s", fake_release);
	return 0;
}

/* Refuses the probe's open (fake_perf_errno), or only its PERF_FORMAT_LOST bit (EINVAL, as pre-6.0). */
static int fake_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                                unsigned long flags)
{
	if (fake_perf_errno == EINVAL && !(attr->read_format & PERF_FORMAT_LOST))
		return tly_sys_real.perf_event_open(attr, pid, cpu, group_fd, flags);
	errno = fake_perf_errno;
	return -1;
}

static void table_supplies_caps_limits_release(void)
{
	struct tly_sys table = tly_sys_real;
	table.capget = fake_capget;
	table.getrlimit = fake_getrlimit;
	table.uname = fake_uname;
	table.perf_event_open = fake_perf_event_open;
	fake_release = "5.4.0-100-generic";
	fake_perf_errno = EACCES;
	tly_sys_replace(&table);
	struct tally_facts f;
	CHECK_INT(probe_roots("novpmu", "paranoid3-seccomp2", &f), 0);
	CHECK(f.caps_known);
	CHECK(f.cap_perfmon);
	CHECK(!f.cap_sys_admin);
	CHECK_U64(f.nofile_soft, 1024);
	CHECK_U64(f.nofile_hard, UINT64_MAX);
	CHECK_STR(f.kernel_release, "5.4.0-100-generic");
	CHECK_INT(f.kernel_major, 5);
	CHECK_INT(f.kernel_minor, 4);
	CHECK_INT(f.kernel_patch, 0);
	/* The open was refused outright: the release decides, and 5.4 predates PERF_FORMAT_LOST. */
	CHECK(!f.has_format_lost);
	CHECK(!f.has_user_time);

	fake_release = "6.1.0-18-amd64";
	CHECK_INT(probe_roots("novpmu", "paranoid3-seccomp2", &f), 0);
	CHECK_INT(f.kernel_minor, 1);
	CHECK(f.has_format_lost);

	/* A kernel that rejects the bit itself (EINVAL) lacks it whatever its release says; the second open,
	 * without the bit, is real and its page can be mapped. */
	fake_perf_errno = EINVAL;
	CHECK_INT(probe_roots("novpmu", "paranoid3-seccomp2", &f), 0);
	CHECK(!f.has_format_lost);

	table.capget = failing_capget;
	CHECK_INT(probe_roots("novpmu", "paranoid3-seccomp2", &f), 0);
	CHECK(!f.caps_known);
	CHECK(!f.cap_perfmon);
	tly_sys_replace(NULL);
}

/* A table written before capget/getrlimit/uname joined it leaves them NULL: unknown facts, no crash. */
static void table_without_new_members(void)
{
	struct tly_sys table = tly_sys_real;
	table.capget = NULL;
	table.getrlimit = NULL;
	table.uname = NULL;
	tly_sys_replace(&table);
	struct tally_facts f;
	CHECK_INT(probe_real(&f), 0);
	tly_sys_replace(NULL);
	CHECK(!f.caps_known);
	CHECK_U64(f.nofile_soft, 0);
	CHECK_STR(f.kernel_release, "");
}

static void opts_and_output_size(void)
{
	CHECK_INT(tally_facts_probe(NULL, NULL), -EINVAL);
	struct tally_facts f = { 0 };
	/* A bad sz is a bad options-style struct, as for every other sz-carrying struct of the API. */
	CHECK_INT(tally_facts_probe(NULL, &f), -TALLY_EOPTS);
	CHECK_CONTAINS(tally_last_error(), "tally_facts");
	struct tally_facts_opts bad = { .sz = 1 };
	f.sz = sizeof(f);
	CHECK_INT(tally_facts_probe(&bad, &f), -TALLY_EOPTS);

	/* An older caller's smaller struct: nothing is written past its sz. */
	unsigned char raw[sizeof(struct tally_facts)];
	memset(raw, 0xaa, sizeof(raw));
	struct tally_facts *old = (struct tally_facts *)raw;
	old->sz = offsetof(struct tally_facts, pmu_names);
	CHECK_INT(tally_facts_probe(NULL, old), 0);
	CHECK_U64(old->sz, offsetof(struct tally_facts, pmu_names));
	CHECK(old->pmus_known);
	for (size_t i = offsetof(struct tally_facts, pmu_names); i < sizeof(raw); i++)
		if (raw[i] != 0xaa) {
			CHECK_INT(i, -1);
			break;
		}

	/* A newer caller's larger struct: the fields this build does not know read as zero. */
	struct {
		struct tally_facts known;
		uint64_t newer;
	} big;
	memset(&big, 0xaa, sizeof(big));
	big.known.sz = sizeof(big);
	CHECK_INT(tally_facts_probe(NULL, &big.known), 0);
	CHECK_U64(big.newer, 0);
	CHECK_U64(big.known.sz, sizeof(big));
}

/* A procfs integer at the ends of int: INT_MAX and INT_MIN + 1 are values; one past either end, and
 * INT_MIN (TALLY_FACT_UNKNOWN itself), are unknown, never a wrapped number. */
static void integer_limits(void)
{
	static const struct {
		const char *text;
		int want;
	} cases[] = {
		{ "2147483647\n", INT_MAX }, { "2147483648\n", TALLY_FACT_UNKNOWN },
		{ "-2147483647\n", INT_MIN + 1 }, { "-2147483648\n", TALLY_FACT_UNKNOWN }, { "2 x\n", TALLY_FACT_UNKNOWN },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char dir[] = "/tmp/tally-procfs-XXXXXX";
		const char *const tree[][2] = {
			{ "sys", NULL }, { "sys/kernel", NULL }, { "sys/kernel/perf_event_paranoid", cases[i].text },
			{ NULL, NULL },
		};
		tree_make(dir, tree);
		char sys_path[4096];
		fixture_sysfs(sys_path, sizeof(sys_path), "novpmu");
		TALLY_OPTS(tally_facts_opts, opts, .sysfs_root = sys_path, .procfs_root = dir);
		struct tally_facts f = { .sz = sizeof(f) };
		CHECK_INT(tally_facts_probe(&opts, &f), 0);
		CHECK_INT(f.perf_event_paranoid, cases[i].want);
		tree_remove(dir);
	}
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "real_permissions_match_procfs", real_permissions_match_procfs },
		{ "real_limits_and_kernel", real_limits_and_kernel },
		{ "real_pmus_match_sysfs", real_pmus_match_sysfs },
		{ "real_features_match_a_direct_probe", real_features_match_a_direct_probe },
		{ "fixture_paranoid2_nmi1_intel", fixture_paranoid2_nmi1_intel },
		{ "fixture_paranoid3_seccomp2_hybrid", fixture_paranoid3_seccomp2_hybrid },
		{ "fixture_paranoid_minus1_arm64", fixture_paranoid_minus1_arm64 },
		{ "fixture_novpmu_noperf", fixture_novpmu_noperf },
		{ "given_pmus_replace_the_scan", given_pmus_replace_the_scan },
		{ "fixture_missing_sysfs_is_unknown", fixture_missing_sysfs_is_unknown },
		{ "env_roots_are_the_defaults", env_roots_are_the_defaults },
		{ "table_supplies_caps_limits_release", table_supplies_caps_limits_release },
		{ "table_without_new_members", table_without_new_members },
		{ "opts_and_output_size", opts_and_output_size },
		{ "integer_limits", integer_limits },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
