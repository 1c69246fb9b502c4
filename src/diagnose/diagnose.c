/* SPDX-License-Identifier: MIT */
/* Explanations of failed perf_event_open, ioctl, read and mmap calls (see diagnose.h). */
#include "diagnose/diagnose.h"

#include "core/error.h"
#include "evsel/group_read.h"
#include "machine/pmu.h"
#include "spec/breakpoint.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A text being built with snprintf semantics: `need` keeps counting after buf is full. */
struct text {
	char *buf;
	size_t size;
	size_t need;
	bool ends_line; /* the last format ended in a newline (the explanations end every line with one) */
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	size_t used = t->need < t->size ? t->need : t->size;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->buf ? t->buf + used : NULL, t->buf ? t->size - used : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->need += (size_t)n;
	size_t flen = strlen(fmt);
	t->ends_line = flen && fmt[flen - 1] == '\n';
}

static int finish(struct text *t)
{
	if (t->size && t->need >= t->size)
		t->buf[t->size - 1] = '\0';
	return t->need > INT_MAX ? INT_MAX : (int)t->need;
}

static const char *errno_name(int err)
{
	/* strerrorname_np: glibc 2.32+. */
	const char *name = strerrorname_np(err);
	return name ? name : "unknown errno";
}

static bool kernel_at_least(const struct tally_facts *f, unsigned major, unsigned minor)
{
	return f->kernel_major > major || (f->kernel_major == major && f->kernel_minor >= minor);
}

/* perfmon_capable() in the kernel: CAP_PERFMON (honoured since 5.8) or CAP_SYS_ADMIN. */
static bool privileged(const struct tally_facts *f)
{
	return f->caps_known && (f->cap_sys_admin || (f->cap_perfmon && kernel_at_least(f, 5, 8)));
}

/* The generic hardware types that the CPU's own PMU serves. */
static bool is_core_type(const struct perf_event_attr *attr)
{
	return attr && (attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_HW_CACHE ||
	                attr->type == PERF_TYPE_RAW);
}

static bool no_core_pmu(const struct tally_facts *f)
{
	return f->pmus_known && f->nr_core_pmus == 0;
}

/* The PMU an event belongs to, by name; NULL when neither the name nor the type tells. */
static const char *pmu_name(const char *pmu, const struct perf_event_attr *attr)
{
	if (pmu)
		return pmu;
	if (!attr)
		return NULL;
	switch (attr->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		return "cpu";
	case PERF_TYPE_SOFTWARE:
		return "software";
	case PERF_TYPE_TRACEPOINT:
		return "tracepoint";
	case PERF_TYPE_BREAKPOINT:
		return "breakpoint";
	default:
		return NULL;
	}
}

static bool mixed_pmus(const struct tly_diag *d)
{
	const char *mine = pmu_name(d->pmu, d->attr);
	return d->leader && d->group_index > 0 && mine && d->leader_pmu &&
	       !tly_pmu_is_software_context(mine) && !tly_pmu_is_software_context(d->leader_pmu) &&
	       strcmp(mine, d->leader_pmu) != 0;
}

static bool in_group(const struct tly_diag *d)
{
	return d->leader && d->group_size > 1;
}

static void put_int_fact(struct text *t, int v)
{
	if (v == TALLY_FACT_UNKNOWN)
		put(t, "unknown");
	else
		put(t, "%d", v);
}

static void put_limit(struct text *t, uint64_t v)
{
	if (v == UINT64_MAX)
		put(t, "unlimited");
	else if (v == 0)
		put(t, "unknown");
	else
		put(t, "%" PRIu64, v);
}

static void explain_no_hw_pmu(struct text *t, const struct tally_facts *f)
{
	if (!f->has_hw_pmu)
		put(t, "  this machine exposes no hardware PMU (only %s), as in a VM without a virtual PMU.\n",
		    f->pmu_names[0] ? f->pmu_names : "no PMU at all");
	else
		put(t, "  this machine exposes no CPU PMU (its PMUs: %s), as in a VM without a virtual PMU.\n",
		    f->pmu_names);
	put(t, "  Software events (task-clock, page-faults, context-switches) still work; for hardware counters "
	       "run on bare metal or enable the hypervisor's vPMU (e.g. QEMU/KVM -cpu host, VMware vPMC).\n");
}

