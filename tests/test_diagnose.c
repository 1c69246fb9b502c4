/* SPDX-License-Identifier: MIT */
/* Failure explanations: a table of failures × machine facts → key phrases, the retry policy, and the
 * real failure of `cycles` on a machine without a hardware PMU. */
#include "core/error.h"
#include "core/sys.h"
#include "diagnose/diagnose.h"
#include "harness.h"

#include <errno.h>
#include <unistd.h>
#include <tally/common.h>

/* The machines the table runs on. */
enum machine {
	BARE_METAL,   /* one core PMU, paranoid 2, unprivileged, no seccomp, watchdog off, kernel 6.1 */
	NO_VPMU,      /* a VM without a virtual PMU, as this project's machines are */
	PARANOID_3,   /* a Debian/Ubuntu kernel */
	PARANOID_1,
	OLD_KERNEL,   /* paranoid 3 on 5.4: no CAP_PERFMON yet */
	PRIVILEGED,   /* root: CAP_SYS_ADMIN */
	CONTAINER,    /* a seccomp filter, paranoid 2 */
	NMI_WATCHDOG, /* the NMI watchdog holds a counter */
	NO_PERF,      /* a kernel without perf events */
};

static struct tally_facts facts_for(enum machine m)
{
	struct tally_facts f = {
		.sz = sizeof(f),
		.pmus_known = true,
		.nr_pmus = 8,
		.nr_core_pmus = 1,
		.has_hw_pmu = true,
		.pmu_names = "breakpoint, cpu, kprobe, msr, power, software, tracepoint, uprobe",
		.perf_event_paranoid = 2,
		.caps_known = true,
		.seccomp = 0,
		.nmi_watchdog = 0,
		.rdpmc = 1,
		.perf_user_access = TALLY_FACT_UNKNOWN,
		.nofile_soft = 1024,
		.nofile_hard = 4096,
		.online_cpus = 8,
		.kernel_release = "6.1.0-18-amd64",
		.kernel_major = 6,
		.kernel_minor = 1,
		.has_format_lost = true,
	};
	switch (m) {
	case BARE_METAL:
		break;
	case NO_VPMU:
		f.nr_pmus = 5;
		f.nr_core_pmus = 0;
		f.has_hw_pmu = false;
		snprintf(f.pmu_names, sizeof(f.pmu_names), "breakpoint, msr, software, tracepoint, uprobe");
		break;
	case PARANOID_3:
		f.perf_event_paranoid = 3;
		break;
	case PARANOID_1:
		f.perf_event_paranoid = 1;
		break;
	case OLD_KERNEL:
		f.perf_event_paranoid = 3;
		snprintf(f.kernel_release, sizeof(f.kernel_release), "5.4.0-100-generic");
		f.kernel_major = 5;
		f.kernel_minor = 4;
		break;
	case PRIVILEGED:
		f.cap_sys_admin = true;
		break;
	case CONTAINER:
		f.seccomp = 2;
		break;
	case NMI_WATCHDOG:
		f.nmi_watchdog = 1;
		break;
	case NO_PERF:
		f.perf_event_paranoid = TALLY_FACT_UNKNOWN;
		break;
	}
	return f;
}

static const struct perf_event_attr cycles_attr = { .size = sizeof(struct perf_event_attr),
	                                            .type = PERF_TYPE_HARDWARE,
	                                            .config = PERF_COUNT_HW_CPU_CYCLES };
static const struct perf_event_attr cycles_user = { .size = sizeof(struct perf_event_attr),
	                                            .type = PERF_TYPE_HARDWARE,
	                                            .config = PERF_COUNT_HW_CPU_CYCLES, .exclude_kernel = 1 };
static const struct perf_event_attr cycles_pp = { .size = sizeof(struct perf_event_attr),
	                                          .type = PERF_TYPE_HARDWARE,
	                                          .config = PERF_COUNT_HW_CPU_CYCLES, .precise_ip = 2 };
static const struct perf_event_attr cycles_idle = { .size = sizeof(struct perf_event_attr),
	                                            .type = PERF_TYPE_HARDWARE,
	                                            .config = PERF_COUNT_HW_CPU_CYCLES, .exclude_idle = 1 };
static const struct perf_event_attr raw_attr = { .size = sizeof(struct perf_event_attr), .type = PERF_TYPE_RAW,
	                                         .config = 0x1c2 };
static const struct perf_event_attr df_attr = { .size = sizeof(struct perf_event_attr), .type = 12,
	                                        .config = 0x7 };
