/* SPDX-License-Identifier: MIT */
/*
 * A region set: region names registered to ids, one counter per thread made on the thread's first call,
 * begin/end on the hot path, the calibration of an empty region, and the results read back.
 */
#include "region/region.h"
#include "region/region_stats.h"

#include "core/error.h"
#include "core/opts.h"
#include "core/out_array.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Empty regions measured at set-up; their smallest per-call count is the overhead (the smallest is the one
 * undisturbed by interrupts and the first-touch faults of the warm-up). */
#define CALIBRATION_WARMUP 4
#define CALIBRATION_CALLS 64
#define DEFAULT_MAX_REGIONS 256

/* A counter of the set's events: its spec, the vendor metrics' events, the catalogue metrics' (added by the
 * counter). */
static int counter_make(const tally_region_set *s, tally_counter **out)
{
	TALLY_OPTS(tally_counter_opts, co, .sysfs_root = s->sysfs_root, .no_user_reads = s->no_user_reads,
	           .metrics = s->metrics);
	return tally_counter_new(s->counting ? s->counting : s->spec, &co, out);
}

/* Opens and starts a counter of the set's spec on the calling thread. */
static int counter_start(tally_region_set *s, tally_counter **out)
{
	tally_counter *c;
	int err = counter_make(s, &c);
	if (err == 0) {
		TALLY_OPTS(tally_target, target, .kind = TALLY_TARGET_THREAD);
		err = tally_counter_open(c, &target);
		if (err == 0)
			err = tally_counter_start(c);
		if (err != 0)
			tally_counter_free(c);
	}
	if (err == 0)
		*out = c;
	return err;
}

/* Whether spec opens on this thread with at least one event that counts. */
static bool spec_counts(const char *spec, const char *sysfs_root, bool no_user_reads)
{
	TALLY_OPTS(tally_counter_opts, co, .sysfs_root = sysfs_root, .no_user_reads = no_user_reads);
	tally_counter *c;
	bool counts = false;
	if (tally_counter_new(spec, &co, &c) != 0)
		return false;
	struct tally_result r[8];
	int got = tally_counter_open(c, NULL) == 0 ? tally_counter_read(c, r, 8, sizeof(r[0])) : 0;
	for (int i = 0; i < got; i++)
		counts |= r[i].status != TALLY_STATUS_NOT_SUPPORTED;
	tally_counter_free(c);
	return counts;
}

/* The hardware events where a PMU counts them (user-space reads apply there), else software events that
 * every Linux counts (a VM without a virtual PMU). */
const char *tly_region_default_spec(const char *sysfs_root, bool no_user_reads)
{
	static const char hardware[] = "cycles,instructions,branches,branch-misses";
	static const char software[] = "task-clock,page-faults,context-switches";
	return spec_counts(hardware, sysfs_root, no_user_reads) ? hardware : software;
}

struct tly_region_rec *tly_region_rec_new(struct tly_region_thread *t)
{
	size_t n = t->set->nr_events;
	size_t size = sizeof(struct tly_region_rec) + n * sizeof(struct tly_region_acc) +
	              t->layout.size * sizeof(uint64_t);
	/* Not calloc, which may hand out fresh pages untouched: the kernel's first write to them would be the
	 * begin's read(2), and their page faults would count inside the region. */
	struct tly_region_rec *rec = malloc(size);
	if (!rec)
		return NULL;
	memset(rec, 0, size);
	rec->begin = (uint64_t *)(rec->acc + n);
	tly_region_acc_init(rec->acc, n, t->layout.unsupported, t->layout.nr_unsupported);
	return rec;
}

static void thread_buffers_free(struct tly_region_thread *t)
{
	free(t->end);
	t->end = NULL;
	tly_raw_layout_free(&t->layout);
}

static void thread_free(struct tly_region_thread *t)
{
	for (size_t id = 0; id <= t->set->max_regions; id++)
		free(atomic_load(&t->recs[id]));
	free((void *)t->recs);
	thread_buffers_free(t);
	tally_counter_free(t->counter);
	free(t);
}

/* The calling thread's state in the set it called last, so that the hot path finds it with two loads and
 * no call (pthread_getspecific is one). The set's serial tells a set made at a freed one's address from
 * it. initial-exec, as tly_thread_token (user_group.h): no __tls_get_addr call in the shared library. */
