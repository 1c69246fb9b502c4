/* SPDX-License-Identifier: MIT */
/*
 * perf's tool events duration_time, user_time and system_time, counted by tally itself: parsed as perf
 * 6.1 parses them, each counted alone (never in a kernel group), and read through the same windows,
 * snapshots and scaling as kernel counts. A fake clock and a fake rusage (the system-call table) make the
 * values exact; the real ones are held to relationships that must hold (a command's user_time is its
 * rusage).
 */
#include "core/sys.h"
#include "harness.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tally/counter.h>
#include <tally/snapshot.h>

static tally_events *parse(const char *spec)
{
	tally_events *events = NULL;
	int err = tally_events_parse(spec, NULL, &events);
	if (err)
		fprintf(stderr, "parse '%s': %s\n", spec, tally_last_error());
	CHECK_INT(err, 0);
	return events;
}

static void parsed_as_perf_does(void)
{
	static const char *const names[] = { "duration_time", "user_time", "system_time" };
	tally_events *events = parse("duration_time,user_time,system_time");
	if (!events)
		return;
	CHECK_INT(tally_events_count(events), 3);
	for (size_t i = 0; i < 3; i++) {
		TALLY_OPTS(tally_event_info, info);
		CHECK_INT(tally_events_at(events, i, &info), 0);
		CHECK_STR(info.name, names[i]);
		CHECK_STR(info.canonical, names[i]);
		CHECK_STR(info.pmu, "tool");
		CHECK_STR(info.unit, "ns");
		/* perf 6.1's attr for them (perf stat -vv): the software dummy, exclude_guest as for any event
		 * without modifiers. */
		char text[256];
		CHECK(tally_events_encoding(events, i, text, sizeof(text)) > 0);
		CHECK_STR(text, "type=1,config=0x9,config1=0,config2=0,exclude_guest=1");
	}
	tally_events_free(events);

	/* Modifiers and braces as perf 6.1 takes them. */
	static const char *const accepted[] = { "duration_time:u", "user_time:k", "duration_time:G",
		                                "{duration_time,task-clock}", "{task-clock,duration_time}:u" };
	for (size_t i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++)
		tally_events_free(parse(accepted[i]));
	/* perf's lexer knows them in lower case only. */
	tally_events *upper = NULL;
	CHECK_INT(tally_events_parse("DURATION_TIME", NULL, &upper), -TALLY_ESPEC);

	size_t tools = 0;
	for (size_t i = 0; i < tally_builtin_count(); i++) {
		TALLY_OPTS(tally_builtin_info, b);
		CHECK_INT(tally_builtin_at(i, &b), 0);
		tools += b.kind == TALLY_BUILTIN_TOOL;
	}
	CHECK_INT(tools, 3);
}

/* ---- a fake clock and a fake rusage --------------------------------------------------------------- */

static uint64_t fake_now, fake_user, fake_system;
static int clock_fails;

static int fake_clock_gettime(clockid_t clock, struct timespec *ts)
{
	(void)clock;
	if (clock_fails) {
		errno = EIO;
		return -1;
	}
	ts->tv_sec = (time_t)(fake_now / 1000000000u);
	ts->tv_nsec = (long)(fake_now % 1000000000u);
	return 0;
}

static int fake_getrusage(int who, struct rusage *ru)
{
	(void)who;
	memset(ru, 0, sizeof(*ru));
	ru->ru_utime.tv_usec = (suseconds_t)(fake_user / 1000);
	ru->ru_stime.tv_usec = (suseconds_t)(fake_system / 1000);
	return 0;
}

static struct tly_sys fake_table;

static void install_fakes(void)
{
	fake_table = tly_sys_real;
	fake_table.clock_gettime = fake_clock_gettime;
	fake_table.getrusage = fake_getrusage;
	fake_now = 1000000000u;
	fake_user = fake_system = 0;
	clock_fails = 0;
	tly_sys_replace(&fake_table);
}

/* Advances the fake clocks: wall ns, and the thread's user and system ns (microsecond steps, as rusage). */
static void advance(uint64_t wall, uint64_t user, uint64_t system)
{
	fake_now += wall;
	fake_user += user;
	fake_system += system;
}