static void put_capability_fix(struct text *t, const struct tally_facts *f)
{
	if (f->kernel_major && !kernel_at_least(f, 5, 8))
		put(t, "or run with CAP_SYS_ADMIN (this kernel, %s, predates CAP_PERFMON, which needs 5.8+)",
		    f->kernel_release);
	else
		put(t, "or grant CAP_PERFMON (kernel 5.8+), e.g. `sudo setcap cap_perfmon+ep <program>`, or run as "
		       "root");
}

static void explain_seccomp(struct text *t, const char *call)
{
	put(t, "  a seccomp filter is active on this process (Seccomp: 2 in /proc/self/status), as a container "
	       "runtime installs, and it rejects %s.\n", call);
	put(t, "  Fix: run the container with a seccomp profile that allows perf_event_open (e.g. docker/podman "
	       "--security-opt seccomp=<profile>, or a runtime whose default allows it with --cap-add PERFMON), "
	       "and check the host's perf_event_paranoid.\n");
}

static void explain_permission(struct text *t, const struct tly_diag *d, const struct tally_facts *f)
{
	int paranoid = f->perf_event_paranoid;
	bool counts_kernel = d->attr && !d->attr->exclude_kernel;
	/* The kernel's own refusals (perf_event_paranoid, ptrace access, SELinux) say EACCES; EPERM under a
	 * seccomp filter is the filter's (Docker's default profile answers EPERM). */
	if (d->err == EPERM && f->seccomp == 2) {
		explain_seccomp(t, "perf_event_open");
		return;
	}
	if (!privileged(f) && paranoid != TALLY_FACT_UNKNOWN) {
		if (paranoid >= 3) {
			put(t, "  perf_event_paranoid is %d: this kernel (Debian/Ubuntu patch) forbids every "
			       "perf_event_open to users without CAP_PERFMON or CAP_SYS_ADMIN.\n", paranoid);
			put(t, "  Fix: `sudo sysctl kernel.perf_event_paranoid=2` (user-space counting) or 1 (kernel "
			       "mode too), ");
			put_capability_fix(t, f);
			put(t, ".\n");
			return;
		}
		/* CPU-wide first: level 0 allows kernel mode too, while :u alone would be refused again. */
		if (paranoid >= 1 && d->cpu_wide) {
			put(t, "  perf_event_paranoid is %d: counting a whole CPU (system-wide) needs level 0 or "
			       "below for users without CAP_PERFMON.\n", paranoid);
			put(t, "  Fix: count this process or a command instead, or `sudo sysctl "
			       "kernel.perf_event_paranoid=0`, ");
			put_capability_fix(t, f);
			put(t, ".\n");
			return;
		}
		if (paranoid >= 2 && counts_kernel) {
			put(t, "  perf_event_paranoid is %d: users without CAP_PERFMON may count user space only, and "
			       "'%s' counts kernel mode too.\n", paranoid, d->event);
			put(t, "  Fix: count user space only (the :u modifier, exclude_kernel=1), or `sudo sysctl "
			       "kernel.perf_event_paranoid=1`, ");
			put_capability_fix(t, f);
			put(t, ".\n");
			return;
		}
	}
	if (f->seccomp == 2) {
		explain_seccomp(t, "perf_event_open");
		return;
	}
	if (privileged(f))
		put(t, "  this process holds %s, so perf_event_paranoid is not the obstacle: a Linux security "
		       "module (SELinux's perf_event class, AppArmor) denied the open.\n",
		    f->cap_sys_admin ? "CAP_SYS_ADMIN" : "CAP_PERFMON");
	else {
		put(t, "  perf_event_paranoid is ");
		put_int_fact(t, paranoid);
		put(t, ", which allows this event, so the target is the likely obstacle: a process of another user, "
		       "or one this process may not ptrace (kernel.yama.ptrace_scope, a non-dumpable process); or a "
		       "security module (SELinux, AppArmor) denied it.\n");
	}
	put(t, "  Fix: count your own processes, or check the audit log (dmesg, journalctl) for the denial.\n");
}

/* The counter raises the soft RLIMIT_NOFILE toward the hard limit before it opens (counter.c), so the
 * hard limit is the obstacle, unless the soft one is still below it (the raise was refused). */
