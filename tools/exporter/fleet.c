/* SPDX-License-Identifier: MIT */
#include "exporter/fleet.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <tally/cgroup.h>
#include <tally/cpumap.h>
#include <tally/events.h>

#include "exporter/fleet_metrics.h"

/* Descriptors kept aside from the counters: the listening socket, libmicrohttpd's connections (at most
 * HTTP_MAX_CONNECTIONS), its internal pipes, the directory scans, stdio. */
#define FD_RESERVE 128

/* --cgroups-under and --cgroup names, each replaced by the one name of its cgroup (tally_cgroup_name), so
 * that "a", "/sys/fs/cgroup/a/" and "/sys/fs/cgroup//a" are one cgroup with one series. A name the
 * library refuses stays as given: its open explains why. */
static void name_canonically(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int len = tally_cgroup_name(names[i], NULL, 0);
		char *canonical = len < 0 ? NULL : malloc((size_t)len + 1);
		if (!canonical)
			continue;
		tally_cgroup_name(names[i], canonical, (size_t)len + 1);
		free(names[i]);
		names[i] = canonical;
	}
}

static void config_name_canonically(struct fleet_config *c)
{
	name_canonically(c->cgroups, c->nr_cgroups);
	name_canonically(c->under, c->nr_under);
}

static bool is_tool_event(const tally_counter *c, size_t i)
{
	TALLY_OPTS(tally_event_info, info);
	return tally_events_at(tally_counter_events(c), i, &info) == 0 && info.pmu && strcmp(info.pmu, "tool") == 0;
}

size_t fleet_fds_per_target(const struct fleet *f)
{
	size_t counted = 0;
	for (size_t i = 0; i < f->nr_events; i++)
		counted += !is_tool_event(f->model, i);
	return counted * (size_t)f->nr_cpus + 1;
}

/* The identity of a cgroup's directory now: its device and inode. -errno when it is not there. */
static int cgroup_identity(const struct fleet *f, const char *name, uint64_t *dev, uint64_t *ino)
{
	char path[8192];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", f->mount, name);
	if (stat(path, &st) != 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return 0;
}

/* The totals of the cgroups counted before under t's name added to t's new ones (zero: copied). */
static void totals_carry_over(const struct fleet *f, struct fleet_target *t)
{
	size_t parts = t->nr_parts < t->carried_parts ? t->nr_parts : t->carried_parts;
	for (size_t i = 0; i < f->nr_events; i++)
		for (size_t p = 0; p < parts; p++)
			t->totals[i * t->nr_parts + p] = t->carried[i * t->carried_parts + p];
	free(t->carried);
	t->carried = NULL;
	t->carried_parts = 0;
}

static void target_close(struct fleet_target *t)
{
	tally_snapshot_free(t->snap[0]);
	tally_snapshot_free(t->snap[1]);
	tally_counter_free(t->counter);
	fleet_metrics_close(t);
	free(t->totals);
	free(t->status);
	t->snap[0] = t->snap[1] = NULL;
	t->counter = NULL;
	t->totals = NULL;
	t->status = NULL;
	t->nr_parts = 0;
}

/* Opens and starts the target's counter, its snapshots and totals; on failure, t->error says why and
 * nothing stays open. */
static int target_open(struct fleet *f, struct fleet_target *t)
{
	const char *names[1] = { t->name };
	/* The identity before the open: a directory replaced in between is seen as replaced at the next
	 * scan, never the other way round. */
	if (t->name && cgroup_identity(f, t->name, &t->dev, &t->ino) < 0)
		t->dev = t->ino = 0;
	TALLY_OPTS(tally_counter_opts, copts, .metrics = f->metrics.list.catalogue);
	TALLY_OPTS(tally_target, target, .kind = t->name ? TALLY_TARGET_CGROUPS : TALLY_TARGET_CPUS,
	           .cpus = f->config.cpus, .cgroups = names, .nr_cgroups = t->name ? 1 : 0);
	int err = tally_counter_new(f->spec, &copts, &t->counter);
	if (!err)
		err = tally_counter_open(t->counter, &target);
	if (!err)
		err = tally_counter_start(t->counter);
	for (int k = 0; k < 2 && !err; k++)
		err = tally_snapshot_new(t->counter, &t->snap[k]);
	size_t n = f->nr_events, parts = 1;
	/* A first read: the events this machine cannot count read "not supported" from the open on, and
	 * the parts are known from a read on. */
	struct tally_result *r = err ? NULL : calloc(n ? n : 1, sizeof(*r));
	if (!err && (!r || tally_counter_read(t->counter, r, n, sizeof(*r)) < 0))
		err = r ? -EIO : -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		int p = tally_counter_parts(t->counter, i, NULL, 0, sizeof(struct tally_part));
		if (p > 0 && (size_t)p > parts)
			parts = (size_t)p;
	}
	if (!err) {
		t->totals = calloc(n * parts, sizeof(*t->totals));
		t->status = calloc(n ? n : 1, sizeof(*t->status));
		err = t->totals && t->status ? 0 : -ENOMEM;
	}
	for (size_t i = 0; i < n && !err; i++)
		t->status[i] = r[i].status;
	free(r);
	if (err) {
		snprintf(t->error, sizeof(t->error), "%s",
		         t->counter && tally_counter_last_error(t->counter)[0] ? tally_counter_last_error(t->counter)
		                                                              : tally_last_error());
		target_close(t);
		return err;
	}
	t->nr_parts = parts;
	if (fleet_metrics_open(f, t) < 0) {
		snprintf(t->error, sizeof(t->error), "out of memory");
		target_close(t);
		return -ENOMEM;
	}
	t->logged = false;
	/* No CPU yet: a part's CPU comes with its first interval (an event on fewer CPUs has fewer parts). */
	for (size_t k = 0; k < n * parts; k++)
		t->totals[k].cpu = -1;
	if (t->carried)
		totals_carry_over(f, t);
	t->base = 0;
	t->error[0] = '\0';
	return 0;
}