static _Thread_local struct {
	uint64_t serial; /* 0: none */
	struct tly_region_thread *t;
} last_used __attribute__((tls_model("initial-exec")));

static _Atomic uint64_t serials;

/* A thread that exits keeps its results; its counter (descriptors, mapped pages) goes. */
static void thread_exit(void *arg)
{
	struct tly_region_thread *t = arg;
	if (last_used.t == t)
		last_used.t = NULL, last_used.serial = 0;
	thread_buffers_free(t);
	tally_counter_free(t->counter);
	t->counter = NULL;
}

/* A forked child's copy of a set holds its parent's threads' states (the forking thread's is even its own
 * pthread key value), whose counters count the parent's threads: the child's first call in a set finds
 * none of them as its own (the cache is cleared, and tly_region_thread compares the thread id) and makes
 * a state of its own. */
static void forked_child(void)
{
	last_used.serial = 0;
	last_used.t = NULL;
}

static void watch_forks(void)
{
	pthread_atfork(NULL, NULL, forked_child);
}

struct tly_region_thread *tly_region_thread(tally_region_set *s)
{
	struct tly_region_thread *t = pthread_getspecific(s->key);
	if (t && t->tid == gettid())
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->set = s;
	t->tid = gettid();
	t->subtract = s->subtract;
	t->nr_recs = (uint32_t)s->max_regions + 1;
	t->recs = calloc(t->nr_recs, sizeof(t->recs[0]));
	if (!t->recs || pthread_setspecific(s->key, t) != 0) {
		free((void *)t->recs);
		free(t);
		return NULL;
	}
	int err = s->error[0] ? -TALLY_ESTATE : counter_start(s, &t->counter);
	if (err == 0)
		err = tly_raw_layout_new(t->counter, &t->layout);
	if (err == 0) {
		/* The end reading touched here, not calloc'd: as a record's (tly_region_rec_new), a fresh page's
		 * first write would be a page fault between two groups' reads of an end. */
		size_t end_size = (t->layout.size ? t->layout.size : 1) * sizeof(t->end[0]);
		if ((t->end = malloc(end_size)) != NULL)
			memset(t->end, 0, end_size);
		else
			err = tly_error(-ENOMEM, "out of memory");
	}
	if (err != 0 && t->counter) {
		thread_buffers_free(t);
		tally_counter_free(t->counter);
		t->counter = NULL;
	}
	if (err != 0)
		snprintf(t->error, sizeof(t->error), "%s", s->error[0] ? s->error : tally_last_error());
	pthread_mutex_lock(&s->lock);
	if (s->last)
		atomic_store_explicit(&s->last->next, t, memory_order_release);
	else
		atomic_store_explicit(&s->threads, t, memory_order_release);
	s->last = t;
	atomic_fetch_add_explicit(&s->nr_threads, 1, memory_order_release);
	pthread_mutex_unlock(&s->lock);
	return t;
}

/* FNV-1a: short names, few of them; the table is at least twice their number. */
static size_t name_hash(const char *name)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 0x100000001b3u;
	return (size_t)h;
}

/* The slot holding name, or the empty slot where it would go. */
static size_t name_slot(const tally_region_set *s, const char *name, int *id)
{
	size_t slot = name_hash(name) & s->hash_mask;
	for (;; slot = (slot + 1) & s->hash_mask) {
		int v = atomic_load_explicit(&s->hash[slot], memory_order_acquire);
		*id = v - 1;
		if (v == 0 || strcmp(s->region_names[v - 1], name) == 0)
			return slot;
	}
}

int tally_region_id(tally_region_set *s, const char *name)
{
	if (!s || !name)
		return tly_null_arg(__func__);
	int id;
	name_slot(s, name, &id);
	if (id >= 0)
		return id;
	pthread_mutex_lock(&s->lock);
	size_t slot = name_slot(s, name, &id);
	size_t n = atomic_load_explicit(&s->nr_regions, memory_order_relaxed);
	if (id < 0 && n == s->max_regions) {
		atomic_fetch_add_explicit(&s->refused, 1, memory_order_relaxed);
		id = tly_error(-ENOSPC, "region '%s': the set holds %zu regions (tally_region_opts.max_regions)",
		               name, s->max_regions);
	} else if (id < 0 && !(s->region_names[n] = strdup(name))) {
		id = tly_error(-ENOMEM, "out of memory");
	} else if (id < 0) {
		id = (int)n;
		atomic_store_explicit(&s->nr_regions, n + 1, memory_order_release);
		atomic_store_explicit(&s->nr_ids, n + 1, memory_order_release);
		atomic_store_explicit(&s->hash[slot], id + 1, memory_order_release);
	}
	pthread_mutex_unlock(&s->lock);
	return id;
}

