/* SPDX-License-Identifier: MIT */
/* Mapping a group's perf_event_mmap_pages and checking that the kernel lets user space read them; the
 * bases and periodic reset of an Intel topdown group read from user space. */
#include "userread/user_group.h"

#include "core/error.h"
#include "core/sys.h"
#include "core/sysfs_file.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

_Thread_local uint64_t tly_thread_token __attribute__((tls_model("initial-exec")));
static uint64_t tokens_given;

/* Every group with pages mapped, for tly_user_page_elsewhere: pushed at the head under the lock (the
 * head's store released, so that a walk sees each group whole), taken out under it; mapped_by is the
 * process that mapped the first (0: none yet). */
static pthread_mutex_t mapped_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tly_user_group *mapped;
static pid_t mapped_by;

static void forked_child(void)
{
	tly_thread_token = 0;
	/* Another thread of the parent may have held it at the fork. */
	pthread_mutex_init(&mapped_lock, NULL);
	/* A forked child reads none of its parent's pages (its token is new): no walk of the list for them,
	 * which its own threads may change. */
	mapped_by = 0;
}

static void mapped_add(struct tly_user_group *u)
{
	pthread_mutex_lock(&mapped_lock);
	if (!mapped_by)
		mapped_by = u->pid;
	u->next_mapped = mapped;
	u->pprev_mapped = &mapped;
	if (mapped)
		mapped->pprev_mapped = &u->next_mapped;
	__atomic_store_n(&mapped, u, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&mapped_lock);
}

/* False where the lock cannot be had (a raw clone's child of a parent whose other thread held it): the
 * group then stays listed, and allocated. */
static bool mapped_remove(struct tly_user_group *u)
{
	if (u->pid == getpid())
		pthread_mutex_lock(&mapped_lock);
	else if (pthread_mutex_trylock(&mapped_lock) != 0)
		return false;
	*u->pprev_mapped = u->next_mapped;
	if (u->next_mapped)
		u->next_mapped->pprev_mapped = u->pprev_mapped;
	pthread_mutex_unlock(&mapped_lock);
	return true;
}

bool tly_user_page_elsewhere(const void *addr, void **page, size_t *size)
{
	pid_t self = getpid();
	if (!mapped_by || mapped_by == self)
		return false;
	for (const struct tly_user_group *u = __atomic_load_n(&mapped, __ATOMIC_ACQUIRE); u; u = u->next_mapped) {
		for (size_t k = 0; k < u->n && u->pid != self; k++) {
			const char *p = (const char *)u->pages[k];
			if ((const char *)addr >= p && (const char *)addr < p + u->page_size) {
				*page = (void *)p;
				*size = u->page_size;
				return true;
			}
		}
	}
	return false;
}

static void watch_forks(void)
{
	pthread_atfork(NULL, NULL, forked_child);
}

enum tally_read_reason tly_user_reason_of(enum tly_user_outcome outcome)
{
	switch (outcome) {
	case TLY_USER_OK:
		return TALLY_READ_REASON_NONE;
	case TLY_USER_NOT_ON_COUNTER:
		return TALLY_READ_REASON_NOT_ON_COUNTER;
	case TLY_USER_NO_RDPMC:
		return TALLY_READ_REASON_CAP_USER_RDPMC;
	case TLY_USER_NO_TIME:
		return TALLY_READ_REASON_NO_USER_TIME;
	case TLY_USER_BUSY:
		return TALLY_READ_REASON_BUSY;
	}
	return TALLY_READ_REASON_BUSY;
}

/* x86's rdpmc setting (core PMU "cpu", or "cpu_core" on hybrids) is "0": why cap_user_rdpmc is 0. */
static bool rdpmc_off(const char *sysfs_root)
{
	static const char *const files[] = { "bus/event_source/devices/cpu/rdpmc",
		                             "bus/event_source/devices/cpu_core/rdpmc" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[4096], text[16];
		if (tly_path_join(path, sizeof(path), sysfs_root, files[i]) == 0 &&
		    tly_sysfs_read(path, text, sizeof(text), TLY_SYSFS_WHOLE) > 0)
			return text[0] == '0' && text[1] == '\0';
	}
	return false;
}

/* Why user space may not read the mapped group: the capabilities of its pages. */
static enum tally_read_reason check_pages(const struct tly_user_group *u, const char *sysfs_root)
{
	for (size_t k = 0; k < u->n; k++)
		if (!(u->pages[k]->capabilities & TLY_CAP_USER_RDPMC))
			return rdpmc_off(sysfs_root) ? TALLY_READ_REASON_RDPMC_SYSFS : TALLY_READ_REASON_CAP_USER_RDPMC;
	if (!(u->pages[0]->capabilities & TLY_CAP_USER_TIME))
		return TALLY_READ_REASON_NO_USER_TIME;
	return TALLY_READ_REASON_NONE;
}

/* How each member of a topdown group is read (mmap_page.h): slots and the metric events raw, the others
 * by the protocol. Returns false when out of memory. */
