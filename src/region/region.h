/* SPDX-License-Identifier: MIT */
/* Named regions: the set and its per-thread state (internal); the statistics are region_stats.h's. */
#ifndef TLY_REGION_H
#define TLY_REGION_H

#include "counter/raw_read.h"
#include "region/region_stats.h"

#include <tally/metrics.h>
#include <tally/region.h>

#include <pthread.h>
#include <stdatomic.h>

/* One region on one thread. depth counts begins not yet ended: only the outermost pair is measured. */
struct tly_region_rec {
	uint64_t *begin; /* the outermost begin's reading (after acc, in one block); moment 0: not taken */
	uint64_t depth, calls, wall_ns, stray_ends;
	uint64_t passes; /* user-space passes taken again (begin_again) since the latest raw read */
	int id;          /* its region's */
	struct tly_region_acc acc[];
};

struct tly_region_thread {
	struct tly_region_thread *_Atomic next; /* the set's list, in the order of first calls */
	tally_region_set *set;
	pid_t tid;
	tally_counter *counter; /* NULL: not counting (error says why), or the thread exited */
	/* Decided at the thread's first call, so that begin and end only read and add: where each event
	 * lies in a reading, and the end's reading. */
	struct tly_raw_layout layout;
	uint64_t *end;
	struct tly_region_rec *_Atomic *recs; /* by region id; published by the owning thread */
	uint32_t nr_recs;                     /* max_regions + 1 (the calibration's id last) */
	bool subtract;                        /* the set's, at hand */
	char error[512];
};

struct tally_region_set {
	uint64_t serial; /* this process's number of the set, never 0 */
	char *spec;     /* the caller's (or the default) */
	char *counting; /* spec with the vendor metrics' events appended; NULL: spec itself */
	char *metrics;  /* the catalogue's items of tally_region_opts.metrics, or NULL */
	/* The vendor table's metrics of tally_region_opts.metrics (region_metrics.c); NULL, 0: none. */
	tally_vendor_metrics *vendor;
	size_t *vendor_idx;
	size_t nr_vendor;
	char *sysfs_root;
	bool no_user_reads, subtract;
	tally_counter *names; /* never opened: the event names */
	size_t nr_events;
	uint64_t *overhead;
	size_t max_regions;
	_Atomic size_t nr_regions;
	/* The ids begin and end take: nr_regions, and while the set is calibrated, one more, max_regions, the
	 * calibration's own (each thread has max_regions + 1 record slots). */
	_Atomic size_t nr_ids;
	_Atomic uint64_t refused; /* tally_region_id calls refused for want of room: every output says so */
	char **region_names;
	_Atomic int *hash; /* region id + 1 by name hash, open addressing; 0: empty */
	size_t hash_mask;
	pthread_mutex_t lock; /* registrations and the thread list's tail */
	pthread_key_t key;
	struct tly_region_thread *_Atomic threads, *last;
	_Atomic size_t nr_threads;
	char error[512];
};

/* The thread's state, made on its first call (NULL when even that failed: calls do nothing). */
struct tly_region_thread *tly_region_thread(tally_region_set *set);
/* tally_region_set_read of region on thread (NULL: all threads), its arguments checked: the writers walk
 * the thread list once rather than find each thread by its number. */
int tly_region_read(const tally_region_set *set, size_t region, const struct tly_region_thread *thread,
                    struct tally_region_info *info, struct tally_region_event *events, size_t n, size_t elem_sz);
/* A record with room for the set's events and the thread's reading (free() frees it). */
struct tly_region_rec *tly_region_rec_new(struct tly_region_thread *t);

/* The metrics list split between the vendor table (s->vendor, vendor_idx, counting) and the catalogue
 * (s->metrics), s->spec and s->sysfs_root set; list NULL: none. 0, or a negative code (last error set);
 * an item nobody names is left to the catalogue, whose counter refuses it. */
int tly_region_metrics_init(tally_region_set *s, const char *list);
void tly_region_metrics_free(tally_region_set *s);

/* Text of the caller's or the environment's where a terminal may show it: C0 and C1 controls and bytes
 * that are no UTF-8 as \xHH, a backslash as \\, then spaces up to width columns (region_write.c). */
void tly_region_text(FILE *f, const char *s, int width);

/* The set's default spec when the caller gives none (documented in tally/region.h). */
const char *tly_region_default_spec(const char *sysfs_root, bool no_user_reads);

#endif