/* rec_of's way for what it does not find at once: a thread's first call, another set than its last, a
 * name's first use in the thread, a bad id, a thread that does not count. Then the thread's state is
 * last_used.t. */
static __attribute__((noinline)) struct tly_region_rec *rec_of_slow(tally_region_set *s, int id)
{
	if (!s || id < 0 || (size_t)id >= atomic_load_explicit(&s->nr_ids, memory_order_acquire))
		return NULL;
	struct tly_region_thread *t = last_used.t;
	if (last_used.serial != s->serial) {
		t = tly_region_thread(s);
		last_used.serial = t ? s->serial : 0;
		last_used.t = t;
	}
	/* A thread that does not count has no records: rec_of finds none and comes here, which says so. */
	if (!t || !t->counter)
		return NULL;
	struct tly_region_rec *rec = atomic_load_explicit(&t->recs[id], memory_order_relaxed);
	if (!rec && (rec = tly_region_rec_new(t))) {
		rec->id = id;
		atomic_store_explicit(&t->recs[id], rec, memory_order_release);
	}
	return rec;
}

/* The thread's record of region id where the common case finds it at once (NULL: rec_of_slow's turn):
 * the thread's set as last time (its serial, never 0 and never another set's, whatever address a set is
 * given), the record made (which a thread has only while it counts, and for registered ids alone, but
 * the calibration's while it runs: any id below nr_recs may index, and a slot without a record takes
 * rec_of_slow, which says whether the id is one). The thread's state is then last_used.t. */
static inline __attribute__((always_inline)) struct tly_region_rec *rec_of(tally_region_set *s, int id)
{
	if (__builtin_expect(s && last_used.serial == s->serial && (uint32_t)id < last_used.t->nr_recs, 1))
		return atomic_load_explicit(&last_used.t->recs[(uint32_t)id], memory_order_relaxed);
	return NULL;
}

static int bad_id(const tally_region_set *s, int id, const char *fn)
{
	if (!s)
		return tly_null_arg(fn);
	if (id < 0 || (size_t)id >= atomic_load_explicit(&s->nr_regions, memory_order_acquire))
		return tly_error(-EINVAL, "%s: %d is no region id of this set", fn, id);
	return 0;
}

/* Begin and end hold the common case (the record found at once, a lean layout whose groups read from
 * user space at the first pass, an exact call) to straight-line code that calls nothing but the
 * counter reads: everything else is a tail call of one of the functions below, so that the common case
 * saves few registers. */

/* A call's begin where its lean read does not apply or cannot: the counter's raw read, into the record of
 * region id that the caller found at once (taking the caller's arguments, so that the common case keeps
 * them where they are). A reading not taken has moment 0 (a taken one's never has: the perf clock or
 * CLOCK_MONOTONIC since boot), so that the call's end counts nothing. */
static __attribute__((noinline)) int begin_raw(int id)
{
	struct tly_region_thread *t = last_used.t;
	struct tly_region_rec *rec = atomic_load_explicit(&t->recs[(uint32_t)id], memory_order_relaxed);
	if (tly_counter_read_raw(t->counter, &t->layout, rec->begin) != 0)
		rec->begin[TLY_RAW_NOW] = 0;
	return 0;
}

/* A call of rec that ended, read at moments then and now. */
static inline int call_counted(struct tly_region_rec *rec, uint64_t then, uint64_t now)
{
	rec->calls++;
	rec->wall_ns += now - then;
	return 0;
}

/* The end of a counted call from group gr on, the groups before it counted: gr's reading at the end
 * taken into the thread's end reading already (taken) or not, now the moment the groups read so far
 * gave (0: none). The call counts even where a group's read fails, which the call's groups from gr on
 * then do not count. */
