/* SPDX-License-Identifier: MIT */
/* Probing the machine facts behind the diagnostics (tally_facts_probe). */
#include "core/error.h"
#include "core/opts.h"
#include "core/sys.h"
#include "core/sysfs_file.h"
#include "machine/pmu.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <tally/evlist.h>
#include <tally/probe.h>

/* Older uapi headers lack these; the values are ABI. */
#ifndef CAP_PERFMON
#define CAP_PERFMON 38 /* Linux 5.8 */
#endif
#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4) /* Linux 6.0 */
#endif

const char *tly_default_procfs_root(void)
{
	/* As for TALLY_SYSFS_ROOT (pmu.c): a privileged program must not read a tree its caller chose. */
	const char *env = secure_getenv("TALLY_PROCFS_ROOT");
	return env && *env ? env : "/proc";
}

/* Reads a file holding one decimal integer; TALLY_FACT_UNKNOWN when absent or not a number. */
static int read_int_file(const char *root, const char *rel)
{
	char path[PATH_MAX], text[64];
	if (tly_path_join(path, sizeof(path), root, rel) ||
	    tly_sysfs_read(path, text, sizeof(text), TLY_SYSFS_WHOLE) <= 0)
		return TALLY_FACT_UNKNOWN;
	char *end;
	long v = strtol(text, &end, 10);
	if (*end != '\0' || v < INT_MIN + 1 || v > INT_MAX)
		return TALLY_FACT_UNKNOWN;
	return (int)v;
}

static void append_name(char *list, size_t size, const char *name)
{
	static const char cut[] = "...";
	size_t used = strlen(list);
	if (used >= sizeof(cut) - 1 && strcmp(list + used - (sizeof(cut) - 1), cut) == 0)
		return;
	int n = snprintf(list + used, size - used, "%s%s", used ? ", " : "", name);
	if (n < 0 || (size_t)n >= size - used)
		memcpy(list + size - sizeof(cut), cut, sizeof(cut));
}

static void probe_pmus(const char *sysfs_root, const tally_pmus *given, struct tally_facts *f)
{
	TALLY_OPTS(tally_pmus_opts, opts, .sysfs_root = sysfs_root);
	tally_pmus *loaded = NULL;
	if (!given && tally_pmus_load(&opts, &loaded) < 0)
		return;
	const tally_pmus *pmus = given ? given : loaded;
	f->pmus_known = true;
	f->nr_pmus = (unsigned)tally_pmus_count(pmus);
	f->nr_core_pmus = (unsigned)tally_pmus_core_count(pmus);
	/* Names and core-ness only: no PMU's details are read for them. */
	for (size_t i = 0; i < tally_pmus_count(pmus); i++) {
		const struct tally_pmu *pmu = tally_pmus_at(pmus, i);
		if (tly_pmu_is_core(pmu) || !tly_pmu_is_software_context(pmu->name))
			f->has_hw_pmu = true;
		append_name(f->pmu_names, sizeof(f->pmu_names), pmu->name);
	}
	tally_pmus_free(loaded);
}

/* The value of the first "key<spaces>: value" line of cpuinfo text, or NULL. */
static const char *cpuinfo_value(const char *text, const char *key, size_t *len)
{
	size_t key_len = strlen(key);
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, key, key_len) != 0 || (line[key_len] != ' ' && line[key_len] != '\t' &&
		                                         line[key_len] != ':'))
			continue;
		const char *v = strchr(line, ':');
		const char *eol = strchr(line, '\n');
		if (!v || (eol && v > eol))
			continue;
		for (v++; *v == ' ' || *v == '\t'; v++)
			;
		*len = eol ? (size_t)(eol - v) : strlen(v);
		return v;
	}
	return NULL;
}

/* Only the first CPU's block is needed, so only the head of cpuinfo is read (the whole file grows with
 * the number of CPUs: hundreds of KiB on large servers). */
static void probe_cpu_model(const char *procfs_root, struct tally_facts *f)
{
	char path[PATH_MAX], text[4096];
	if (tly_path_join(path, sizeof(path), procfs_root, "cpuinfo") ||
	    tly_sysfs_read(path, text, sizeof(text), TLY_SYSFS_HEAD) <= 0)
		return;
	size_t len, part_len;
	const char *model = cpuinfo_value(text, "model name", &len);
	if (model) {
		snprintf(f->cpu_model, sizeof(f->cpu_model), "%.*s", (int)len, model);
		return;
	}
	const char *implementer = cpuinfo_value(text, "CPU implementer", &len);
	const char *part = cpuinfo_value(text, "CPU part", &part_len);
	if (implementer && part)
		snprintf(f->cpu_model, sizeof(f->cpu_model), "implementer %.*s part %.*s", (int)len, implementer,
		         (int)part_len, part);
}

static unsigned probe_online_cpus(const char *sysfs_root)
{
	tally_cpus *cpus;
	if (tally_cpus_online(sysfs_root, &cpus) < 0)
		return 0;
	unsigned n = (unsigned)tally_cpus_count(cpus);
	tally_cpus_free(cpus);
	return n;
}