static struct fleet_target *target_add(struct fleet *f, const char *name, bool from_scan)
{
	if (f->nr_targets == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16;
		struct fleet_target **grown = realloc(f->targets, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		f->targets = grown;
		f->cap = cap;
	}
	struct fleet_target *t = calloc(1, sizeof(*t));
	if (!t || (name && !(t->name = strdup(name)))) {
		free(t);
		return NULL;
	}
	t->from_scan = from_scan;
	t->seen = true;
	f->targets[f->nr_targets++] = t;
	return t;
}

/* Opens t when the descriptor budget has room for it: events x CPUs for each cgroup beside the others
 * under RLIMIT_NOFILE. */
static void target_try_open(struct fleet *f, struct fleet_target *t)
{
	size_t need = fleet_fds_per_target(f);
	t->skipped = f->fds_used + need + FD_RESERVE > f->fd_limit;
	if (t->skipped) {
		f->skipped++;
		snprintf(f->budget_note, sizeof(f->budget_note),
		         "descriptor budget: each cgroup needs %zu descriptors (%zu events x %ld CPUs + its directory); "
		         "%zu are in use and RLIMIT_NOFILE allows %zu (less %d kept for HTTP): raise LimitNOFILE= "
		         "(ulimit -n), or count fewer events, CPUs (--cpus) or cgroups",
		         need, (need - 1) / (size_t)(f->nr_cpus ? f->nr_cpus : 1), f->nr_cpus, f->fds_used, f->fd_limit,
		         FD_RESERVE);
		snprintf(t->error, sizeof(t->error), "%s", f->budget_note);
		return;
	}
	if (target_open(f, t) == 0) {
		t->fds = need;
		f->fds_used += need;
	}
}

static void target_drop(struct fleet *f, size_t k)
{
	struct fleet_target *t = f->targets[k];
	f->fds_used -= t->counter ? t->fds : 0;
	target_close(t);
	free(t->carried);
	free(t->name);
	free(t);
	memmove(&f->targets[k], &f->targets[k + 1], (f->nr_targets - k - 1) * sizeof(f->targets[0]));
	f->nr_targets--;
}

static struct fleet_target *find_target(const struct fleet *f, const char *name)
{
	for (size_t k = 0; k < f->nr_targets; k++)
		if (f->targets[k]->name && strcmp(f->targets[k]->name, name) == 0)
			return f->targets[k];
	return NULL;
}

/* The descriptor limit: the soft one raised to the hard one, as the library does when it must. */
static size_t descriptor_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 1024;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur == RLIM_INFINITY ? (size_t)1 << 20 : (size_t)rl.rlim_cur;
}