static __attribute__((noinline)) int end_from(struct tly_region_thread *t, struct tly_region_rec *rec,
                                              const struct tly_raw_group *gr, bool taken, uint64_t now)
{
	const struct tly_raw_layout *l = &t->layout;
	const struct tly_raw_group *last = l->groups_end;
	bool read = true;
	for (const struct tly_raw_group *g = taken ? gr + 1 : gr; g < last; g++)
		read &= tly_counter_read_raw_group(t->counter, l, g, t->end + g->at, &now) == 0;
	if (read)
		tly_region_acc_add(rec->acc, gr, last, rec->begin, t->end, t->set->overhead, t->subtract, l->lean);
	else
		for (; gr < last; gr++)
			tly_region_group_uncounted(rec->acc, gr);
	return call_counted(rec, rec->begin[TLY_RAW_NOW], tly_raw_moment(l, now));
}

/* A pass over a lean layout's group that met its pages moving (an interrupt, a switch to another thread)
 * or a member off its counter: the call's begin or end (of region id in set s) again, the same code, so
 * that every event's reading is taken at the same point of it as in every other call and the events of
 * a group count the same instructions (with cycles = 2^S x instructions on the rig, a region's IPC is
 * exact); the raw read (which retries, or asks the kernel) after TLY_USER_TRIES of them. The record
 * counts the passes taken again, and a success does not set it back (that would be a store on the common
 * path): the raw read does, so that a run of failed passes ends there after 1 to TLY_USER_TRIES of them.
 * The end's takes the record, which the common case holds (and its id from it). A begin taken again
 * costs the call nothing (its reading is the new pass's); an end taken again counts, in the call, the
 * instructions from the failed pass's counter reads to the new pass's (about one end's worth): a call
 * that a context switch interrupts in the few dozen instructions of its end's pass counts that much more
 * than the others (on the rig, one `touch` call of cli_stat_regions's second thread counted 369 for 260:
 * 109 more, about one end and the way back into it). */
static __attribute__((noinline)) int begin_again(tally_region_set *s, int id)
{
	struct tly_region_rec *rec = atomic_load_explicit(&last_used.t->recs[(uint32_t)id], memory_order_relaxed);
	if (++rec->passes < TLY_USER_TRIES) {
		rec->depth--;
		return tally_region_begin_id(s, id);
	}
	rec->passes = 0;
	return begin_raw(id);
}

static __attribute__((noinline)) int end_again(struct tly_region_thread *t, struct tly_region_rec *rec)
{
	if (++rec->passes < TLY_USER_TRIES) {
		rec->depth = 1;
		return tally_region_end_id(t->set, rec->id);
	}
	rec->passes = 0;
	return end_from(t, rec, t->layout.groups, false, 0);
}

enum lean_step {
	LEAN_DONE,   /* read, and stored (a begin) or counted (the end of an exact call) */
	LEAN_TAKEN,  /* an end read into the thread's end reading, for end_from to count */
	LEAN_UNREAD, /* not read from user space at the first pass: begin_again's or end_again's turn */
};

/* The one pass over group gr of a lean layout (raw_read.h's tly_raw_layout.lean), by the thread that
 * opened it: n members into values[k x stride], the times and the moment. Made in a function of its own,
 * as tly_user_group_read_plain's, so that GCC makes the pass's fields scalars before lean_step joins
 * them. */
static inline __attribute__((always_inline)) bool lean_pass(const struct tly_raw_group *gr, size_t n,
                                                            uint64_t *values, size_t stride, uint64_t *enabled,
                                                            uint64_t *running, uint64_t *now)
{
	return tly_mmap_read((struct tly_mmap_pass){ .pages = gr->pages, .n = n, .read_pmc = tly_arch_read_pmc,
	                                             .read_clock = tly_arch_read_clock, .values = values,
	                                             .stride = stride, .times = true, .tries = 1, .enabled = enabled,
	                                             .running = running, .now = now }) == TLY_USER_OK;
}

/* Group gr of a lean layout at a call's begin or end: its n members (a constant where the caller knows
 * it: lean_group) read from user space into values[k x stride] (lean_pass) and its moment into *now,
 * then at the begin stored into the record's reading, at the end counted where the call was exact and no
 * overhead is subtracted. Both sides read the same way, at the same point of the same code (values in
 * registers where values is the caller's array), so that every event's count of a call spans the same
 * code. */