static bool topdown_layout(struct tly_user_group *u, tally_evsel *leader, size_t n)
{
	u->td = calloc(n, sizeof(*u->td));
	u->td_base = calloc(n, sizeof(*u->td_base));
	u->td_high = calloc(n, sizeof(*u->td_high));
	u->td_last = calloc(n, sizeof(*u->td_last));
	if (!u->td || !u->td_base || !u->td_high || !u->td_last)
		return false;
	u->fd = leader->grid.fd[0];
	for (size_t k = 0; k < n; k++) {
		tally_evsel *e = k == 0 ? leader : leader->members[k - 1];
		enum tly_topdown_metric metric;
		enum tly_topdown_kind kind = tly_topdown_kind(&e->attr, &metric);
		u->td[k] = kind == TLY_TOPDOWN_METRIC ? (int8_t)metric
		           : kind == TLY_TOPDOWN_SLOTS && k == 0 ? TLY_READ_SLOTS
		                                                 : TLY_READ_PLAIN;
	}
	return true;
}

enum tally_read_reason tly_user_group_new(tally_evsel *leader, const char *sysfs_root, bool topdown,
                                          struct tly_user_group **out)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, watch_forks);
	*out = NULL;
	struct tly_user_group *u = calloc(1, sizeof(*u));
	size_t n = 1 + leader->nr_members;
	if (u)
		u->pages = calloc(n, sizeof(*u->pages));
	if (!u || !u->pages) {
		free(u);
		return TALLY_READ_REASON_MMAP;
	}
	if (topdown && !topdown_layout(u, leader, n)) {
		tly_user_group_free(u);
		return TALLY_READ_REASON_MMAP;
	}
	u->page_size = (size_t)sysconf(_SC_PAGESIZE);
	if (!tly_thread_token)
		tly_thread_token = __atomic_add_fetch(&tokens_given, 1, __ATOMIC_RELAXED);
	u->owner = tly_thread_token;
	u->reader = u->owner;
	u->pid = getpid();
	enum tally_read_reason reason = TALLY_READ_REASON_NONE;
	/* One page each: the header page alone, no ring buffer (nothing is sampled). */
	for (; u->n < n; u->n++) {
		tally_evsel *e = u->n == 0 ? leader : leader->members[u->n - 1];
		void *p = tly_sys->mmap(NULL, u->page_size, PROT_READ, MAP_SHARED, e->grid.fd[0], 0);
		if (p == MAP_FAILED) {
			tly_log(TALLY_LOG_DEBUG, "event %s: mmap of its page failed (%s): reads use read(2)", e->name,
			        tally_strerror(-errno));
			reason = TALLY_READ_REASON_MMAP;
			break;
		}
		u->pages[u->n] = p;
	}
	if (reason == TALLY_READ_REASON_NONE)
		reason = check_pages(u, sysfs_root);
	if (reason != TALLY_READ_REASON_NONE) {
		tly_user_group_free(u);
	} else {
		tly_user_fault_watch();
		mapped_add(u);
		*out = u;
	}
	return reason;
}

void tly_user_group_free(struct tly_user_group *u)
{
	if (!u || (u->pprev_mapped && !mapped_remove(u)))
		return;
	/* In another process (a child) the pages were never there: their addresses may be other memory. */
	for (size_t k = 0; k < u->n && u->pid == getpid(); k++)
		tly_sys->munmap((void *)u->pages[k], u->page_size);
	free(u->pages);
	free(u->td);
	free(u->td_base);
	free(u->td_high);
	free(u->td_last);
	free(u);
}

/* Resets the group (its slots and PERF_METRICS registers, and the kernel's counts) and makes values,
 * the counts so far, the new bases. The reset zeroes the registers only where the group is on them
 * (_perf_event_reset reads the event first, and intel_update_topdown_event zeroes what it read;
 * kernel/events/core.c and arch/x86/events/intel/core.c, 6.12), then updates each member's page
 * (perf_event_update_userpage: one update, the lock up by 2, index 0 off the counters): a leader's page
 * that says otherwise (off its counters, or updated again since: scheduled in or out before this
 * looked) leaves the registers' values at the next user-space read as the new zero. The pages are
 * updated on this thread, in the ioctl: the reads need no seqlock pass. */
static int topdown_reset(struct tly_user_group *u, const uint64_t *values, size_t stride, uint64_t running)
{
	uint32_t lock = u->pages[0]->lock;
	if (tly_sys->ioctl(u->fd, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) < 0)
		return -errno;
	u->td_rebase = u->pages[0]->index == 0 || u->pages[0]->lock - lock != 2;
	for (size_t k = 0; k < u->n; k++) {
		u->td_base[k] = values[k * stride];
		u->td_high[k] = u->td_last[k] = 0;
	}
	u->td_reset_running = running;
	return 0;
}