static void explain_emfile(struct text *t, const struct tly_diag *d, const struct tally_facts *f)
{
	if (d->fds_needed)
		put(t, "  counting needs %zu file descriptors (one per event, CPU and thread)", d->fds_needed);
	else
		put(t, "  counting needs more file descriptors (one per event, CPU and thread)");
	bool beyond_hard = d->fds_needed && d->fds_needed >= f->nofile_hard;
	if (!beyond_hard && f->nofile_soft && f->nofile_soft < f->nofile_hard) {
		put(t, " but the soft RLIMIT_NOFILE is ");
		put_limit(t, f->nofile_soft);
		put(t, " and could not be raised toward the hard limit (");
		put_limit(t, f->nofile_hard);
		put(t, ").\n  Fix: raise the soft limit: `ulimit -n <n>` in the shell, or setrlimit(RLIMIT_NOFILE) in "
		       "the program; or count fewer events, CPUs or threads.\n");
		return;
	}
	put(t, d->fds_needed ? ", more than the hard RLIMIT_NOFILE (" : " than the hard RLIMIT_NOFILE (");
	put_limit(t, f->nofile_hard);
	put(t, ") leaves to this process, together with the descriptors it already holds; the soft limit is "
	       "already raised to it.\n  Fix: raise the hard limit (as root: /etc/security/limits.conf nofile, "
	       "systemd LimitNOFILE=, `ulimit -Hn <n>`) or count fewer events, CPUs or threads.\n");
}

static void explain_enosys(struct text *t, const struct tally_facts *f)
{
	if (f->seccomp == 2) {
		explain_seccomp(t, "perf_event_open");
		return;
	}
	if (f->perf_event_paranoid == TALLY_FACT_UNKNOWN)
		put(t, "  the kernel was built without perf events (CONFIG_PERF_EVENTS is off: "
		       "/proc/sys/kernel/perf_event_paranoid is absent).\n  Fix: use a kernel with perf events.\n");
	else
		put(t, "  the kernel does not implement this call although it has perf events; an emulator or "
		       "sandbox (gVisor, qemu-user) may stand in between.\n  Fix: run on a real Linux kernel.\n");
}

/* Modifiers that many PMUs refuse: each PMU driver decides which exclude bits it can honour. */
static void put_unusual_modifiers(struct text *t, const struct perf_event_attr *attr)
{
	const char *sep = "";
	if (attr->exclude_idle) {
		put(t, "%sexclude_idle (:I)", sep);
		sep = ", ";
	}
	if (attr->exclude_guest) {
		put(t, "%sexclude_guest (:H)", sep);
		sep = ", ";
	}
	if (attr->exclude_host) {
		put(t, "%sexclude_host (:G)", sep);
		sep = ", ";
	}
	if (attr->exclude_user && attr->exclude_kernel)
		put(t, "%sexclude_user with exclude_kernel", sep);
}

static bool has_unusual_modifiers(const struct perf_event_attr *attr)
{
	return attr->exclude_idle || attr->exclude_guest || attr->exclude_host ||
	       (attr->exclude_user && attr->exclude_kernel);
}

static void explain_precise(struct text *t, const struct tly_diag *d)
{
	put(t, "  '%s' asks for precise level %u (:%.*s), which this PMU or this event does not support "
	       "(the PMU's caps/max_precise gives the highest level; many events have none).\n",
	    d->event, (unsigned)d->attr->precise_ip, (int)d->attr->precise_ip, "ppp");
	put(t, "  Fix: drop the :p modifiers for counting; precision matters only to sampling.\n");
}

static bool is_breakpoint(const struct tly_diag *d)
{
	return d->attr && d->attr->type == PERF_TYPE_BREAKPOINT;
}

/* What the debug registers take (kernel: arch_build_bp_info on x86, hw_breakpoint_arch_parse on arm64):
 * a breakpoint has no config, so "an unknown event code" would send the user to the wrong place. */
static void explain_breakpoint(struct text *t, const struct tly_diag *d)
{
	const struct perf_event_attr *a = d->attr;
	char access[4];
	put(t, "  the kernel refused breakpoint '%s' (address %#" PRIx64 ", length %" PRIu64 ", access %s): the "
	       "CPU's debug registers watch 1, 2, 4 or 8 bytes at an address aligned to that length (x86 takes "
	       "longer ones only with AMD's address-mask extension), execution (x) alone and with the length "
	       "of a long, and on x86 no reads alone (r: ask for rw).\n",
	    d->event, (uint64_t)a->bp_addr, (uint64_t)a->bp_len, tly_breakpoint_access(a->bp_type, access));
	put(t, "  Fix: mem:ADDR/LEN:rw or mem:ADDR/LEN:w with LEN 1, 2, 4 or 8 and ADDR a multiple of LEN, or "
	       "mem:ADDR:x.\n");
}

