/* SPDX-License-Identifier: MIT */
/*
 * tally_counter_reset as `tally stat -D` uses it, without timing. A launched command does phase 1 in a
 * child (dd faults in a 16 MiB buffer: >= 4096 page faults), tells the test through a FIFO and waits on
 * another FIFO until the test has reset the counter; then phase 2 (8 MiB: >= 2048). The reading after the
 * reset holds phase 2 only: the kernel adds an exited child's count to its parent event's child_count,
 * which PERF_EVENT_IOC_RESET leaves alone, so before the fix the reading held phase 1 too (3 runs in 4 on
 * 6.18). The same on the calling thread, reset twice, the second time after a read.
 */
#include "harness.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tally/counter.h>
#include <tally/snapshot.h>

#define PHASE1_FAULTS 4096
#define PHASE2_FAULTS 2048

static char dir[64], done_fifo[96], go_fifo[96];

static bool make_fifos(void)
{
	snprintf(dir, sizeof(dir), "/tmp/tally-reset-XXXXXX");
	if (!mkdtemp(dir))
		return false;
	snprintf(done_fifo, sizeof(done_fifo), "%s/done", dir);
	snprintf(go_fifo, sizeof(go_fifo), "%s/go", dir);
	return mkfifo(done_fifo, 0600) == 0 && mkfifo(go_fifo, 0600) == 0;
}

static void remove_fifos(void)
{
	unlink(done_fifo);
	unlink(go_fifo);
	rmdir(dir);
}

/* Reads the command's "phase 1 done" line: it blocks until the command wrote it. */
static bool wait_phase1(void)
{
	char line[16];
	FILE *f = fopen(done_fifo, "r");
	if (!f)
		return false;
	bool got = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	return got;
}

static bool release_phase2(void)
{
	FILE *f = fopen(go_fifo, "w");
	if (!f)
		return false;
	fputs("go\n", f);
	return fclose(f) == 0;
}

static void reset_between_phases(const char *p1, const char *p2)
{
	if (!make_fifos())
		SKIP("cannot make FIFOs under /tmp");
	char script[1024];
	snprintf(script, sizeof(script), "%s; echo done >'%s'; read go <'%s'; %s", p1, done_fifo, go_fifo, p2);
	char *const argv[] = { "sh", "-c", script, NULL };
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = argv);
	tally_counter *c;
	CHECK_INT(tally_counter_new("page-faults", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, &t), 0);
	CHECK_INT(tally_counter_start(c), 0);
	CHECK(wait_phase1());
	/* No read before the reset: `tally stat -D` resets a counter it has not read. */
	CHECK_INT(tally_counter_reset(c), 0);
	CHECK(release_phase2());
	struct tally_exit e;
	CHECK_INT(tally_counter_wait(c, &e, sizeof(e)), 0);
	CHECK_INT(e.code, 0);
	struct tally_result after;
	CHECK_INT(tally_counter_read(c, &after, 1, sizeof(after)), 1);
	printf("  %" PRIu64 " page faults counted after the reset\n", after.value);
	CHECK(after.value >= PHASE2_FAULTS);
	CHECK(after.value < PHASE1_FAULTS);
	/* A snapshot's values are relative to the window too: from a snapshot never taken (the window's
	 * start) to one taken now is what the read gave, not what the exited child added before the reset. */
	tally_snapshot *start, *now;
	CHECK_INT(tally_snapshot_new(c, &start), 0);
	CHECK_INT(tally_snapshot_new(c, &now), 0);
	CHECK_INT(tally_counter_snapshot(c, now), 0);
	struct tally_result d;
	CHECK_INT(tally_snapshot_delta(start, now, &d, 1, sizeof(d)), 1);
	CHECK_INT(d.value, after.value);
	tally_snapshot_free(start);
	tally_snapshot_free(now);
	tally_counter_free(c);
	remove_fifos();
}

/* dd's buffer is faulted in page by page unless transparent huge pages are [always]. */
static bool small_pages(void)
{
	char text[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (f) {
		if (!fgets(text, sizeof(text), f))
			text[0] = '\0';
		fclose(f);
	}
	return !strstr(text, "[always]");
}

static void reset_excludes_exited_children(void)
{
	if (!small_pages())
		SKIP("transparent huge pages are [always]: dd's buffer faults in 2 MiB pages");
	reset_between_phases("dd if=/dev/zero of=/dev/null bs=16M count=1 2>/dev/null",
	                     "dd if=/dev/zero of=/dev/null bs=8M count=1 2>/dev/null");
}

/* Touches n fresh anonymous pages: n page faults of this thread. */
static void fault_pages(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	if (p == MAP_FAILED)
		return;
	for (size_t i = 0; i < n; i++)
		((volatile char *)p)[i * page] = 1;
	munmap(p, n * page);
}

static void reset_on_this_thread(void)
{
	tally_counter *c;
	struct tally_result r;
	CHECK_INT(tally_counter_new("page-faults", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, NULL), 0);
	CHECK_INT(tally_counter_start(c), 0);
	fault_pages(PHASE1_FAULTS);
	CHECK_INT(tally_counter_reset(c), 0);
	fault_pages(PHASE2_FAULTS);
	CHECK_INT(tally_counter_read(c, &r, 1, sizeof(r)), 1);
	CHECK(r.value >= PHASE2_FAULTS && r.value < PHASE1_FAULTS);
	CHECK_INT(tally_counter_reset(c), 0);
	fault_pages(16);
	CHECK_INT(tally_counter_read(c, &r, 1, sizeof(r)), 1);
	CHECK(r.value >= 16 && r.value < PHASE2_FAULTS);
	tally_counter_free(c);
}

/* tally_counter_resume after a stop counts on in the same window: the stretches add up, what ran between
 * them is left out, and the enabled time stands still while stopped. A resume of a counter never
 * started starts it; of a running one, changes nothing. */
static void resume_adds_up_the_stretches(void)
{
	tally_counter *c;
	struct tally_result r[2];
	CHECK_INT(tally_counter_new("page-faults,task-clock", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, NULL), 0);
	CHECK_INT(tally_counter_resume(c), 0); /* never started: a start */
	fault_pages(PHASE2_FAULTS);
	CHECK_INT(tally_counter_stop(c), 0);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	uint64_t first = r[0].value, enabled = r[0].enabled;
	CHECK(first >= PHASE2_FAULTS && first < PHASE1_FAULTS);
	fault_pages(PHASE1_FAULTS); /* stopped: not counted */
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	CHECK_U64(r[0].value, first);
	CHECK_U64(r[0].enabled, enabled);
	CHECK_INT(tally_counter_resume(c), 0);
	CHECK_INT(tally_counter_resume(c), 0); /* running: nothing changes */
	fault_pages(PHASE2_FAULTS);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	CHECK(r[0].value >= first + PHASE2_FAULTS && r[0].value < first + PHASE1_FAULTS);
	CHECK(r[0].enabled > enabled);
	CHECK_INT(r[0].status, TALLY_STATUS_EXACT);
	tally_counter_free(c);
	tally_counter *never;
	CHECK_INT(tally_counter_new("page-faults", NULL, &never), 0);
	CHECK_INT(tally_counter_resume(never), -TALLY_ESTATE); /* not open */
	tally_counter_free(never);
	CHECK_INT(tally_counter_resume(NULL), -EINVAL);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "reset_excludes_exited_children", reset_excludes_exited_children },
		{ "reset_on_this_thread", reset_on_this_thread },
		{ "resume_adds_up_the_stretches", resume_adds_up_the_stretches },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