void tly_user_group_topdown_fold(struct tly_user_group *u, uint64_t *values, size_t stride, uint64_t running)
{
	for (size_t k = 0; k < u->n; k++) {
		uint64_t v = values[k * stride];
		/* The members read by the protocol are the kernel's counts, which the reset zeroed. */
		if (u->td_rebase && u->td[k] != TLY_READ_PLAIN)
			u->td_last[k] = v;
		v = v > u->td_last[k] ? v - u->td_last[k] : 0;
		if (v < u->td_high[k])
			v = u->td_high[k];
		u->td_high[k] = v;
		values[k * stride] = u->td_base[k] + v;
	}
	u->td_rebase = false;
	/* A failed reset is tried again at the next read: the registers only count on meanwhile. */
	if (running - u->td_reset_running >= TLY_TOPDOWN_RESET_NS)
		(void)topdown_reset(u, values, stride, running);
}

enum tly_user_outcome tly_user_group_read_topdown(struct tly_user_group *u, uint64_t *values, size_t stride,
                                                  uint64_t *enabled, uint64_t *running, uint64_t *now)
{
	enum tly_user_outcome r = tly_mmap_read_topdown((struct tly_mmap_pass){
		.pages = (tly_page *const *)u->pages, .n = u->n, .td = u->td, .read_pmc = tly_arch_read_pmc,
		.read_clock = tly_arch_read_clock, .values = values, .stride = stride, .times = true,
		.tries = TLY_USER_TRIES, .enabled = enabled, .running = running, .now = now });
	if (r == TLY_USER_OK)
		tly_user_group_topdown_fold(u, values, stride, *running);
	return r;
}

enum tally_read_reason tly_user_reason_away(const struct tly_user_group *u)
{
	if (tly_thread_token != u->owner)
		return TALLY_READ_REASON_OTHER_THREAD;
	return u->revoked != TALLY_READ_REASON_NONE ? u->revoked : TALLY_READ_REASON_NOT_ON_COUNTER;
}

static void set_reader(struct tly_user_group *u)
{
	u->reader = u->stopped || u->revoked != TALLY_READ_REASON_NONE ? TLY_USER_NO_READER : u->owner;
}

void tly_user_group_stop(struct tly_user_group *u, bool stopped)
{
	u->stopped = stopped;
	set_reader(u);
}

void tly_user_group_revoke(struct tly_user_group *u, enum tally_read_reason reason)
{
	u->revoked = reason;
	set_reader(u);
}

void tly_user_group_faulted(struct tly_user_group *u)
{
	if (u->faulted && u->user_reads == u->fault_reads) {
		bool arm64 = false;
#if defined(__aarch64__)
		arm64 = true;
#endif
		tly_log(TALLY_LOG_DEBUG, "user-space counter reads fault: read(2) from now on");
		tly_user_group_revoke(u, arm64 ? TALLY_READ_REASON_USER_ACCESS : TALLY_READ_REASON_RDPMC_SYSFS);
		/* Every reader of the pages, a region's pass too (which compares no token), now finds a page
		 * without cap_user_rdpmc and asks read(2) without a fault: each becomes a zero page, which
		 * tly_user_group_free unmaps as it would the kernel's. */
		for (size_t k = 0; k < u->n; k++)
			tly_sys->mmap((void *)u->pages[k], u->page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			              -1, 0);
	}
	u->faulted = true;
	u->faults_seen = tly_user_faults;
	u->fault_reads = u->user_reads;
}

bool tly_user_group_read_outline(struct tly_user_group *u, uint64_t *values, size_t stride, uint64_t *enabled,
                                 uint64_t *running, uint64_t *now)
{
	if (tly_thread_token != u->reader)
		return false;
	if (__builtin_expect(u->td != NULL, 0)) {
		if (tly_user_group_read_topdown(u, values, stride, enabled, running, now) != TLY_USER_OK)
			return false;
		u->user_reads++;
		return true;
	}
	return tly_user_group_read_plain(u, u->n, values, stride, true, TLY_USER_TRIES, enabled, running, now);
}

int tly_user_group_topdown_syscall(struct tly_user_group *u, struct tally_count *counts)
{
	size_t stride = sizeof(*counts) / sizeof(counts->value);
	/* The kernel's counts since the reset, or the user-space reads' where those gave more: no count goes
	 * down. */
	for (size_t k = 0; k < u->n; k++)
		counts[k].value = u->td_base[k] + (counts[k].value > u->td_high[k] ? counts[k].value : u->td_high[k]);
	int err = topdown_reset(u, (uint64_t *)counts, stride, counts->running);
	if (err)
		tly_error(err, "resetting a topdown group after reading it with read(2): %s", tally_strerror(err));
	return err;
}

int tly_user_group_topdown_begin(struct tly_user_group *u, struct tally_count *counts)
{
	for (size_t k = 0; k < u->n; k++)
		counts[k].value = 0;
	return topdown_reset(u, (uint64_t *)counts, sizeof(*counts) / sizeof(counts->value), counts->running);
}