static void check_result(const struct tally_result *r, uint64_t value, uint64_t enabled)
{
	CHECK_U64(r->value, value);
	CHECK_U64(r->enabled, enabled);
	CHECK_U64(r->running, enabled);
	CHECK_U64(r->scaled, value);
	CHECK_INT(r->status, TALLY_STATUS_EXACT);
	CHECK_INT(r->nr_parts, 1);
}

/* Each step: a call, then the clocks advance, then every event is read: duration_time is the window's
 * enabled time, user_time and system_time what the thread used while enabled in it. */
static void count_while_enabled_only(void)
{
	static const struct step {
		int (*call)(tally_counter *);
		uint64_t wall, user, system;          /* how far the clocks advance after the call */
		uint64_t enabled, user_ns, system_ns; /* the read then */
	} steps[] = {
		{ tally_counter_start, 500000, 200000, 100000, 500000, 200000, 100000 },
		/* Stopped: nothing counts. */
		{ tally_counter_stop, 900000, 400000, 400000, 500000, 200000, 100000 },
		/* A start begins a new window: from zero again. */
		{ tally_counter_start, 100000, 5000, 0, 100000, 5000, 0 },
		/* A reset while running, too. */
		{ tally_counter_reset, 40000, 1000, 2000, 40000, 1000, 2000 },
		{ tally_counter_stop, 1000000, 1000000, 1000000, 40000, 1000, 2000 },
		{ tally_counter_start, 3000, 0, 0, 3000, 0, 0 },
	};
	install_fakes();
	tally_counter *c;
	CHECK_INT(tally_counter_new("duration_time,user_time,system_time", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, NULL), 0);
	advance(7000, 3000, 1000); /* before the start: not counted */
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const struct step *st = &steps[i];
		CHECK_INT(st->call(c), 0);
		advance(st->wall, st->user, st->system);
		struct tally_result r[3];
		CHECK_INT(tally_counter_read(c, r, 3, sizeof(r[0])), 3);
		check_result(&r[0], st->enabled, st->enabled);
		check_result(&r[1], st->user_ns, st->enabled);
		check_result(&r[2], st->system_ns, st->enabled);
		/* Each stands alone: its own group, none shared with another event. */
		for (int k = 0; k < 3; k++)
			CHECK_INT(r[k].group, k);
	}
	tally_counter_free(c);
	tly_sys_replace(NULL);
}

static void snapshots_give_intervals(void)
{
	install_fakes();
	tally_counter *c;
	CHECK_INT(tally_counter_new("user_time,duration_time,system_time", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, NULL), 0);
	tally_snapshot *a, *b;
	CHECK_INT(tally_snapshot_new(c, &a), 0);
	CHECK_INT(tally_snapshot_new(c, &b), 0);
	CHECK_INT(tally_counter_start(c), 0);
	advance(1000, 1000, 0);
	CHECK_INT(tally_counter_snapshot(c, a), 0);
	advance(250000, 125000, 25000);
	CHECK_INT(tally_counter_snapshot(c, b), 0);
	struct tally_result d[3];
	CHECK_INT(tally_snapshot_delta(a, b, d, 3, sizeof(d[0])), 3);
	check_result(&d[0], 125000, 250000);
	check_result(&d[1], 250000, 250000);
	check_result(&d[2], 25000, 250000);
	/* From a snapshot never taken: the whole window. */
	tally_snapshot *never;
	CHECK_INT(tally_snapshot_new(c, &never), 0);
	CHECK_INT(tally_snapshot_delta(never, b, d, 3, sizeof(d[0])), 3);
	check_result(&d[1], 251000, 251000);
	struct tally_part p;
	CHECK_INT(tally_snapshot_delta_parts(a, b, 1, &p, 1, sizeof(p)), 1);
	CHECK_U64(p.value, 250000);
	CHECK_INT(p.cpu, -1);
	tally_snapshot_free(never);
	tally_snapshot_free(a);
	tally_snapshot_free(b);
	tally_counter_free(c);
	tly_sys_replace(NULL);
}

static void clock_failure_fails_the_read(void)
{
	install_fakes();
	tally_counter *c;
	CHECK_INT(tally_counter_new("duration_time", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, NULL), 0);
	CHECK_INT(tally_counter_start(c), 0);
	clock_fails = 1;
	struct tally_result r;
	CHECK_INT(tally_counter_read(c, &r, 1, sizeof(r)), -EIO);
	CHECK_CONTAINS(tally_counter_last_error(c), "clock_gettime");
	clock_fails = 0;
	CHECK_INT(tally_counter_read(c, &r, 1, sizeof(r)), 1);
	tally_counter_free(c);
	tly_sys_replace(NULL);
}

