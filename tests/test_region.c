/* SPDX-License-Identifier: MIT */
/*
 * Named regions (issue 11) on software events through read(2): per-call counts, threads, nesting,
 * unbalanced calls, a set that cannot count, the writers, and the zero-configuration layer across fork.
 */
#include "fault.h"
#include "harness.h"
#include "region/region.h"

#include <string.h>
#include <stdlib.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <tally/region.h>
#include <unistd.h>

/* Under valgrind or AddressSanitizer the process also faults on pages the tool touches for it (its
 * translations, its stack, its shadow memory), inside some calls: those count at least the pages touched,
 * and exactly them elsewhere. */
#if defined(__SANITIZE_ADDRESS__)
#define TOOL_FAULTS() true
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TOOL_FAULTS() true
#endif
#endif
#ifndef TOOL_FAULTS
#define TOOL_FAULTS() (getenv("TALLY_UNDER_VALGRIND") != NULL)
#endif

enum { PAGES = 5, CALLS = 20, THREADS = 8, THREAD_CALLS = 10000 };

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* Maps n fresh pages: each first write is one page fault. */
static char *fresh_pages(int n)
{
	char *p = mmap(NULL, (size_t)n * page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, (size_t)n * page_size(), MADV_NOHUGEPAGE);
	return p;
}

/* Not instrumented: AddressSanitizer's check of each store reads shadow memory, whose first read on a
 * page of it is a page fault of its own. */
__attribute__((no_sanitize_address)) static void touch(char *p, int n)
{
	for (int i = 0; i < n; i++)
		((volatile char *)p)[i * page_size()] = 1;
}

static tally_region_set *page_fault_set(void)
{
	tally_region_set *s = NULL;
	CHECK_INT(tally_region_set_new("page-faults", NULL, &s), 0);
	CHECK_STR(tally_region_set_error(s), "");
	CHECK_INT(tally_region_set_events(s), 1);
	CHECK_STR(tally_region_set_event_name(s, 0), "page-faults");
	return s;
}

static struct tally_region_event read_region(tally_region_set *s, int id, size_t thread,
                                             struct tally_region_info *info)
{
	struct tally_region_event e = { 0 };
	*info = (struct tally_region_info){ .sz = sizeof(*info) };
	CHECK_INT(tally_region_set_read(s, (size_t)id, thread, info, &e, 1, sizeof(e)), 1);
	return e;
}

/* One call of another region through the same code first: under valgrind the first run of code takes
 * page faults of its own (the translation's memory). */
static void warm_up(tally_region_set *s)
{
	int id = tally_region_id(s, "warm-up");
	char *p = fresh_pages(1);
	tally_region_begin_id(s, id);
	touch(p, 1);
	tally_region_begin_id(s, id);
	tally_region_end_id(s, id);
	tally_region_end_id(s, id);
	munmap(p, (size_t)page_size());
}

/* What tally_region_set_write writes in a format (malloc'd). */
static char *written(tally_region_set *s, enum tally_region_format format)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK_INT(tally_region_set_write(s, f, format), 0);
	fclose(f);
	return text;
}

/* Every format's writing of s holds expect[format]. */
static void expect_in_every_format(tally_region_set *s, const char *const expect[TALLY_REGION_JSON + 1])
{
	for (int format = TALLY_REGION_TABLE; format <= TALLY_REGION_JSON; format++) {
		char *text = written(s, (enum tally_region_format)format);
		CHECK_CONTAINS(text, expect[format]);
		free(text);
	}
}

static void counts_fresh_pages_per_call(void)
{
	tally_region_set *s = page_fault_set();
	int id = tally_region_id(s, "touch");
	CHECK_INT(id, 0);
	CHECK_INT(tally_region_id(s, "touch"), id);
	CHECK_INT(tally_region_set_overhead(s, 0), 0); /* an empty region takes no page fault */
	warm_up(s);
	for (int call = 0; call < CALLS; call++) {
		char *p = fresh_pages(PAGES);
		CHECK(p != NULL);
		CHECK_INT(tally_region_begin_id(s, id), 0);
		touch(p, PAGES);
		CHECK_INT(tally_region_end_id(s, id), 0);
		munmap(p, (size_t)PAGES * page_size());
	}
	struct tally_region_info info;
	struct tally_region_event e = read_region(s, id, TALLY_REGION_ALL_THREADS, &info);
	CHECK_STR(info.name, "touch");
	CHECK_INT(info.calls, CALLS);
	CHECK_INT(info.open, 0);
	CHECK_INT(e.status, TALLY_STATUS_EXACT);
	CHECK_INT(e.counted, CALLS);
	CHECK_INT(e.min, PAGES);
	if (TOOL_FAULTS()) {
		CHECK(e.sum >= PAGES * CALLS);
	} else {
		CHECK_INT(e.sum, PAGES * CALLS);
		CHECK_INT(e.max, PAGES);
		CHECK(e.mean == PAGES && e.stddev == 0);
	}
	CHECK(!e.low);
	tally_region_set_free(s);
}

