/* SPDX-License-Identifier: MIT */
#include "target/cgroup.h"

#include "core/error.h"
#include "core/sys.h"
#include "core/sysfs_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOUNTINFO "/proc/self/mountinfo"
/* A container host's mount table runs to some hundred lines of ~150 bytes. */
#define MOUNTINFO_MAX (256 * 1024)

/* One cgroup mount of /proc/self/mountinfo. */
struct cgroup_mount {
	char point[PATH_MAX];
	char options[256];   /* v1: the super options (the controllers); v2: "" */
	bool v2;
	bool too_long;       /* the point is PATH_MAX bytes or more: point holds its first bytes only */
};

/* Whether the comma-separated list has `word` as one of its items. */
static bool has_item(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* A mount point as mountinfo escapes it (octal \040 for a space, \011, \012, \134) into out; false when
 * it does not fit whole (out then holds its first size - 1 bytes). */
static bool unescape(const char *in, size_t len, char *out, size_t size)
{
	size_t o = 0, i = 0;
	for (; i < len && o + 1 < size; i++) {
		if (in[i] == '\\' && i + 3 < len && in[i + 1] >= '0' && in[i + 1] <= '3') {
			out[o++] = (char)((in[i + 1] - '0') * 64 + (in[i + 2] - '0') * 8 + (in[i + 3] - '0'));
			i += 3;
		} else {
			out[o++] = in[i];
		}
	}
	out[o] = '\0';
	return i == len;
}

/* Parses one line ("36 25 0:31 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu") into m; false for a
 * mount that is no cgroup hierarchy. */
static bool parse_line(const char *line, struct cgroup_mount *m)
{
	const char *field = line, *point = NULL;
	size_t point_len = 0;
	for (int i = 0; i < 4 && field; i++)
		field = (field = strchr(field, ' ')) ? field + 1 : NULL;
	if (!field)
		return false;
	point = field;
	point_len = strcspn(point, " ");
	/* The optional fields end at a lone "-"; then the type, the source and the super options. */
	const char *dash = strstr(point, " - ");
	if (!dash)
		return false;
	const char *type = dash + 3, *source = strchr(type, ' ');
	const char *options = source ? strchr(source + 1, ' ') : NULL;
	size_t type_len = source ? (size_t)(source - type) : strlen(type);
	if (type_len == 7 && strncmp(type, "cgroup2", 7) == 0)
		m->v2 = true;
	else if (type_len == 6 && strncmp(type, "cgroup", 6) == 0)
		m->v2 = false;
	else
		return false;
	m->too_long = !unescape(point, point_len, m->point, sizeof(m->point));
	snprintf(m->options, sizeof(m->options), "%s", m->v2 || !options ? "" : options + 1);
	return true;
}

typedef bool (*mount_visit)(const struct cgroup_mount *m, void *arg);

/* Calls visit for every cgroup mount until it returns true; returns 1 then, 0 when none did. */
static int each_mount(mount_visit visit, void *arg)
{
	char *text = malloc(MOUNTINFO_MAX);
	struct cgroup_mount *m = malloc(sizeof(*m));
	if (!text || !m) {
		free(text);
		free(m);
		return tly_error(-ENOMEM, "reading " MOUNTINFO ": out of memory");
	}
	int n = tly_sysfs_read(MOUNTINFO, text, MOUNTINFO_MAX, TLY_SYSFS_WHOLE);
	int found = n < 0 ? tly_sysfs_error(MOUNTINFO, n, MOUNTINFO_MAX) : 0;
	for (char *line = text, *end; n >= 0 && !found && line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (end)
			*end = '\0';
		if (parse_line(line, m) && visit(m, arg))
			found = 1;
	}
	free(text);
	free(m);
	return found;
}

struct perf_event_mounts {
	char v1[PATH_MAX];
	char v2[PATH_MAX];
	bool v1_too_long, v2_too_long;
};

static bool note_perf_event_mount(const struct cgroup_mount *m, void *arg)
{
	struct perf_event_mounts *found = arg;
	if (m->v2 && !found->v2[0]) {
		snprintf(found->v2, sizeof(found->v2), "%s", m->point);
		found->v2_too_long = m->too_long;
	}
	if (!m->v2 && !found->v1[0] && has_item(m->options, "perf_event")) {
		snprintf(found->v1, sizeof(found->v1), "%s", m->point);
		found->v1_too_long = m->too_long;
	}
	return false;
}

int tally_cgroup_mount(char *buf, size_t len)
{
	if (!buf && len)
		return tly_null_arg(__func__);
	struct perf_event_mounts found = { "", "", false, false };
	int err = each_mount(note_perf_event_mount, &found);
	if (err < 0)
		return err;
	/* A controller bound to a v1 hierarchy is absent from v2 (a cgroup2 mount then exists for the
	 * others, but perf_event_open refuses its directories): v1's perf_event mount comes first, as in
	 * perf's cgroupfs_find_mountpoint. */
	const char *point = found.v1[0] ? found.v1 : found.v2;
	if (!point[0])
		return tly_error(-ENOENT, "no cgroup hierarchy that counts perf events is mounted: neither cgroup2 "
		                 "nor a cgroup v1 hierarchy with the perf_event controller appears in "
		                 MOUNTINFO " (mount -t cgroup2 none /sys/fs/cgroup)");
	/* No path under such a mount point can be opened (ENAMETOOLONG); its first bytes name another folder. */
	if (found.v1[0] ? found.v1_too_long : found.v2_too_long)
		return tly_error(-ENAMETOOLONG, "the cgroup hierarchy's mount point in " MOUNTINFO " is %d bytes or "
		                 "longer, which no path may be: %.60s...", PATH_MAX, point);
	if (len)
		snprintf(buf, len, "%s", point);
	return (int)strlen(point);
}

/* The cgroup mount a path lies in, for explaining a path outside the perf_event hierarchy. */
struct mount_of_path {
	const char *path;
	struct cgroup_mount mount;
	size_t best;
};

static bool note_mount_of_path(const struct cgroup_mount *m, void *arg)
{
	struct mount_of_path *w = arg;
	size_t n = strlen(m->point);
	if (!m->too_long && n > w->best && strncmp(w->path, m->point, n) == 0 && (w->path[n] == '/' || w->path[n] == '\0')) {
		w->mount = *m;
		w->best = n;
	}
	return false;
}

/* Whether path begins with the directory dir (equal to it, or dir followed by '/'). */
static bool is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0' || (n == 1 && dir[0] == '/'));
}