static const struct perf_event_attr big_attr = { .size = 200, .type = PERF_TYPE_SOFTWARE };
static const struct perf_event_attr faults_attr = { .size = sizeof(struct perf_event_attr),
	                                            .type = PERF_TYPE_SOFTWARE,
	                                            .config = PERF_COUNT_SW_PAGE_FAULTS };

/* mem:0x1000/3, mem:0x1000/16 and mem:0x5000 as tally's parser writes them (linux/hw_breakpoint.h: W is 2). */
static const struct perf_event_attr bp_len3_attr = { .size = sizeof(struct perf_event_attr),
	                                             .type = PERF_TYPE_BREAKPOINT, .bp_type = 3,
	                                             .bp_addr = 0x1000, .bp_len = 3 };
static const struct perf_event_attr bp_len16_attr = { .size = sizeof(struct perf_event_attr),
	                                              .type = PERF_TYPE_BREAKPOINT, .bp_type = 2,
	                                              .bp_addr = 0x1000, .bp_len = 16 };
static const struct perf_event_attr bp_attr = { .size = sizeof(struct perf_event_attr),
	                                        .type = PERF_TYPE_BREAKPOINT, .bp_type = 3,
	                                        .bp_addr = 0x5000, .bp_len = 4 };

static const struct perf_event_attr pinned_faults_attr = { .size = sizeof(struct perf_event_attr),
	                                                   .type = PERF_TYPE_SOFTWARE,
	                                                   .config = PERF_COUNT_SW_PAGE_FAULTS, .pinned = 1 };

struct row {
	const char *name;
	enum machine machine;
	struct tly_diag d;
	const char *phrases[6];
};