static inline __attribute__((always_inline)) enum lean_step lean_step(struct tly_region_thread *t,
                                                                     struct tly_region_rec *rec,
                                                                     const struct tly_raw_group *gr, size_t n,
                                                                     uint64_t *values, size_t stride, bool end,
                                                                     uint64_t *now)
{
	uint64_t enabled, running;
	if (!lean_pass(gr, n, values, stride, &enabled, &running, now))
		return LEAN_UNREAD;
	uint64_t *b = rec->begin + gr->at, *to = b;
	if (end && __builtin_expect(tly_region_lean_exact(enabled, running, b) && !t->subtract, 1)) {
		/* The members' accs from one base, hidden from the optimizer as the kernel's OPTIMIZER_HIDE_VAR
		 * does: else GCC splits rec + first + member into a base register of each member's own (an add
		 * apiece) and pairs fewer of their loads and stores. */
		struct tly_region_acc *acc = rec->acc + gr->first;
		__asm__("" : "+r"(acc));
		tly_region_lean_count(acc, n, values, stride, b);
		return LEAN_DONE;
	}
	if (end)
		to = t->end + gr->at;
	to[1] = enabled;
	to[2] = running;
	for (size_t k = 0; k < n; k++)
		to[3 + k] = values[k * stride];
	return end ? LEAN_TAKEN : LEAN_DONE;
}

/* lean_step of group gr, with its size a constant up to 4 (TLY_GROUP_SIZED: the usual group's values in
 * registers), beyond it read into the reading itself. */
static inline __attribute__((always_inline)) enum lean_step lean_group(struct tly_region_thread *t,
                                                                      struct tly_region_rec *rec,
                                                                      const struct tly_raw_group *gr, bool end,
                                                                      uint64_t *now)
{
	uint64_t values[4];
	size_t n = gr->nr;
#define LEAN_STEP_OF(size) lean_step(t, rec, gr, size, values, 1, end, now)
	return TLY_GROUP_SIZED(n, LEAN_STEP_OF,
	                       lean_step(t, rec, gr, n, (end ? t->end : rec->begin) + gr->at + 3, 1, end, now));
#undef LEAN_STEP_OF
}

/* A lean layout's groups after its first at a call's begin or end, now the first's moment,
 * and the call's completion as rec_begin's and rec_end's: out of line, so that a layout of one group
 * (the default events') reads it without a loop. A pass that fails takes the begin again (begin_again),
 * or at the end, where the groups before are counted, the group's pass again here. */
static __attribute__((noinline)) int lean_rest(struct tly_region_thread *t, struct tly_region_rec *rec, bool end,
                                               uint64_t now)
{
	const struct tly_raw_group *gr = t->layout.groups + 1, *last = t->layout.groups_end;
	for (unsigned passes = 1; gr < last;) {
		enum lean_step r = lean_group(t, rec, gr, end, &now);
		if (r == LEAN_DONE)
			gr++;
		else if (!end)
			return begin_again(t->set, rec->id);
		else if (r == LEAN_TAKEN || passes++ == TLY_USER_TRIES)
			return end_from(t, rec, gr, r == LEAN_TAKEN, now);
	}
	if (end)
		return call_counted(rec, rec->begin[TLY_RAW_NOW], now);
	rec->begin[TLY_RAW_NOW] = now;
	return 0;
}

/* The outermost begin of a region (id in set s) reads the counter; nested ones only count. */
static inline __attribute__((always_inline)) int rec_begin(tally_region_set *s, int id, struct tly_region_thread *t,
                                                           struct tly_region_rec *rec)
{
	if (rec->depth++ > 0)
		return 0;
	const struct tly_raw_layout *l = &t->layout;
	if (__builtin_expect(!l->lean, 0))
		return begin_raw(id);
	/* A lean layout has a group at least. */
	uint64_t now = 0;
	if (__builtin_expect(lean_group(t, rec, l->groups, false, &now) != LEAN_DONE, 0))
		return begin_again(s, id);
	if (__builtin_expect(l->groups + 1 < l->groups_end, 0))
		return lean_rest(t, rec, false, now);
	rec->begin[TLY_RAW_NOW] = now;
	return 0;
}

/* A record not found at once: made (or the id refused), then the call again, which finds it at once, so
 * that every call counts the same code (the record's lookup is before its begin's read). */
static __attribute__((noinline)) int begin_slow(tally_region_set *s, int id)
{
	return rec_of_slow(s, id) ? tally_region_begin_id(s, id) : bad_id(s, id, "tally_region_begin_id");
}

