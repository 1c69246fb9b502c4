/* SPDX-License-Identifier: MIT */
/*
 * The counting engine on real software events: groups read at once, targets (thread, process, pid,
 * tids, CPUs), unsupported events beside working ones, never-run groups (through a table whose reads say
 * running == 0), states and per-handle errors.
 */
#include "fault.h"
#include "harness.h"
#include "target/target.h"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <tally/counter.h>
#include <tally/probe.h>
#include <unistd.h>

/* Pages touched by the workloads: enough to stand far above the few faults of the code around them. */
#define PAGES 512
/* AddressSanitizer checks each store against its shadow memory, one shadow page per 8 pages of data, and
 * the first check of each shadow page is a fault of its own. */
#if defined(__SANITIZE_ADDRESS__)
#define SHADOW_PAGES(n) ((n) / 8)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHADOW_PAGES(n) ((n) / 8)
#endif
#endif
#ifndef SHADOW_PAGES
#define SHADOW_PAGES(n) 0
#endif

/* Faults the measured code may take besides the touched pages (stack growth, the first call of a libc
 * function, the result arrays, ASan's shadow): a handful; 32 leaves room without hiding a double count. */
#define SLACK (32 + SHADOW_PAGES(PAGES))

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* Maps fresh anonymous pages: the first write to each takes exactly one minor fault. */
static char *fresh_pages(size_t n)
{
	void *p = mmap(NULL, n * (size_t)page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void touch(char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((volatile char *)p)[i * (size_t)page_size()] = 1;
}

static bool have_hw_pmu(void)
{
	struct tally_facts f = { .sz = sizeof(f) };
	/* A CPU PMU: other hardware PMUs (RAPL's power) count no cycles or instructions. */
	return tally_facts_probe(NULL, &f) == 0 && f.has_hw_pmu && f.nr_core_pmus > 0;
}

static tally_counter *open_on(const char *spec, const struct tally_counter_opts *opts,
                              const struct tally_target *target)
{
	tally_counter *c = NULL;
	int err = tally_counter_new(spec, opts, &c);
	CHECK_INT(err, 0);
	if (err) {
		fprintf(stderr, "%s\n", tally_last_error());
		return NULL;
	}
	err = tally_counter_open(c, target);
	CHECK_INT(err, 0);
	if (err) {
		fprintf(stderr, "%s\n", tally_counter_last_error(c));
		tally_counter_free(c);
		return NULL;
	}
	return c;
}

static void group_counts_page_faults_in_one_read(void)
{
	tally_counter *c = open_on("{task-clock,page-faults,minor-faults}", NULL, NULL);
	char *pages = fresh_pages(PAGES);
	CHECK(pages != NULL);
	if (!c || !pages)
		return;
	CHECK_INT(tally_counter_count(c), 3);
	CHECK_INT(tally_counter_start(c), 0);
	touch(pages, PAGES);
	CHECK_INT(tally_counter_stop(c), 0);

	struct tally_result r[3];
	fault_install();
	CHECK_INT(tally_counter_read(c, r, 3, sizeof(r[0])), 3);
	/* One group on one thread: one read(2) brings all three. */
	CHECK_INT(fault_calls(FAULT_READ), 1);
	fault_uninstall();

	for (int i = 0; i < 3; i++) {
		CHECK_INT(r[i].status, TALLY_STATUS_EXACT);
		CHECK_INT(r[i].group, 0);
		CHECK(r[i].enabled > 0 && r[i].running == r[i].enabled);
		CHECK(r[i].scaled == r[i].value);
		CHECK(r[i].ratio == 1.0);
		CHECK_INT(r[i].nr_parts, 1);
	}
	CHECK(r[0].value > 0); /* task-clock: ns on the CPU */
	CHECK(r[1].value >= PAGES && r[1].value <= PAGES + SLACK);
	CHECK(r[2].value >= PAGES && r[2].value <= PAGES + SLACK);
	printf("  %d pages touched: page-faults %llu, minor-faults %llu, task-clock %llu ns\n", PAGES,
	       (unsigned long long)r[1].value, (unsigned long long)r[2].value, (unsigned long long)r[0].value);
	CHECK_STR(tally_counter_name(c, 1), "page-faults");

	/* Start again: counting restarts from zero. */
	CHECK_INT(tally_counter_start(c), 0);
	CHECK_INT(tally_counter_stop(c), 0);
	CHECK_INT(tally_counter_read(c, r, 3, sizeof(r[0])), 3);
	CHECK(r[1].value < SLACK);
	munmap(pages, PAGES * (size_t)page_size());
	tally_counter_free(c);
}

static void context_switches_rise_with_sleeps(void)
{
	tally_counter *c = open_on("context-switches", NULL, NULL);
	if (!c)
		return;
	CHECK_INT(tally_counter_start(c), 0);
	for (int i = 0; i < 20; i++) {
		usleep(500);
		sched_yield();
	}
	struct tally_result first, second;
	CHECK_INT(tally_counter_read(c, &first, 1, sizeof(first)), 1);
	/* Each sleep blocks, so each is at least one switch away from this thread. */
	CHECK(first.value >= 20);
	for (int i = 0; i < 10; i++)
		usleep(500);
	CHECK_INT(tally_counter_read(c, &second, 1, sizeof(second)), 1);
	CHECK(second.value >= first.value + 10);
	CHECK_INT(tally_counter_stop(c), 0);
	tally_counter_free(c);
}

struct toucher {
	pthread_barrier_t *go;
	pid_t tid;
	size_t pages;
};

static void *touch_thread(void *arg)
{
	struct toucher *t = arg;
	t->tid = gettid();
	char *p = fresh_pages(t->pages);
	if (t->go)
		pthread_barrier_wait(t->go); /* tid published; the counter opens */
	if (t->go)
		pthread_barrier_wait(t->go); /* counting */
	if (p) {
		touch(p, t->pages);
		munmap(p, t->pages * (size_t)page_size());
	}
	return NULL;
}

/* page-faults of a thread created after open: counted with the process target, not the thread one. */
static uint64_t faults_of_new_thread(enum tally_target_kind kind)
{
	TALLY_OPTS(tally_target, t, .kind = kind);
	tally_counter *c = open_on("page-faults", NULL, &t);
	if (!c)
		return 0;
	CHECK_INT(tally_counter_start(c), 0);
	struct toucher arg = { .pages = PAGES };
	pthread_t th;
	CHECK_INT(pthread_create(&th, NULL, touch_thread, &arg), 0);
	pthread_join(th, NULL);
	CHECK_INT(tally_counter_stop(c), 0);
	struct tally_result r;
	CHECK_INT(tally_counter_read(c, &r, 1, sizeof(r)), 1);
	tally_counter_free(c);
	return r.value;
}

static void process_target_inherits_new_threads(void)
{
	uint64_t process = faults_of_new_thread(TALLY_TARGET_PROCESS);
	uint64_t thread = faults_of_new_thread(TALLY_TARGET_THREAD);
	printf("  new thread touching %d pages: process target %llu faults, thread target %llu\n", PAGES,
	       (unsigned long long)process, (unsigned long long)thread);
	CHECK(process >= PAGES);
	CHECK(thread < PAGES);
}

static void tid_list_counts_those_threads(void)
{
	pthread_barrier_t go;
	pthread_barrier_init(&go, NULL, 3);
	struct toucher t[2] = { { .go = &go, .pages = PAGES }, { .go = &go, .pages = 2 * PAGES } };
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		CHECK_INT(pthread_create(&th[i], NULL, touch_thread, &t[i]), 0);
	pthread_barrier_wait(&go);

	pid_t tids[2] = { t[0].tid, t[1].tid };
	TALLY_OPTS(tally_target, target, .kind = TALLY_TARGET_TIDS, .tids = tids, .nr_tids = 2);
	tally_counter *c = open_on("page-faults,task-clock", NULL, &target);
	if (c)
		CHECK_INT(tally_counter_start(c), 0);
	pthread_barrier_wait(&go);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&go);
	if (!c)
		return;
	CHECK_INT(tally_counter_stop(c), 0);
	struct tally_result r[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	CHECK_INT(r[0].nr_parts, 2);
	CHECK(r[0].value >= 3 * PAGES && r[0].value <= 3 * PAGES + 2 * SLACK + SHADOW_PAGES(2 * PAGES));
	struct tally_part parts[4];
	CHECK_INT(tally_counter_parts(c, 0, parts, 4, sizeof(parts[0])), 2);
	for (int i = 0; i < 2; i++) {
		CHECK_INT(parts[i].cpu, -1);
		/* Parts come in the thread map's order (as given). */
		CHECK_INT(parts[i].tid, tids[i]);
		CHECK(parts[i].value >= (uint64_t)(i + 1) * PAGES);
	}
	CHECK_U64(parts[0].value + parts[1].value, r[0].value);
	tally_counter_free(c);
}

/* Launches argv on c, counts until it exits and stops: ex gets its exit. */
static void count_command(tally_counter *c, char *const argv[], struct tally_exit *ex)
{
	TALLY_OPTS(tally_target, command, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	CHECK_INT(tally_counter_open(c, &command), 0);
	CHECK_INT(tally_counter_start(c), 0);
	memset(ex, 0, sizeof(*ex));
	CHECK_INT(tally_counter_wait(c, ex, sizeof(*ex)), 0);
	CHECK_INT(tally_counter_stop(c), 0);
}

/* A tid listed twice is one thread: opened once and counted once, as a pid listed twice is; the tids keep
 * the order given. (It was opened twice, and its faults counted twice.) */
static void tid_listed_twice_counts_once(void)
{
	pthread_barrier_t go;
	pthread_barrier_init(&go, NULL, 2);
	struct toucher t = { .go = &go, .pages = PAGES };
	pthread_t th;
	CHECK_INT(pthread_create(&th, NULL, touch_thread, &t), 0);
	pthread_barrier_wait(&go);

	/* The larger tid first: a sorted list would put it second. */
	pid_t self = gettid(), high = t.tid > self ? t.tid : self, low = t.tid > self ? self : t.tid;
	pid_t tids[4] = { high, low, high, low };
	TALLY_OPTS(tally_target, target, .kind = TALLY_TARGET_TIDS, .tids = tids, .nr_tids = 4);
	tally_counter *c = open_on("page-faults", NULL, &target);
	if (c)
		CHECK_INT(tally_counter_start(c), 0);
	pthread_barrier_wait(&go);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&go);
	if (!c)
		return;
	CHECK_INT(tally_counter_stop(c), 0);
	struct tally_result r;
	CHECK_INT(tally_counter_read(c, &r, 1, sizeof(r)), 1);
	CHECK_INT(r.nr_parts, 2);
	struct tally_part parts[4];
	CHECK_INT(tally_counter_parts(c, 0, parts, 4, sizeof(parts[0])), 2);
	CHECK_INT(parts[0].tid, high);
	CHECK_INT(parts[1].tid, low);
	CHECK(r.value >= PAGES && r.value <= PAGES + 2 * SLACK + SHADOW_PAGES(PAGES));
	tally_counter_free(c);
}

static void attach_to_pid(void)
{
	int go[2];
	CHECK_INT(pipe(go), 0);
	pid_t pid = fork();
	if (pid == 0) {
		char b;
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(1);
		char *p = fresh_pages(PAGES);
		if (p)
			touch(p, PAGES);
		_exit(0);
	}
	close(go[0]);
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_PID, .pid = pid);
	tally_counter *c = open_on("page-faults", NULL, &t);
	if (c)
		CHECK_INT(tally_counter_start(c), 0);
	CHECK_INT(write(go[1], "g", 1), 1);
	close(go[1]);
	int status;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (!c)
		return;
	struct tally_result r;
	/* The task is gone, its counts stay in the descriptor. */
	CHECK_INT(tally_counter_read(c, &r, 1, sizeof(r)), 1);
	CHECK(r.value >= PAGES);
	tally_counter_free(c);

	/* A pid that does not exist: the open says so. */
	tally_counter *gone;
	CHECK_INT(tally_counter_new("page-faults", NULL, &gone), 0);
	TALLY_OPTS(tally_target, t2, .kind = TALLY_TARGET_PID, .pid = pid);
	CHECK_INT(tally_counter_open(gone, &t2), -ESRCH);
	CHECK_CONTAINS(tally_counter_last_error(gone), "does not exist");
	tally_counter_free(gone);
}

static void system_wide_per_cpu_and_sum(void)
{
	if (geteuid() != 0)
		SKIP("CPU-wide counting needs root or CAP_PERFMON at perf_event_paranoid >= 1 (euid %d)",
		     (int)geteuid());
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_CPUS);
	tally_counter *c = open_on("cpu-clock,context-switches", NULL, &t);
	if (!c)
		return;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	CHECK_INT(tally_counter_start(c), 0);
	usleep(20000);
	CHECK_INT(tally_counter_stop(c), 0);
	struct tally_result r[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	CHECK_INT(r[0].nr_parts, ncpus);
	struct tally_part parts[256];
	int n = tally_counter_parts(c, 0, parts, 256, sizeof(parts[0]));
	CHECK_INT(n, ncpus);
	uint64_t sum = 0;
	for (int i = 0; i < n && i < 256; i++) {
		CHECK_INT(parts[i].tid, -1);
		CHECK(parts[i].cpu >= 0 && (i == 0 || parts[i].cpu > parts[i - 1].cpu));
		/* cpu-clock of a whole CPU runs all the time it is enabled, idle or not. */
		CHECK(parts[i].value >= 10 * 1000 * 1000);
		sum += parts[i].value;
	}
	CHECK_U64(sum, r[0].value);
	CHECK(r[1].value > 0);
	printf("  %d CPUs: cpu-clock %llu ns in all, context-switches %llu\n", n, (unsigned long long)sum,
	       (unsigned long long)r[1].value);
	tally_counter_free(c);
}

static void unsupported_event_beside_software(void)
{
	if (have_hw_pmu())
		SKIP("this machine has a hardware PMU, so cycles is supported here");
	tally_counter *c = open_on("cycles,page-faults", NULL, NULL);
	if (!c)
		return;
	CHECK_INT(tally_counter_start(c), 0);
	CHECK_INT(tally_counter_stop(c), 0);
	struct tally_result r[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	CHECK_INT(r[0].status, TALLY_STATUS_NOT_SUPPORTED);
	CHECK(r[0].error < 0);
	CHECK(r[0].has_note);
	CHECK_INT(r[0].group, -1);
	CHECK_CONTAINS(tally_counter_note(c, 0), "cycles");
	CHECK_INT(r[1].status, TALLY_STATUS_EXACT);
	CHECK_STR(tally_counter_note(c, 1), "");
	struct tally_part part;
	CHECK_INT(tally_counter_parts(c, 0, &part, 1, sizeof(part)), 0);
	tally_counter_free(c);

	/* As an error on request. */
	TALLY_OPTS(tally_counter_opts, strict, .unsupported_is_error = true);
	CHECK_INT(tally_counter_new("cycles,page-faults", &strict, &c), 0);
	CHECK(tally_counter_open(c, NULL) < 0);
	CHECK_CONTAINS(tally_counter_last_error(c), "cycles");
	tally_counter_free(c);

	/* Nothing that can count: the open fails with the reason. */
	CHECK_INT(tally_counter_new("cycles", NULL, &c), 0);
	CHECK(tally_counter_open(c, NULL) < 0);
	CHECK_CONTAINS(tally_counter_last_error(c), "cycles");
	tally_counter_free(c);

	/* Unless asked to open anyway: a launched command still runs, and cycles reads not supported. */
	TALLY_OPTS(tally_counter_opts, anyway, .open_without_events = true);
	CHECK_INT(tally_counter_new("cycles", &anyway, &c), 0);
	char *const argv[] = { "sh", "-c", "exit 5", NULL };
	struct tally_exit ex;
	count_command(c, argv, &ex);
	CHECK_INT(tally_counter_read(c, r, 1, sizeof(r[0])), 1);
	CHECK_INT(r[0].status, TALLY_STATUS_NOT_SUPPORTED);
	/* "no CPU PMU" where another hardware PMU (RAPL's power) exists. */
	CHECK(strstr(tally_counter_note(c, 0), "no hardware PMU") || strstr(tally_counter_note(c, 0), "no CPU PMU"));
	CHECK_INT(ex.code, 5);
	tally_counter_free(c);
}

/* perf stat -n: a counter of no event at all, where it may open without events, still launches, times and
 * reaps its command; elsewhere an empty spec is refused. */
static void empty_spec_counts_time_alone(void)
{
	tally_counter *c = NULL;
	CHECK_INT(tally_counter_new("", NULL, &c), -TALLY_ESPEC);
	CHECK(c == NULL);
	TALLY_OPTS(tally_counter_opts, anyway, .open_without_events = true);
	CHECK_INT(tally_counter_new("", &anyway, &c), 0);
	if (!c)
		return;
	CHECK_INT(tally_counter_count(c), 0);
	/* Open on the calling thread and read: no result, no plan of groups to walk. */
	struct tally_result r[1];
	CHECK_INT(tally_counter_open(c, NULL), 0);
	CHECK_INT(tally_counter_read(c, r, 1, sizeof(r[0])), 0);
	uint64_t v[1];
	CHECK_INT(tally_counter_read_values(c, v, 1), 0);
	CHECK_INT(tally_counter_close(c), 0);
	char *const argv[] = { "sh", "-c", "exit 6", NULL };
	struct tally_exit ex;
	count_command(c, argv, &ex);
	CHECK_INT(ex.code, 6);
	CHECK(ex.wall_s > 0);
	tally_counter_free(c);
}

/* The x86 msr PMU refuses the exclude_guest bit every event carries by default (perf's default too):
 * tally drops it and retries, as perf stat does, so msr/tsc/ counts alone and inside a group. */
static void pmu_refusing_exclude_guest_still_counts(void)
{
	char type[32];
	if (tly_sysfs_read("/sys/bus/event_source/devices/msr/events/tsc", type, sizeof(type), TLY_SYSFS_WHOLE) < 0)
		SKIP("no msr PMU with a tsc event here");
	tally_counter *c = open_on("msr/tsc/,{task-clock,msr/tsc/}", NULL, NULL);
	if (!c)
		return;
	CHECK_INT(tally_counter_start(c), 0);
	for (volatile unsigned i = 0; i < 1000000; i++)
		;
	CHECK_INT(tally_counter_stop(c), 0);
	struct tally_result r[3];
	CHECK_INT(tally_counter_read(c, r, 3, sizeof(r[0])), 3);
	CHECK_INT(r[0].status, TALLY_STATUS_EXACT);
	CHECK(r[0].value > 0);
	CHECK_INT(r[2].status, TALLY_STATUS_EXACT);
	CHECK(r[2].value > 0);
	CHECK_INT(r[2].group, 1);
	tally_counter_free(c);
}

static void unsupported_leader_leaves_members_counting(void)
{
	if (have_hw_pmu())
		SKIP("this machine has a hardware PMU, so cycles can lead the group");
	tally_counter *c = open_on("{cycles,page-faults,minor-faults}", NULL, NULL);
	if (!c)
		return;
	CHECK_INT(tally_counter_start(c), 0);
	CHECK_INT(tally_counter_stop(c), 0);
	struct tally_result r[3];
	CHECK_INT(tally_counter_read(c, r, 3, sizeof(r[0])), 3);
	CHECK_INT(r[0].status, TALLY_STATUS_NOT_SUPPORTED);
	CHECK_INT(r[1].status, TALLY_STATUS_EXACT);
	CHECK_INT(r[2].status, TALLY_STATUS_EXACT);
	/* page-faults leads what is left of the group, and says so. */
	CHECK_INT(r[1].group, 1);
	CHECK_INT(r[2].group, 1);
	CHECK_CONTAINS(tally_counter_note(c, 1), "'cycles' could not lead its group");
	tally_counter_free(c);
}

/* Leaders that fail one after another: each unsupported event gives its own reason once, and the event
 * that ends up leading says once which leader was lost and that it leads now (the notes once repeated
 * the regrouping at every failed leader and were cut mid-word). */
static void unsupported_leaders_in_a_row_explained_once(void)
{
	if (have_hw_pmu())
		SKIP("this machine has a hardware PMU, so cycles can lead the group");
	tally_counter *c = open_on("{cycles,cycles,cycles,cycles,task-clock}", NULL, NULL);
	if (!c)
		return;
	for (size_t i = 0; i < 4; i++) {
		const char *note = tally_counter_note(c, i);
		CHECK(strstr(note, "could not lead") == NULL);
		CHECK(strstr(note, "cannot open event 'cycles'") == note);
		CHECK(strstr(note + 1, "cannot open event") == NULL);
		CHECK(note[strlen(note) - 1] == '.' || note[strlen(note) - 1] == ')');
	}
	CHECK_STR(tally_counter_note(c, 4), "'cycles' could not lead its group here, so the other members were "
	                                    "opened as a group of their own, led by 'task-clock'");
	tally_counter_free(c);
}

/* ---- a table whose group reads say the group never ran ----------------------------------------------- */

/* Groups of more than this many events "never get a counter", like a PMU with 2 free counters. */
static uint64_t fake_capacity = 2;
static bool fd_reads_group[1024];

static int idle_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	int fd = fault_perf_event_open(attr, pid, cpu, group_fd, flags);
	if (fd >= 0 && fd < 1024)
		fd_reads_group[fd] = attr->read_format & PERF_FORMAT_GROUP;
	return fd;
}

static ssize_t idle_read(int fd, void *buf, size_t count)
{
	ssize_t n = fault_read(fd, buf, count);
	uint64_t *v = buf;
	/* PERF_FORMAT_GROUP with times: nr, time_enabled, time_running, then the values. */
	if (n >= 24 && fd >= 0 && fd < 1024 && fd_reads_group[fd] && v[0] > fake_capacity)
		v[2] = 0;
	return n;
}

/* A table whose group reads list the members last to first: the kernel lists them in the order they
 * joined, and the counter's one-pass decode counts on that; anything else must still be matched by id. */
static int reversed_reads;

static ssize_t reversed_read(int fd, void *buf, size_t count)
{
	ssize_t n = fault_read(fd, buf, count);
	uint64_t *v = buf;
	if (n < 24 || fd < 0 || fd >= 1024 || !fd_reads_group[fd] || v[0] < 2)
		return n;
	size_t nr = v[0], per = ((size_t)n / sizeof(uint64_t) - 3) / nr;
	for (size_t i = 0, j = nr - 1; i < j; i++, j--)
		for (size_t w = 0; w < per; w++) {
			uint64_t t = v[3 + i * per + w];
			v[3 + i * per + w] = v[3 + j * per + w];
			v[3 + j * per + w] = t;
		}
	reversed_reads++;
	return n;
}

static void group_read_in_another_order_is_matched_by_id(void)
{
	fault_install();
	struct tly_sys table = *tly_sys;
	table.perf_event_open = idle_open;
	table.read = reversed_read;
	tly_sys_replace(&table);

	tally_counter *c = open_on("{task-clock,page-faults}", NULL, NULL);
	char *pages = fresh_pages(PAGES);
	CHECK(pages != NULL);
	if (c && pages) {
		struct tally_result r[2];
		CHECK_INT(tally_counter_start(c), 0);
		touch(pages, PAGES);
		CHECK_INT(tally_counter_stop(c), 0);
		reversed_reads = 0;
		CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
		CHECK(reversed_reads > 0);
		/* By position, task-clock would read the page faults and page-faults the nanoseconds. */
		CHECK(r[1].value >= PAGES && r[1].value <= PAGES + SLACK);
		CHECK(r[0].value > PAGES + SLACK);
		CHECK_INT(r[0].status, TALLY_STATUS_EXACT);
		CHECK_INT(r[1].status, TALLY_STATUS_EXACT);
	}
	if (pages)
		munmap(pages, PAGES * (size_t)page_size());
	tally_counter_free(c);
	fault_uninstall();
}

static void never_run_packed_group_is_split(void)
{
	fault_install();
	struct tly_sys table = *tly_sys;
	table.perf_event_open = idle_open;
	table.read = idle_read;
	tly_sys_replace(&table);

	tally_counter *c = open_on("task-clock,page-faults,minor-faults,context-switches,cpu-clock", NULL, NULL);
	if (c) {
		struct tally_result r[5];
		CHECK_INT(tally_counter_start(c), 0);
		touch(fresh_pages(16), 16);
		CHECK_INT(tally_counter_read(c, r, 5, sizeof(r[0])), 5);
		for (int i = 0; i < 5; i++) {
			CHECK_INT(r[i].status, TALLY_STATUS_NOT_COUNTED);
			CHECK(r[i].has_note);
			CHECK_CONTAINS(tally_counter_note(c, (size_t)i), "split");
			CHECK_INT(r[i].group, 0);
		}
		/* Halved: 2 + 3; the 3 still does not run, so the next read halves it again. */
		char *more = fresh_pages(PAGES);
		touch(more, PAGES / 2);
		CHECK_INT(tally_counter_read(c, r, 5, sizeof(r[0])), 5);
		CHECK_INT(r[0].status, TALLY_STATUS_EXACT);
		CHECK_INT(r[1].status, TALLY_STATUS_EXACT);
		CHECK_INT(r[1].group, 0);
		CHECK(r[1].value >= PAGES / 2);
		CHECK_INT(r[2].status, TALLY_STATUS_NOT_COUNTED);
		CHECK_INT(r[2].group, 2);
		touch(more + PAGES / 2 * page_size(), PAGES / 2);
		CHECK_INT(tally_counter_read(c, r, 5, sizeof(r[0])), 5);
		for (int i = 0; i < 5; i++)
			CHECK_INT(r[i].status, TALLY_STATUS_EXACT);
		CHECK_INT(r[2].group, 2);
		CHECK_INT(r[3].group, 3);
		CHECK_INT(r[4].group, 3);
		CHECK(r[1].value >= PAGES);
		tally_counter_free(c);
	}

	/* A group the spec asked for is reported, never split. */
	c = open_on("{task-clock,page-faults,minor-faults}", NULL, NULL);
	if (c) {
		struct tally_result r[3];
		CHECK_INT(tally_counter_start(c), 0);
		for (int round = 0; round < 2; round++) {
			CHECK_INT(tally_counter_read(c, r, 3, sizeof(r[0])), 3);
			for (int i = 0; i < 3; i++) {
				CHECK_INT(r[i].status, TALLY_STATUS_NOT_COUNTED);
				CHECK_INT(r[i].group, 0);
			}
		}
		CHECK_CONTAINS(tally_counter_note(c, 1), "task-clock");
		tally_counter_free(c);
	}
	fault_uninstall();
}

/* The smallest group tally splits: two events, on a PMU with room for one. */
static void never_run_packed_pair_is_split(void)
{
	fault_install();
	struct tly_sys table = *tly_sys;
	table.perf_event_open = idle_open;
	table.read = idle_read;
	tly_sys_replace(&table);
	fake_capacity = 1;

	tally_counter *c = open_on("task-clock,page-faults", NULL, NULL);
	if (c) {
		struct tally_result r[2];
		CHECK_INT(tally_counter_start(c), 0);
		touch(fresh_pages(16), 16);
		fault_reset();
		CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
		/* Explaining the idle group probed no machine facts (no sysfs/procfs file, no probe event):
		 * the two opens are the halves' reopening. */
		CHECK_INT(fault_calls(FAULT_OPEN) + fault_calls(FAULT_OPENDIR), 0);
		CHECK_INT(fault_calls(FAULT_PERF_EVENT_OPEN), 2);
		CHECK_CONTAINS(tally_counter_note(c, 0), "If the NMI watchdog is on");
		for (int i = 0; i < 2; i++) {
			CHECK_INT(r[i].status, TALLY_STATUS_NOT_COUNTED);
			CHECK_INT(r[i].group, 0);
			CHECK_CONTAINS(tally_counter_note(c, (size_t)i), "split this group of 2");
		}
		/* Each alone now: both count from the reopening on. */
		touch(fresh_pages(PAGES), PAGES);
		CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
		CHECK_INT(r[0].status, TALLY_STATUS_EXACT);
		CHECK_INT(r[1].status, TALLY_STATUS_EXACT);
		CHECK_INT(r[0].group, 0);
		CHECK_INT(r[1].group, 1);
		CHECK(r[1].value >= PAGES);
		tally_counter_free(c);
	}
	fake_capacity = 2;
	fault_uninstall();
}

/* ---- options, states, errors --------------------------------------------------------------------- */

static void no_packing_opens_every_event_alone(void)
{
	TALLY_OPTS(tally_counter_opts, o, .no_packing = true);
	tally_counter *c = open_on("task-clock,page-faults,{minor-faults,major-faults}", &o, NULL);
	if (!c)
		return;
	CHECK_INT(tally_counter_start(c), 0);
	CHECK_INT(tally_counter_stop(c), 0);
	struct tally_result r[4];
	fault_install();
	CHECK_INT(tally_counter_read(c, r, 4, sizeof(r[0])), 4);
	CHECK_INT(fault_calls(FAULT_READ), 3);
	fault_uninstall();
	CHECK_INT(r[0].group, 0);
	CHECK_INT(r[1].group, 1);
	CHECK_INT(r[2].group, 2);
	CHECK_INT(r[3].group, 2);
	tally_counter_free(c);

	/* Packed (the default): the software events outside braces share one group. */
	c = open_on("task-clock,page-faults,{minor-faults,major-faults}", NULL, NULL);
	if (!c)
		return;
	CHECK_INT(tally_counter_read(c, r, 4, sizeof(r[0])), 4);
	CHECK_INT(r[0].group, 0);
	CHECK_INT(r[1].group, 0);
	CHECK_INT(r[2].group, 2);
	/* Never started: enabled for no time, so nothing counted, and nothing is split. */
	CHECK_INT(r[0].status, TALLY_STATUS_NOT_COUNTED);
	CHECK(!r[0].has_note);
	tally_counter_free(c);
}

static void origins_sum_results(void)
{
	tally_counter *c = open_on("page-faults,minor-faults", NULL, NULL);
	if (!c)
		return;
	CHECK_INT(tally_counter_start(c), 0);
	touch(fresh_pages(8), 8);
	CHECK_INT(tally_counter_stop(c), 0);
	struct tally_result r[2], o[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	/* Without a hybrid expansion every spec item is its own origin. */
	CHECK_INT(tally_counter_sum_origins(c, r, 2, o, 2, sizeof(o[0])), 2);
	CHECK_U64(o[0].value, r[0].value);
	CHECK_U64(o[1].scaled, r[1].scaled);
	CHECK_INT(o[1].status, r[1].status);
	/* A short result array: only the first event. */
	CHECK_INT(tally_counter_read(c, r, 1, sizeof(r[0])), 1);
	tally_counter_free(c);
}

static void hybrid_expansions_sum_by_origin(void)
{
	const char *dir = getenv("TALLY_FIXTURES");
	char root[4096];
	snprintf(root, sizeof(root), "%s/sysfs/hybrid", dir ? dir : "tests/fixtures");
	TALLY_OPTS(tally_counter_opts, o, .sysfs_root = root);
	tally_counter *c;
	int err = tally_counter_new("cycles,page-faults", &o, &c);
	CHECK_INT(err, 0);
	if (err) {
		fprintf(stderr, "%s\n", tally_last_error());
		return;
	}
	/* cycles counts once per core PMU; both halves come from spec item 0. */
	CHECK_INT(tally_counter_count(c), 3);
	char both[256];
	snprintf(both, sizeof(both), "%s %s", tally_counter_name(c, 0), tally_counter_name(c, 1));
	CHECK_CONTAINS(both, "cpu_core/cycles/");
	CHECK_CONTAINS(both, "cpu_atom/cycles/");
	CHECK_STR(tally_counter_name(c, 2), "page-faults");
	struct tally_result r[3] = {
		{ .value = 100, .enabled = 10, .running = 10, .scaled = 100, .ratio = 1, .origin = 0,
		  .status = TALLY_STATUS_EXACT, .nr_parts = 1 },
		{ .value = 50, .enabled = 10, .running = 5, .scaled = 100, .ratio = 0.5, .origin = 0,
		  .status = TALLY_STATUS_SCALED, .nr_parts = 1 },
		{ .value = 7, .enabled = 10, .running = 10, .scaled = 7, .ratio = 1, .origin = 1,
		  .status = TALLY_STATUS_EXACT, .nr_parts = 1 },
	};
	struct tally_result o2[2];
	CHECK_INT(tally_counter_sum_origins(c, r, 3, o2, 2, sizeof(o2[0])), 2);
	CHECK_U64(o2[0].value, 150);
	CHECK_U64(o2[0].scaled, 200);
	CHECK_U64(o2[0].enabled, 20);
	CHECK_U64(o2[0].running, 15);
	CHECK_INT(o2[0].status, TALLY_STATUS_SCALED);
	CHECK(o2[0].ratio == 0.75);
	CHECK_INT(o2[0].nr_parts, 2);
	CHECK_U64(o2[1].value, 7);
	/* A half that cannot count (the atom half, say) leaves the other's value standing. */
	r[1] = (struct tally_result){ .status = TALLY_STATUS_NOT_SUPPORTED, .error = -ENOENT, .origin = 0 };
	CHECK_INT(tally_counter_sum_origins(c, r, 3, o2, 1, sizeof(o2[0])), 2);
	CHECK_U64(o2[0].value, 100);
	CHECK_INT(o2[0].status, TALLY_STATUS_EXACT);
	CHECK_INT(o2[0].error, 0);
	tally_counter_free(c);
}

static void pmu_cpumask_limits_cpu_wide_events(void)
{
	struct tly_target t = { .kind = TALLY_TARGET_CPUS, .cpu_wide = true };
	CHECK_INT(tally_cpus_parse("0-3,16-19", &t.cpus), 0);
	tally_cpus *cpus;
	/* A cpu_atom-like PMU on CPUs 16-23: only the requested CPUs among them. */
	CHECK_INT(tly_target_event_cpus(&t, "16-23", &cpus), 0);
	CHECK_INT(tally_cpus_count(cpus), 4);
	CHECK_INT(tally_cpus_at(cpus, 0), 16);
	tally_cpus_free(cpus);
	/* An uncore-like PMU that counts on CPU 0 only. */
	CHECK_INT(tly_target_event_cpus(&t, "0", &cpus), 0);
	CHECK_INT(tally_cpus_count(cpus), 1);
	tally_cpus_free(cpus);
	/* No mask (software events): every requested CPU. */
	CHECK_INT(tly_target_event_cpus(&t, NULL, &cpus), 0);
	CHECK_INT(tally_cpus_count(cpus), 8);
	tally_cpus_free(cpus);
	CHECK_INT(tly_target_event_cpus(&t, "24-31", &cpus), -ENODEV);
	/* A task-bound target opens on any CPU whatever the mask says. */
	t.cpu_wide = false;
	CHECK_INT(tly_target_event_cpus(&t, "16-23", &cpus), 0);
	CHECK(cpus == NULL);
	tally_cpus_free(t.cpus);
}

static void calls_out_of_order_are_refused(void)
{
	tally_counter *c;
	CHECK_INT(tally_counter_new("page-faults", NULL, &c), 0);
	struct tally_result r;
	CHECK_INT(tally_counter_read(c, &r, 1, sizeof(r)), -TALLY_ESTATE);
	CHECK_CONTAINS(tally_counter_last_error(c), "not open");
	CHECK_INT(tally_counter_start(c), -TALLY_ESTATE);
	CHECK_INT(tally_counter_stop(c), -TALLY_ESTATE);
	CHECK_INT(tally_counter_reset(c), -TALLY_ESTATE);
	struct tally_exit ex;
	CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), -TALLY_ESTATE);
	CHECK_INT(tally_counter_open(c, NULL), 0);
	CHECK_INT(tally_counter_open(c, NULL), -TALLY_ESTATE);
	CHECK_INT(tally_counter_wait(c, &ex, sizeof(ex)), -TALLY_ESTATE);
	CHECK_INT(tally_counter_pid(c), 0);
	CHECK_INT(tally_counter_reset(c), 0);
	CHECK_INT(tally_counter_close(c), 0);
	CHECK_INT(tally_counter_close(c), 0);
	/* Closed handles open again. */
	CHECK_INT(tally_counter_open(c, NULL), 0);
	tally_counter_free(c);
	tally_counter_free(NULL);

	CHECK_INT(tally_counter_new("page-faults,", NULL, &c), -TALLY_ESPEC);
	CHECK(c == NULL);
	struct {
		struct tally_counter_opts o;
		int newer;
	} big = { .o = { .sz = sizeof(big) }, .newer = 1 };
	CHECK_INT(tally_counter_new("page-faults", &big.o, &c), -TALLY_EOPTS);
	CHECK_INT(tally_counter_new("page-faults", NULL, &c), 0);
	TALLY_OPTS(tally_target, bad, .kind = TALLY_TARGET_TIDS, .nr_tids = 0);
	CHECK_INT(tally_counter_open(c, &bad), -EINVAL);
	CHECK(tally_counter_last_error(c)[0] != '\0');
	tally_counter_free(c);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "group_counts_page_faults_in_one_read", group_counts_page_faults_in_one_read },
		{ "context_switches_rise_with_sleeps", context_switches_rise_with_sleeps },
		{ "process_target_inherits_new_threads", process_target_inherits_new_threads },
		{ "tid_list_counts_those_threads", tid_list_counts_those_threads },
		{ "tid_listed_twice_counts_once", tid_listed_twice_counts_once },
		{ "attach_to_pid", attach_to_pid },
		{ "system_wide_per_cpu_and_sum", system_wide_per_cpu_and_sum },
		{ "unsupported_event_beside_software", unsupported_event_beside_software },
		{ "empty_spec_counts_time_alone", empty_spec_counts_time_alone },
		{ "pmu_refusing_exclude_guest_still_counts", pmu_refusing_exclude_guest_still_counts },
		{ "unsupported_leader_leaves_members_counting", unsupported_leader_leaves_members_counting },
		{ "unsupported_leaders_in_a_row_explained_once", unsupported_leaders_in_a_row_explained_once },
		{ "never_run_packed_group_is_split", never_run_packed_group_is_split },
		{ "never_run_packed_pair_is_split", never_run_packed_pair_is_split },
		{ "no_packing_opens_every_event_alone", no_packing_opens_every_event_alone },
		{ "origins_sum_results", origins_sum_results },
		{ "hybrid_expansions_sum_by_origin", hybrid_expansions_sum_by_origin },
		{ "pmu_cpumask_limits_cpu_wide_events", pmu_cpumask_limits_cpu_wide_events },
		{ "group_read_in_another_order_is_matched_by_id", group_read_in_another_order_is_matched_by_id },
		{ "calls_out_of_order_are_refused", calls_out_of_order_are_refused },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
