/* SPDX-License-Identifier: MIT */
/*
 * Which path each event's reads take (tally_counter_read_info) and the counter's side of user-space
 * reads, without a hardware PMU: a system call table that opens task-clock where the counter asks for a
 * hardware event (so read(2) answers for real) and maps simulated perf_event_mmap_pages. Their index
 * stays 0 (a real counter read cannot run here), so every read falls back to read(2), and says why.
 */
#include "core/sys.h"
#include "counter/counter.h"
#include "fixture_tree.h"
#include "harness.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>

#include <pthread.h>
#include <signal.h>
#include <ucontext.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <tally.h>
#include <unistd.h>

static struct perf_event_mmap_page sim[8] __attribute__((aligned(4096)));
static unsigned maps, unmaps, next_page;
static bool fail_mmap, dontfork_pages;
static uint64_t last_config1;

static int fake_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	struct perf_event_attr a = *attr;
	last_config1 = a.config1;
	if (a.type != PERF_TYPE_SOFTWARE) {
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_TASK_CLOCK;
	}
	return tly_sys_real.perf_event_open(&a, pid, cpu, group_fd, flags);
}

static void *file_maps[16]; /* the files fake_mmap mapped for real, until unmapped */

static void *fake_mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
	/* A vendor table's file (the counter reads its PMUs' counts) is mapped for real: only the events'
	 * pages are simulated. */
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		void *p = mmap(addr, length, prot, flags, fd, offset);
		for (size_t i = 0; p != MAP_FAILED && i < sizeof(file_maps) / sizeof(file_maps[0]); i++)
			if (!file_maps[i] && (file_maps[i] = p))
				break;
		return p;
	}
	if (fail_mmap) {
		errno = EPERM;
		return MAP_FAILED;
	}
	if (flags & MAP_FIXED) { /* a page replaced by a zero page */
		if (dontfork_pages)
			return mmap(addr, length, prot, flags, fd, offset);
		memset(addr, 0, sizeof(sim[0]));
		return addr;
	}
	maps++;
	if (!dontfork_pages)
		return &sim[next_page++ % 8];
	/* As the kernel's pages are: not copied into a child (VM_DONTCOPY, which MADV_DONTFORK sets). */
	void *p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		memcpy(p, &sim[next_page++ % 8], sizeof(sim[0]));
		madvise(p, length, MADV_DONTFORK);
	}
	return p;
}

static int fake_munmap(void *addr, size_t length)
{
	for (size_t i = 0; i < sizeof(file_maps) / sizeof(file_maps[0]); i++) {
		if (file_maps[i] == addr) {
			file_maps[i] = NULL;
			return munmap(addr, length);
		}
	}
	unmaps++;
	return dontfork_pages ? munmap(addr, length) : 0;
}

static struct tly_sys table;

/* Pages that allow user reads (rdpmc and time) but show no counter (index 0). */
static void install(bool rdpmc, bool time)
{
	memset(sim, 0, sizeof(sim));
	for (size_t k = 0; k < 8; k++) {
		sim[k].cap_user_rdpmc = rdpmc;
		sim[k].cap_user_time = time;
		sim[k].pmc_width = 48;
	}
	maps = unmaps = next_page = 0;
	fail_mmap = dontfork_pages = false;
	table = tly_sys_real;
	table.perf_event_open = fake_open;
	table.mmap = fake_mmap;
	table.munmap = fake_munmap;
	tly_sys_replace(&table);
}

static const char *sysfs_root; /* NULL: /sys */

static tally_counter *open_counter(const char *spec, enum tally_target_kind kind, bool no_user_reads)
{
	tally_counter *c = NULL;
	TALLY_OPTS(tally_counter_opts, o, .no_user_reads = no_user_reads, .sysfs_root = sysfs_root);
	if (tally_counter_new(spec, &o, &c) != 0)
		return NULL;
	TALLY_OPTS(tally_target, t, .kind = kind);
	if (tally_counter_open(c, &t) != 0) {
		fprintf(stderr, "open %s: %s\n", spec, tally_last_error());
		tally_counter_free(c);
		return NULL;
	}
	return c;
}

static struct tally_read_info info_of(const tally_counter *c, size_t i)
{
	TALLY_OPTS(tally_read_info, info);
	CHECK_INT(tally_counter_read_info(c, i, &info), 0);
	return info;
}

/* Spends a little CPU time, for task-clock to count. */
static void work(void)
{
	static volatile unsigned x;
	for (unsigned i = 0; i < 200000; i++)
		x = x + i;
}

