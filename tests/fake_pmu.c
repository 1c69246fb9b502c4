/* SPDX-License-Identifier: MIT */
/*
 * A fake PMU for tests, loaded with LD_PRELOAD into perf or tally on a machine without hardware counters:
 * both call perf_event_open through libc's syscall(2) (perf 6.1's perf-sys.h, tally's core/sys.c) and read
 * counts with read(2), so both read the same inputs. Every event that is not software, a tracepoint or a
 * breakpoint (hardware, cache, raw, any sysfs PMU's) opens as the software dummy event instead, with the
 * caller's read_format, and reads a fixed count: FAKE_PMU_BASE (default 1000000) plus a hash of the
 * original type, config, config1 and config2 modulo FAKE_PMU_SPREAD (default 1000000000). FAKE_PMU_LOG names
 * a file that gets one line per substituted event: "type config config1 config2 count".
 *
 * Group reads are patched entry by entry, matched by the kernel's ids (PERF_EVENT_IOC_ID of each event);
 * the times are the dummy events' own, enabled and running alike, so nothing is scaled.
 *
 * FAKE_PMU_GROW=1 makes each count grow as counting does: the nth read of an event gives n times its
 * count, so that the difference of two reads (an interval's, as the exporter takes them) is the count
 * once per read between them, the same for every event of a group read.
 */
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_FDS 65536

struct fake {
	uint64_t count;
	uint64_t id;
	uint64_t read_format;
	uint64_t reads;  /* FAKE_PMU_GROW: how many times its count was read */
	int perf;        /* a perf event's fd (its group reads are patched) */
	int substituted; /* a dummy in place of the caller's event: its count is fake */
};

/* Per-process state of the preloaded library, indexed by file descriptor. */
static struct fake fakes[MAX_FDS];

static long (*real_syscall)(long, ...);
static ssize_t (*real_read)(int, void *, size_t);
static int (*real_close)(int);

static void init(void)
{
	if (!real_syscall) {
		real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
		real_read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
		real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	}
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	return v && *v ? strtoull(v, NULL, 0) : def;
}

static uint64_t fake_count(const struct perf_event_attr *a)
{
	uint64_t words[4] = { a->type, a->config, a->config1, a->config2 };
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < sizeof(words); i++)
		h = (h ^ ((const unsigned char *)words)[i]) * 1099511628211ull;
	uint64_t spread = env_u64("FAKE_PMU_SPREAD", 1000000000);
	return env_u64("FAKE_PMU_BASE", 1000000) + (spread ? h % spread : 0);
}

static void log_event(const struct perf_event_attr *a, uint64_t count)
{
	const char *path = getenv("FAKE_PMU_LOG");
	FILE *f = path ? fopen(path, "a") : NULL;
	if (f) {
		fprintf(f, "%u %#llx %#llx %#llx %llu\n", a->type, (unsigned long long)a->config,
		        (unsigned long long)a->config1, (unsigned long long)a->config2, (unsigned long long)count);
		fclose(f);
	}
}

static long fake_open(struct perf_event_attr *attr, long pid, long cpu, long group_fd, long flags)
{
	struct perf_event_attr dummy = *attr;
	int substitute = attr->type != PERF_TYPE_SOFTWARE && attr->type != PERF_TYPE_TRACEPOINT &&
	                 attr->type != PERF_TYPE_BREAKPOINT;
	if (substitute) {
		dummy.type = PERF_TYPE_SOFTWARE;
		dummy.config = PERF_COUNT_SW_DUMMY;
		dummy.config1 = dummy.config2 = 0;
		dummy.precise_ip = 0;
		dummy.sample_period = 0;
		dummy.freq = 0;
	}
	long fd = real_syscall(SYS_perf_event_open, &dummy, pid, cpu, group_fd, flags);
	if (fd >= 0 && fd < MAX_FDS) {
		struct fake *f = &fakes[fd];
		*f = (struct fake){ .read_format = attr->read_format, .perf = 1, .substituted = substitute };
		if (ioctl((int)fd, PERF_EVENT_IOC_ID, &f->id) != 0)
			f->id = UINT64_MAX;
		if (substitute) {
			f->count = fake_count(attr);
			log_event(attr, f->count);
		}
	}
	return fd;
}

long syscall(long nr, ...)
{
	init();
	va_list ap;
	va_start(ap, nr);
	long a[6];
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_perf_event_open)
		return fake_open((struct perf_event_attr *)a[0], a[1], a[2], a[3], a[4]);
	return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* The count a read gives: fixed, or with FAKE_PMU_GROW the count times the reads so far. */
static uint64_t read_count(struct fake *f)
{
	return env_u64("FAKE_PMU_GROW", 0) ? f->count * ++f->reads : f->count;
}

static struct fake *by_id(uint64_t id)
{
	for (int fd = 0; fd < MAX_FDS; fd++)
		if (fakes[fd].substituted && fakes[fd].id == id)
			return &fakes[fd];
	return NULL;
}

/* A group read: nr, [time_enabled], [time_running], then { value, [id], [lost] } per event. */
static void patch_group(uint64_t *v, size_t words, uint64_t rf)
{
	size_t head = 1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	size_t entry = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	if (!(rf & PERF_FORMAT_ID))
		return; /* no ids: nothing tells the entries apart */
	for (uint64_t i = 0; i < v[0] && head + (i + 1) * entry <= words; i++) {
		struct fake *f = by_id(v[head + i * entry + 1]);
		if (f)
			v[head + i * entry] = read_count(f);
	}
}

ssize_t read(int fd, void *buf, size_t size)
{
	init();
	ssize_t n = real_read(fd, buf, size);
	if (n < (ssize_t)sizeof(uint64_t) || fd < 0 || fd >= MAX_FDS || !fakes[fd].perf)
		return n;
	uint64_t *v = buf;
	if (fakes[fd].read_format & PERF_FORMAT_GROUP)
		patch_group(v, (size_t)n / sizeof(uint64_t), fakes[fd].read_format);
	else if (fakes[fd].substituted)
		v[0] = read_count(&fakes[fd]);
	return n;
}

int close(int fd)
{
	init();
	if (fd >= 0 && fd < MAX_FDS)
		fakes[fd] = (struct fake){ 0 };
	return real_close(fd);
}