int tally_region_begin_id(tally_region_set *s, int id)
{
	struct tly_region_rec *rec = rec_of(s, id);
	if (__builtin_expect(!rec, 0))
		return begin_slow(s, id);
	return rec_begin(s, id, last_used.t, rec);
}

/* The end of a call whose begin's reading could not be taken (moment 0): the call counts, counted by no
 * event (each says so in its counted calls, never silently), with no wall time, its start unknown. */
static __attribute__((noinline)) int end_unbegun(struct tly_region_thread *t, struct tly_region_rec *rec)
{
	for (const struct tly_raw_group *gr = t->layout.groups; gr < t->layout.groups_end; gr++)
		tly_region_group_uncounted(rec->acc, gr);
	rec->calls++;
	return 0;
}

static __attribute__((noinline)) int end_unbalanced(struct tly_region_rec *rec)
{
	if (rec->depth == 0)
		rec->stray_ends++;
	else
		rec->depth--;
	return 0;
}

/* The outermost end of a region whose begin was read reads the counter and counts the call; nested
 * ones only count down; one without a begin is a stray end. */
static inline __attribute__((always_inline)) int rec_end(struct tly_region_thread *t, struct tly_region_rec *rec)
{
	if (__builtin_expect(rec->depth != 1, 0))
		return end_unbalanced(rec);
	rec->depth = 0;
	uint64_t then = rec->begin[TLY_RAW_NOW];
	if (__builtin_expect(!then, 0))
		return end_unbegun(t, rec);
	const struct tly_raw_layout *l = &t->layout;
	if (__builtin_expect(!l->lean, 0))
		return end_from(t, rec, l->groups, false, 0);
	uint64_t now = 0;
	enum lean_step r = lean_group(t, rec, l->groups, true, &now);
	if (__builtin_expect(r == LEAN_UNREAD, 0))
		return end_again(t, rec);
	if (__builtin_expect(r != LEAN_DONE, 0))
		return end_from(t, rec, l->groups, true, now);
	if (__builtin_expect(l->groups + 1 < l->groups_end, 0))
		return lean_rest(t, rec, true, now);
	return call_counted(rec, then, now);
}

static __attribute__((noinline)) int end_slow(tally_region_set *s, int id)
{
	return rec_of_slow(s, id) ? tally_region_end_id(s, id) : bad_id(s, id, "tally_region_end_id");
}

int tally_region_end_id(tally_region_set *s, int id)
{
	struct tly_region_rec *rec = rec_of(s, id);
	if (__builtin_expect(!rec, 0))
		return end_slow(s, id);
	return rec_end(last_used.t, rec);
}

/* The smallest count of an empty region per event, on the making thread, through the public calls on the
 * calibration's own id (max_regions, taken only while the set is made), so that the overhead is what a
 * region's begin and end cost a caller: the record's lookup included. */
static void calibrate(tally_region_set *s)
{
	int id = (int)s->max_regions;
	struct tly_region_thread *maker = tly_region_thread(s);
	if (!maker || !maker->counter)
		return; /* nothing counts: no overhead to measure */
	atomic_store_explicit(&s->nr_ids, s->max_regions + 1, memory_order_release);
	for (int k = 0; k < CALIBRATION_WARMUP + CALIBRATION_CALLS; k++) {
		struct tly_region_rec *rec = atomic_load_explicit(&maker->recs[id], memory_order_relaxed);
		if (k == CALIBRATION_WARMUP && rec) {
			rec->calls = 0;
			tly_region_acc_init(rec->acc, s->nr_events, maker->layout.unsupported, maker->layout.nr_unsupported);
		}
		if (tally_region_begin_id(s, id) != 0 || tally_region_end_id(s, id) != 0)
			break;
	}
	atomic_store_explicit(&s->nr_ids, atomic_load(&s->nr_regions), memory_order_release);
	struct tly_region_rec *rec = atomic_load_explicit(&maker->recs[id], memory_order_relaxed);
	if (!rec)
		return;
	for (size_t i = 0; i < s->nr_events; i++)
		s->overhead[i] = tly_region_acc_counted(&rec->acc[i], rec->calls) ? rec->acc[i].min : 0;
	atomic_store_explicit(&maker->recs[id], NULL, memory_order_relaxed);
	free(rec);
}