static const struct row rows[] = {
	{ "no hardware PMU", NO_VPMU, { .op = TLY_DIAG_OPEN, .err = ENOENT, .event = "cycles", .attr = &cycles_attr },
	  { "cannot open event 'cycles' (perf_event_open: No such file or directory, ENOENT):",
	    "no hardware PMU", "only breakpoint, msr, software, tracepoint, uprobe", "Software events",
	    "vPMU" } },
	{ "no hardware PMU, raw code", NO_VPMU, { .op = TLY_DIAG_OPEN, .err = EOPNOTSUPP, .event = "r1c2",
	                                          .attr = &raw_attr },
	  { "no hardware PMU" } },
	{ "generic event this CPU lacks", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = ENOENT, .event = "cycles",
	                                                .attr = &cycles_attr },
	  { "PMU (cpu) does not implement 'cycles'", "generic event", "tally list" } },
	{ "dynamic PMU type absent", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = ENOENT, .event = "amd_df/event=7/",
	                                           .attr = &df_attr },
	  { "no PMU has type 12", "breakpoint, cpu" } },
	{ "EOPNOTSUPP feature", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = EOPNOTSUPP, .event = "amd_df/event=7/",
	                                      .attr = &df_attr, .pmu = "amd_df" },
	  { "PMU amd_df does not support", "CPU-wide" } },
	{ "paranoid 3 forbids all", PARANOID_3, { .op = TLY_DIAG_OPEN, .err = EACCES, .event = "instructions",
	                                          .attr = &cycles_user },
	  { "perf_event_paranoid is 3", "CAP_PERFMON", "kernel.perf_event_paranoid=2", "Debian/Ubuntu" } },
	{ "paranoid 3 on 5.4", OLD_KERNEL, { .op = TLY_DIAG_OPEN, .err = EACCES, .event = "instructions",
	                                     .attr = &cycles_user },
	  { "perf_event_paranoid is 3", "CAP_SYS_ADMIN", "5.8", "5.4.0-100-generic" } },
	{ "paranoid 2 forbids kernel mode", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = EACCES, .event = "cycles",
	                                                  .attr = &cycles_attr },
	  { "perf_event_paranoid is 2", "user space only", ":u", "CAP_PERFMON", "perf_event_paranoid=1" } },
	{ "paranoid 1 forbids CPU-wide", PARANOID_1, { .op = TLY_DIAG_OPEN, .err = EACCES, .event = "cycles",
	                                               .attr = &cycles_attr, .cpu_wide = true },
	  { "perf_event_paranoid is 1", "whole CPU", "perf_event_paranoid=0" } },
	/* -a or -G under paranoid 2: :u alone would be refused again, so the CPU-wide reason comes first. */
	{ "paranoid 2 forbids CPU-wide before kernel mode", BARE_METAL,
	  { .op = TLY_DIAG_OPEN, .err = EACCES, .event = "task-clock", .attr = &cycles_attr, .cpu_wide = true },
	  { "perf_event_paranoid is 2", "whole CPU", "perf_event_paranoid=0" } },
	{ "privileged: not paranoid", PRIVILEGED, { .op = TLY_DIAG_OPEN, .err = EACCES, .event = "cycles",
	                                            .attr = &cycles_attr },
	  { "CAP_SYS_ADMIN", "security module" } },
	{ "allowed by paranoid: the target", PARANOID_1, { .op = TLY_DIAG_OPEN, .err = EACCES, .event = "cycles",
	                                                   .attr = &cycles_user },
	  { "perf_event_paranoid is 1", "another user", "ptrace" } },
	{ "EPERM under seccomp", CONTAINER, { .op = TLY_DIAG_OPEN, .err = EPERM, .event = "cycles",
	                                      .attr = &cycles_attr },
	  { "EPERM", "seccomp filter", "Seccomp: 2", "container" } },
	{ "ENOSYS under seccomp", CONTAINER, { .op = TLY_DIAG_OPEN, .err = ENOSYS, .event = "task-clock",
	                                       .attr = &faults_attr },
	  { "ENOSYS", "seccomp filter" } },
	{ "ENOSYS without perf events", NO_PERF, { .op = TLY_DIAG_OPEN, .err = ENOSYS, .event = "task-clock" },
	  { "CONFIG_PERF_EVENTS" } },
	{ "EMFILE within the hard limit", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = EMFILE, .event = "page-faults",
	                                                .attr = &faults_attr, .fds_needed = 2000 },
	  { "needs 2000 file descriptors", "soft RLIMIT_NOFILE is 1024", "could not be raised",
	    "hard limit (4096)", "ulimit -n", "setrlimit" } },
	{ "EMFILE beyond the hard limit", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = EMFILE, .event = "page-faults",
	                                                .attr = &faults_attr, .fds_needed = 5000 },
	  { "needs 5000 file descriptors (one per event, CPU and thread), more than the hard RLIMIT_NOFILE (4096)",
	    "raise the hard limit", "LimitNOFILE" } },
	{ "ENFILE", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = ENFILE, .event = "page-faults" },
	  { "ENFILE", "fs.file-max" } },
	{ "EINVAL mixed PMUs", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = EINVAL, .event = "amd_df/event=7/",
	                                     .attr = &df_attr, .pmu = "amd_df", .leader = "cycles",
	                                     .leader_pmu = "cpu", .group_size = 3, .group_index = 2 },
	  { "EINVAL", "'amd_df/event=7/' (PMU amd_df) cannot join the group led by 'cycles' (PMU cpu)" } },
	{ "EINVAL software member is no mix", BARE_METAL,
	  { .op = TLY_DIAG_OPEN, .err = EINVAL, .event = "page-faults", .attr = &faults_attr, .leader = "cycles",
	    .leader_pmu = "cpu", .group_size = 2, .group_index = 1 },
	  { "could not join the group led by 'cycles'", "same task and CPU" } },
	{ "EINVAL msr member is no mix", BARE_METAL,
	  { .op = TLY_DIAG_OPEN, .err = EINVAL, .event = "msr/tsc/", .pmu = "msr", .leader = "cycles",
	    .leader_pmu = "cpu", .group_size = 2, .group_index = 1 },
	  { "could not join the group led by 'cycles'", "same task and CPU" } },
	{ "EINVAL group too big", NMI_WATCHDOG, { .op = TLY_DIAG_OPEN, .err = EINVAL, .event = "branches",
	                                          .attr = &cycles_user, .leader = "cycles", .leader_pmu = "cpu",
	                                          .group_size = 8, .group_index = 6 },
	  { "'branches' is event 7 of the group led by 'cycles' (8 events)", "no longer fits", "split the group",
	    "nmi_watchdog=0" } },
	{ "EINVAL precise level", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = EINVAL, .event = "cycles:pp",
	                                        .attr = &cycles_pp },
	  { "precise level 2", ":pp", "max_precise" } },
	{ "EOPNOTSUPP precise level", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = EOPNOTSUPP, .event = "cycles:pp",
	                                            .attr = &cycles_pp },
	  { "EOPNOTSUPP", "precise level 2" } },
	{ "EINVAL modifier", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = EINVAL, .event = "cycles:I",
	                                   .attr = &cycles_idle },
	  { "exclude_idle (:I)", "does not support" } },
	{ "EINVAL config", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = EINVAL, .event = "r1c2", .attr = &raw_attr },
	  { "rejected the attr of 'r1c2' (type 4, config 0x1c2)", "6.1.0-18-amd64" } },
	/* A breakpoint's EINVAL is its address, length or access, never "the config" (it has none). */
	{ "EINVAL breakpoint", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = EINVAL, .event = "mem:0x1000/3",
	                                     .attr = &bp_len3_attr },
	  { "breakpoint 'mem:0x1000/3' (address 0x1000, length 3, access rw)", "1, 2, 4 or 8 bytes",
	    "aligned", "mem:ADDR/LEN" } },
	{ "EOPNOTSUPP breakpoint", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = EOPNOTSUPP, .event = "mem:0x1000/16",
	                                         .attr = &bp_len16_attr },
	  { "length 16, access w", "1, 2, 4 or 8 bytes" } },
	{ "ENOSPC breakpoints", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = ENOSPC, .event = "mem:0x5000",
	                                      .attr = &bp_attr },
	  { "ENOSPC", "debug registers", "x86 has 4", "fewer mem: events" } },
	{ "EBUSY with the watchdog", NMI_WATCHDOG, { .op = TLY_DIAG_OPEN, .err = EBUSY, .event = "cycles",
	                                             .attr = &cycles_attr },
	  { "EBUSY", "held by another user", "NMI watchdog", "nmi_watchdog=0" } },
	{ "EBUSY exclusive", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = EBUSY, .event = "intel_pt//" },
	  { "exclusive", "Intel PT" } },
	{ "E2BIG", OLD_KERNEL, { .op = TLY_DIAG_OPEN, .err = E2BIG, .event = "x", .attr = &big_attr },
	  { "E2BIG", "200 bytes", "5.4.0-100-generic", "config3" } },
	{ "pinned member", BARE_METAL,
	  { .op = TLY_DIAG_OPEN, .err = EINVAL, .event = "page-faults:D", .attr = &pinned_faults_attr,
	    .leader = "task-clock", .group_size = 2, .group_index = 1 },
	  { "EINVAL", "member of the group led by 'task-clock'", "pinned (:D)", "only a group's leader",
	    "{...}:D" } },
	/* The other E2BIG: the 1023rd member of a group read with tally's layout (perf_event_validate_size). */
	{ "E2BIG: group read past 16 KiB", BARE_METAL,
	  { .op = TLY_DIAG_OPEN, .err = E2BIG, .event = "page-faults", .attr = &faults_attr, .leader = "task-clock",
	    .group_size = 1100, .group_index = 1022,
	    .leader_read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
	                          PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID },
	  { "E2BIG", "event 1023 of the group led by 'task-clock'", "16392 bytes", "limit of 16384 bytes (16 KiB)",
	    "at most 1022 events, and this one has 1100", "perf stat refuses" } },
	{ "E2BIG: group within the limit is the attr", OLD_KERNEL,
	  { .op = TLY_DIAG_OPEN, .err = E2BIG, .event = "x", .attr = &big_attr, .leader = "task-clock",
	    .group_size = 3, .group_index = 2,
	    .leader_read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
	                          PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID },
	  { "E2BIG", "200 bytes", "config3" } },
	{ "ESRCH", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = ESRCH, .event = "cycles" },
	  { "ESRCH", "does not exist" } },
	{ "unknown errno", BARE_METAL, { .op = TLY_DIAG_OPEN, .err = EXDEV, .event = "cycles" },
	  { "EXDEV", "no specific cause" } },
	{ "ioctl too new", OLD_KERNEL, { .op = TLY_DIAG_IOCTL, .err = EINVAL, .event = "cycles",
	                                 .request = "PERF_EVENT_IOC_ID" },
	  { "cannot control event 'cycles' (ioctl PERF_EVENT_IOC_ID: Invalid argument, EINVAL):", "3.12" } },
	{ "ioctl on a closed fd", BARE_METAL, { .op = TLY_DIAG_IOCTL, .err = EBADF, .event = "cycles",
	                                        .request = "PERF_EVENT_IOC_ENABLE" },
	  { "EBADF", "closed already" } },
	{ "read buffer too small", BARE_METAL, { .op = TLY_DIAG_READ, .err = ENOSPC, .event = "cycles",
	                                         .read_size = 24 },
	  { "cannot read event 'cycles' (read:", "ENOSPC", "(24 bytes)" } },
	{ "mmap over the mlock allowance", BARE_METAL, { .op = TLY_DIAG_MMAP, .err = EPERM, .event = "cycles" },
	  { "cannot map event 'cycles' (mmap:", "perf_event_mlock_kb", "RLIMIT_MEMLOCK" } },
	{ "mmap bad size", BARE_METAL, { .op = TLY_DIAG_MMAP, .err = EINVAL, .event = "cycles" },
	  { "one page long", "1 + 2^n pages" } },
};