static void explain_einval(struct text *t, const struct tly_diag *d, const struct tally_facts *f)
{
	/* perf_event_open: "Only a group leader can be exclusive or pinned". */
	if (in_group(d) && d->group_index > 0 && d->attr && (d->attr->pinned || d->attr->exclusive)) {
		put(t, "  '%s' is a member of the group led by '%s' and asks to be %s: the kernel lets only a "
		       "group's leader be pinned or exclusive.\n",
		    d->event, d->leader, d->attr->pinned ? "pinned (:D)" : "exclusive (:e)");
		put(t, "  Fix: put the modifier after the braces ({...}:D pins the whole group through its "
		       "leader) or on the group's first event.\n");
		return;
	}
	if (mixed_pmus(d)) {
		put(t, "  '%s' (PMU %s) cannot join the group led by '%s' (PMU %s): a group's events must share "
		       "one hardware PMU; only software events may join any group.\n",
		    d->event, pmu_name(d->pmu, d->attr), d->leader, d->leader_pmu);
		put(t, "  Fix: put events of different PMUs in separate groups, or let tally pack them (no "
		       "braces).\n");
		return;
	}
	if (d->attr && d->attr->precise_ip) {
		explain_precise(t, d);
		return;
	}
	if (d->attr && has_unusual_modifiers(d->attr)) {
		put(t, "  '%s' asks for ", d->event);
		put_unusual_modifiers(t, d->attr);
		put(t, ", a modifier its PMU (%s) does not support.\n", pmu_name(d->pmu, d->attr) ?
		    pmu_name(d->pmu, d->attr) : "unknown");
		put(t, "  Fix: drop that modifier (plain :u or :k are the portable ones).\n");
		return;
	}
	if (is_breakpoint(d)) {
		explain_breakpoint(t, d);
		return;
	}
	const char *mine = pmu_name(d->pmu, d->attr);
	if (in_group(d) && d->group_index > 0 && mine && tly_pmu_is_software_context(mine)) {
		put(t, "  '%s' could not join the group led by '%s': a software member takes no counter, so the "
		       "group's shape is the obstacle: every member must be opened for the same task and CPU as "
		       "its leader.\n", d->event, d->leader);
		put(t, "  Fix: open the event outside the group (a bug in the caller when tally packed it).\n");
		return;
	}
	if (in_group(d) && d->group_index > 0) {
		put(t, "  '%s' is event %zu of the group led by '%s' (%zu events): the PMU cannot schedule that "
		       "many events together (it has fewer counters, or they compete for the same counter); '%s' "
		       "is the one that no longer fits.\n",
		    d->event, d->group_index + 1, d->leader, d->group_size, d->event);
		put(t, "  Fix: split the group into smaller ones, or let tally pack the events (no braces).%s\n",
		    f->nmi_watchdog == 1 ? " The NMI watchdog also holds one counter: `sudo sysctl "
		                           "kernel.nmi_watchdog=0` frees it." : "");
		return;
	}
	if (d->attr)
		put(t, "  the kernel (%s) rejected the attr of '%s' (type %u, config %#" PRIx64 "): the config is "
		       "not valid for this PMU (an unknown event code, a reserved bit) or it sets a flag this "
		       "kernel does not know.\n",
		    f->kernel_release[0] ? f->kernel_release : "unknown release", d->event, d->attr->type,
		    (uint64_t)d->attr->config);
	else
		put(t, "  the kernel (%s) rejected the attr of '%s': an invalid config or a flag this kernel "
		       "does not know.\n", f->kernel_release[0] ? f->kernel_release : "unknown release", d->event);
	put(t, "  Fix: check the encoding (`tally list`, the PMU's sysfs format/ files) against this CPU.\n");
}