/* --cpus names CPUs this machine has online, all of them, as tally stat -C asks: refused before anything
 * opens, and a reload that names others keeps the running configuration. */
static int check_online(const struct fleet *f, const tally_cpus *cpus, char *err, size_t err_len)
{
	if (tally_cpus_check_online(NULL, cpus) == 0)
		return 0;
	snprintf(err, err_len, "--cpus %s: %s", f->config.cpus, tally_last_error());
	return -1;
}

/* Which events the exposition shows: the first of each name and PMU, so that an event given and also
 * needed by a metric (cycles and IPC's {instructions,cycles}) is one series, not two of one label set. */
static int mark_shown(struct fleet *f, char *err, size_t err_len)
{
	if (!(f->shown = calloc(f->nr_events ? f->nr_events : 1, sizeof(*f->shown)))) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	const tally_events *events = tally_counter_events(f->model);
	for (size_t i = 0; i < f->nr_events; i++) {
		TALLY_OPTS(tally_event_info, a);
		tally_events_at(events, i, &a);
		bool first = true;
		for (size_t j = 0; first && j < i; j++) {
			TALLY_OPTS(tally_event_info, b);
			tally_events_at(events, j, &b);
			first = strcmp(tally_counter_name(f->model, i), tally_counter_name(f->model, j)) != 0 ||
			        strcmp(a.pmu ? a.pmu : "", b.pmu ? b.pmu : "") != 0;
		}
		f->shown[i] = first;
	}
	return 0;
}

int fleet_init(struct fleet *f, struct fleet_config *config, char *err, size_t err_len)
{
	memset(f, 0, sizeof(*f));
	f->config = *config;
	memset(config, 0, sizeof(*config));
	if (metric_set_resolve(&f->metrics, f->config.metrics, f->config.spec, &f->spec, err, err_len) < 0)
		return -1;
	/* The model opens once, for metric_set_check, which wants every event's status even where none opens. */
	TALLY_OPTS(tally_counter_opts, copts, .metrics = f->metrics.list.catalogue, .open_without_events = true);
	if (tally_counter_new(f->spec, &copts, &f->model) < 0) {
		snprintf(err, err_len, "bad event spec:\n%s", tally_last_error());
		return -1;
	}
	f->nr_events = tally_counter_count(f->model);
	if (metric_set_name(&f->metrics, f->model, err, err_len) < 0 || mark_shown(f, err, err_len) < 0)
		return -1;
	tally_cpus *cpus = NULL;
	int e = f->config.cpus ? tally_cpus_parse(f->config.cpus, &cpus) : tally_cpus_online(NULL, &cpus);
	if (e < 0) {
		snprintf(err, err_len, "CPUs: %s", tally_last_error());
		return -1;
	}
	if (f->config.cpus && check_online(f, cpus, err, err_len) < 0) {
		tally_cpus_free(cpus);
		return -1;
	}
	f->nr_cpus = (long)tally_cpus_count(cpus);
	char first[32] = "0";
	tally_cpus_format(cpus, first, sizeof(first));
	tally_cpus_free(cpus);
	if (metric_set_check(&f->metrics, f->config.metrics, f->model, atoi(first), err, err_len) < 0)
		return -1;
	f->fd_limit = descriptor_limit();
	if (f->config.nr_cgroups || f->config.nr_under) {
		config_name_canonically(&f->config);
		int n = tally_cgroup_mount(f->mount, sizeof(f->mount));
		if (n < 0 || (size_t)n >= sizeof(f->mount)) {
			snprintf(err, err_len, "%s", n < 0 ? tally_last_error() : "the cgroup mount point is too long");
			return -1;
		}
		size_t distinct = 0;
		for (size_t i = 0; i < f->config.nr_cgroups; i++) {
			size_t k = 0;
			while (k < i && strcmp(f->config.cgroups[k], f->config.cgroups[i]) != 0)
				k++;
			distinct += k == i;
		}
		size_t need = fleet_fds_per_target(f) * distinct + FD_RESERVE;
		if (need > f->fd_limit) {
			snprintf(err, err_len, "the %zu cgroups given need %zu descriptors (%zu each: events x %ld CPUs + "
			         "the directory, and %d for HTTP), and RLIMIT_NOFILE allows %zu: raise LimitNOFILE= "
			         "(ulimit -n), or count fewer events, CPUs (--cpus) or cgroups",
			         distinct, need, fleet_fds_per_target(f), f->nr_cpus, FD_RESERVE, f->fd_limit);
			return -1;
		}
		for (size_t i = 0; i < f->config.nr_cgroups; i++) {
			const char *label = f->config.cgroups[i];
			if (find_target(f, label))
				continue;
			if (!target_add(f, label, false)) {
				snprintf(err, err_len, "out of memory");
				return -1;
			}
		}
		fleet_scan(f);  /* opens them */
		return 0;
	}
	struct fleet_target *t = target_add(f, NULL, false);
	if (!t) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	target_try_open(f, t);
	if (!t->counter) {
		snprintf(err, err_len, "%s", t->error);
		return -1;
	}
	return 0;
}

