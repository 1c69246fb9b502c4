/* SPDX-License-Identifier: MIT */
/*
 * The CPU time of a counter's target, for the tool events user_time and system_time (tool_events.h).
 *
 * perf 6.1 reads them from the rusage of the command it launched (wait4), whatever its target: they are
 * 0 until the command exits, 0 without one (perf stat -p PID until ^C), and the command's, not the
 * target's, when a command only bounds the counting of another target (perf stat -a -- sleep 1). tally
 * counts the target that the other events count, as later perf's tool PMU does, and keeps perf 6.1's
 * figure where the two agree (a launched command):
 *   - a launched command: its rusage once reaped (its and its waited-for children's CPU time, with
 *     perf's precision); before, /proc/<pid>/stat utime + cutime, stime + cstime (the same times in clock
 *     ticks), so that intervals (-I) see them grow;
 *   - this process: getrusage(RUSAGE_SELF); this thread: getrusage(RUSAGE_THREAD) of the thread that
 *     reads (a thread target is read on the thread it counts);
 *   - pids: /proc/<pid>/stat utime and stime of each, summed; tids: /proc/<tid>/task/<tid>/stat;
 *   - CPUs: the user and system columns of their cpuN lines in /proc/stat (what later perf's tool PMU
 *     reads for a system-wide count).
 * Values are ns.
 */
#include "target/target.h"

#include "core/sys.h"
#include "evsel/tool_events.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t timeval_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

static uint64_t ticks_ns(uint64_t ticks)
{
	long hz = sysconf(_SC_CLK_TCK);
	return ticks * (1000000000u / (uint64_t)(hz > 0 ? hz : 100));
}

/* The text of a /proc file into buf (terminated); -errno when it cannot be read. */
static int read_text(const char *path, char *buf, size_t len)
{
	int fd = tly_sys->open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	ssize_t got = tly_sys->read(fd, buf, len - 1);
	int err = got < 0 ? -errno : 0;
	tly_sys->close(fd);
	buf[got > 0 ? got : 0] = '\0';
	return err;
}

/* utime, stime, cutime, cstime of a /proc/.../stat file (fields 14 to 17, proc(5)), in ns, and whether
 * the task is a zombie (state Z, field 3). The command name (field 2) may hold spaces and parentheses:
 * the fields are counted from its last ')'. */
static int proc_stat_times(const char *path, uint64_t t[4], bool *zombie)
{
	char buf[1024];
	int err = read_text(path, buf, sizeof(buf));
	if (err)
		return err;
	char *p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	p++;
	*zombie = p[0] == ' ' && p[1] == 'Z';
	for (int field = 3; field < 14; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -EINVAL;
	}
	for (int k = 0; k < 4; k++) {
		char *end;
		unsigned long long v = strtoull(p, &end, 10);
		if (end == p)
			return -EINVAL;
		t[k] = ticks_ns(v);
		p = end;
	}
	return 0;
}

static int rusage_of(int who, uint64_t *user, uint64_t *system)
{
	struct rusage ru;
	if (tly_sys->getrusage(who, &ru) < 0)
		return -errno;
	*user = timeval_ns(ru.ru_utime);
	*system = timeval_ns(ru.ru_stime);
	return 0;
}

static int command_times(const struct tly_command *cmd, uint64_t *user, uint64_t *system, bool *ended)
{
	*ended = cmd->reaped;
	if (cmd->reaped) {
		*user = timeval_ns(cmd->rusage.ru_utime);
		*system = timeval_ns(cmd->rusage.ru_stime);
		return 0;
	}
	char path[64];
	uint64_t t[4];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)cmd->pid);
	int err = proc_stat_times(path, t, ended);
	if (!err) {
		*user = t[0] + t[2];
		*system = t[1] + t[3];
	}
	return err;
}

/* The tasks of a pid or tid target, each task's own time (a process's covers its threads). */
static int tasks_times(const struct tly_target *target, uint64_t *user, uint64_t *system)
{
	*user = *system = 0;
	for (size_t i = 0; i < target->nr_tasks; i++) {
		char path[64];
		uint64_t t[4];
		int id = (int)target->tasks[i];
		bool zombie;
		if (target->kind == TALLY_TARGET_TIDS)
			snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", id, id);
		else
			snprintf(path, sizeof(path), "/proc/%d/stat", id);
		int err = proc_stat_times(path, t, &zombie);
		if (err)
			return err;
		*user += t[0];
		*system += t[1];
	}
	return 0;
}

/* The user and system columns (ticks) of the cpuN lines of /proc/stat for the target's CPUs. */
static int cpus_times(const struct tly_target *target, uint64_t *user, uint64_t *system)
{
	/* A line per CPU of ~100 bytes: room for a few thousand CPUs. */
	size_t len = 1 << 20;
	char *buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	int err = read_text("/proc/stat", buf, len);
	*user = *system = 0;
	for (char *line = buf; !err && line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		int cpu;
		unsigned long long u, nice, s;
		if (sscanf(line, "cpu%d %llu %llu %llu", &cpu, &u, &nice, &s) != 4 ||
		    tally_cpus_index(target->cpus, cpu) < 0)
			continue;
		*user += ticks_ns(u);
		*system += ticks_ns(s);
	}
	free(buf);
	return err;
}

int tly_target_cpu_time(void *arg, uint64_t *user, uint64_t *system, bool *ended)
{
	const struct tly_target *target = arg;
	*ended = false;
	switch (target->kind) {
	case TALLY_TARGET_THREAD:
		return rusage_of(RUSAGE_THREAD, user, system);
	case TALLY_TARGET_PROCESS:
		return rusage_of(RUSAGE_SELF, user, system);
	case TALLY_TARGET_PID:
	case TALLY_TARGET_TIDS:
		return tasks_times(target, user, system);
	case TALLY_TARGET_CPUS:
		return cpus_times(target, user, system);
	case TALLY_TARGET_COMMAND:
		return command_times(&target->command, user, system, ended);
	case TALLY_TARGET_CGROUPS:
		/* Several cgroups, each its own part, and one tool position: no single answer, and a sum of
		 * their cpu.stat would count a cgroup nested in another twice. The tool events read 0. */
		return -EOPNOTSUPP;
	case TALLY_TARGET_ALL_THREADS:
		/* Every thread of the system, each its own part, and one tool position: the sum would be the
		 * machine's (-a's), which is not what a part of this target counts. The tool events read 0. */
		return -EOPNOTSUPP;
	}
	return -EINVAL;
}