static int set_init(tally_region_set *s, const char *spec, const struct tally_region_opts *opts)
{
	const char *root = TLY_OPT(opts, sysfs_root, NULL);
	const char *metrics = TLY_OPT(opts, metrics, NULL);
	s->no_user_reads = TLY_OPT(opts, no_user_reads, false);
	s->subtract = TLY_OPT(opts, subtract_overhead, false);
	s->max_regions = TLY_OPT(opts, max_regions, 0) ? TLY_OPT(opts, max_regions, 0) : DEFAULT_MAX_REGIONS;
	if (s->max_regions > INT32_MAX / 4)
		return tly_error(-EINVAL, "tally_region_opts.max_regions %zu is too large", s->max_regions);
	size_t slots = 1;
	while (slots < 2 * s->max_regions)
		slots <<= 1;
	s->hash_mask = slots - 1;
	s->hash = calloc(slots, sizeof(s->hash[0]));
	s->region_names = calloc(s->max_regions, sizeof(s->region_names[0]));
	s->sysfs_root = root ? strdup(root) : NULL;
	if (!s->hash || !s->region_names || (root && !s->sysfs_root))
		return tly_error(-ENOMEM, "out of memory");
	s->spec = strdup(spec ? spec : tly_region_default_spec(root, s->no_user_reads));
	if (!s->spec)
		return tly_error(-ENOMEM, "out of memory");
	int err = tly_region_metrics_init(s, metrics);
	if (err == 0)
		err = counter_make(s, &s->names);
	if (err == -ENOMEM)
		return err;
	if (err != 0) {
		snprintf(s->error, sizeof(s->error), "%s", tally_last_error());
		return 0;
	}
	s->nr_events = tally_counter_count(s->names);
	s->overhead = calloc(s->nr_events ? s->nr_events : 1, sizeof(s->overhead[0]));
	return s->overhead ? 0 : tly_error(-ENOMEM, "out of memory");
}

int tally_region_set_new(const char *spec, const struct tally_region_opts *opts, tally_region_set **out)
{
	if (!out)
		return tly_null_arg(__func__);
	if (!TLY_OPTS_VALID(opts, tally_region_opts))
		return -TALLY_EOPTS;
	tally_region_set *s = calloc(1, sizeof(*s));
	if (!s)
		return tly_error(-ENOMEM, "out of memory");
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, watch_forks);
	s->serial = atomic_fetch_add_explicit(&serials, 1, memory_order_relaxed) + 1;
	pthread_mutex_init(&s->lock, NULL);
	int err = pthread_key_create(&s->key, thread_exit);
	if (err != 0) {
		pthread_mutex_destroy(&s->lock);
		free(s);
		return tly_error(-err, "no thread-specific key left for a region set");
	}
	err = set_init(s, spec, opts);
	if (err != 0) {
		tally_region_set_free(s);
		return err;
	}
	calibrate(s);
	/* The making thread's own failure is the set's: nothing counts anywhere, as a rule. */
	struct tly_region_thread *t = pthread_getspecific(s->key);
	if (t && !t->counter && !s->error[0])
		snprintf(s->error, sizeof(s->error), "%s", t->error);
	*out = s;
	return 0;
}