/* Braces cannot put a tool event in a kernel group (perf 6.1 does, and then reads nothing for the
 * group's other members): task-clock still counts, in a group of its own. */
static void braces_leave_tool_events_alone(void)
{
	tally_counter *c;
	CHECK_INT(tally_counter_new("{duration_time,task-clock},{task-clock,user_time}", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, NULL), 0);
	CHECK_INT(tally_counter_start(c), 0);
	static volatile unsigned long spin;
	for (unsigned long i = 0; i < 1000000; i++)
		spin = spin + i;
	CHECK_INT(tally_counter_stop(c), 0);
	struct tally_result r[4];
	CHECK_INT(tally_counter_read(c, r, 4, sizeof(r[0])), 4);
	CHECK_INT(r[0].group, 0);
	CHECK_INT(r[1].group, 1);
	CHECK_INT(r[2].group, 2);
	CHECK_INT(r[3].group, 3);
	for (int i = 0; i < 4; i++)
		CHECK_INT(r[i].status, TALLY_STATUS_EXACT);
	CHECK(r[1].value > 0);
	/* The thread's CPU time while counting cannot pass the wall time it was counted in, give or take the
	 * CPU clock's tick at each end (getrusage advances by ticks where the kernel accounts so). */
	CHECK(r[0].value > 0);
	uint64_t tick_ns = 1000000000u / (uint64_t)sysconf(_SC_CLK_TCK);
	CHECK(r[3].value <= r[0].value + 2 * tick_ns);
	tally_counter_free(c);
}

/* A tally_exit time (seconds from the rusage's microseconds) in ns. */
static uint64_t us_ns(double seconds)
{
	return (uint64_t)(seconds * 1e6 + 0.5) * 1000;
}

/* A command's user_time and system_time are its rusage, as perf stat's: exact once it is reaped. */
static void command_times_are_its_rusage(void)
{
	char *argv[] = { "/bin/sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done", NULL };
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	tally_counter *c;
	CHECK_INT(tally_counter_new("duration_time,user_time,system_time", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, &t), 0);
	CHECK_INT(tally_counter_start(c), 0);
	struct tally_exit ex;
	CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), 0);
	CHECK_INT(tally_counter_stop(c), 0);
	struct tally_result r[3];
	CHECK_INT(tally_counter_read(c, r, 3, sizeof(r[0])), 3);
	CHECK_INT(ex.code, 0);
	CHECK(r[1].value > 0);
	CHECK_U64(r[1].value, us_ns(ex.user_s));
	CHECK_U64(r[2].value, us_ns(ex.sys_s));
	CHECK(r[0].value > 0);
	CHECK_U64(r[1].enabled, r[1].running);
	tally_counter_free(c);
}

/* Read before the reaping (what tally stat does), then after it: the exact rusage replaces /proc's clock
 * ticks, although the counter was stopped in between (the command had ended: nothing it adds is later
 * than the stop). */
static void stopped_before_reaping_still_gets_the_rusage(void)
{
	char *argv[] = { "/bin/sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done", NULL };
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	tally_counter *c;
	CHECK_INT(tally_counter_new("user_time,system_time", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, &t), 0);
	CHECK_INT(tally_counter_start(c), 0);
	siginfo_t info;
	memset(&info, 0, sizeof(info));
	CHECK_INT(waitid(P_PID, (id_t)tally_counter_pid(c), &info, WEXITED | WNOWAIT), 0);
	CHECK_INT(tally_counter_stop(c), 0);
	struct tally_result r[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	struct tally_exit ex;
	CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), 0);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	CHECK_U64(r[0].value, us_ns(ex.user_s));
	CHECK_U64(r[1].value, us_ns(ex.sys_s));
	tally_counter_free(c);
}

/* ---- the CPU time of pids, tids and CPUs, from a fake /proc ---------------------------------------- */

static char fake_path[64], fake_text[512];

