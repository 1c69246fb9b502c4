/* SPDX-License-Identifier: MIT */
#include "machine/tracefs.h"

#include "core/error.h"
#include "core/sys.h"
#include "core/sysfs_file.h"
#include "machine/pmu.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/events.h>

/* Where tracefs is mounted, relative to the sysfs root, in the order perf 6.1 tries them. */
static const char *const tracing_dirs[] = { "kernel/tracing", "kernel/debug/tracing" };

static int events_path(char path[static PATH_MAX], const char *root, const char *dir)
{
	int n = snprintf(path, PATH_MAX, "%s/%s/events", root, dir);
	if (n < 0 || n >= PATH_MAX)
		return tly_error(-ENAMETOOLONG, "tracefs path too long: %.64s.../%s/events", root, dir);
	return 0;
}

int tly_tracefs_find(const char *sysfs_root, struct tly_tracefs *tfs)
{
	int first_err = 0;
	for (size_t i = 0; i < sizeof(tracing_dirs) / sizeof(tracing_dirs[0]); i++) {
		int err = events_path(tfs->events, sysfs_root, tracing_dirs[i]);
		if (err)
			return err;
		DIR *d = tly_sys->opendir(tfs->events);
		if (d) {
			tly_sys->closedir(d);
			return 0;
		}
		err = errno ? -errno : -EIO;
		if (err != -ENOENT && !first_err)
			first_err = err;
		if (err == -EACCES)
			return tly_error(err,
			                 "cannot read %s: permission denied. tracefs lets only root in by default: run "
			                 "as root, or open it with `mount -o remount,mode=755 %s/%s`; counting other "
			                 "users' or all CPUs' tracepoints also needs CAP_PERFMON or a lower "
			                 "/proc/sys/kernel/perf_event_paranoid",
			                 tfs->events, sysfs_root, tracing_dirs[i]);
	}
	if (first_err)
		return tly_error(first_err, "cannot list the tracepoints under %s/%s/events: %s", sysfs_root,
		                 tracing_dirs[0], tally_strerror(first_err));
	/* Another root is a captured tree (TALLY_SYSFS_ROOT, a fixture): nothing is mounted there. */
	if (strcmp(sysfs_root, "/sys") != 0)
		return tly_error(-ENODEV,
		                 "tracefs is not mounted in the sysfs tree %s: neither %s/%s/events nor %s/%s/events "
		                 "exists. A captured tree holds its machine's tracepoints as "
		                 "%s/events/SYSTEM/EVENT/id, copied from that machine's /sys/%s/events",
		                 sysfs_root, sysfs_root, tracing_dirs[0], sysfs_root, tracing_dirs[1], tracing_dirs[0],
		                 tracing_dirs[0]);
	return tly_error(-ENODEV,
	                 "tracefs is not mounted: neither %s/%s/events nor %s/%s/events exists. Mount it (as root) "
	                 "with `mount -t tracefs nodev %s/%s`",
	                 sysfs_root, tracing_dirs[0], sysfs_root, tracing_dirs[1], sysfs_root, tracing_dirs[0]);
}

bool tly_tracefs_is_glob(const char *name)
{
	return strpbrk(name, "*?[") != NULL;
}

/* The number after "ID: " on a line of text (a format file's second line), or -1. */
static int format_id(const char *text, const char **digits)
{
	for (const char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (strncmp(line, "ID: ", 4) == 0) {
			*digits = line + 4;
			return 0;
		}
	}
	return -1;
}

int tly_tracefs_id(const struct tly_tracefs *tfs, const char *system, const char *event, uint64_t *id)
{
	char path[PATH_MAX], text[256];
	int n = snprintf(path, sizeof(path), "%s/%s/%s/id", tfs->events, system, event);
	if (n < 0 || (size_t)n >= sizeof(path) - strlen("format"))
		return -ENOENT;
	const char *digits = text;
	int len = tly_sysfs_read(path, text, sizeof(text), TLY_SYSFS_WHOLE);
	if (len == -ENOENT) {
		/* Some events have a format and no id file (ftrace:bprint and 15 more on 6.18, which cannot be
		 * opened): perf 6.1 takes the id from the format's "ID:" line for every event, so tally reads it
		 * there too, to encode them as perf does. */
		strcpy(path + n - strlen("id"), "format");
		len = tly_sysfs_read(path, text, sizeof(text), TLY_SYSFS_HEAD);
		if (len >= 0 && format_id(text, &digits) < 0)
			return tly_error(-TALLY_ESYSFS, "%s: no \"ID: \" line in its head", path);
	}
	if (len == -ENOENT || len == -ENOTDIR)
		return -ENOENT;
	if (len < 0)
		return tly_sysfs_error(path, len, sizeof(text));
	char *end;
	errno = 0;
	unsigned long long value = strtoull(digits, &end, 10);
	if (digits[0] < '0' || digits[0] > '9' || (*end && *end != '\n') || errno)
		return tly_error(-TALLY_ESYSFS, "%s: expected a tracepoint id, found \"%.*s\"", path,
		                 (int)strcspn(digits, "\n"), digits);
	*id = value;
	return 0;
}