static void table_of_failures(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		harness_case = r->name;
		struct tally_facts f = facts_for(r->machine);
		struct tly_diag d = r->d;
		d.facts = &f;
		char text[TLY_ERROR_MAX];
		int n = tly_diagnose(&d, text, sizeof(text));
		CHECK(n > 0 && (size_t)n < sizeof(text));
		CHECK_INT(strlen(text), n);
		/* Every message names the event and the errno, and ends without a newline. */
		char quoted[128];
		snprintf(quoted, sizeof(quoted), "event '%s'", d.event);
		CHECK_CONTAINS(text, quoted);
		CHECK_CONTAINS(text, strerrorname_np(d.err));
		CHECK(n > 0 && text[n - 1] != '\n');
		for (size_t p = 0; p < 6 && r->phrases[p]; p++)
			CHECK_CONTAINS(text, r->phrases[p]);
	}
	harness_case = "table_of_failures";
}

/* Each E2BIG explanation names one cause, never the other's. */
static void e2big_names_one_cause(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (rows[i].d.err != E2BIG)
			continue;
		struct tally_facts f = facts_for(rows[i].machine);
		struct tly_diag d = rows[i].d;
		d.facts = &f;
		char text[TLY_ERROR_MAX];
		tly_diagnose(&d, text, sizeof(text));
		bool group = d.group_size > 1000;
		CHECK(group == (strstr(text, "16 KiB") != NULL));
		CHECK(group != (strstr(text, "perf_event_attr") != NULL));
	}
}