/* {cycles,instructions} on the calling thread, over fresh simulated pages that allow user reads (pages
 * of their own that a child does not get, with dontfork). */
static tally_counter *open_pair(bool dontfork)
{
	install(true, true);
	dontfork_pages = dontfork;
	tally_counter *c = open_counter("{cycles,instructions}", TALLY_TARGET_THREAD, false);
	CHECK(c != NULL);
	return c;
}

static void hardware_group_reads_through_its_pages(void)
{
	tally_counter *c = open_pair(false);
	if (!c)
		return;
	CHECK_INT(maps, 2);
	for (size_t i = 0; i < 2; i++) {
		struct tally_read_info info = info_of(c, i);
		CHECK_INT(info.path, TALLY_READ_USER);
		CHECK_INT(info.reason, TALLY_READ_REASON_NONE);
		CHECK_INT(info.user_reads + info.syscall_reads, 0);
	}
	CHECK_INT(tally_counter_start(c), 0);
	work();
	struct tally_result r[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	/* Read through read(2) (index 0), with read(2)'s results. */
	CHECK(r[0].value > 0 && r[0].status == TALLY_STATUS_EXACT && r[0].enabled > 0);
	struct tally_read_info info = info_of(c, 1);
	CHECK_INT(info.last_path, TALLY_READ_SYSCALL);
	CHECK_INT(info.last_reason, TALLY_READ_REASON_NOT_ON_COUNTER);
	CHECK_INT(info.syscall_reads, 1);
	CHECK_INT(info.user_reads, 0);
	/* The snapshot takes the same path. */
	tally_snapshot *s = NULL;
	CHECK_INT(tally_snapshot_new(c, &s), 0);
	CHECK_INT(tally_counter_snapshot(c, s), 0);
	CHECK_INT(info_of(c, 0).syscall_reads, 2);
	tally_snapshot_free(s);
	tally_counter_free(c);
	CHECK_INT(unmaps, 2);
	tly_sys_replace(NULL);
}

static tally_counter *shared;

static void *read_elsewhere(void *arg)
{
	(void)arg;
	struct tally_result r[1];
	CHECK_INT(tally_counter_read(shared, r, 1, sizeof(r[0])), 1);
	return NULL;
}

/* The thread rule: another thread (or a forked child) reads through read(2), which is right anywhere. */
static void other_thread_and_child_fall_back(void)
{
	install(true, true);
	shared = open_counter("cycles", TALLY_TARGET_THREAD, false);
	CHECK(shared != NULL);
	if (!shared)
		return;
	CHECK_INT(tally_counter_start(shared), 0);
	pthread_t t;
	CHECK_INT(pthread_create(&t, NULL, read_elsewhere, NULL), 0);
	pthread_join(t, NULL);
	CHECK_INT(info_of(shared, 0).last_reason, TALLY_READ_REASON_OTHER_THREAD);
	struct tally_result r[1];
	CHECK_INT(tally_counter_read(shared, r, 1, sizeof(r[0])), 1);
	CHECK_INT(info_of(shared, 0).last_reason, TALLY_READ_REASON_NOT_ON_COUNTER);
	pid_t pid = fork();
	if (pid == 0) {
		struct tally_read_info info = { .sz = sizeof(info) };
		int ok = tally_counter_read(shared, r, 1, sizeof(r[0])) == 1 &&
		         tally_counter_read_info(shared, 0, &info) == 0 &&
		         info.last_reason == TALLY_READ_REASON_OTHER_THREAD;
		/* The child has none of the pages (VM_DONTCOPY): it unmaps nothing, whatever lies there now. */
		unmaps = 0;
		tally_counter_free(shared);
		_exit(ok && unmaps == 0 ? 0 : 1);
	}
	int status = -1;
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	tally_counter_free(shared);
	tly_sys_replace(NULL);
}

/* Stopped, a counter reads through read(2) by rule, whatever its pages say: here they claim a counter
 * (index 1, as a page not updated since the event ran would), whose rdpmc would fault on this machine.
 * Every read path: the lean one, through larger results, the values, a snapshot. Started again, the
 * pages are read again (index 0 here: read(2), with that reason). */
static void stopped_reads_go_through_read2(void)
{
	tally_counter *c = open_pair(false);
	if (!c)
		return;
	CHECK_INT(tally_counter_start(c), 0);
	work();
	struct tally_result r[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	CHECK_INT(tally_counter_stop(c), 0);
	for (size_t k = 0; k < 2; k++)
		sim[k].index = 1;
	struct tally_result stopped[2];
	struct { struct tally_result r; uint64_t tail; } larger[2];
	uint64_t values[2];
	tally_snapshot *s = NULL;
	CHECK_INT(tally_snapshot_new(c, &s), 0);
	CHECK_INT(tally_counter_read(c, stopped, 2, sizeof(stopped[0])), 2);
	CHECK_INT(tally_counter_read(c, &larger[0].r, 2, sizeof(larger[0])), 2);
	CHECK_INT(tally_counter_read_values(c, values, 2), 2);
	CHECK_INT(tally_counter_snapshot(c, s), 0);
	struct tally_read_info info = info_of(c, 0);
	CHECK_INT(info.user_reads, 0);
	CHECK_INT(info.syscall_reads, 5);
	CHECK_INT(info.last_reason, TALLY_READ_REASON_NOT_ON_COUNTER);
	CHECK(stopped[0].value >= r[0].value && stopped[0].enabled > 0);
	CHECK_U64(larger[0].r.value, stopped[0].value);
	CHECK_U64(values[0], stopped[0].value);
	for (size_t k = 0; k < 2; k++)
		sim[k].index = 0;
	CHECK_INT(tally_counter_resume(c), 0);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	CHECK_INT(info_of(c, 0).syscall_reads, 6);
	tally_snapshot_free(s);
	tally_counter_free(c);
	tly_sys_replace(NULL);
}

/* Whether rdpmc of counter 0 raises SIGSEGV here, as it does where CR4.PCE is clear (no PMU, or the
 * rdpmc setting 0): a child without tally's handler tries. Not under valgrind, which has no rdpmc. */
static bool rdpmc_faults_here(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (getenv("TALLY_UNDER_VALGRIND"))
		return false;
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		uint32_t unreadable = 0;
		(void)tly_arch_read_pmc(1, &unreadable);
		_exit(0);
	}
	int status = 0;
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
#else
	return false;
#endif
}

static volatile sig_atomic_t own_handler_ran;

static void own_handler(int signo, siginfo_t *info, void *context)
{
	(void)info, (void)context;
	own_handler_ran = signo;
	_exit(42);
}

/* Runs in a child: fault (a write through NULL) or raise(SIGSEGV), with tally's handler installed (watch)
 * over the program's own (own) or over what was there (the default action, or a sanitizer's). */
static int child_fault(bool own, bool raised, bool watch)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (own) {
			struct sigaction sa = { .sa_sigaction = own_handler, .sa_flags = SA_SIGINFO };
			sigaction(SIGSEGV, &sa, NULL);
		}
		if (watch)
			tly_user_fault_watch();
		if (raised)
			raise(SIGSEGV);
		else
			*(volatile int *)(uintptr_t)own_handler_ran = 1; /* 0: NULL */
		_exit(0);
	}
	int status = 0;
	return waitpid(pid, &status, 0) == pid ? status : -1;
}

