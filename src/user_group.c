/* SPDX-License-Identifier: MIT */
/* Mapping a group's perf_event_mmap_pages and checking that the kernel lets user space read them. */
#include "user_group.h"

#include "error.h"
#include "sys.h"
#include "sysfs_file.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

_Thread_local uint64_t tly_thread_token __attribute__((tls_model("initial-exec")));
static uint64_t tokens_given;

static void forked_child(void)
{
	tly_thread_token = 0;
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

enum tally_read_reason tly_user_group_new(tally_evsel *leader, const char *sysfs_root,
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
	u->page_size = (size_t)sysconf(_SC_PAGESIZE);
	if (!tly_thread_token)
		tly_thread_token = __atomic_add_fetch(&tokens_given, 1, __ATOMIC_RELAXED);
	u->owner = tly_thread_token;
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
	if (reason != TALLY_READ_REASON_NONE)
		tly_user_group_free(u);
	else
		*out = u;
	return reason;
}

void tly_user_group_free(struct tly_user_group *u)
{
	if (!u)
		return;
	for (size_t k = 0; k < u->n; k++)
		tly_sys->munmap((void *)u->pages[k], u->page_size);
	free(u->pages);
	free(u);
}