static void explain_missing_event(struct text *t, const struct tly_diag *d, const struct tally_facts *f)
{
	const char *pmu = pmu_name(d->pmu, d->attr);
	if (d->err == EOPNOTSUPP && d->attr && d->attr->precise_ip) {
		explain_precise(t, d);
		return;
	}
	if (d->err == ENODEV) {
		put(t, "  the PMU of '%s' does not serve the requested CPU: the CPU is offline, or it is a hybrid "
		       "core PMU whose cpus list does not include that CPU.\n", d->event);
		put(t, "  Fix: count on the CPUs the PMU lists (its sysfs cpus or cpumask file).\n");
		return;
	}
	if (d->err == EOPNOTSUPP && is_breakpoint(d)) {
		explain_breakpoint(t, d);
		return;
	}
	if (d->err == EOPNOTSUPP) {
		put(t, "  the PMU%s%s does not support what '%s' asks for: a modifier or feature it cannot honour, "
		       "or counting one task on a PMU that counts whole CPUs only (uncore-style PMUs).\n",
		    pmu ? " " : "", pmu ? pmu : "", d->event);
		put(t, "  Fix: drop the modifiers, or count CPU-wide (system-wide) for such a PMU.\n");
		return;
	}
	if (d->attr && !is_core_type(d->attr) && !pmu_name(NULL, d->attr))
		put(t, "  no PMU has type %u on this machine (%s): its driver is not loaded or the CPU lacks "
		       "it.\n", d->attr->type, f->pmu_names[0] ? f->pmu_names : "PMUs unknown");
	else
		put(t, "  this CPU's PMU%s%s%s does not implement '%s'%s: the kernel has no encoding for it on "
		       "this CPU model.\n",
		    pmu ? " (" : "", pmu ? pmu : "", pmu ? ")" : "", d->event,
		    d->attr && d->attr->type == PERF_TYPE_HARDWARE ? " (a generic event)" : "");
	put(t, "  Fix: choose an event this CPU has (`tally list`), or a raw code from the CPU vendor's "
	       "manual.\n");
}

static void explain_ebusy(struct text *t, const struct tly_diag *d, const struct tally_facts *f)
{
	put(t, "  a counter that '%s' needs is held by another user: ", d->event);
	if (f->nmi_watchdog == 1)
		put(t, "the NMI watchdog (/proc/sys/kernel/nmi_watchdog is 1) keeps one counter on every CPU; "
		       "other candidates are ");
	put(t, "an exclusive or pinned event of another tool (perf, a profiler), or a PMU that serves one user "
	       "at a time (Intel PT, Arm SPE).\n");
	put(t, "  Fix: stop the other user%s, or count fewer events at once.\n",
	    f->nmi_watchdog == 1 ? ", `sudo sysctl kernel.nmi_watchdog=0`" : "");
}

/* A generic or raw hardware event refused on a machine without a CPU PMU: the cause needs no other guess. */
/* perf_event_open's E2BIG has two causes: a group whose read would pass the kernel's limit once this
 * member joins (perf_event_validate_size), or an attr larger than the kernel's with a newer field set
 * (perf_copy_attr). The group's read size tells them apart. */
static void explain_e2big(struct text *t, const struct tly_diag *d, const struct tally_facts *f)
{
	/* The group as it would be with this member in: the kernel checks each joining member. */
	size_t joined = d->group_index + 1, read_size = tly_read_size(d->leader_read_format, joined);
	if (in_group(d) && (d->leader_read_format & PERF_FORMAT_GROUP) && read_size > TLY_GROUP_READ_MAX) {
		size_t fit = tly_read_max_group(d->leader_read_format);
		put(t, "  as event %zu of the group led by '%s', '%s' would make one read of the group %zu bytes, "
		       "more than the kernel's limit of %zu bytes (16 KiB) on a group's read "
		       "(perf_event_validate_size, Linux 6.7+): with this read_format a group holds at most %zu "
		       "events, and this one has %zu. perf stat refuses such a group too.\n"
		       "  Fix: split the group into groups of at most %zu events, or leave the events outside "
		       "braces: tally packs those into groups that fit.\n",
		    joined, d->leader, d->event, read_size, TLY_GROUP_READ_MAX, fit, d->group_size, fit);
		return;
	}
	put(t, "  the attr is %u bytes, more than this kernel's (%s) perf_event_attr, and some of the extra "
	       "bytes are set: a field newer than this kernel (e.g. config3 needs 6.3).\n"
	       "  Fix: leave fields this kernel lacks at zero.\n",
	    d->attr ? d->attr->size : 0, f->kernel_release[0] ? f->kernel_release : "unknown release");
}

static bool cause_is_no_core_pmu(const struct tly_diag *d, const struct tally_facts *f)
{
	return d->op == TLY_DIAG_OPEN && is_core_type(d->attr) && no_core_pmu(f) &&
	       (d->err == ENOENT || d->err == EOPNOTSUPP || d->err == ENODEV || d->err == EINVAL);
}

static void explain_unknown(struct text *t)
{
	put(t, "  tally knows no specific cause for this errno here.\n  Fix: check the event's encoding and the "
	       "kernel log (dmesg).\n");
}

