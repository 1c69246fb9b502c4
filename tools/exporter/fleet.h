/* SPDX-License-Identifier: MIT */
/*
 * The exporter's counting: one counter per cgroup (a TALLY_TARGET_CGROUPS target of one cgroup, so that
 * cgroups come and go, and fail, each on its own), or one for the whole machine without cgroups. Every
 * update takes a snapshot of each counter and adds the interval's scaled difference, part by part
 * (tally_snapshot_delta_parts), to running totals: a total only grows, and is right under multiplexing
 * interval by interval, where the window's cumulative extrapolation (value x enabled / running since the
 * start) can fall when the ratio changes. The same differences, added from one --interval's end to the
 * next, are each metric's inputs (--metrics): at every interval's end each metric is computed per target
 * (and per CPU) from them.
 */
#ifndef TALLY_EXPORTER_FLEET_H
#define TALLY_EXPORTER_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tally/counter.h>
#include <tally/snapshot.h>

#include "exporter/metric_set.h"

/* Running totals of one event at one part (a CPU) of one target. */
struct fleet_total {
	int cpu;
	uint64_t value, enabled, running;   /* raw differences summed; times in ns */
	double scaled;                      /* the scaled differences summed */
};

/* A metric's value in the latest interval, for a target or one CPU of it. */
struct fleet_metric_value {
	double value;               /* in its family's unit */
	int cpu;                    /* -1: the whole target */
	signed char threshold;      /* over the vendor's MetricThreshold: 1, 0, or -1 (none) */
	bool available;             /* else no value in that interval (an input not counted, a 0 divisor) */
};

/* One counted cgroup (or the machine). */
struct fleet_target {
	char *name;                 /* the cgroup as given or found ("system.slice/x.service"); NULL: machine */
	tally_counter *counter;     /* NULL while it cannot be opened (error says why) */
	tally_snapshot *snap[2];    /* the last taken (base) and the next */
	int base;                   /* index of the snapshot the next interval starts from */
	struct fleet_total *totals; /* [event * nr_parts + part] */
	enum tally_status *status;  /* [event]: of the latest interval; NOT_SUPPORTED from the open */
	size_t nr_parts;            /* parts per event: one per CPU */
	/* The metrics' interval, from one --interval's end to the next (a scrape's update adds to it too):
	 * [event * (nr_parts + 1) + slot], slot 0 the whole event, 1 + p its part p. */
	double *acc;                /* the scaled differences added */
	enum tally_status *acc_status;  /* NOT_COUNTED until a difference counted */
	double acc_since, last_read;    /* CLOCK_MONOTONIC seconds: the interval's start, the latest snapshot */
	bool fresh;                 /* opened by a scan of the schedule: its first interval is partial */
	struct fleet_metric_value *values;  /* [metric * (nr_parts + 1) + slot]: the latest interval's */
	char error[512];            /* why it is not counting ("" while it is) */
	size_t fds;                 /* descriptors it holds */
	bool seen;                  /* found by the latest scan of --cgroups-under */
	bool logged;                /* its error was said (once per failure) */
	bool from_scan;             /* found under --cgroups-under (dropped when its directory goes) */
	bool skipped;               /* left closed by the latest try for want of descriptors */
	/* The cgroup is its directory, not its name: the directory's device and inode when opened (the
	 * kernel's cgroup id on cgroup2). Another directory under the same name is another cgroup. */
	uint64_t dev, ino;
	/* The totals of the cgroups counted before under this name, while none is open: added to the next
	 * one's, so that the series only grows across a removal and a re-creation. */
	struct fleet_total *carried;
	size_t carried_parts;
};

struct fleet_config {
	char *spec;                 /* the events */
	char **cgroups;             /* --cgroup, as given */
	size_t nr_cgroups;
	char **under;               /* --cgroups-under directories */
	size_t nr_under;
	char *cpus;                 /* CPU list, NULL for all online */
	char *metrics;              /* --metrics and "metrics" lines: a comma list, NULL for none */
	bool per_cpu;               /* --per-cpu: metrics are computed per CPU (not per target) */
};

struct fleet {
	struct fleet_config config;
	char mount[4096];           /* the cgroup hierarchy's mount point ("" when unused) */
	struct fleet_target **targets;
	size_t nr_targets, cap;
	size_t nr_events;           /* of the spec (tally_counter_count) */
	tally_counter *model;       /* the spec parsed once: names, PMUs, units of the events */
	char *spec;                 /* what is counted: the config's spec and the vendor metrics' events */
	struct metric_set metrics;  /* --metrics (the catalogue's events appended by each counter) */
	bool *shown;                /* [event]: exposed (the first of the events of one name and PMU) */
	long nr_cpus;
	size_t fd_limit;            /* RLIMIT_NOFILE's soft limit after raising it to the hard one */
	size_t fds_used;            /* by the open targets */
	size_t skipped;             /* cgroups left closed now for want of descriptors */
	char budget_note[512];      /* why, when any was */
	uint64_t scans, updates;
};

/* Parses the spec and opens every target of config (cgroups of --cgroup, those found under
 * --cgroups-under, or the machine). A --cgroup that cannot be opened is kept with its error (it is
 * retried at each scan); an unusable spec, no cgroup hierarchy, or a budget that cannot fit even the
 * given cgroups fail with a message in err. Takes config (freed by fleet_free). */
int fleet_init(struct fleet *f, struct fleet_config *config, char *err, size_t err_len);

/* The callers serialise every call on one fleet (the exporter's lock: scrapes come from several HTTP
 * threads). */

/* Adds every target's interval since its last update to its totals and to its metrics' interval; at
 * interval_end (the --interval's schedule, not a scrape's update), computes the metrics of that interval
 * and starts the next. */
void fleet_update(struct fleet *f, bool interval_end);

/* --cgroups-under: opens the cgroups that appeared, closes those whose directory is gone (their series
 * are dropped); a --cgroup whose directory is gone is closed and reported down. A directory replaced
 * under the same name is another cgroup: the old one's events are closed and the new one's opened, its
 * counts added to the same totals. Every cgroup not open (missing, gone, or skipped for want of
 * descriptors) is tried again. */
void fleet_scan(struct fleet *f);

/* A new configuration with the same events and CPUs (SIGHUP): the --cgroup targets no longer given are
 * closed, new ones opened, and the scan follows the new --cgroups-under; the totals of the targets that
 * stay go on. Takes config. */
void fleet_reconfigure(struct fleet *f, struct fleet_config *config);

/* Whether two configurations count the same events and metrics on the same CPUs (else a reload starts
 * afresh). */
bool fleet_config_same_counting(const struct fleet_config *a, const struct fleet_config *b);

/* Descriptors one cgroup needs: events x CPUs, and its directory. */
size_t fleet_fds_per_target(const struct fleet *f);

void fleet_free(struct fleet *f);
void fleet_config_free(struct fleet_config *c);

#endif