void tally_region_set_free(tally_region_set *s)
{
	if (!s)
		return;
	pthread_key_delete(s->key);
	for (struct tly_region_thread *t = s->threads, *next; t; t = next) {
		next = t->next;
		thread_free(t);
	}
	for (size_t i = 0; i < s->nr_regions; i++)
		free(s->region_names[i]);
	free(s->region_names);
	free((void *)s->hash);
	free(s->overhead);
	tally_counter_free(s->names);
	free(s->spec);
	tly_region_metrics_free(s);
	free(s->sysfs_root);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

const char *tally_region_set_error(const tally_region_set *s)
{
	return s ? s->error : "";
}

size_t tally_region_set_regions(const tally_region_set *s)
{
	return s ? atomic_load_explicit(&s->nr_regions, memory_order_acquire) : 0;
}

size_t tally_region_set_threads(const tally_region_set *s)
{
	return s ? atomic_load_explicit(&s->nr_threads, memory_order_acquire) : 0;
}

size_t tally_region_set_events(const tally_region_set *s)
{
	return s ? s->nr_events : 0;
}

const char *tally_region_set_name(const tally_region_set *s, size_t region)
{
	return region < tally_region_set_regions(s) ? s->region_names[region] : NULL;
}

const char *tally_region_set_event_name(const tally_region_set *s, size_t event)
{
	return s && event < s->nr_events ? tally_counter_name(s->names, event) : NULL;
}

uint64_t tally_region_set_overhead(const tally_region_set *s, size_t event)
{
	return s && event < s->nr_events ? s->overhead[event] : 0;
}

static struct tly_region_thread *thread_at(const tally_region_set *s, size_t k)
{
	struct tly_region_thread *t = atomic_load_explicit(&s->threads, memory_order_acquire);
	while (t && k-- > 0)
		t = atomic_load_explicit(&t->next, memory_order_acquire);
	return t;
}

/* One thread's part of a region into the totals. */
static void add_thread(const tally_region_set *s, const struct tly_region_thread *t, size_t region,
                       struct tally_region_info *info, struct tly_region_stats *stats)
{
	if (t->error[0] && !info->error[0])
		info->error = t->error;
	const struct tly_region_rec *rec = atomic_load_explicit(&t->recs[region], memory_order_acquire);
	if (!rec)
		return;
	info->calls += rec->calls;
	info->wall_ns += rec->wall_ns;
	info->open += rec->depth;
	info->stray_ends += rec->stray_ends;
	for (size_t i = 0; i < s->nr_events; i++)
		tly_region_stats_add(&stats[i], &rec->acc[i], rec->calls);
}

int tly_region_read(const tally_region_set *s, size_t region, const struct tly_region_thread *thread,
                    struct tally_region_info *info, struct tally_region_event *events, size_t n, size_t elem_sz)
{
	struct tly_region_stats *stats = calloc(s->nr_events ? s->nr_events : 1, sizeof(*stats));
	if (!stats)
		return tly_error(-ENOMEM, "out of memory");
	tly_region_stats_init(stats, s->nr_events);
	struct tally_region_info in = { .sz = sizeof(in), .name = s->region_names[region], .error = s->error };
	if (!thread) {
		for (const struct tly_region_thread *t = atomic_load_explicit(&s->threads, memory_order_acquire); t;
		     t = atomic_load_explicit(&t->next, memory_order_acquire))
			add_thread(s, t, region, &in, stats);
	} else {
		in.tid = thread->tid;
		add_thread(s, thread, region, &in, stats);
	}
	for (size_t i = 0; i < n && i < s->nr_events; i++) {
		const struct tly_region_stats *a = &stats[i];
		struct tally_region_event e = {
			.sum = a->sum, .min = a->counted ? a->min : 0, .max = a->max, .mean = a->mean,
			.stddev = a->counted ? tly_region_sqrt(a->m2 / (double)a->counted) : 0, .counted = a->counted,
			.ratio = a->ratio, .status = a->status,
			.low = a->counted && s->overhead[i] && a->mean < TALLY_REGION_LOW_MULTIPLE * (double)s->overhead[i],
		};
		tly_out_put(tly_out_at(events, i, elem_sz), elem_sz, &e, TLY_KNOWN_SIZE(tally_region_event));
	}
	free(stats);
	int err = TLY_INFO_COPY(info, &in, tally_region_info);
	return err != 0 ? err : (int)s->nr_events;
}

int tally_region_set_read(const tally_region_set *s, size_t region, size_t thread, struct tally_region_info *info,
                          struct tally_region_event *events, size_t n, size_t elem_sz)
{
	if (!s || !info || (n > 0 && !events))
		return tly_null_arg(__func__);
	int err = tly_info_check(info, "tally_region_info");
	if (err != 0)
		return err;
	if (n > 0 && !tly_out_valid(elem_sz, TLY_KNOWN_SIZE(tally_region_event), _Alignof(struct tally_region_event),
	                            "tally_region_event"))
		return -TALLY_EOPTS;
	if (region >= tally_region_set_regions(s) ||
	    (thread != TALLY_REGION_ALL_THREADS && thread >= tally_region_set_threads(s)))
		return tly_error(-ERANGE, "%s: no region %zu or thread %zu", __func__, region, thread);
	return tly_region_read(s, region, thread == TALLY_REGION_ALL_THREADS ? NULL : thread_at(s, thread), info, events,
	                       n, elem_sz);
}