/* A program's own SIGSEGV handling is untouched by tally's handler: a handler installed before it is
 * called with the signal, and without one a fault or a raised SIGSEGV ends the child as it does without
 * tally's (killed by it; under a sanitizer, its report). The first case of this file: tally's handler is
 * installed once per process, so the children must be the first to install it. */
static void other_faults_keep_their_handling(void)
{
	/* valgrind reports the write through NULL as an error, and its exit status says so. */
	if (getenv("TALLY_UNDER_VALGRIND"))
		SKIP("a fault is an error under valgrind");
	int status = child_fault(true, false, true);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 42);
	status = child_fault(true, true, true);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 42);
	for (int raised = 0; raised < 2; raised++) {
		status = child_fault(false, raised, true);
		CHECK(WIFSIGNALED(status));
		CHECK_INT(status, child_fault(false, raised, false));
	}
}

/* A counter read the machine refuses after the page allowed it (here rdpmc faults for real, as it does
 * after `echo 0 > .../cpu/rdpmc`): the program lives, the read is read(2)'s; the second fault with no
 * user-space read between revokes the group (reason: the rdpmc setting), and later reads fault no
 * more. Before tally's handler, the first read killed the program. */
static void refused_rdpmc_falls_back_then_stops(void)
{
	if (!rdpmc_faults_here())
		SKIP("rdpmc does not fault here");
	tally_counter *c = open_pair(false);
	if (!c)
		return;
	CHECK_INT(tally_counter_start(c), 0);
	for (size_t k = 0; k < 2; k++)
		sim[k].index = 1 + (uint32_t)k;
	uint64_t faults = tly_user_faults;
	struct tally_result r[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	CHECK(tly_user_faults > faults);
	CHECK_INT(info_of(c, 0).last_path, TALLY_READ_SYSCALL);
	CHECK(r[0].value > 0 && r[0].status == TALLY_STATUS_EXACT);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	CHECK_INT(info_of(c, 0).last_reason, TALLY_READ_REASON_RDPMC_SYSFS);
	/* Each page a zero page now, so that no reader of it faults again (a region's pass compares no
	 * token). */
	CHECK_U64(sim[0].capabilities | sim[1].capabilities | sim[0].index | sim[1].index, 0);
	faults = tly_user_faults;
	uint64_t values[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	CHECK_INT(tally_counter_read_values(c, values, 2), 2);
	CHECK_U64(tly_user_faults, faults);
	CHECK_INT(info_of(c, 1).last_reason, TALLY_READ_REASON_RDPMC_SYSFS);
	CHECK_INT(info_of(c, 0).user_reads, 0);
	/* A start again does not bring the refused reads back. */
	CHECK_INT(tally_counter_start(c), 0);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	CHECK_U64(tly_user_faults, faults);
	tally_counter_free(c);
	tly_sys_replace(NULL);
}

/* A child made by a raw clone(2) (no atfork handler: the thread's token is still its parent's) has none
 * of the pages, which the kernel does not copy: its reads find a zero page where each was (put there by
 * tally's handler), read(2) answers, and it unmaps nothing. Before, the child died of SIGSEGV. */
static void raw_clone_child_reads_through_read2(void)
{
	/* valgrind keeps the pages in the child (it manages the address space itself). */
	if (getenv("TALLY_UNDER_VALGRIND"))
		SKIP("valgrind keeps MADV_DONTFORK pages in a child");
	tally_counter *c = open_pair(true);
	if (!c)
		return;
	CHECK_INT(tally_counter_start(c), 0);
	struct tally_result r[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	pid_t pid = (pid_t)syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid == 0) {
		struct tally_read_info info = { .sz = sizeof(info) };
		uint64_t values[2];
		work();
		int ok = tally_counter_read(c, r, 2, sizeof(r[0])) == 2 && r[0].value > 0 &&
		         tally_counter_read_values(c, values, 2) == 2 && tally_counter_read_info(c, 0, &info) == 0 &&
		         info.last_path == TALLY_READ_SYSCALL && info.last_reason == TALLY_READ_REASON_CAP_USER_RDPMC;
		unmaps = 0;
		tally_counter_free(c);
		_exit(ok && unmaps == 0 ? 0 : 1);
	}
	int status = -1;
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (!WIFEXITED(status))
		fprintf(stderr, "the child ended by signal %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	tally_counter_free(c);
	CHECK_INT(unmaps, 2);
	tly_sys_replace(NULL);
}

#if defined(__x86_64__)
extern const int32_t __start_tly_rdpmc_sites[] __attribute__((weak, visibility("hidden")));
extern const int32_t __stop_tly_rdpmc_sites[] __attribute__((weak, visibility("hidden")));
#endif

/* The handler's decision on constructed contexts: a SIGSEGV at each rdpmc site listed is stepped over
 * (2 bytes) with ECX all ones (the read's "unreadable"); one byte off a site, or another signal, is not
 * tally's. */
static void fault_fixup_on_constructed_contexts(void)
{
#if defined(__x86_64__)
	size_t sites = (size_t)(__stop_tly_rdpmc_sites - __start_tly_rdpmc_sites);
	CHECK(sites > 0);
	for (const int32_t *site = __start_tly_rdpmc_sites; site < __stop_tly_rdpmc_sites; site++) {
		const unsigned char *at = (const unsigned char *)site + *site;
		CHECK(at[0] == 0x0f && at[1] == 0x33); /* rdpmc */
		ucontext_t uc;
		memset(&uc, 0, sizeof(uc));
		uc.uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)at;
		uc.uc_mcontext.gregs[REG_RCX] = 5;
		CHECK(!tly_user_fault_fixup(SIGILL, &uc));
		CHECK(tly_user_fault_fixup(SIGSEGV, &uc));
		CHECK_U64((uint64_t)uc.uc_mcontext.gregs[REG_RIP], (uint64_t)(uintptr_t)(at + 2));
		CHECK((uint64_t)uc.uc_mcontext.gregs[REG_RCX] >> 31 & 1);
		uc.uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)(at + 1);
		CHECK(!tly_user_fault_fixup(SIGSEGV, &uc));
	}
	printf("%zu rdpmc sites\n", sites);
#else
	SKIP("x86-64 only (arm64's table: the rig)");
#endif
}

/* One fault (a thread moved between core types in the middle of a read, x86 hybrid) is survived and
 * forgotten after a user-space read; two in a row revoke. */
static void one_fault_is_forgiven(void)
{
	struct tly_user_group u = { .owner = 7, .reader = 7 };
	tly_user_faults++;
	tly_user_group_faulted(&u);
	CHECK_INT(u.revoked, TALLY_READ_REASON_NONE);
	u.user_reads++;
	tly_user_faults++;
	tly_user_group_faulted(&u);
	CHECK_INT(u.revoked, TALLY_READ_REASON_NONE);
	CHECK_U64(u.reader, 7);
	tly_user_faults++;
	tly_user_group_faulted(&u);
	CHECK(u.revoked != TALLY_READ_REASON_NONE);
	CHECK_U64(u.reader, TLY_USER_NO_READER);
	tly_user_group_stop(&u, false);
	CHECK_U64(u.reader, TLY_USER_NO_READER);
}

/* What the kernel's pages say decides at open: no user reads (with the reason), nothing left mapped. */
static void kernel_refusals_keep_read2(void)
{
	static const struct {
		bool rdpmc, time, fail;
		enum tally_read_reason reason;
	} cases[] = {
		{ false, true, false, TALLY_READ_REASON_CAP_USER_RDPMC },
		{ true, false, false, TALLY_READ_REASON_NO_USER_TIME },
		{ true, true, true, TALLY_READ_REASON_MMAP },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		install(cases[i].rdpmc, cases[i].time);
		fail_mmap = cases[i].fail;
		tally_counter *c = open_counter("{cycles,instructions}", TALLY_TARGET_THREAD, false);
		CHECK(c != NULL);
		if (!c)
			continue;
		CHECK_INT(maps, unmaps);
		for (size_t k = 0; k < 2; k++) {
			struct tally_read_info info = info_of(c, k);
			CHECK_INT(info.path, TALLY_READ_SYSCALL);
			CHECK_INT(info.reason, cases[i].reason);
		}
		tally_counter_free(c);
		tly_sys_replace(NULL);
	}
}

/* Reasons decided before anything maps: the option, the target, a software member. */
static void reasons_before_open(void)
{
	install(true, true);
	tally_counter *c = open_counter("{cycles,instructions}", TALLY_TARGET_THREAD, true);
	CHECK(c != NULL);
	if (c)
		CHECK_INT(info_of(c, 0).reason, TALLY_READ_REASON_FORCED);
	tally_counter_free(c);
	c = open_counter("cycles", TALLY_TARGET_PROCESS, false);
	CHECK(c != NULL);
	if (c)
		CHECK_INT(info_of(c, 0).reason, TALLY_READ_REASON_TARGET);
	tally_counter_free(c);
	c = open_counter("{cycles,task-clock}", TALLY_TARGET_THREAD, false);
	CHECK(c != NULL);
	if (c) {
		CHECK_INT(info_of(c, 0).reason, TALLY_READ_REASON_GROUP);
		CHECK_INT(info_of(c, 1).reason, TALLY_READ_REASON_NO_PMU);
		CHECK_INT(info_of(c, 1).path, TALLY_READ_SYSCALL);
	}
	tally_counter_free(c);
	CHECK_INT(maps, 0);
	tly_sys_replace(NULL);
}

/* Writes text into dir/rel, making the folders on the way. */
static void put_file(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* arm64 (the fixture's armv8_pmuv3, whose format has rdpmc = config1:1 and long = config1:0): the event
 * asks for user access only when sysctl kernel.perf_user_access is 1, and never as a long event. */
static void arm64_asks_for_user_access(void)
{
	char root[4096], procfs[] = "/tmp/tally-procfs-XXXXXX";
	CHECK(mkdtemp(procfs) != NULL);
	setenv("TALLY_PROCFS_ROOT", procfs, 1);
	sysfs_root = fixture_sysfs(root, sizeof(root), "arm64");
	put_file(procfs, "sys/kernel/perf_user_access", "1\n");
	install(true, true);
	tally_counter *c = open_counter("armv8_pmuv3/event=0x11/", TALLY_TARGET_THREAD, false);
	CHECK(c != NULL);
	CHECK_U64(last_config1, 2);
	if (c)
		CHECK_INT(info_of(c, 0).path, TALLY_READ_USER);
	tally_counter_free(c);
	c = open_counter("armv8_pmuv3/event=0x11,long/", TALLY_TARGET_THREAD, false);
	CHECK(c != NULL);
	CHECK_U64(last_config1, 1);
	tally_counter_free(c);
	put_file(procfs, "sys/kernel/perf_user_access", "0\n");
	maps = 0;
	c = open_counter("armv8_pmuv3/event=0x11/", TALLY_TARGET_THREAD, false);
	CHECK(c != NULL);
	CHECK_U64(last_config1, 0);
	CHECK_INT(maps, 0);
	if (c)
		CHECK_INT(info_of(c, 0).reason, TALLY_READ_REASON_USER_ACCESS);
	tally_counter_free(c);
	tly_sys_replace(NULL);
	unsetenv("TALLY_PROCFS_ROOT");
	sysfs_root = NULL;
	nftw(procfs, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* x86: when the kernel says no (cap_user_rdpmc 0), /sys/bus/event_source/devices/cpu/rdpmc 0 is named as
 * the reason; another value leaves the kernel's own answer. */
static void x86_rdpmc_setting_is_the_reason(void)
{
	char sysfs[] = "/tmp/tally-sysfs-XXXXXX";
	CHECK(mkdtemp(sysfs) != NULL);
	sysfs_root = sysfs;
	static const struct {
		const char *setting;
		enum tally_read_reason reason;
	} cases[] = { { "0\n", TALLY_READ_REASON_RDPMC_SYSFS }, { "1\n", TALLY_READ_REASON_CAP_USER_RDPMC } };
	for (size_t i = 0; i < 2; i++) {
		put_file(sysfs, "bus/event_source/devices/cpu/rdpmc", cases[i].setting);
		install(false, true);
		tally_counter *c = open_counter("cycles", TALLY_TARGET_THREAD, false);
		CHECK(c != NULL);
		if (c)
			CHECK_INT(info_of(c, 0).reason, cases[i].reason);
		tally_counter_free(c);
		tly_sys_replace(NULL);
	}
	sysfs_root = NULL;
	nftw(sysfs, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void read_info_arguments(void)
{
	tally_counter *c = NULL;
	CHECK_INT(tally_counter_new("task-clock", NULL, &c), 0);
	TALLY_OPTS(tally_read_info, info);
	CHECK_INT(tally_counter_read_info(c, 0, &info), -TALLY_ESTATE);
	CHECK_INT(tally_counter_read_info(c, 0, NULL), -EINVAL);
	CHECK_INT(tally_counter_open(c, NULL), 0);
	CHECK_INT(tally_counter_read_info(c, 1, &info), -EINVAL);
	CHECK_INT(tally_counter_read_info(c, 0, &info), 0);
	CHECK_INT(info.path, TALLY_READ_SYSCALL);
	CHECK_INT(info.reason, TALLY_READ_REASON_NO_PMU);
	tally_counter_free(c);
}

static void every_reason_has_a_text(void)
{
	for (int r = TALLY_READ_REASON_NONE; r <= TALLY_READ_REASON_BUSY; r++)
		CHECK(strcmp(tally_read_reason_str((enum tally_read_reason)r), "unknown reason") != 0);
	CHECK_CONTAINS(tally_read_reason_str(TALLY_READ_REASON_USER_ACCESS), "perf_user_access");
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "other_faults_keep_their_handling", other_faults_keep_their_handling },
		{ "hardware_group_reads_through_its_pages", hardware_group_reads_through_its_pages },
		{ "other_thread_and_child_fall_back", other_thread_and_child_fall_back },
		{ "stopped_reads_go_through_read2", stopped_reads_go_through_read2 },
		{ "refused_rdpmc_falls_back_then_stops", refused_rdpmc_falls_back_then_stops },
		{ "one_fault_is_forgiven", one_fault_is_forgiven },
		{ "fault_fixup_on_constructed_contexts", fault_fixup_on_constructed_contexts },
		{ "raw_clone_child_reads_through_read2", raw_clone_child_reads_through_read2 },
		{ "kernel_refusals_keep_read2", kernel_refusals_keep_read2 },
		{ "reasons_before_open", reasons_before_open },
		{ "arm64_asks_for_user_access", arm64_asks_for_user_access },
		{ "x86_rdpmc_setting_is_the_reason", x86_rdpmc_setting_is_the_reason },
		{ "read_info_arguments", read_info_arguments },
		{ "every_reason_has_a_text", every_reason_has_a_text },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