static void error_records_and_codes(void)
{
	struct tally_facts f = facts_for(NO_VPMU);
	struct tly_diag d = { .op = TLY_DIAG_OPEN, .err = ENOENT, .event = "cycles", .attr = &cycles_attr,
		              .facts = &f };
	CHECK_INT(tly_diag_error(&d), -TALLY_ENOPMU);
	char text[TLY_ERROR_MAX];
	tly_diagnose(&d, text, sizeof(text));
	CHECK_STR(tally_last_error(), text);

	f = facts_for(PARANOID_3);
	d.err = EACCES;
	CHECK_INT(tly_diag_error(&d), -EACCES);
	CHECK_CONTAINS(tally_last_error(), "perf_event_paranoid is 3");
}

static void truncation_keeps_snprintf_semantics(void)
{
	struct tally_facts f = facts_for(NO_VPMU);
	struct tly_diag d = { .op = TLY_DIAG_OPEN, .err = ENOENT, .event = "cycles", .attr = &cycles_attr,
		              .facts = &f };
	char full[TLY_ERROR_MAX], small[32];
	int n = tly_diagnose(&d, full, sizeof(full));
	CHECK_INT(tly_diagnose(&d, small, sizeof(small)), n);
	CHECK_INT(strlen(small), sizeof(small) - 1);
	CHECK(strncmp(small, full, sizeof(small) - 1) == 0);
	CHECK_INT(tly_diagnose(&d, NULL, 0), n);
}