static void explain_open(struct text *t, const struct tly_diag *d, const struct tally_facts *f)
{
	if (cause_is_no_core_pmu(d, f)) {
		explain_no_hw_pmu(t, f);
		return;
	}
	switch (d->err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		explain_missing_event(t, d, f);
		break;
	case EACCES:
	case EPERM:
		explain_permission(t, d, f);
		break;
	case EMFILE:
		explain_emfile(t, d, f);
		break;
	case ENFILE:
		put(t, "  the system-wide table of open files is full.\n  Fix: raise fs.file-max (`sudo sysctl "
		       "fs.file-max=<n>`) or close other programs' files.\n");
		break;
	case ENOSYS:
		explain_enosys(t, f);
		break;
	case EINVAL:
		explain_einval(t, d, f);
		break;
	case EBUSY:
		explain_ebusy(t, d, f);
		break;
	case E2BIG:
		explain_e2big(t, d, f);
		break;
	case ESRCH:
		put(t, "  the target process or thread does not exist (it may have exited).\n  Fix: check the "
		       "pid or tid.\n");
		break;
	case ENOSPC:
		if (is_breakpoint(d)) {
			put(t, "  the CPU's debug registers are all taken: x86 has 4 (arm64 2 to 16), shared by all "
			       "the breakpoints on that CPU, debuggers' watchpoints included.\n  Fix: count fewer mem: "
			       "events at once (the rest in another run).\n");
			break;
		}
		explain_unknown(t);
		break;
	case ENOMEM:
		put(t, "  the kernel could not allocate the event.\n  Fix: free memory or count fewer events.\n");
		break;
	default:
		explain_unknown(t);
		break;
	}
}

static void explain_ioctl(struct text *t, const struct tly_diag *d, const struct tally_facts *f)
{
	switch (d->err) {
	case EINVAL:
	case ENOTTY:
		put(t, "  the kernel (%s) does not accept %s on this event: the request is newer than the "
		       "kernel (PERF_EVENT_IOC_ID needs 3.12, PERF_EVENT_IOC_PAUSE_OUTPUT 4.7, "
		       "PERF_EVENT_IOC_MODIFY_ATTRIBUTES 4.17) or its argument is invalid.\n"
		       "  Fix: use a newer kernel, or do without the request.\n",
		    f->kernel_release[0] ? f->kernel_release : "unknown release", d->request ? d->request : "it");
		break;
	case EBADF:
		put(t, "  the descriptor is not open: it was closed already (a bug in the caller).\n");
		break;
	case EACCES:
	case EPERM:
		if (f->seccomp == 2)
			explain_seccomp(t, "this ioctl");
		else
			put(t, "  the kernel refused the request for this event (a security module or a privileged "
			       "request).\n");
		break;
	default:
		put(t, "  tally knows no specific cause for this errno here.\n");
		break;
	}
}

static void explain_read(struct text *t, const struct tly_diag *d)
{
	switch (d->err) {
	case ENOSPC:
		put(t, "  the read buffer (%zu bytes) is smaller than the event's read format needs: the group has "
		       "more members than the buffer was sized for.\n  Fix: size the buffer for every member of "
		       "the group (a bug in the caller).\n", d->read_size);
		break;
	case EINTR:
	case EAGAIN:
		put(t, "  a signal interrupted the read.\n  Fix: retry it.\n");
		break;
	case EBADF:
		put(t, "  the descriptor is not open: it was closed already (a bug in the caller).\n");
		break;
	default:
		put(t, "  tally knows no specific cause for this errno here.\n");
		break;
	}
}

static void explain_mmap(struct text *t, const struct tly_diag *d, const struct tally_facts *f)
{
	switch (d->err) {
	case EPERM:
	case EACCES:
		if (f->seccomp == 2) {
			explain_seccomp(t, "this mmap");
			break;
		}
		put(t, "  mapping '%s' would lock more memory than this user may: the per-user allowance "
		       "/proc/sys/kernel/perf_event_mlock_kb plus RLIMIT_MEMLOCK is used up (other perf users "
		       "count too).\n  Fix: `ulimit -l <kb>`, `sudo sysctl kernel.perf_event_mlock_kb=<kb>`, or "
		       "CAP_IPC_LOCK.\n", d->event);
		break;
	case EINVAL:
		put(t, "  the mapping must be MAP_SHARED, at offset 0, and one page long (the counter page alone) "
		       "or 1 + 2^n pages (with a ring buffer).\n  Fix: correct the mapping (a bug in the caller).\n");
		break;
	case ENODEV:
	case EOPNOTSUPP:
		put(t, "  the PMU of '%s' does not support mapping its events (no user-space page).\n  Fix: read "
		       "the counter with read(2) instead.\n", d->event);
		break;
	case ENOMEM:
		put(t, "  no memory for the mapping.\n");
		break;
	default:
		put(t, "  tally knows no specific cause for this errno here.\n");
		break;
	}
}

