/* SPDX-License-Identifier: MIT */
/*
 * tally: facts about this machine that decide whether and how events can be counted: PMUs, permissions,
 * limits, kernel version and features. The diagnostics behind tally_last_error() are built from them, and
 * `tally doctor` prints them.
 */
#ifndef TALLY_PROBE_H
#define TALLY_PROBE_H

#include <limits.h>
#include <tally/common.h>
#include <tally/pmu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An int fact whose file is absent or unreadable (e.g. nmi_watchdog on a kernel without it). */
#define TALLY_FACT_UNKNOWN INT_MIN

struct tally_facts_opts {
	size_t sz;
	/* Root of sysfs: NULL means $TALLY_SYSFS_ROOT when set, else "/sys". */
	const char *sysfs_root;
	/* Root of procfs: NULL means $TALLY_PROCFS_ROOT when set, else "/proc". Tests point both roots at
	 * fixture trees. */
	const char *procfs_root;
	/* A PMU snapshot the caller already holds (e.g. the one its events were parsed against): the PMU
	 * facts come from it instead of a second scan of sysfs. NULL: scan <sysfs_root>. */
	const tally_pmus *pmus;
};
#define tally_facts_opts__last_field pmus

struct tally_facts {
	size_t sz; /* set by the caller to sizeof(struct tally_facts); only that many bytes are written */

	/* PMUs under <sysfs>/bus/event_source/devices. */
	bool pmus_known;        /* the directory could be read; the next four are meaningful */
	unsigned nr_pmus;
	unsigned nr_core_pmus;  /* CPU PMUs: 0 in a VM without a virtual PMU, 2+ on hybrid machines */
	bool has_hw_pmu;        /* any PMU besides software, tracepoint, breakpoint, kprobe, uprobe, msr */
	char pmu_names[256];    /* every PMU's name, ", "-separated; ends in "..." when cut short */

	/* Permissions. */
	int perf_event_paranoid; /* /proc/sys/kernel/perf_event_paranoid; UNKNOWN: kernel without perf events */
	bool caps_known;         /* capget succeeded; the next two are meaningful */
	bool cap_perfmon;        /* CAP_PERFMON in the effective set (honoured by kernels 5.8+) */
	bool cap_sys_admin;      /* CAP_SYS_ADMIN in the effective set */
	int seccomp;             /* "Seccomp:" of /proc/self/status: 0 none, 1 strict, 2 filter */

	/* Counters shared with others and user-space access to them. */
	int nmi_watchdog;        /* /proc/sys/kernel/nmi_watchdog: 1 means it holds one counter per CPU (x86) */
	int rdpmc;               /* x86 <sysfs>/.../cpu/rdpmc (cpu_core/ on hybrid): 0 off, 1 mmap'd events, 2 all */
	int perf_user_access;    /* arm64 /proc/sys/kernel/perf_user_access: 1 allows user-space counter reads */

	/* Limits. */
	uint64_t nofile_soft;    /* RLIMIT_NOFILE; UINT64_MAX for unlimited, 0 when unknown */
	uint64_t nofile_hard;
	unsigned online_cpus;    /* from <sysfs>/devices/system/cpu/online; 0 when unknown */

	/* Kernel. */
	char kernel_release[65]; /* uname -r */
	unsigned kernel_major, kernel_minor, kernel_patch; /* leading numbers of the release */
	bool has_format_lost;    /* read_format PERF_FORMAT_LOST accepted (6.0+) */
	bool has_user_time;      /* the mmap'd page of an event offers cap_user_time (time_shift/mult/offset) */

	/* CPU. */
	char cpu_model[128];     /* /proc/cpuinfo "model name" (x86), else "implementer 0x41 part 0xd0c" from
	                          * "CPU implementer"/"CPU part" (arm64); "" when unknown */
};
#define tally_facts__last_field cpu_model

/* Probes this machine: reads sysfs and procfs files, asks capget, getrlimit and uname, and opens, maps and
 * closes one software dummy event of the calling thread. A fact that cannot be read is reported as
 * unknown, not as a failure. Returns 0; -EINVAL when out is NULL; -TALLY_EOPTS when out->sz is too small
 * to hold sz or the options struct is bad. Thread-safe (it touches no shared state). */
TALLY_API int tally_facts_probe(const struct tally_facts_opts *opts, struct tally_facts *out);

#ifdef __cplusplus
}
#endif
#endif
