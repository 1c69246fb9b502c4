/* SPDX-License-Identifier: MIT */
/*
 * Allocation failure injection, SQLite style: this header defines malloc, calloc, realloc and free for the
 * one test executable that includes it (libtally is linked statically, and glibc's own strdup, asprintf,
 * opendir... call malloc through its public symbol, so they are caught too), forwarding to glibc's
 * allocator. Armed, the kth allocation from now returns NULL with errno ENOMEM, once. While tracking,
 * every block allocated is remembered until freed, so that a run can prove it freed all it allocated.
 *
 *   alloc_fault_begin(k);   counts from zero, tracking on, the kth allocation fails (0: none does)
 *   ... run a sequence ...
 *   alloc_fault_end();      tracking off (blocks allocated before still leave the set when freed)
 *   alloc_fault_fired(), alloc_fault_calls(), alloc_fault_live()
 *
 * Neither ASan nor valgrind lets a program replace malloc (both replace it themselves): there
 * alloc_fault_unavailable() gives the reason and the test skips. Single-threaded by design, as fault.h.
 */
#ifndef TALLY_TEST_ALLOC_FAULT_H
#define TALLY_TEST_ALLOC_FAULT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ALLOC_FAULT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ALLOC_FAULT_ASAN 1
#endif

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define ALLOC_FAULT_UNDER_VALGRIND() RUNNING_ON_VALGRIND
#else
/* tests/run_valgrind.sh says so in the environment when the header is not installed. */
#define ALLOC_FAULT_UNDER_VALGRIND() (getenv("TALLY_UNDER_VALGRIND") != NULL)
#endif

/* Why allocations cannot be intercepted in this process, or NULL when they can. */
static inline const char *alloc_fault_unavailable(void)
{
#ifdef ALLOC_FAULT_ASAN
	return "built with AddressSanitizer, which owns malloc (the plain build runs this test)";
#else
	if (ALLOC_FAULT_UNDER_VALGRIND())
		return "running under valgrind, which replaces malloc (the plain build runs this test)";
	return NULL;
#endif
}

#ifndef ALLOC_FAULT_ASAN

/* glibc's allocator under its internal names (exported since 2.2.5 for exactly this use). */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);

/* Open addressing over pointers; TOMBSTONE marks a freed slot so that probe chains stay intact. */
#define ALLOC_LIVE_SLOTS (1u << 16)
#define ALLOC_TOMBSTONE ((void *)1)

static struct {
	unsigned long calls;   /* allocations since alloc_fault_begin */
	unsigned long fail_at; /* 1-based; 0: nothing armed */
	bool fired;
	bool tracking;
	long live;             /* blocks in the set */
	bool overflow;         /* the set was full: a leak count cannot be trusted */
	void *slot[ALLOC_LIVE_SLOTS];
} alloc_fault;

static inline size_t alloc_fault_hash(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x & (ALLOC_LIVE_SLOTS - 1);
}

static inline void alloc_fault_remember(void *p)
{
	if (!p || !alloc_fault.tracking)
		return;
	size_t h = alloc_fault_hash(p);
	for (size_t n = 0; n < ALLOC_LIVE_SLOTS; n++, h = (h + 1) & (ALLOC_LIVE_SLOTS - 1)) {
		if (alloc_fault.slot[h] == NULL || alloc_fault.slot[h] == ALLOC_TOMBSTONE) {
			alloc_fault.slot[h] = p;
			alloc_fault.live++;
			return;
		}
	}
	alloc_fault.overflow = true;
}

static inline void alloc_fault_forget(void *p)
{
	if (!p || !alloc_fault.live)
		return;
	size_t h = alloc_fault_hash(p);
	for (size_t n = 0; n < ALLOC_LIVE_SLOTS && alloc_fault.slot[h]; n++, h = (h + 1) & (ALLOC_LIVE_SLOTS - 1)) {
		if (alloc_fault.slot[h] == p) {
			alloc_fault.slot[h] = ALLOC_TOMBSTONE;
			alloc_fault.live--;
			return;
		}
	}
}

/* Counts the allocation; true when it is the armed one (errno is then ENOMEM). */
static inline bool alloc_fault_hit(void)
{
	if (!alloc_fault.tracking)
		return false;
	alloc_fault.calls++;
	if (alloc_fault.fired || alloc_fault.calls != alloc_fault.fail_at)
		return false;
	alloc_fault.fired = true;
	errno = ENOMEM;
	return true;
}

void *malloc(size_t size)
{
	if (alloc_fault_hit())
		return NULL;
	void *p = __libc_malloc(size);
	alloc_fault_remember(p);
	return p;
}

void *calloc(size_t n, size_t size)
{
	if (alloc_fault_hit())
		return NULL;
	void *p = __libc_calloc(n, size);
	alloc_fault_remember(p);
	return p;
}

void *realloc(void *old, size_t size)
{
	if (alloc_fault_hit())
		return NULL; /* the old block stays valid, as with a real failure */
	void *p = __libc_realloc(old, size);
	if (p || size == 0) {
		alloc_fault_forget(old);
		alloc_fault_remember(p);
	}
	return p;
}

void free(void *p)
{
	alloc_fault_forget(p);
	__libc_free(p);
}

static inline void alloc_fault_begin(unsigned long fail_at)
{
	memset(alloc_fault.slot, 0, sizeof(alloc_fault.slot));
	alloc_fault.live = 0;
	alloc_fault.overflow = false;
	alloc_fault.calls = 0;
	alloc_fault.fail_at = fail_at;
	alloc_fault.fired = false;
	alloc_fault.tracking = true;
}

static inline void alloc_fault_end(void)
{
	alloc_fault.tracking = false;
	alloc_fault.fail_at = 0;
}

static inline bool alloc_fault_fired(void)
{
	return alloc_fault.fired;
}

static inline unsigned long alloc_fault_calls(void)
{
	return alloc_fault.calls;
}

/* Blocks allocated while tracking and not freed since; -1 when the set overflowed. */
static inline long alloc_fault_live(void)
{
	return alloc_fault.overflow ? -1 : alloc_fault.live;
}

#else
/* Never called (the test skips first); they keep the test's code free of #ifdefs. */
static inline void alloc_fault_begin(unsigned long fail_at) { (void)fail_at; }
static inline void alloc_fault_end(void) {}
static inline bool alloc_fault_fired(void) { return false; }
static inline unsigned long alloc_fault_calls(void) { return 0; }
static inline long alloc_fault_live(void) { return 0; }
#endif /* !ALLOC_FAULT_ASAN */

#endif