/* One target's interval: a snapshot, and each part's scaled difference from the last one added. */
static void target_update(struct fleet *f, struct fleet_target *t, struct tally_part *parts,
                          struct tally_result *results)
{
	tally_snapshot *before = t->snap[t->base], *after = t->snap[1 - t->base];
	if (tally_counter_snapshot(t->counter, after) < 0) {
		snprintf(t->error, sizeof(t->error), "%s", tally_counter_last_error(t->counter));
		return;
	}
	t->last_read = fleet_now();
	int got = tally_snapshot_delta(before, after, results, f->nr_events, sizeof(results[0]));
	for (size_t i = 0; i < f->nr_events && got >= 0; i++) {
		if (t->status[i] != TALLY_STATUS_NOT_SUPPORTED)
			t->status[i] = results[i].status;
		int n = tally_snapshot_delta_parts(before, after, i, parts, t->nr_parts, sizeof(parts[0]));
		fleet_metrics_add(t, i, &results[i], parts, n > 0 ? (size_t)n : 0);
		for (int p = 0; p < n && (size_t)p < t->nr_parts; p++) {
			struct fleet_total *into = &t->totals[i * t->nr_parts + (size_t)p];
			into->cpu = parts[p].cpu;
			into->value += parts[p].value;
			into->enabled += parts[p].enabled;
			into->running += parts[p].running;
			/* A part that did not run in the interval has no value: it adds nothing. */
			if (parts[p].status == TALLY_STATUS_EXACT || parts[p].status == TALLY_STATUS_SCALED)
				into->scaled += (double)parts[p].scaled;
		}
	}
	t->base = 1 - t->base;
}

void fleet_update(struct fleet *f, bool interval_end)
{
	size_t most = 1;
	for (size_t k = 0; k < f->nr_targets; k++)
		if (f->targets[k]->nr_parts > most)
			most = f->targets[k]->nr_parts;
	struct tally_part *parts = calloc(most, sizeof(*parts));
	struct tally_result *results = calloc(f->nr_events ? f->nr_events : 1, sizeof(*results));
	for (size_t k = 0; parts && results && k < f->nr_targets; k++)
		if (f->targets[k]->counter)
			target_update(f, f->targets[k], parts, results);
	for (size_t k = 0; interval_end && k < f->nr_targets; k++)
		fleet_metrics_interval_end(f, f->targets[k]);
	free(parts);
	free(results);
	f->updates++;
}