static int probe_seccomp(const char *procfs_root)
{
	char path[PATH_MAX], text[8192];
	if (tly_path_join(path, sizeof(path), procfs_root, "self/status") ||
	    tly_sysfs_read(path, text, sizeof(text), TLY_SYSFS_WHOLE) <= 0)
		return TALLY_FACT_UNKNOWN;
	const char *line = strstr(text, "\nSeccomp:");
	if (!line)
		return TALLY_FACT_UNKNOWN;
	char *end;
	long mode = strtol(line + strlen("\nSeccomp:"), &end, 10);
	return end == line + strlen("\nSeccomp:") ? TALLY_FACT_UNKNOWN : (int)mode;
}

/* The table may come from a test written before these members existed: a NULL member is an unknown fact. */
static void probe_caps(struct tally_facts *f)
{
	struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	memset(data, 0, sizeof(data));
	if (!tly_sys->capget || tly_sys->capget(&header, data) < 0)
		return;
	f->caps_known = true;
	f->cap_sys_admin = data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN);
	f->cap_perfmon = data[CAP_TO_INDEX(CAP_PERFMON)].effective & CAP_TO_MASK(CAP_PERFMON);
}

static uint64_t rlim_to_u64(rlim_t v)
{
	return v == RLIM_INFINITY ? UINT64_MAX : (uint64_t)v;
}

static void probe_nofile(struct tally_facts *f)
{
	struct rlimit rl;
	if (!tly_sys->getrlimit || tly_sys->getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	f->nofile_soft = rlim_to_u64(rl.rlim_cur);
	f->nofile_hard = rlim_to_u64(rl.rlim_max);
}

static void probe_kernel(struct tally_facts *f)
{
	struct utsname u;
	if (!tly_sys->uname || tly_sys->uname(&u) < 0)
		return;
	snprintf(f->kernel_release, sizeof(f->kernel_release), "%s", u.release);
	/* "6.1.0-18-amd64", "6.18.44-fc", "5.15": missing parts stay 0. */
	sscanf(u.release, "%u.%u.%u", &f->kernel_major, &f->kernel_minor, &f->kernel_patch);
}

static int open_dummy(uint64_t read_format)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
		.exclude_kernel = 1, /* allowed at every paranoid level below 3 */
		.exclude_hv = 1,
		.read_format = read_format,
	};
	return tly_sys->perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/*
 * PERF_FORMAT_LOST (6.0) is probed rather than decided from the release: distribution kernels backport
 * perf features under older version numbers, and the kernel rejects read_format bits it does not know
 * with EINVAL, so one open of a software dummy event answers exactly. Only when perf_event_open is
 * refused outright (paranoid 3, a seccomp filter) does the release decide; no counting works then anyway.
 * The same event's mmap'd page then tells whether user-space time conversion (cap_user_time) exists:
 * x86 sets it only with a stable TSC-based sched_clock, which many VMs (kvm-clock) lack.
 */
static void probe_features(struct tally_facts *f)
{
	int fd = open_dummy(PERF_FORMAT_LOST);
	if (fd >= 0) {
		f->has_format_lost = true;
	} else if (errno == EINVAL) {
		fd = open_dummy(0);
	} else {
		f->has_format_lost = f->kernel_major >= 6;
		return;
	}
	if (fd < 0)
		return;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *map = tly_sys->mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (map != MAP_FAILED) {
		const struct perf_event_mmap_page *pc = map;
		f->has_user_time = pc->cap_user_time;
		tly_sys->munmap(map, page);
	}
	tly_sys->close(fd);
}

int tally_facts_probe(const struct tally_facts_opts *opts, struct tally_facts *out)
{
	if (!TLY_OPTS_VALID(opts, tally_facts_opts))
		return -TALLY_EOPTS;
	if (!out)
		return tly_null_arg(__func__);
	int err = tly_info_check(out, "tally_facts");
	if (err)
		return err;
	const char *sysfs_root = TLY_OPT(opts, sysfs_root, NULL);
	const char *procfs_root = TLY_OPT(opts, procfs_root, NULL);
	if (!sysfs_root)
		sysfs_root = tly_default_sysfs_root();
	if (!procfs_root)
		procfs_root = tly_default_procfs_root();

	struct tally_facts f = { .sz = out->sz };
	probe_pmus(sysfs_root, TLY_OPT(opts, pmus, NULL), &f);
	f.perf_event_paranoid = read_int_file(procfs_root, "sys/kernel/perf_event_paranoid");
	probe_caps(&f);
	f.seccomp = probe_seccomp(procfs_root);
	f.nmi_watchdog = read_int_file(procfs_root, "sys/kernel/nmi_watchdog");
	f.rdpmc = read_int_file(sysfs_root, "bus/event_source/devices/cpu/rdpmc");
	if (f.rdpmc == TALLY_FACT_UNKNOWN)
		f.rdpmc = read_int_file(sysfs_root, "bus/event_source/devices/cpu_core/rdpmc");
	f.perf_user_access = read_int_file(procfs_root, "sys/kernel/perf_user_access");
	probe_nofile(&f);
	f.online_cpus = probe_online_cpus(sysfs_root);
	probe_kernel(&f);
	probe_features(&f);
	probe_cpu_model(procfs_root, &f);

	return TLY_INFO_COPY(out, &f, tally_facts);
}