struct worker {
	tally_region_set *set;
	int id;
};

static void *thread_regions(void *arg)
{
	struct worker *w = arg;
	char *p = fresh_pages(THREAD_CALLS);
	for (int call = 0; p && call < THREAD_CALLS; call++) {
		tally_region_begin_id(w->set, w->id);
		touch(p + (size_t)call * page_size(), 1);
		tally_region_end_id(w->set, w->id);
	}
	if (p)
		munmap(p, (size_t)THREAD_CALLS * page_size());
	return NULL;
}

/* Threads that exited keep their results, and the total is their sum. */
static void threads_sum_right(void)
{
	tally_region_set *s = page_fault_set();
	struct worker w = { s, tally_region_id(s, "work") };
	pthread_t threads[THREADS];
	for (int i = 0; i < THREADS; i++)
		CHECK_INT(pthread_create(&threads[i], NULL, thread_regions, &w), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(threads[i], NULL);
	/* The making thread (calibration) and the eight. */
	CHECK_INT(tally_region_set_threads(s), THREADS + 1);
	uint64_t calls = 0, sum = 0;
	for (size_t k = 0; k < tally_region_set_threads(s); k++) {
		struct tally_region_info info;
		struct tally_region_event e = read_region(s, w.id, k, &info);
		CHECK(info.tid > 0);
		if (k == 0) {
			CHECK_INT(info.calls, 0);
			continue;
		}
		CHECK_INT(info.calls, THREAD_CALLS);
		CHECK_INT(e.min, 1);
		if (TOOL_FAULTS()) {
			CHECK(e.sum >= THREAD_CALLS);
		} else {
			CHECK_INT(e.sum, THREAD_CALLS);
			CHECK_INT(e.max, 1);
		}
		calls += info.calls;
		sum += e.sum;
	}
	struct tally_region_info all;
	struct tally_region_event e = read_region(s, w.id, TALLY_REGION_ALL_THREADS, &all);
	CHECK_INT(all.tid, 0);
	CHECK_INT(all.calls, calls);
	CHECK_INT(all.calls, THREADS * THREAD_CALLS);
	CHECK_INT(e.sum, sum);
	CHECK_INT(e.counted, THREADS * THREAD_CALLS);
	CHECK(TOOL_FAULTS() || (e.mean == 1 && e.stddev == 0));
	tally_region_set_free(s);
}

/* A parent's counts include its children's; a region begun again while open counts once. The first call
 * makes the inner region's record inside the outer one (a first use allocates): the calls after it are
 * checked. */
static void nesting_is_inclusive(void)
{
	tally_region_set *s = page_fault_set();
	int outer = tally_region_id(s, "outer"), inner = tally_region_id(s, "inner");
	uint64_t first_outer = 0, first_inner = 0;
	struct tally_region_info info;
	for (int call = 0; call < CALLS; call++) {
		char *p = fresh_pages(5);
		tally_region_begin_id(s, outer);
		touch(p, 2);
		tally_region_begin_id(s, inner);
		tally_region_begin_id(s, inner); /* recursion */
		touch(p + 2 * page_size(), 3);
		tally_region_end_id(s, inner);
		tally_region_end_id(s, inner);
		tally_region_end_id(s, outer);
		munmap(p, 5 * (size_t)page_size());
		if (call == 0) {
			first_outer = read_region(s, outer, TALLY_REGION_ALL_THREADS, &info).sum;
			first_inner = read_region(s, inner, TALLY_REGION_ALL_THREADS, &info).sum;
		}
	}
	struct tally_region_event e = read_region(s, outer, TALLY_REGION_ALL_THREADS, &info);
	CHECK_INT(info.calls, CALLS);
	CHECK_INT(e.sum - first_outer, 5 * (CALLS - 1));
	CHECK_INT(e.min, 5);
	e = read_region(s, inner, TALLY_REGION_ALL_THREADS, &info);
	CHECK_INT(info.calls, CALLS);
	CHECK_INT(info.open, 0);
	CHECK_INT(e.sum - first_inner, 3 * (CALLS - 1));
	CHECK_INT(e.min, 3);
	tally_region_set_free(s);
}

/* Names past max_regions are refused, and the outputs count the refused calls. */
static void names_past_the_room_are_reported(void)
{
	TALLY_OPTS(tally_region_opts, opts, .max_regions = 2);
	tally_region_set *s;
	CHECK_INT(tally_region_set_new("page-faults", &opts, &s), 0);
	CHECK_INT(tally_region_id(s, "a"), 0);
	CHECK_INT(tally_region_id(s, "b"), 1);
	CHECK_INT(tally_region_id(s, "c"), -ENOSPC);
	CHECK_INT(tally_region_id(s, "c"), -ENOSPC);
	CHECK_INT(tally_region_id(s, "a"), 0);
	char *text = written(s, TALLY_REGION_TABLE);
	CHECK_CONTAINS(text, "# 2 region call(s) not counted: their names came after the 2 the set holds");
	free(text);
	text = written(s, TALLY_REGION_JSON);
	CHECK_CONTAINS(text, "\"refused_calls\":2,");
	free(text);
	tally_region_set_free(s);
}

static void unbalanced_calls_are_reported(void)
{
	tally_region_set *s = page_fault_set();
	int never_begun = tally_region_id(s, "never-begun"), left_open = tally_region_id(s, "left-open");
	int fine = tally_region_id(s, "fine");
	CHECK_INT(tally_region_end_id(s, never_begun), 0);
	CHECK_INT(tally_region_end_id(s, never_begun), 0);
	CHECK_INT(tally_region_begin_id(s, left_open), 0);
	CHECK_INT(tally_region_begin_id(s, fine), 0);
	CHECK_INT(tally_region_end_id(s, fine), 0);
	CHECK_INT(tally_region_end_id(s, fine), 0); /* one end too many */
	CHECK_INT(tally_region_begin_id(s, 99), -EINVAL);
	CHECK_INT(tally_region_end_id(s, -1), -EINVAL);
	CHECK_INT(tally_region_begin_id(NULL, 0), -EINVAL);
	struct tally_region_info info;
	read_region(s, never_begun, TALLY_REGION_ALL_THREADS, &info);
	CHECK_INT(info.calls, 0);
	CHECK_INT(info.stray_ends, 2);
	read_region(s, left_open, TALLY_REGION_ALL_THREADS, &info);
	CHECK_INT(info.calls, 0);
	CHECK_INT(info.open, 1);
	read_region(s, fine, TALLY_REGION_ALL_THREADS, &info);
	CHECK_INT(info.calls, 1);
	CHECK_INT(info.stray_ends, 1);
	char *text = written(s, TALLY_REGION_TABLE);
	CHECK_CONTAINS(text, "region 'never-begun' (thread all): 0 begin(s) without an end, 2 end(s) without a begin");
	CHECK_CONTAINS(text, "region 'left-open' (thread all): 1 begin(s) without an end");
	free(text);
	tally_region_set_free(s);
}

/* The flag and the subtraction follow the calibrated overhead; it is set here by hand (page faults have
 * none), so that the counts are known. */
static void low_counts_are_flagged_and_subtraction_is_asked_for(void)
{
	for (int subtract = 0; subtract <= 1; subtract++) {
		TALLY_OPTS(tally_region_opts, opts, .subtract_overhead = subtract);
		tally_region_set *s = NULL;
		CHECK_INT(tally_region_set_new("page-faults", &opts, &s), 0);
		s->overhead[0] = 1;
		int few = tally_region_id(s, "few"), many = tally_region_id(s, "many");
		/* Two calls each: the smallest is the one without valgrind's first-run faults. */
		for (int call = 0; call < 2; call++) {
			char *p = fresh_pages(4 + 12);
			tally_region_begin_id(s, few);
			touch(p, 4);
			tally_region_end_id(s, few);
			tally_region_begin_id(s, many);
			touch(p + 4 * page_size(), 12);
			tally_region_end_id(s, many);
			munmap(p, 16 * (size_t)page_size());
		}
		struct tally_region_info info;
		struct tally_region_event e = read_region(s, few, TALLY_REGION_ALL_THREADS, &info);
		CHECK_INT(e.min, subtract ? 3 : 4);
		CHECK(e.low); /* under 10 x 1 */
		e = read_region(s, many, TALLY_REGION_ALL_THREADS, &info);
		CHECK_INT(e.min, subtract ? 11 : 12);
		CHECK(!e.low);
		char *text = written(s, TALLY_REGION_TABLE);
		CHECK_CONTAINS(text, subtract ? "(begin + end), subtracted: page-faults 1" : "not subtracted: page-faults 1");
		CHECK_CONTAINS(text, "counted  low: under 10x the overhead");
		free(text);
		tally_region_set_free(s);
	}
}

/* A spec that cannot count still gives a set: calls do nothing and every output says why. */
/* Reads of perf descriptors made to count a known sequence: the nth read adds step(n) to the count it
 * returns, so that an empty region's count is the step of its end's read (one read a side). Most steps
 * are 20; reads 60 and 61 (one of them an end, whatever the parity the open's reads leave) add 7, reads
 * 90 and 91 add 1000: the calibration's first call counts 20, the mean of its 64 about 35, the largest
 * 1000, the smallest 7. */
static unsigned long synth_reads;
static uint64_t synth_total;

static bool is_perf_fd(int fd)
{
	char link[64], target[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = 0;
	return strcmp(target, "anon_inode:[perf_event]") == 0;
}

static ssize_t read_known_costs(int fd, void *buf, size_t count)
{
	ssize_t n = tly_sys_real.read(fd, buf, count);
	uint64_t *v = buf;
	size_t at;
	if (n == 5 * sizeof(uint64_t) && v[0] == 1)
		at = 3; /* group: nr, enabled, running, value, id */
	else if (n == 4 * sizeof(uint64_t))
		at = 0; /* one event: value, enabled, running, id */
	else
		return n;
	if (!is_perf_fd(fd))
		return n;
	synth_reads++;
	synth_total += synth_reads == 60 || synth_reads == 61 ? 7 : synth_reads == 90 || synth_reads == 91 ? 1000 : 20;
	v[at] = synth_total;
	return n;
}

static void calibration_takes_the_cheapest_call(void)
{
	static struct tly_sys table;
	table = tly_sys_real;
	table.read = read_known_costs;
	synth_reads = 0;
	synth_total = 0;
	tly_sys_replace(&table);
	tally_region_set *s = NULL;
	CHECK_INT(tally_region_set_new("page-faults", NULL, &s), 0);
	tly_sys_replace(NULL);
	/* The open's few reads, the warm-up's 8 and the 128 of the calibration's calls. */
	CHECK(synth_reads > 91 && synth_reads < 160);
	CHECK_INT((long long)tally_region_set_overhead(s, 0), 7);
	tally_region_set_free(s);
}

static void a_set_that_cannot_count_says_why(void)
{
	tally_region_set *s = NULL;
	CHECK_INT(tally_region_set_new("no-such-event", NULL, &s), 0);
	CHECK_CONTAINS(tally_region_set_error(s), "no-such-event");
	int id = tally_region_id(s, "r");
	CHECK_INT(id, 0);
	CHECK_INT(tally_region_begin_id(s, id), 0);
	CHECK_INT(tally_region_end_id(s, id), 0);
	struct tally_region_info info = { .sz = sizeof(info) };
	CHECK_INT(tally_region_set_read(s, 0, TALLY_REGION_ALL_THREADS, &info, NULL, 0, 0), 0);
	CHECK_INT(info.calls, 0);
	CHECK_CONTAINS(info.error, "no-such-event");
	for (int format = TALLY_REGION_TABLE; format <= TALLY_REGION_JSON; format++) {
		char *text = written(s, (enum tally_region_format)format);
		if (format != TALLY_REGION_CSV)
			CHECK_CONTAINS(text, "no-such-event");
		free(text);
	}
	tally_region_set_free(s);
}

static void *one_call(void *arg)
{
	tally_region_set *s = arg;
	int id = tally_region_id(s, "r");
	CHECK_INT(tally_region_begin_id(s, id), 0);
	CHECK_INT(tally_region_end_id(s, id), 0);
	return NULL;
}

/* A thread whose counter cannot open (here: no descriptor left) does nothing in its calls, the others
 * count on; the table, which people read, says which thread did not count and why, rather than leaving
 * its calls out of the sums unseen. */
static void a_thread_that_cannot_count_says_why(void)
{
	tally_region_set *s = page_fault_set();
	one_call(s);
	fault_install();
	fault_arm(FAULT_PERF_EVENT_OPEN, 1, EMFILE);
	pthread_t thread;
	CHECK_INT(pthread_create(&thread, NULL, one_call, s), 0);
	pthread_join(thread, NULL);
	CHECK(fault_fired());
	fault_uninstall();
	CHECK_INT(tally_region_set_threads(s), 2);
	struct tally_region_info info;
	read_region(s, 0, 1, &info);
	CHECK_INT(info.calls, 0);
	CHECK_CONTAINS(info.error, "EMFILE");
	char *text = written(s, TALLY_REGION_TABLE), line[64];
	snprintf(line, sizeof(line), "# thread %d not counting: ", (int)info.tid);
	CHECK_CONTAINS(text, line);
	CHECK_CONTAINS(text, "EMFILE");
	CHECK_INT(read_region(s, 0, TALLY_REGION_ALL_THREADS, &info).counted, 1);
	free(text);
	tally_region_set_free(s);
}

static bool reads_fail;

static ssize_t failing_read(int fd, void *buf, size_t count)
{
	if (reads_fail) {
		errno = EIO;
		return -1;
	}
	return tly_sys_real.read(fd, buf, count);
}

/* A call whose begin could not be read (every read fails: the raw read and its retry) still counts, as a
 * call no event counted, so that the output says so (counted below calls) instead of losing it. */
static void a_begin_not_read_is_a_call_not_counted(void)
{
	tally_region_set *s = page_fault_set();
	one_call(s); /* the thread's counter made, one call counted */
	static struct tly_sys table;
	table = tly_sys_real;
	table.read = failing_read;
	tly_sys_replace(&table);
	reads_fail = true;
	CHECK_INT(tally_region_begin_id(s, 0), 0);
	reads_fail = false;
	CHECK_INT(tally_region_end_id(s, 0), 0);
	tly_sys_replace(NULL);
	struct tally_region_info info;
	struct tally_region_event e = read_region(s, 0, TALLY_REGION_ALL_THREADS, &info);
	CHECK_INT(info.calls, 2);
	CHECK_INT(info.open, 0);
	CHECK_INT(e.counted, 1);
	CHECK_INT(e.status, TALLY_STATUS_EXACT);
	tally_region_set_free(s);
}

/* A program that starts a thread per task leaves a state per thread it ever had (each keeps its results):
 * writing them walks the threads once, not once per thread (20,000 threads' CSV took 40.9 s at exit
 * before, 0.16 s now: measured, not asserted, as no timing is); every thread's call is in the total of
 * every format. */
static void writing_many_threads_takes_one_walk(void)
{
	enum { MANY = 2000 };
	tally_region_set *s = page_fault_set();
	CHECK_INT(tally_region_id(s, "r"), 0);
	for (int k = 0; k < MANY; k++) {
		pthread_t thread;
		CHECK_INT(pthread_create(&thread, NULL, one_call, s), 0);
		pthread_join(thread, NULL);
	}
	CHECK_INT(tally_region_set_threads(s), MANY + 1); /* and the making thread */
	const char *expect[] = {
		[TALLY_REGION_TABLE] = "r                         all       2000",
		[TALLY_REGION_CSV] = "\nr,all,2000,",
		[TALLY_REGION_JSON] = "{\"name\":\"r\",\"calls\":2000,",
	};
	expect_in_every_format(s, expect);
	tally_region_set_free(s);
}

static void writers_name_every_field(void)
{
	tally_region_set *s = page_fault_set();
	int id = tally_region_id(s, "a,\"b\"");
	char *p = fresh_pages(2);
	tally_region_begin_id(s, id);
	touch(p, 2);
	tally_region_end_id(s, id);
	munmap(p, 2 * (size_t)page_size());
	const char *expect[] = {
		[TALLY_REGION_TABLE] = "a,\"b\"                     all          1",
		[TALLY_REGION_CSV] = "\"a,\"\"b\"\"\",all,1,",
		[TALLY_REGION_JSON] = "{\"name\":\"a,\\\"b\\\"\",\"calls\":1,",
	};
	expect_in_every_format(s, expect);
	tally_region_set_free(s);
}

/* A region's name is the program's bytes, which need not be UTF-8: JSON must be (RFC 8259), so a byte
 * that is no part of a valid sequence goes out as U+FFFD, and valid ones as they are. */
static void json_names_are_valid_utf8(void)
{
	tally_region_set *s = page_fault_set();
	int id = tally_region_id(s, "\xff\xc3\xa9t\xc3\xa9 \xed\xa0\x80 \xe2\x82");
	tally_region_begin_id(s, id);
	tally_region_end_id(s, id);
	char *text = written(s, TALLY_REGION_JSON);
	CHECK_CONTAINS(text, "{\"name\":\"\\ufffd\xc3\xa9t\xc3\xa9 \\ufffd\\ufffd\\ufffd \\ufffd\\ufffd\",");
	CHECK(text && !strchr(text, '\xff') && !strstr(text, "\xed\xa0"));
	free(text);
	tally_region_set_free(s);
}

/* One call of region `name` around the first writes to fresh pages. */
static void touch_once(tally_region_set *s, const char *name)
{
	int id = tally_region_id(s, name);
	char *p = fresh_pages(PAGES);
	tally_region_begin_id(s, id);
	touch(p, PAGES);
	tally_region_end_id(s, id);
	munmap(p, (size_t)PAGES * page_size());
}

/* Beside each event the figure perf stat prints beside it, from the region's sums over its wall time:
 * task-clock's CPUs utilized, page-faults' rate per second of that CPU time; in every format. */
static void writers_carry_each_events_metric(void)
{
	tally_region_set *s = NULL;
	CHECK_INT(tally_region_set_new("task-clock,page-faults", NULL, &s), 0);
	touch_once(s, "touch");
	char *text = written(s, TALLY_REGION_TABLE);
	CHECK_CONTAINS(text, " CPUs utilized\n");
	CHECK_CONTAINS(text, "/sec\n");
	free(text);
	text = written(s, TALLY_REGION_CSV);
	CHECK_CONTAINS(text, ",open,stray_ends,metric_value,metric_unit,metric_threshold\n");
	CHECK_CONTAINS(text, ",CPUs utilized,\n");
	free(text);
	text = written(s, TALLY_REGION_JSON);
	CHECK_CONTAINS(text, ",\"metric\":{\"value\":");
	CHECK_CONTAINS(text, ",\"unit\":\"CPUs utilized\"}}");
	free(text);
	tally_region_set_free(s);
}

/* Metrics asked for (tally_region_opts.metrics): their events are counted too, and each region row gives
 * their values from its sums, in every format. */
static void asked_for_metrics_per_region(void)
{
	tally_region_set *s = NULL;
	TALLY_OPTS(tally_region_opts, opts, .metrics = "CPUs_utilized");
	CHECK_INT(tally_region_set_new("page-faults", &opts, &s), 0);
	CHECK_INT(tally_region_set_events(s), 2); /* page-faults, and the metric's task-clock */
	CHECK_STR(tally_region_set_event_name(s, 1), "task-clock");
	touch_once(s, "touch");
	char *text = written(s, TALLY_REGION_TABLE);
	CHECK_CONTAINS(text, "  CPUs_utilized  ");
	free(text);
	text = written(s, TALLY_REGION_CSV);
	CHECK_CONTAINS(text, "\ntouch,all,1,");
	CHECK_CONTAINS(text, ",CPUs_utilized,,,,,,,,,,,,,");
	CHECK_CONTAINS(text, ",CPUs utilized,\n");
	free(text);
	text = written(s, TALLY_REGION_JSON);
	CHECK_CONTAINS(text, "],\"metrics\":[{\"name\":\"CPUs_utilized\",\"value\":");
	CHECK_CONTAINS(text, ",\"unit\":\"CPUs utilized\",\"available\":true,\"reason\":null}]");
	free(text);
	tally_region_set_free(s);
}

/* The vendor table's metrics asked for through tally_region_opts.metrics (the intel-server fixture, Ice Lake
 * server's table; no counter here counts its events): their events are the set's, grouped and named as the
 * table names them, after the catalogue's; each row reads the metric not available with the reason, in
 * every format; an item neither the table nor the catalogue names leaves the set not counting, and says so. */
static void vendor_metrics_per_region(void)
{
	const char *fixtures = getenv("TALLY_FIXTURES");
	if (!fixtures)
		SKIP("TALLY_FIXTURES not set");
	char root[4096];
	snprintf(root, sizeof(root), "%s/sysfs/intel-server", fixtures);
	setenv("TALLY_CPUID", "GenuineIntel-6-6A-0", 1);
	tally_region_set *s = NULL;
	TALLY_OPTS(tally_region_opts, opts, .sysfs_root = root, .metrics = "TMA_INFO_THREAD_IPC,CPUs_utilized");
	CHECK_INT(tally_region_set_new("page-faults", &opts, &s), 0);
	CHECK_STR(tally_region_set_error(s), "");
	CHECK_INT(tally_region_set_events(s), 4); /* page-faults, the table's group, the catalogue's task-clock */
	CHECK_STR(tally_region_set_event_name(s, 1), "INST_RETIRED.ANY");
	CHECK_STR(tally_region_set_event_name(s, 2), "CPU_CLK_UNHALTED.THREAD");
	CHECK_STR(tally_region_set_event_name(s, 3), "task-clock");
	touch_once(s, "touch");
	char *text = written(s, TALLY_REGION_TABLE);
	CHECK_CONTAINS(text, "  CPUs_utilized  ");
	CHECK_CONTAINS(text, "  tma_info_thread_ipc  <not available>  # : INST_RETIRED.ANY: not supported on this machine\n");
	CHECK(strstr(text, "CPUs_utilized") < strstr(text, "tma_info_thread_ipc"));
	free(text);
	text = written(s, TALLY_REGION_CSV);
	CHECK_CONTAINS(text, ",tma_info_thread_ipc,,,,,,,,,,,,,<not available>,,\n");
	free(text);
	text = written(s, TALLY_REGION_JSON);
	CHECK_CONTAINS(text, ",{\"name\":\"tma_info_thread_ipc\",\"value\":null,\"unit\":\"\",\"available\":false,"
	                     "\"reason\":\"INST_RETIRED.ANY: not supported on this machine\"}]");
	free(text);
	tally_region_set_free(s);
	TALLY_OPTS(tally_region_opts, bad, .sysfs_root = root, .metrics = "tma_retiring,nonesuch");
	CHECK_INT(tally_region_set_new("page-faults", &bad, &s), 0);
	CHECK_CONTAINS(tally_region_set_error(s), "unknown metric or metric group 'nonesuch'");
	CHECK_INT(tally_region_begin_id(s, tally_region_id(s, "r")), 0);
	CHECK_INT(tally_region_end_id(s, tally_region_id(s, "r")), 0);
	tally_region_set_free(s);
	unsetenv("TALLY_CPUID");
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *text = calloc(1, 1 << 16);
	/* A read error is a missing file to the callers; fread's result is checked, as Debian's
	 * -D_FORTIFY_SOURCE=2 makes ignoring it an error (warn_unused_result). */
	if (text && fread(text, 1, (1 << 16) - 1, f) == 0 && ferror(f)) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

/* A handle-form set used before a fork: the child's calls count the child's own thread (a state of its
 * own, made at its first call), not the parent's thread whose counter the child's copy of the set holds.
 * The child reports through its exit status: 0 when its thread's 3 fresh pages were counted in one call
 * of a state with its own thread id, and the parent's thread kept its one call. */
static void a_forked_child_counts_its_own_thread(void)
{
	tally_region_set *s = page_fault_set();
	int id = tally_region_id(s, "work");
	char *warm = fresh_pages(1);
	tally_region_begin_id(s, id);
	touch(warm, 1);
	tally_region_end_id(s, id);
	fflush(NULL);
	pid_t child = fork();
	if (child == 0) {
		char *p = fresh_pages(3);
		tally_region_begin_id(s, id);
		touch(p, 3);
		tally_region_end_id(s, id);
		int status = 1;
		for (size_t k = 0; k < tally_region_set_threads(s); k++) {
			struct tally_region_info info;
			struct tally_region_event e = read_region(s, id, k, &info);
			/* 3 or more: the child's first writes to pages it shares with its parent fault too. */
			if (info.tid == getpid() && info.calls == 1 && e.min >= 3)
				status = 0;
			if (info.tid != getpid() && info.calls != 1) /* the parent's thread: its call alone */
				_exit(2);
		}
		_exit(status);
	}
	int status = -1;
	waitpid(child, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* The parent's own results are its own: one call, the child's not among them. */
	struct tally_region_info all;
	read_region(s, id, TALLY_REGION_ALL_THREADS, &all);
	CHECK_INT(all.calls, 1);
	munmap(warm, (size_t)page_size());
	tally_region_set_free(s);
}

/* The zero-configuration layer: configured by the environment; a forked child starts with no region open
 * and writes its own output (%p). */
static void zero_configuration_and_fork(void)
{
	char dir[] = "/tmp/tally-region-XXXXXX", pattern[128], path[160];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(pattern, sizeof(pattern), "%s/out.%%p.csv", dir);
	setenv("TALLY_OUTPUT", pattern, 1);
	setenv("TALLY_EVENTS", "page-faults", 1);
	CHECK_INT(tally_regions_write(), -TALLY_ESTATE);
	tally_region_begin("parent");
	fflush(NULL); /* the child's exit flushes its copy of the buffers */
	pid_t child = fork();
	if (child == 0) {
		char *p = fresh_pages(3);
		tally_region_begin("child");
		touch(p, 3);
		tally_region_end("child");
		tally_region_end("parent"); /* not open in the child */
		exit(0);                    /* the child's atexit writes its output */
	}
	int status = -1;
	waitpid(child, &status, 0);
	CHECK_INT(status, 0);
	tally_region_end("parent");
	CHECK_INT(tally_regions_write(), 0);
	snprintf(path, sizeof(path), "%s/out.%d.csv", dir, (int)child);
	char *text = slurp(path);
	CHECK_CONTAINS(text, "child,all,1,");
	if (!TOOL_FAULTS())
		CHECK_CONTAINS(text, ",page-faults,3,3.000,0.000,3,3,1,counted,");
	CHECK_CONTAINS(text, "parent,all,0,0,page-faults,0,0.000,0.000,0,0,0,not-counted,0.0000,0,0,0,1");
	free(text);
	unlink(path);
	snprintf(path, sizeof(path), "%s/out.%d.csv", dir, (int)getpid());
	text = slurp(path);
	CHECK_CONTAINS(text, "region,thread,calls,wall_ns,event,sum,mean,stddev,min,max,counted,status,");
	CHECK_CONTAINS(text, "parent,all,1,");
	CHECK(text && !strstr(text, "child"));
	free(text);
	unlink(path);
	rmdir(dir);
	setenv("TALLY_OUTPUT", "/dev/null", 1); /* the exit writes there */
}

/* Without TALLY_OUTPUT the table goes to stderr at exit: a stderr whose reader is gone (`prog 2>&1 | head
 * -1`) must not kill the program with SIGPIPE there, which changed its exit status (141 for 3). */
static void a_stderr_nobody_reads_leaves_the_exit_status(void)
{
	fflush(NULL);
	pid_t child = fork();
	if (child == 0) {
		int p[2];
		if (pipe(p) != 0 || dup2(p[1], 2) < 0)
			_exit(90);
		close(p[0]);
		close(p[1]);
		unsetenv("TALLY_OUTPUT");
		tally_region_begin("r");
		tally_region_end("r");
		exit(3);
	}
	int status = 0;
	CHECK_INT(waitpid(child, &status, 0), child);
	CHECK(WIFEXITED(status));
	if (WIFSIGNALED(status))
		fprintf(stderr, "killed by signal %d\n", WTERMSIG(status));
	CHECK_INT(WEXITSTATUS(status), 3);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "counts_fresh_pages_per_call", counts_fresh_pages_per_call },
		{ "threads_sum_right", threads_sum_right },
		{ "nesting_is_inclusive", nesting_is_inclusive },
		{ "names_past_the_room_are_reported", names_past_the_room_are_reported },
		{ "unbalanced_calls_are_reported", unbalanced_calls_are_reported },
		{ "low_counts_are_flagged_and_subtraction_is_asked_for",
		  low_counts_are_flagged_and_subtraction_is_asked_for },
		{ "calibration_takes_the_cheapest_call", calibration_takes_the_cheapest_call },
		{ "a_set_that_cannot_count_says_why", a_set_that_cannot_count_says_why },
		{ "a_thread_that_cannot_count_says_why", a_thread_that_cannot_count_says_why },
		{ "writers_name_every_field", writers_name_every_field },
		{ "writers_carry_each_events_metric", writers_carry_each_events_metric },
		{ "json_names_are_valid_utf8", json_names_are_valid_utf8 },
		{ "asked_for_metrics_per_region", asked_for_metrics_per_region },
		{ "vendor_metrics_per_region", vendor_metrics_per_region },
		{ "a_forked_child_counts_its_own_thread", a_forked_child_counts_its_own_thread },
		{ "zero_configuration_and_fork", zero_configuration_and_fork },
		{ "writing_many_threads_takes_one_walk", writing_many_threads_takes_one_walk },
		{ "a_begin_not_read_is_a_call_not_counted", a_begin_not_read_is_a_call_not_counted },
		{ "a_stderr_nobody_reads_leaves_the_exit_status", a_stderr_nobody_reads_leaves_the_exit_status },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
