/* SPDX-License-Identifier: MIT */
/*
 * tally doctor [--json]: the machine facts behind every "why can't I count this", as a checklist with a
 * verdict and a fix per line. The default events are opened for real, because a fact can only say what
 * should work. Exit status 0 when the default events count, 1 otherwise.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tally/pmu.h>
#include <tally/counter.h>
#include <tally/probe.h>

#include "describe/describe.h"
#include "lib/json_writer.h"
#include "report/default_events.h"

enum verdict { CHECK_OK, CHECK_INFO, CHECK_WARN, CHECK_FAIL };

struct doctor {
	bool json;
	struct json_writer w;
	unsigned warnings, failures;
};

static const char *verdict_name(enum verdict v)
{
	switch (v) {
	case CHECK_OK: return "ok";
	case CHECK_INFO: return "info";
	case CHECK_WARN: return "warn";
	case CHECK_FAIL: return "fail";
	}
	return "?";
}

/* One checklist line: what was checked, what was found, and (for warn/fail) how to fix it. */
static void check(struct doctor *d, enum verdict v, const char *name, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void check(struct doctor *d, enum verdict v, const char *name, const char *fix, const char *fmt, ...)
{
	char detail[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	d->warnings += v == CHECK_WARN;
	d->failures += v == CHECK_FAIL;
	if (d->json) {
		json_begin_object(&d->w);
		json_member_string(&d->w, "check", name);
		json_member_string(&d->w, "verdict", verdict_name(v));
		json_member_string(&d->w, "detail", detail);
		json_member_string(&d->w, "fix", fix);
		json_end_object(&d->w);
		return;
	}
	printf("[%-4s] %-20s %s\n", verdict_name(v), name, detail);
	if (fix)
		printf("       %-20s fix: %s\n", "", fix);
}

static void check_pmus(struct doctor *d, const struct tally_facts *f)
{
	if (!f->pmus_known) {
		check(d, CHECK_FAIL, "PMUs", "mount sysfs (mount -t sysfs sysfs /sys) or run on a kernel with perf events",
		      "/sys/bus/event_source/devices cannot be read");
		return;
	}
	check(d, CHECK_OK, "PMUs", NULL, "%u found: %s", f->nr_pmus, f->pmu_names);
	if (f->nr_core_pmus == 0)
		check(d, CHECK_WARN, "hardware PMU",
		      "enable the hypervisor's virtual PMU (KVM/QEMU: -cpu host with pmu=on; cloud: an instance type "
		      "that exposes the PMU); software events work meanwhile",
		      "none: this looks like a VM without a virtual PMU (cycles, instructions, caches unavailable)");
	else if (f->nr_core_pmus > 1)
		check(d, CHECK_INFO, "hardware PMU", NULL,
		      "hybrid: %u core PMUs; a generic event is counted once per core type and summed (-A shows parts)",
		      f->nr_core_pmus);
	else
		check(d, CHECK_OK, "hardware PMU", NULL, "one core PMU");
}

/* The vendor table each core PMU takes its named events from (model, version, events), or why none; and
 * each system PMU's own table. */
static void check_vendor_tables(struct doctor *d)
{
	tally_pmus *pmus;
	if (tally_pmus_load(NULL, &pmus) < 0)
		return;
	bool any = false;
	for (size_t i = 0; i < tally_pmus_count(pmus); i++) {
		const tally_pmu *pmu = tally_pmus_at(pmus, i);
		TALLY_OPTS(tally_pmu_info, pi);
		TALLY_OPTS(tally_pmu_table_info, ti);
		if (tally_pmu_get_info(pmu, &pi) || !pi.is_core)
			continue;
		any = true;
		if (tally_pmu_table_get(pmu, &ti) == 0)
			check(d, CHECK_OK, "vendor events", NULL, "%s: table %s %s, %zu events (%s)", pi.name, ti.model,
			      ti.version, ti.nr_events, ti.path);
		else if (getenv("TALLY_PMU_EVENTS") && *getenv("TALLY_PMU_EVENTS"))
			/* The library then refuses a bare name rather than leave it to libpfm4. */
			check(d, CHECK_WARN, "vendor events",
			      "point TALLY_PMU_EVENTS at a folder of tables for this CPU, or unset it for the installed ones",
			      "%s: none (%s); raw codes and sysfs names still work, libpfm4's names only as "
			      "PMU::EVENT while it is set", pi.name, tally_last_error());
		else
			check(d, CHECK_WARN, "vendor events",
			      "set TALLY_PMU_EVENTS to a folder converted from a newer perf pmu-events tree "
			      "(tools/pmu_events/generate.py), or install tally's data",
			      "%s: none (%s); raw codes and sysfs names still work", pi.name, tally_last_error());
	}
	if (!any)
		check(d, CHECK_INFO, "vendor events", NULL, "no core PMU to take a vendor table's events");
	/* System PMUs whose identifier names a table of their own; the others take their CPU's. */
	for (size_t i = 0; i < tally_pmus_count(pmus); i++) {
		const tally_pmu *pmu = tally_pmus_at(pmus, i);
		TALLY_OPTS(tally_pmu_info, pi);
		TALLY_OPTS(tally_pmu_table_info, ti);
		if (tally_pmu_get_info(pmu, &pi) == 0 && !pi.is_core && tally_pmu_table_get(pmu, &ti) == 0 &&
		    strcmp(ti.version, "sys") == 0)
			check(d, CHECK_OK, "vendor events", NULL, "%s: system table %s, %zu events (%s)", pi.name,
			      ti.model, ti.nr_events, ti.path);
	}
	tally_pmus_free(pmus);
}

static void check_permissions(struct doctor *d, const struct tally_facts *f)
{
	bool privileged = f->caps_known && (f->cap_perfmon || f->cap_sys_admin);
	int p = f->perf_event_paranoid;
	if (p == TALLY_FACT_UNKNOWN) {
		check(d, CHECK_FAIL, "perf_event_paranoid", "use a kernel built with CONFIG_PERF_EVENTS",
		      "/proc/sys/kernel/perf_event_paranoid is missing: no perf events in this kernel");
	} else if (privileged) {
		check(d, CHECK_OK, "perf_event_paranoid", NULL,
		      "%d, but this process is privileged (CAP_%s): no restriction applies", p,
		      f->cap_perfmon ? "PERFMON" : "SYS_ADMIN");
	} else if (p >= 3) {
		check(d, CHECK_FAIL, "perf_event_paranoid",
		      "sysctl kernel.perf_event_paranoid=2, or give the binary CAP_PERFMON (setcap cap_perfmon=ep; "
		      "never set-uid: tally refuses to run so)",
		      "%d: this kernel forbids all perf events to unprivileged users (a Debian/Ubuntu setting)", p);
	} else if (p == 2) {
		check(d, CHECK_WARN, "perf_event_paranoid",
		      "sysctl kernel.perf_event_paranoid=1 to count kernel mode too, or CAP_PERFMON",
		      "2: own processes in user mode only (tally counts :u and says so); no system-wide counting");
	} else if (p == 1) {
		check(d, CHECK_INFO, "perf_event_paranoid", "sysctl kernel.perf_event_paranoid=0 for -a, or CAP_PERFMON",
		      "1: own processes, user and kernel mode; no system-wide (-a) counting");
	} else {
		check(d, CHECK_OK, "perf_event_paranoid", NULL, "%d: system-wide counting allowed to every user", p);
	}
	if (!f->caps_known)
		check(d, CHECK_INFO, "capabilities", NULL, "capget failed: unknown");
	else
		check(d, privileged ? CHECK_OK : CHECK_INFO, "capabilities",
		      privileged ? NULL
		                 : "sudo setcap cap_perfmon=ep on the tally binary (kernel 5.8+); not set-uid or set-gid, "
		                   "which tally refuses",
		      "CAP_PERFMON %s, CAP_SYS_ADMIN %s", f->cap_perfmon ? "yes" : "no",
		      f->cap_sys_admin ? "yes" : "no");
	if (f->seccomp == 2)
		check(d, CHECK_INFO, "seccomp",
		      "if events fail with EPERM or ENOSYS, allow perf_event_open in the container's seccomp profile "
		      "(docker: --security-opt seccomp=unconfined, or --cap-add PERFMON)",
		      "a seccomp filter is active (a container?)");
}

/* Opens the default events on this thread, counts a little work, and reports each one. */
/* Whether the hardware events of c, read once while counting, were read from user space (rdpmc, mrs)
 * or why not, with the setting that allows it. Software events never are: nothing to say about them. */
static void check_user_reads(struct doctor *d, const tally_counter *c, size_t n)
{
	size_t user = 0;
	const char *first = NULL;
	enum tally_read_reason why = TALLY_READ_REASON_NONE;
	for (size_t i = 0; i < n; i++) {
		TALLY_OPTS(tally_read_info, info);
		if (tally_counter_read_info(c, i, &info) != 0 || info.reason == TALLY_READ_REASON_NO_PMU)
			continue;
		if (info.path == TALLY_READ_USER && info.user_reads > 0) {
			user++;
			first = first ? first : tally_counter_name(c, i);
		} else if (why == TALLY_READ_REASON_NONE) {
			why = info.path == TALLY_READ_USER ? info.last_reason : info.reason;
		}
	}
	if (user) {
		check(d, CHECK_OK, "user-space reads", NULL, "%zu hardware events (%s, ...) read without a system call",
		      user, first);
	} else if (why != TALLY_READ_REASON_NONE) {
		const char *fix = why == TALLY_READ_REASON_USER_ACCESS  ? "sysctl kernel.perf_user_access=1"
		                  : why == TALLY_READ_REASON_RDPMC_SYSFS ? "echo 1 > /sys/bus/event_source/devices/cpu/rdpmc"
		                                                         : NULL;
		check(d, CHECK_INFO, "user-space reads", fix, "off, reads use read(2): %s", tally_read_reason_str(why));
	}
}

static bool check_default_events(struct doctor *d, const struct tally_facts *f, size_t *nr_events)
{
	const char *spec = default_events_spec(f->nr_core_pmus > 0, false);
	tally_counter *c;
	*nr_events = 0;
	if (tally_counter_new(spec, NULL, &c) < 0) {
		check(d, CHECK_FAIL, "default events", NULL, "'%s' does not parse: %s", spec, tally_last_error());
		return false;
	}
	size_t n = tally_counter_count(c);
	*nr_events = n;
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_THREAD);
	bool all_work = true;
	if (tally_counter_open(c, &t) < 0) {
		check(d, CHECK_FAIL, "default events", NULL, "%s", tally_last_error());
		tally_counter_free(c);
		return false;
	}
	struct tally_result results[16];
	if (n > 16)
		n = 16;
	volatile uint64_t sink = 0;
	int got = -1;
	if (tally_counter_start(c) == 0) {
		for (unsigned i = 0; i < 1000000; i++)
			sink += i;
		(void)sink; /* clang's -Wunused-but-set-variable wants the result read */
		/* One read while counting: the one that can come from user space. */
		if (tally_counter_read(c, results, n, sizeof(results[0])) == (int)n)
			check_user_reads(d, c, n);
		tally_counter_stop(c);
		got = tally_counter_read(c, results, n, sizeof(results[0]));
	}
	if (got < 0) {
		check(d, CHECK_FAIL, "default events", NULL, "%s", tally_counter_last_error(c));
		tally_counter_free(c);
		return false;
	}
	for (int i = 0; i < got; i++) {
		const char *name = tally_counter_name(c, (size_t)i);
		const char *note = tally_counter_note(c, (size_t)i);
		switch (results[i].status) {
		case TALLY_STATUS_EXACT:
		case TALLY_STATUS_SCALED:
			check(d, CHECK_OK, name, NULL, "opens and counts (%" PRIu64 " in a short loop)%s%s",
			      results[i].scaled, note[0] ? ": " : "", note);
			break;
		case TALLY_STATUS_NOT_COUNTED:
			all_work = false;
			check(d, CHECK_FAIL, name, f->nmi_watchdog == 1 ? "sysctl kernel.nmi_watchdog=0" : NULL,
			      "opens but never counted: %s", note[0] ? note : "no reason given");
			break;
		case TALLY_STATUS_NOT_SUPPORTED:
			all_work = false;
			check(d, CHECK_FAIL, name, NULL, "cannot be opened: %s", note[0] ? note : "no reason given");
			break;
		}
	}
	tally_counter_free(c);
	return all_work;
}

static void check_counters_and_limits(struct doctor *d, const struct tally_facts *f, size_t nr_events)
{
	if (f->nmi_watchdog == 1)
		check(d, f->nr_core_pmus ? CHECK_WARN : CHECK_INFO, "nmi_watchdog",
		      "sysctl kernel.nmi_watchdog=0 (frees the counter; re-enable afterwards)",
		      "1: the watchdog holds one hardware counter per CPU, so big groups may never run");
	else if (f->nmi_watchdog != TALLY_FACT_UNKNOWN)
		check(d, CHECK_OK, "nmi_watchdog", NULL, "%d: every hardware counter is free", f->nmi_watchdog);
	if (f->rdpmc != TALLY_FACT_UNKNOWN)
		check(d, f->rdpmc ? CHECK_OK : CHECK_INFO, "rdpmc",
		      f->rdpmc ? NULL : "echo 1 > /sys/bus/event_source/devices/cpu/rdpmc",
		      "%d: user-space counter reads %s", f->rdpmc,
		      f->rdpmc == 2 ? "allowed for every event" : f->rdpmc ? "allowed for mmap'd events" : "off");
	else if (f->perf_user_access != TALLY_FACT_UNKNOWN)
		check(d, f->perf_user_access ? CHECK_OK : CHECK_INFO, "perf_user_access",
		      f->perf_user_access ? NULL : "sysctl kernel.perf_user_access=1",
		      "%d: user-space counter reads %s", f->perf_user_access, f->perf_user_access ? "allowed" : "off");
	else
		check(d, CHECK_INFO, "fast reads", NULL,
		      "no rdpmc or perf_user_access setting here (needs a hardware PMU): reads use read(2)");
	if (f->online_cpus && f->nofile_soft) {
		uint64_t need = (uint64_t)f->online_cpus * (nr_events ? nr_events : 1) + 16;
		if (f->nofile_soft != UINT64_MAX && f->nofile_soft < need)
			check(d, CHECK_WARN, "open files",
			      "ulimit -n <more> (or raise the hard limit in limits.conf)",
			      "RLIMIT_NOFILE %" PRIu64 " < %" PRIu64 " needed for -a with the default events on %u CPUs",
			      f->nofile_soft, need, f->online_cpus);
		else
			check(d, CHECK_OK, "open files", NULL,
			      "RLIMIT_NOFILE %" PRIu64 " covers -a with the default events on %u CPUs (%" PRIu64 ")",
			      f->nofile_soft, f->online_cpus, need);
	}
	check(d, CHECK_INFO, "kernel", NULL, "%s; PERF_FORMAT_LOST %s; user-space time in the mmap page %s",
	      f->kernel_release, f->has_format_lost ? "yes" : "no (before 6.0)",
	      f->has_user_time ? "yes" : "no");
}

int command_doctor(int argc, char **argv)
{
	struct doctor d = { 0 };
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "-j") == 0) {
			d.json = true;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			puts("usage: tally doctor [--json]\n"
			     "Checks what this machine allows; exit 0 when the default events count, 1 otherwise.");
			return 0;
		} else {
			fprintf(stderr, "usage: tally doctor [--json]\n");
			return 2;
		}
	}
	TALLY_OPTS(tally_facts, f);
	if (tally_facts_probe(NULL, &f) < 0) {
		fprintf(stderr, "tally doctor: %s\n", tally_last_error());
		return 1;
	}
	if (d.json) {
		json_init(&d.w, stdout);
		json_begin_object(&d.w);
		json_member_int(&d.w, "schema_version", 1);
		json_key(&d.w, "checks");
		json_begin_array(&d.w);
	}
	check_pmus(&d, &f);
	check_vendor_tables(&d);
	check_permissions(&d, &f);
	size_t nr_events;
	bool defaults_work = check_default_events(&d, &f, &nr_events);
	check_counters_and_limits(&d, &f, nr_events);
	const char *verdict = defaults_work
		? (d.warnings ? "the default events count; see the warnings for what else could"
		              : "everything tally needs is here")
		: "the default events do not all count: see the failures above";
	if (d.json) {
		json_end_array(&d.w);
		json_member_bool(&d.w, "default_events_work", defaults_work);
		json_member_string(&d.w, "verdict", verdict);
		json_end_object(&d.w);
	} else {
		printf("\nverdict: %s\n", verdict);
	}
	return defaults_work ? 0 : 1;
}