const struct tally_facts *tly_facts_cache_get(struct tly_facts_cache *cache)
{
	if (!cache->probed) {
		TALLY_OPTS(tally_facts_opts, opts, .sysfs_root = cache->sysfs_root);
		cache->facts = (struct tally_facts){ .sz = sizeof(cache->facts) };
		/* Cannot fail: the options and sz are right; a fact it cannot read comes back as unknown. */
		(void)tally_facts_probe(&opts, &cache->facts);
		cache->probed = true;
	}
	return &cache->facts;
}

/* The facts to explain with: the caller's, or a probe with the default roots. */
static const struct tally_facts *facts_of(const struct tly_diag *d, struct tally_facts *probed)
{
	if (d->facts)
		return d->facts;
	*probed = (struct tally_facts){ .sz = sizeof(*probed) };
	/* Cannot fail: no options, and sz is right; a fact it cannot read comes back as unknown. */
	(void)tally_facts_probe(NULL, probed);
	return probed;
}

int tly_diagnose(const struct tly_diag *d, char *buf, size_t len)
{
	struct text t = { .buf = len ? buf : NULL, .size = len };
	struct tally_facts probed;
	const struct tally_facts *f = facts_of(d, &probed);
	const char *event = d->event ? d->event : "(unnamed)";
	switch (d->op) {
	case TLY_DIAG_OPEN:
		put(&t, "cannot open event '%s' (perf_event_open", event);
		break;
	case TLY_DIAG_IOCTL:
		put(&t, "cannot control event '%s' (ioctl %s", event, d->request ? d->request : "");
		break;
	case TLY_DIAG_READ:
		put(&t, "cannot read event '%s' (read", event);
		break;
	case TLY_DIAG_MMAP:
		put(&t, "cannot map event '%s' (mmap", event);
		break;
	}
	put(&t, ": %s, %s):\n", strerrordesc_np(d->err) ? strerrordesc_np(d->err) : "Unknown error",
	    errno_name(d->err));
	switch (d->op) {
	case TLY_DIAG_OPEN:
		explain_open(&t, d, f);
		break;
	case TLY_DIAG_IOCTL:
		explain_ioctl(&t, d, f);
		break;
	case TLY_DIAG_READ:
		explain_read(&t, d);
		break;
	case TLY_DIAG_MMAP:
		explain_mmap(&t, d, f);
		break;
	}
	/* Drop the final newline: the text ends where a caller's message would. */
	if (t.ends_line) {
		t.need--;
		if (t.need < t.size)
			t.buf[t.need] = '\0';
	}
	return finish(&t);
}

int tly_diag_error(const struct tly_diag *d)
{
	struct tally_facts probed;
	struct tly_diag copy = *d;
	copy.facts = facts_of(d, &probed);
	char text[TLY_ERROR_MAX];
	tly_diagnose(&copy, text, sizeof(text));
	return tly_error(cause_is_no_core_pmu(&copy, copy.facts) ? -TALLY_ENOPMU : -d->err, "%s", text);
}

bool tly_diag_retry_user_only(const struct tly_diag *d)
{
	/* An event that excludes user space (:k, --all-kernel) would count nothing without kernel mode. */
	if (d->op != TLY_DIAG_OPEN || (d->err != EACCES && d->err != EPERM) || !d->attr ||
	    d->attr->exclude_kernel || d->attr->exclude_user || d->cpu_wide)
		return false;
	struct tally_facts probed;
	const struct tally_facts *f = facts_of(d, &probed);
	/* At 3 and above (Debian/Ubuntu) nothing unprivileged opens, with or without kernel mode; an EPERM
	 * under a seccomp filter is the filter's, which no attr change gets past. */
	return f->perf_event_paranoid == 2 && !privileged(f) && !(d->err == EPERM && f->seccomp == 2);
}

int tly_diag_user_only_note(const char *event, const struct tally_facts *facts, char *buf, size_t len)
{
	struct text t = { .buf = len ? buf : NULL, .size = len };
	put(&t, "event '%s' counts user space only: perf_event_paranoid is %d, which forbids kernel-mode "
	        "counting without CAP_PERFMON, so tally retried the open with exclude_kernel=1 (the :u "
	        "modifier). To count kernel mode too: `sudo sysctl kernel.perf_event_paranoid=1`, ",
	    event, facts ? facts->perf_event_paranoid : 2);
	if (facts)
		put_capability_fix(&t, facts);
	else
		put(&t, "or grant CAP_PERFMON (kernel 5.8+)");
	put(&t, ".");
	return finish(&t);
}