/* Whether the relative path rel climbs above its start ("..", "a/../.."): such a name leaves the hierarchy,
 * and the kernel's answer to the directory it reaches (EBADF) would not say why. Lexical: cgroupfs has no
 * symbolic links. */
static bool climbs_out(const char *rel)
{
	long depth = 0;
	for (const char *p = rel; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			depth--;
		else if (n && !(n == 1 && p[0] == '.'))
			depth++;
		if (depth < 0)
			return true;
		p += n + (p[n] == '/');
	}
	return false;
}

/* The part of name below the mount point (the whole name when it does not start with it), after the
 * checks every name gets: not empty, not climbing out of the hierarchy. */
static int name_below_mount(const char *mount, const char *name, const char **rel)
{
	if (!name || !*name)
		return tly_error(-EINVAL, "cgroup: an empty name (\"/\" is the root of %s)", mount);
	*rel = is_under(name, mount) ? name + strlen(mount) : name;
	if (climbs_out(*rel))
		return tly_error(-EINVAL, "cgroup '%s' climbs out of the perf_event cgroup hierarchy at %s: name a "
		                 "cgroup under it (relative to it, or as a path that starts with it)", name, mount);
	return 0;
}

int tally_cgroup_name(const char *name, char *buf, size_t len)
{
	if (!buf && len)
		return tly_null_arg(__func__);
	char mount[PATH_MAX];
	int n = tally_cgroup_mount(mount, sizeof(mount));
	if (n < 0)
		return n;
	const char *rel;
	int err = name_below_mount(mount, name, &rel);
	if (err < 0)
		return err;
	/* Components one by one into out, ".." taking the last one back (climbs_out said it has one). */
	size_t out_len = 0, rel_len = strlen(rel);
	char *out = malloc(rel_len + 2);
	if (!out)
		return tly_error(-ENOMEM, "cgroup '%s': out of memory", name);
	for (const char *p = rel; *p;) {
		size_t k = strcspn(p, "/");
		if (k == 2 && p[0] == '.' && p[1] == '.') {
			while (out_len && out[out_len - 1] != '/')
				out_len--;
			out_len -= out_len > 0;
		} else if (k && !(k == 1 && p[0] == '.')) {
			if (out_len)
				out[out_len++] = '/';
			memcpy(out + out_len, p, k);
			out_len += k;
		}
		p += k + (p[k] == '/');
	}
	if (!out_len)
		out[out_len++] = '/';
	out[out_len] = '\0';
	if (len)
		snprintf(buf, len, "%s", out);
	free(out);
	return (int)out_len;
}

int tly_cgroup_open(const char *mount, const char *name, int *fd)
{
	*fd = -1;
	const char *rel;
	int err = name_below_mount(mount, name, &rel);
	if (err < 0)
		return err;
	char path[PATH_MAX];
	int n = is_under(name, mount) ? snprintf(path, sizeof(path), "%s", name)
	                              : snprintf(path, sizeof(path), "%s/%s", mount, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return tly_error(-ENAMETOOLONG, "cgroup '%s': the path is too long", name);
	if (name[0] == '/' && !is_under(name, mount)) {
		/* perf's rule makes "/a" the cgroup a of the perf_event hierarchy; a path into another
		 * cgroup hierarchy is almost certainly meant as such, and counting would silently fail. */
		struct mount_of_path w = { .path = name };
		err = each_mount(note_mount_of_path, &w);
		if (err < 0)
			return err;
		if (w.best && strcmp(w.mount.point, mount) != 0)
			return tly_error(-EBADF, "cgroup '%s' lies in the %s hierarchy mounted at %s (%s), which has "
			                 "no perf_event controller: perf events count in cgroups under %s",
			                 name, w.mount.v2 ? "cgroup v2" : "cgroup v1", w.mount.point,
			                 w.mount.v2 ? "perf_event is bound to a v1 hierarchy" : w.mount.options,
			                 mount);
	}
	int d;
	do
		d = tly_sys->open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	while (d < 0 && errno == EINTR);
	if (d < 0) {
		int e = errno ? errno : EIO;
		if (e == ENOENT)
			return tly_error(-ENOENT, "cgroup '%s' does not exist: no directory %s (names are relative to "
			                 "the perf_event cgroup hierarchy at %s)", name, path, mount);
		if (e == ENOTDIR)
			return tly_error(-ENOTDIR, "cgroup '%s': %s is not a directory", name, path);
		return tly_error(-e, "cgroup '%s': cannot open %s: %s", name, path, tally_strerror(-e));
	}
	*fd = d;
	return 0;
}