static void retry_policy(void)
{
	struct tally_facts f = facts_for(BARE_METAL);
	struct tly_diag d = { .op = TLY_DIAG_OPEN, .err = EACCES, .event = "cycles", .attr = &cycles_attr,
		              .facts = &f };
	CHECK(tly_diag_retry_user_only(&d));
	d.err = EPERM;
	CHECK(tly_diag_retry_user_only(&d));

	struct tly_diag no = d;
	no.attr = &cycles_user; /* already user-only: excluding the kernel is not the obstacle */
	CHECK(!tly_diag_retry_user_only(&no));
	struct perf_event_attr kernel_only = cycles_attr;
	kernel_only.exclude_user = 1; /* :k, --all-kernel: without the kernel it would count nothing */
	no.attr = &kernel_only;
	CHECK(!tly_diag_retry_user_only(&no));
	no = d;
	no.cpu_wide = true; /* CPU-wide needs paranoid <= 0 anyway */
	CHECK(!tly_diag_retry_user_only(&no));
	no = d;
	no.err = ENOENT;
	CHECK(!tly_diag_retry_user_only(&no));
	no = d;
	no.op = TLY_DIAG_MMAP;
	CHECK(!tly_diag_retry_user_only(&no));

	struct tally_facts other = facts_for(PARANOID_3);
	no = d;
	no.facts = &other;
	CHECK(!tly_diag_retry_user_only(&no));
	other = facts_for(PARANOID_1);
	CHECK(!tly_diag_retry_user_only(&no));
	other = facts_for(PRIVILEGED);
	CHECK(!tly_diag_retry_user_only(&no));
	other = facts_for(CONTAINER); /* EPERM there is the seccomp filter's */
	CHECK(!tly_diag_retry_user_only(&no));
	no.err = EACCES;
	CHECK(tly_diag_retry_user_only(&no));
	/* CAP_PERFMON counts from 5.8 only. */
	other = facts_for(BARE_METAL);
	other.cap_perfmon = true;
	CHECK(!tly_diag_retry_user_only(&no));
	other.kernel_major = 5;
	other.kernel_minor = 4;
	CHECK(tly_diag_retry_user_only(&no));

	char note[512];
	f = facts_for(BARE_METAL);
	int n = tly_diag_user_only_note("cycles", &f, note, sizeof(note));
	CHECK(n > 0 && (size_t)n < sizeof(note));
	CHECK_CONTAINS(note, "'cycles' counts user space only");
	CHECK_CONTAINS(note, "perf_event_paranoid is 2");
	CHECK_CONTAINS(note, "exclude_kernel=1");
	CHECK_CONTAINS(note, "CAP_PERFMON");
}

static void never_scheduled_group(void)
{
	struct tally_facts f = facts_for(NMI_WATCHDOG);
	char text[1024];
	int n = tly_diagnose_not_counted("cycles", 7, 12500000, &f, text, sizeof(text));
	CHECK(n > 0 && (size_t)n < sizeof(text));
	CHECK_CONTAINS(text, "the group led by 'cycles' (7 events)");
	CHECK_CONTAINS(text, "12.500 ms");
	CHECK_CONTAINS(text, "time_running 0");
	CHECK_CONTAINS(text, "NMI watchdog");
	CHECK_CONTAINS(text, "nmi_watchdog=0");
	CHECK_CONTAINS(text, "split the group");

	f = facts_for(BARE_METAL);
	tly_diagnose_not_counted("cycles", 1, 1000000, &f, text, sizeof(text));
	CHECK_CONTAINS(text, "event 'cycles' was enabled for 1.000 ms");
	CHECK(!strstr(text, "NMI watchdog"));
}

/* The real thing: this machine's own failure to open cycles, explained from its own facts. */
static void real_cycles_failure(void)
{
	struct tally_facts f = { .sz = sizeof(f) };
	CHECK_INT(tally_facts_probe(NULL, &f), 0);
	struct perf_event_attr attr = cycles_attr;
	attr.disabled = 1;
	attr.exclude_kernel = 1; /* so that paranoid 2 alone cannot be the reason */
	int fd = tly_sys->perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	int err = errno;
	if (fd >= 0) {
		close(fd);
		SKIP("cycles opens here: this machine has a hardware PMU (%u core PMUs)", f.nr_core_pmus);
	}
	if (f.nr_core_pmus > 0)
		SKIP("cycles fails with %s although a core PMU exists", strerrorname_np(err));
	struct tly_diag d = { .op = TLY_DIAG_OPEN, .err = err, .event = "cycles", .attr = &attr };
	CHECK_INT(tly_diag_error(&d), -TALLY_ENOPMU);
	CHECK_CONTAINS(tally_last_error(), "cannot open event 'cycles' (perf_event_open:");
	CHECK_CONTAINS(tally_last_error(), strerrorname_np(err));
	/* "no hardware PMU (only ...)", or where other hardware PMUs exist (RAPL's power) "no CPU PMU". */
	CHECK_CONTAINS(tally_last_error(), f.has_hw_pmu ? "no CPU PMU" : "no hardware PMU");
	CHECK_CONTAINS(tally_last_error(), "software");
	printf("%s\n", tally_last_error());
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "table_of_failures", table_of_failures },
		{ "e2big_names_one_cause", e2big_names_one_cause },
		{ "error_records_and_codes", error_records_and_codes },
		{ "truncation_keeps_snprintf_semantics", truncation_keeps_snprintf_semantics },
		{ "retry_policy", retry_policy },
		{ "never_scheduled_group", never_scheduled_group },
		{ "real_cycles_failure", real_cycles_failure },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