static int fake_open(const char *path, int flags)
{
	if (strcmp(path, fake_path) != 0)
		return tly_sys_real.open(path, flags);
	if (!fake_text[0]) {
		errno = ENOENT;
		return -1;
	}
	int fd = memfd_create("fake-proc", MFD_CLOEXEC);
	if (fd >= 0 && (write(fd, fake_text, strlen(fake_text)) < 0 || lseek(fd, 0, SEEK_SET) < 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A /proc/<pid>/stat line whose command name holds spaces and parentheses, with utime, stime, cutime and
 * cstime (fields 14 to 17) as given. */
static void fake_stat(const char *path, int utime, int stime)
{
	snprintf(fake_path, sizeof(fake_path), "%s", path);
	snprintf(fake_text, sizeof(fake_text),
	         "%d (a (b) c)) S 1 2 3 4 5 6 7 8 9 10 %d %d 7000 3000 20 0 1 0 5 6 7\n", (int)getpid(), utime, stime);
}

static uint64_t ticks(uint64_t n)
{
	return n * (1000000000u / (uint64_t)sysconf(_SC_CLK_TCK));
}

static void read_cpu_times(const struct tally_target *target, const char *path, uint64_t u0, uint64_t s0,
                           uint64_t u1, uint64_t s1)
{
	install_fakes();
	fake_table.open = fake_open;
	fake_stat(path, (int)u0, (int)s0);
	tally_counter *c;
	CHECK_INT(tally_counter_new("user_time,system_time", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, target), 0);
	CHECK_INT(tally_counter_start(c), 0);
	fake_stat(path, (int)u1, (int)s1);
	advance(1000, 0, 0);
	struct tally_result r[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	check_result(&r[0], ticks(u1 - u0), 1000);
	check_result(&r[1], ticks(s1 - s0), 1000);
	/* The target gone: the latest reading stays. */
	fake_text[0] = '\0';
	advance(1000, 0, 0);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	check_result(&r[0], ticks(u1 - u0), 2000);
	tally_counter_free(c);
	tly_sys_replace(NULL);
	fake_path[0] = '\0';
}

static void pid_and_tid_targets_read_proc(void)
{
	char path[64];
	TALLY_OPTS(tally_target, pid, .kind = TALLY_TARGET_PID, .pid = getpid());
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)getpid());
	/* A process's own times only: what it waited for (cutime, cstime) is not the target's. */
	read_cpu_times(&pid, path, 250, 50, 300, 65);
	pid_t tid = gettid();
	TALLY_OPTS(tally_target, tids, .kind = TALLY_TARGET_TIDS, .tids = &tid, .nr_tids = 1);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)tid, (int)tid);
	read_cpu_times(&tids, path, 10, 20, 11, 40);
}

/* CPUs: the user and system columns of their lines in /proc/stat, no other CPU's. */
static void cpu_targets_read_proc_stat(void)
{
	install_fakes();
	fake_table.open = fake_open;
	snprintf(fake_path, sizeof(fake_path), "/proc/stat");
	snprintf(fake_text, sizeof(fake_text), "cpu  900 9 900 0\ncpu0 800 0 800 0\ncpu1 100 9 100 0\nintr 1\n");
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_CPUS, .cpus = "1");
	tally_counter *c;
	CHECK_INT(tally_counter_new("user_time,system_time", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, &t), 0);
	CHECK_INT(tally_counter_start(c), 0);
	snprintf(fake_text, sizeof(fake_text), "cpu  999 9 999 0\ncpu0 870 0 880 0\ncpu1 125 9 103 0\nintr 1\n");
	advance(1000, 0, 0);
	struct tally_result r[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	check_result(&r[0], ticks(25), 1000);
	check_result(&r[1], ticks(3), 1000);
	struct tally_part p;
	CHECK_INT(tally_counter_parts(c, 0, &p, 1, sizeof(p)), 1);
	CHECK_INT(p.cpu, 1);
	tally_counter_free(c);
	tly_sys_replace(NULL);
	fake_path[0] = '\0';
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "parsed_as_perf_does", parsed_as_perf_does },
		{ "count_while_enabled_only", count_while_enabled_only },
		{ "snapshots_give_intervals", snapshots_give_intervals },
		{ "clock_failure_fails_the_read", clock_failure_fails_the_read },
		{ "braces_leave_tool_events_alone", braces_leave_tool_events_alone },
		{ "command_times_are_its_rusage", command_times_are_its_rusage },
		{ "stopped_before_reaping_still_gets_the_rusage", stopped_before_reaping_still_gets_the_rusage },
		{ "pid_and_tid_targets_read_proc", pid_and_tid_targets_read_proc },
		{ "cpu_targets_read_proc_stat", cpu_targets_read_proc_stat },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