int tly_diagnose_not_counted(const char *leader, size_t group_size, uint64_t time_enabled,
                             const struct tally_facts *facts, char *buf, size_t len)
{
	struct text t = { .buf = len ? buf : NULL, .size = len };
	if (group_size > 1)
		put(&t, "the group led by '%s' (%zu events) was enabled for %.3f ms but never ran on the PMU "
		        "(time_running 0):\n  the PMU has fewer free counters than the group needs, so the kernel "
		        "never fit it in; the open did not catch it because members opened disabled are not "
		        "checked against the counters (armv8 lets a leader with 7 members open this way).\n",
		    leader, group_size, (double)time_enabled / 1e6);
	else
		put(&t, "event '%s' was enabled for %.3f ms but never ran on the PMU (time_running 0):\n  other "
		        "users held every counter it can use for the whole time (pinned events of other tools).\n",
		    leader, (double)time_enabled / 1e6);
	if (facts && facts->nmi_watchdog == 1)
		put(&t, "  The NMI watchdog holds one counter on every CPU (/proc/sys/kernel/nmi_watchdog is 1): "
		        "`sudo sysctl kernel.nmi_watchdog=0` frees it.\n");
	else if (!facts)
		put(&t, "  If the NMI watchdog is on (/proc/sys/kernel/nmi_watchdog is 1), it holds one counter on "
		        "every CPU: `sudo sysctl kernel.nmi_watchdog=0` frees it.\n");
	put(&t, "  Fix: %s", group_size > 1 ? "split the group into smaller ones, or let tally pack the events "
	                                      "(no braces)." : "stop the other users of the counters.");
	return finish(&t);
}

/* The evsel of e's group (e itself, its leader or a fellow member) whose recorded failure is the one
 * that returned err (an older one, recovered from, does not match). */
static const tally_evsel *failed_in_group(const tally_evsel *e, int err)
{
	if (e->failed.err == -err)
		return e;
	const tally_evsel *leader = e->leader;
	if (leader->failed.err == -err)
		return leader;
	for (size_t k = 0; k < leader->nr_members; k++)
		if (leader->members[k]->failed.err == -err)
			return leader->members[k];
	return NULL;
}

/* What the evsel layer recorded about f's failure, with its group context, for tly_diagnose. */
static struct tly_diag diag_of(const tally_evsel *f, const struct tally_facts *facts)
{
	const tally_evsel *leader = f->leader;
	size_t group = 1 + leader->nr_members;
	return (struct tly_diag){
		.op = f->failed.op,
		.err = f->failed.err,
		.event = f->name,
		.attr = &f->attr,
		.request = f->failed.request,
		.leader = group > 1 ? leader->name : NULL,
		.group_size = group,
		.group_index = leader == f ? 0 : 1 + f->member_index,
		.leader_read_format = leader->attr.read_format,
		.cpu_wide = f->failed.tid == -1,
		.fds_needed = f->failed.fds_needed,
		.read_size = f->failed.read_size,
		.facts = facts,
	};
}

int tly_diag_evsel(const tally_evsel *e, int err, const struct tally_facts *facts)
{
	const tally_evsel *f = e && err < 0 ? failed_in_group(e, err) : NULL;
	if (!f)
		return err;
	struct tly_diag d = diag_of(f, facts);
	int code = tly_diag_error(&d);
	char where[64];
	tly_evsel_failure_position(&f->failed, where, sizeof(where));
	tly_error_append("\n  (at %s)", where);
	return code;
}

int tally_evsel_explain(const tally_evsel *evsel, int err, char *buf, size_t len)
{
	if (!evsel)
		return tly_null_arg(__func__);
	if (len && !buf)
		return tly_error(-EINVAL, "tally_evsel_explain: NULL buf with len %zu", len);
	const tally_evsel *f = err < 0 ? failed_in_group(evsel, err) : NULL;
	if (!f)
		return tly_error(-ENOENT, "tally_evsel_explain: no failure with code %d recorded on event '%s' or its "
		                 "group", err, evsel->name);
	struct tly_diag d = diag_of(f, NULL);
	char where[64];
	tly_evsel_failure_position(&f->failed, where, sizeof(where));
	int n = tly_diagnose(&d, buf, len);
	size_t used = buf && (size_t)n < len ? (size_t)n : (len ? len - 1 : 0);
	int more = snprintf(len ? buf + used : NULL, len ? len - used : 0, "\n  (at %s)", where);
	return n + more;
}