/* Entries of the events directory and of a system's directory that are files, not tracepoints: perf
 * 6.1 skips the same names (parse-events.c, add_tracepoint_multi_sys and _multi_event). */
static bool is_control_file(const struct dirent *entry)
{
	static const char *const names[] = { ".", "..", "enable", "filter", "header_event", "header_page" };
	if (entry->d_type == DT_REG)
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(entry->d_name, names[i]))
			return true;
	return false;
}

static bool name_matches(const char *pattern, const char *name)
{
	return tly_tracefs_is_glob(pattern) ? fnmatch(pattern, name, 0) == 0 : strcmp(pattern, name) == 0;
}

struct walk {
	const struct tly_tracefs *tfs;
	const char *event;
	tly_tracepoint_fn fn;
	void *arg;
	size_t matched;
};

/* Calls visit for each entry of dir matching pattern, in directory order. */
static int each_entry(const char *dir, const char *pattern, struct walk *w, const char *system,
                      int (*visit)(struct walk *, const char *system, const char *name))
{
	DIR *d = tly_sys->opendir(dir);
	if (!d) {
		int err = errno ? -errno : -EIO;
		return tly_error(err, "cannot list %s: %s", dir, tally_strerror(err));
	}
	int ret = 0;
	for (;;) {
		errno = 0;
		struct dirent *entry = tly_sys->readdir(d);
		if (!entry) {
			if (errno)
				ret = tly_error(-errno, "cannot list %s: %s", dir, tally_strerror(errno));
			break;
		}
		if (is_control_file(entry) || !name_matches(pattern, entry->d_name))
			continue;
		ret = visit(w, system, entry->d_name);
		if (ret)
			break;
	}
	tly_sys->closedir(d);
	return ret;
}

static int visit_event(struct walk *w, const char *system, const char *event)
{
	w->matched++;
	return w->fn(system, event, w->arg);
}

static int visit_system(struct walk *w, const char *unused, const char *system)
{
	(void)unused;
	if (!w->event)
		return visit_event(w, system, NULL);
	if (!tly_tracefs_is_glob(w->event)) {
		/* One name: its id file says whether this system has it, without listing the system. */
		uint64_t id;
		int err = tly_tracefs_id(w->tfs, system, w->event, &id);
		if (err == -ENOENT)
			return 0;
		return err ? err : visit_event(w, system, w->event);
	}
	char dir[PATH_MAX];
	int n = snprintf(dir, sizeof(dir), "%s/%s", w->tfs->events, system);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return tly_error(-ENAMETOOLONG, "tracefs path too long: %.64s.../%s", w->tfs->events, system);
	return each_entry(dir, w->event, w, system, visit_event);
}

int tly_tracefs_walk(const struct tly_tracefs *tfs, const char *system, const char *event, tly_tracepoint_fn fn,
                     void *arg, size_t *matched)
{
	struct walk w = { .tfs = tfs, .event = event, .fn = fn, .arg = arg };
	int ret = each_entry(tfs->events, system, &w, NULL, visit_system);
	if (matched)
		*matched = w.matched;
	return ret;
}

int tally_tracepoints(const char *sysfs_root, tally_tracepoint_fn fn, void *arg)
{
	if (!fn)
		return tly_null_arg(__func__);
	struct tly_tracefs tfs;
	int err = tly_tracefs_find(sysfs_root ? sysfs_root : tly_default_sysfs_root(), &tfs);
	return err ? err : tly_tracefs_walk(&tfs, "*", "*", fn, arg, NULL);
}