/* The cgroups directly below one --cgroups-under directory: each is marked seen, the new ones added. */
static void scan_dir(struct fleet *f, const char *under)
{
	const char *rel = strcmp(under, "/") == 0 ? "" : under;
	char path[8192];
	snprintf(path, sizeof(path), "%s/%s", f->mount, rel);
	DIR *dir = opendir(path);
	if (!dir)
		return;
	for (struct dirent *d; (d = readdir(dir));) {
		if (d->d_type != DT_DIR || strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		char name[8192];
		snprintf(name, sizeof(name), "%s%s%s", rel, *rel ? "/" : "", d->d_name);
		struct fleet_target *t = find_target(f, name);
		if (t) {
			t->seen = true;
			continue;
		}
		target_add(f, name, true);  /* opened by the scan with the others not open */
	}
	closedir(dir);
}

/* Closes t's events, its totals kept to be carried over to the next cgroup of its name; its interval
 * since the last update is added first. */
static void target_retire(struct fleet *f, struct fleet_target *t, const char *why)
{
	struct tally_part *parts = calloc(t->nr_parts ? t->nr_parts : 1, sizeof(*parts));
	struct tally_result *results = calloc(f->nr_events ? f->nr_events : 1, sizeof(*results));
	if (parts && results)
		target_update(f, t, parts, results);
	free(parts);
	free(results);
	f->fds_used -= t->fds;
	t->fds = 0;
	free(t->carried);
	t->carried = t->totals;
	t->carried_parts = t->nr_parts;
	t->totals = NULL;
	target_close(t);
	snprintf(t->error, sizeof(t->error), "%s", why);
	t->logged = false;
}

/* An open cgroup whose directory is gone, or is another directory now: its events count nothing more
 * (the kernel keeps a removed cgroup, offline, until its last event is closed). */
static void check_identity(struct fleet *f, struct fleet_target *t)
{
	uint64_t dev = 0, ino = 0;
	int err = cgroup_identity(f, t->name, &dev, &ino);
	if (err < 0) {
		target_retire(f, t, "its directory is gone (removed): tried again at every interval");
	} else if (dev != t->dev || ino != t->ino) {
		target_retire(f, t, "");
		target_try_open(f, t);  /* the new directory under the name */
	}
}

void fleet_scan(struct fleet *f)
{
	f->skipped = 0;
	f->budget_note[0] = '\0';
	for (size_t k = 0; k < f->nr_targets; k++)
		f->targets[k]->seen = false;
	/* A cgroup removed while counted: its directory is gone and its series go with it. */
	for (size_t i = 0; i < f->config.nr_under; i++)
		scan_dir(f, f->config.under[i]);
	for (size_t k = f->nr_targets; k-- > 0;)
		if (f->targets[k]->from_scan && !f->targets[k]->seen)
			target_drop(f, k);
	for (size_t k = 0; k < f->nr_targets; k++) {
		struct fleet_target *t = f->targets[k];
		/* Not open: missing, gone before this scan, new, or skipped for want of descriptors (which
		 * the cgroups closed since may have freed). */
		if (t->name && t->counter)
			check_identity(f, t);
		else if (t->name)
			target_try_open(f, t);
	}
	f->scans++;
}

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

bool fleet_config_same_counting(const struct fleet_config *a, const struct fleet_config *b)
{
	/* From the machine to cgroups or back: other targets altogether. */
	bool a_cgroups = a->nr_cgroups || a->nr_under, b_cgroups = b->nr_cgroups || b->nr_under;
	return same_text(a->spec, b->spec) && same_text(a->cpus, b->cpus) && same_text(a->metrics, b->metrics) &&
	       a_cgroups == b_cgroups;
}

static bool given(const struct fleet *f, const char *label)
{
	for (size_t i = 0; i < f->config.nr_cgroups; i++)
		if (strcmp(f->config.cgroups[i], label) == 0)
			return true;
	return false;
}

void fleet_reconfigure(struct fleet *f, struct fleet_config *config)
{
	fleet_config_free(&f->config);
	f->config = *config;
	memset(config, 0, sizeof(*config));
	config_name_canonically(&f->config);
	for (size_t k = f->nr_targets; k-- > 0;)
		if (!f->targets[k]->from_scan && f->targets[k]->name && !given(f, f->targets[k]->name))
			target_drop(f, k);
	for (size_t i = 0; i < f->config.nr_cgroups; i++) {
		const char *label = f->config.cgroups[i];
		struct fleet_target *t = find_target(f, label);
		if (t) {
			t->from_scan = false;  /* now given: it stays when its directory is not listed */
			continue;
		}
		target_add(f, label, false);  /* opened by the scan */
	}
	fleet_scan(f);
}

void fleet_config_free(struct fleet_config *c)
{
	free(c->spec);
	free(c->cpus);
	free(c->metrics);
	for (size_t i = 0; i < c->nr_cgroups; i++)
		free(c->cgroups[i]);
	for (size_t i = 0; i < c->nr_under; i++)
		free(c->under[i]);
	free(c->cgroups);
	free(c->under);
	memset(c, 0, sizeof(*c));
}

void fleet_free(struct fleet *f)
{
	while (f->nr_targets)
		target_drop(f, f->nr_targets - 1);
	free(f->targets);
	tally_counter_free(f->model);
	metric_set_free(&f->metrics);
	free(f->spec);
	free(f->shown);
	fleet_config_free(&f->config);
	memset(f, 0, sizeof(*f));
}
