/* SPDX-License-Identifier: MIT */
/*
 * PMU discovery: a snapshot of <root>/bus/event_source/devices, one entry per PMU directory.
 *
 *   devices/<pmu>/type        perf_event_attr.type (required)
 *   devices/<pmu>/cpus        CPUs of a core PMU on hybrid x86 (5.13+) and arm64 (optional)
 *   devices/<pmu>/cpumask     the CPU(s) an uncore-style PMU counts on (optional)
 *   devices/<pmu>/format/<term>   term -> config bits (pmu_format.c)
 *   devices/<pmu>/events/<name>   named aliases, with <name>.scale/.unit/.per-pkg/.snapshot companions
 *   devices/<pmu>/caps/<cap>      capabilities (max_precise, pmu_name, slots, ...)
 *
 * tally_pmus_load lists the PMUs by name; each part of a PMU (its type; whether it is a core PMU; its
 * details) is read the first time something asks for it (tly_pmu_read), under the snapshot's lock:
 * `tally stat -e task-clock` reads the software PMU's type only, not every uncore PMU's hundreds of
 * files. Every file is read through sysfs_file.c (the syscall table: fault injection). Any number of
 * threads may use a snapshot at once.
 */
#include "machine/pmu.h"

#include "core/error.h"
#include "core/opts.h"
#include "core/sys.h"
#include "core/sysfs_file.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* sysfs attributes are at most one page; one more byte tells a full page from a truncated read. */
#define SYSFS_FILE_MAX 4096

/* Scratch space of one read of a PMU part: a path and a file's content, kept off the stack of each helper. */
struct loader {
	char path[PATH_MAX];
	char text[SYSFS_FILE_MAX + 1];
};

const char *tly_default_sysfs_root(void)
{
	/* secure_getenv: in a set-uid or file-capability program (AT_SECURE) the variable is the unprivileged
	 * caller's, and a tree of theirs would make the program read (and echo in errors) any file it may
	 * read. getenv is safe here as long as nobody calls setenv concurrently, as for any libc user. */
	const char *root = secure_getenv("TALLY_SYSFS_ROOT");
	return root && root[0] ? root : "/sys";
}

static int join_path(char path[static PATH_MAX], const char *dir, const char *name)
{
	if (tly_path_join(path, PATH_MAX, dir, name))
		return tly_error(-ENAMETOOLONG, "sysfs path too long (over %d bytes): %.64s.../%s", PATH_MAX - 1, dir,
		                 name);
	return 0;
}

/* Reads <dir>/<name> into ld->text. Returns its length; -ENOENT (recording nothing) when the file is
 * absent and optional; another negative code with a recorded error otherwise. */
static int read_attr(struct loader *ld, const char *dir, const char *name, bool optional)
{
	int err = join_path(ld->path, dir, name);
	if (err)
		return err;
	int len = tly_sysfs_read(ld->path, ld->text, sizeof(ld->text), TLY_SYSFS_WHOLE);
	if (len == -ENOENT && optional)
		return len;
	if (len == -EFBIG)
		return tly_error(-TALLY_ESYSFS, "%s: larger than a sysfs page (%d bytes)", ld->path,
		                 SYSFS_FILE_MAX);
	return len < 0 ? tly_sysfs_error(ld->path, len, sizeof(ld->text)) : len;
}

static int dup_text(const char *text, char **out)
{
	*out = strdup(text);
	return *out ? 0 : tly_error(-ENOMEM, "out of memory");
}

/* Copies the content of an optional file <dir>/<name>; *out stays NULL when there is none. */
static int read_optional(struct loader *ld, const char *dir, const char *name, char **out)
{
	int len = read_attr(ld, dir, name, true);
	if (len == -ENOENT)
		return 0;
	return len < 0 ? len : dup_text(ld->text, out);
}

struct name_list {
	char **names;
	size_t nr;
};

static void name_list_free(struct name_list *list)
{
	for (size_t i = 0; i < list->nr; i++)
		free(list->names[i]);
	free(list->names);
	list->names = NULL;
	list->nr = 0;
}

static int name_list_add(struct name_list *list, const char *name, size_t *cap)
{
	if (list->nr == *cap) {
		size_t new_cap = *cap ? *cap * 2 : 16;
		char **grown = realloc(list->names, new_cap * sizeof(*grown));
		if (!grown)
			return tly_error(-ENOMEM, "out of memory");
		list->names = grown;
		*cap = new_cap;
	}
	list->names[list->nr] = strdup(name);
	if (!list->names[list->nr])
		return tly_error(-ENOMEM, "out of memory");
	list->nr++;
	return 0;
}

/* Lists the entries of dir (not "." and ".."; not subdirectories when files_only). The names are read
 * whole before anything is opened, so no directory stays open while files are read. An absent optional
 * directory is an empty list. */
static int list_dir(const char *dir, bool optional, bool files_only, struct name_list *list)
{
	list->names = NULL;
	list->nr = 0;
	DIR *d = tly_sys->opendir(dir);
	if (!d) {
		int err = errno ? -errno : -EIO;
		if (err == -ENOENT && optional)
			return 0;
		return tly_error(err, "cannot list %s: %s", dir, tally_strerror(err));
	}
	size_t cap = 0;
	int err = 0;
	for (;;) {
		errno = 0;
		struct dirent *entry = tly_sys->readdir(d);
		if (!entry) {
			if (errno)
				err = tly_error(-errno, "cannot list %s: %s", dir, tally_strerror(errno));
			break;
		}
		if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, ".."))
			continue;
		if (files_only && entry->d_type == DT_DIR)
			continue;
		err = name_list_add(list, entry->d_name, &cap);
		if (err)
			break;
	}
	tly_sys->closedir(d);
	if (err)
		name_list_free(list);
	return err;
}

/* Lists the files of the optional directory <pmu_dir>/<sub> (format, events, caps); its path goes to dir. */
static int list_pmu_subdir(const char *pmu_dir, const char *sub, char dir[static PATH_MAX],
                           struct name_list *files)
{
	int err = join_path(dir, pmu_dir, sub);
	return err ? err : list_dir(dir, true, true, files);
}

static int parse_type(const char *path, const char *text, uint32_t *type)
{
	char *end;
	errno = 0;
	unsigned long value = strtoul(text, &end, 10);
	if (text[0] < '0' || text[0] > '9' || *end || errno || value > UINT32_MAX)
		return tly_error(-TALLY_ESYSFS, "%s: expected a PMU type number, found \"%s\"", path, text);
	*type = (uint32_t)value;
	return 0;
}

int tly_alias_parse_scale(const char *text, double *scale)
{
	/* The kernel writes "2.3283064365386962890625e-10" whatever the locale; strtod would read it by
	 * LC_NUMERIC, which a caller may have set to a decimal comma. */
	locale_t c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (c_locale == (locale_t)0)
		return -ENOMEM;
	char *end;
	double value = strtod_l(text, &end, c_locale);
	freelocale(c_locale);
	if (end == text || *end || !isfinite(value) || !(value > 0))
		return -EINVAL;
	*scale = value;
	return 0;
}

int tly_alias_parse_flag(const char *text, bool *flag)
{
	if (strcmp(text, "1") && strcmp(text, "0"))
		return -EINVAL;
	*flag = text[0] == '1';
	return 0;
}

static int by_format_name(const void *a, const void *b)
{
	return strcmp(((const struct tly_format *)a)->name, ((const struct tly_format *)b)->name);
}

static int by_alias_name(const void *a, const void *b)
{
	return strcmp(((const struct tly_alias *)a)->name, ((const struct tly_alias *)b)->name);
}

static int by_cap_name(const void *a, const void *b)
{
	return strcmp(((const struct tly_cap *)a)->name, ((const struct tly_cap *)b)->name);
}

static int by_pmu_name(const void *a, const void *b)
{
	return strcmp(((const struct tally_pmu *)a)->name, ((const struct tally_pmu *)b)->name);
}

static int load_formats(struct loader *ld, const char *pmu_dir, struct tally_pmu *pmu)
{
	char dir[PATH_MAX];
	struct name_list files;
	int err = list_pmu_subdir(pmu_dir, "format", dir, &files);
	if (err || files.nr == 0)
		return err;
	pmu->formats = calloc(files.nr, sizeof(*pmu->formats));
	if (!pmu->formats)
		err = tly_error(-ENOMEM, "out of memory");
	for (size_t i = 0; !err && i < files.nr; i++) {
		err = read_attr(ld, dir, files.names[i], false);
		if (err < 0)
			break;
		struct tly_format format = { 0 };
		err = tly_format_parse(ld->text, &format.field, &format.mask);
		if (err == -EOPNOTSUPP) {
			tly_log(TALLY_LOG_DEBUG, "%s: %s; term left out", ld->path, tly_format_reason(err));
			err = 0;
			continue;
		}
		if (err) {
			err = tly_error(-TALLY_ESYSFS, "%s: \"%s\" %s", ld->path, ld->text,
			                tly_format_reason(err));
			break;
		}
		struct tly_format *slot = &pmu->formats[pmu->nr_formats++];
		*slot = format;
		err = dup_text(files.names[i], &slot->name);
		if (!err)
			err = dup_text(ld->text, &slot->text);
	}
	name_list_free(&files);
	if (!err)
		qsort(pmu->formats, pmu->nr_formats, sizeof(*pmu->formats), by_format_name);
	return err;
}

static int load_caps(struct loader *ld, const char *pmu_dir, struct tally_pmu *pmu)
{
	char dir[PATH_MAX];
	struct name_list files;
	int err = list_pmu_subdir(pmu_dir, "caps", dir, &files);
	if (err || files.nr == 0)
		return err;
	pmu->caps = calloc(files.nr, sizeof(*pmu->caps));
	if (!pmu->caps)
		err = tly_error(-ENOMEM, "out of memory");
	for (size_t i = 0; !err && i < files.nr; i++) {
		err = read_attr(ld, dir, files.names[i], false);
		if (err < 0)
			break;
		struct tly_cap *slot = &pmu->caps[pmu->nr_caps++];
		err = dup_text(files.names[i], &slot->name);
		if (!err)
			err = dup_text(ld->text, &slot->value);
	}
	name_list_free(&files);
	if (!err)
		qsort(pmu->caps, pmu->nr_caps, sizeof(*pmu->caps), by_cap_name);
	return err;
}

/* The companion files of an alias, by suffix: events/<name>.<suffix>. */
enum companion { NOT_COMPANION, SCALE, UNIT, PER_PKG, SNAPSHOT };

static enum companion companion_kind(const char *file, size_t *alias_len)
{
	static const struct {
		const char *suffix;
		enum companion kind;
	} suffixes[] = {
		{ ".scale", SCALE },
		{ ".unit", UNIT },
		{ ".per-pkg", PER_PKG },
		{ ".snapshot", SNAPSHOT },
	};
	size_t len = strlen(file);
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t suffix_len = strlen(suffixes[i].suffix);
		if (len > suffix_len && !strcmp(file + len - suffix_len, suffixes[i].suffix)) {
			*alias_len = len - suffix_len;
			return suffixes[i].kind;
		}
	}
	return NOT_COMPANION;
}

static int apply_companion(struct loader *ld, struct tly_alias *alias, enum companion kind)
{
	int err = 0;
	switch (kind) {
	case SCALE:
		err = tly_alias_parse_scale(ld->text, &alias->scale);
		if (err == -EINVAL)
			return tly_error(-TALLY_ESYSFS, "%s: expected a positive number, found \"%s\"",
			                 ld->path, ld->text);
		return err ? tly_error(err, "%s: cannot make a C locale to read it", ld->path) : 0;
	case UNIT:
		free(alias->unit);
		return dup_text(ld->text, &alias->unit);
	case PER_PKG:
		err = tly_alias_parse_flag(ld->text, &alias->per_pkg);
		break;
	case SNAPSHOT:
		err = tly_alias_parse_flag(ld->text, &alias->snapshot);
		break;
	case NOT_COMPANION:
		break;
	}
	if (err)
		return tly_error(-TALLY_ESYSFS, "%s: expected 1 or 0, found \"%s\"", ld->path, ld->text);
	return 0;
}

/* The alias called name among those read so far (sorted); the details are being read, so not through
 * tly_pmu_alias, which would wait for them. */
static struct tly_alias *find_alias(struct tally_pmu *pmu, const char *name)
{
	struct tly_alias key = { .name = (char *)name };
	if (!pmu->nr_aliases)
		return NULL;
	return bsearch(&key, pmu->aliases, pmu->nr_aliases, sizeof(key), by_alias_name);
}

static int load_aliases(struct loader *ld, const char *pmu_dir, struct tally_pmu *pmu)
{
	char dir[PATH_MAX];
	struct name_list files;
	int err = list_pmu_subdir(pmu_dir, "events", dir, &files);
	if (err || files.nr == 0)
		return err;
	pmu->aliases = calloc(files.nr, sizeof(*pmu->aliases));
	if (!pmu->aliases)
		err = tly_error(-ENOMEM, "out of memory");

	/* First the aliases themselves, then their companions: readdir order puts no file first. */
	size_t alias_len;
	for (size_t i = 0; !err && i < files.nr; i++) {
		if (companion_kind(files.names[i], &alias_len) != NOT_COMPANION)
			continue;
		err = read_attr(ld, dir, files.names[i], false);
		if (err < 0)
			break;
		struct tly_alias *slot = &pmu->aliases[pmu->nr_aliases++];
		slot->scale = 1.0;
		err = dup_text(files.names[i], &slot->name);
		if (!err)
			err = dup_text(ld->text, &slot->terms);
	}
	if (!err)
		qsort(pmu->aliases, pmu->nr_aliases, sizeof(*pmu->aliases), by_alias_name);

	for (size_t i = 0; !err && i < files.nr; i++) {
		enum companion kind = companion_kind(files.names[i], &alias_len);
		if (kind == NOT_COMPANION)
			continue;
		char alias_name[NAME_MAX + 1];
		snprintf(alias_name, sizeof(alias_name), "%.*s", (int)alias_len, files.names[i]);
		struct tly_alias *alias = find_alias(pmu, alias_name);
		if (!alias) {
			/* perf ignores these as well; nothing can use a companion of no event. */
			tly_log(TALLY_LOG_DEBUG, "%s/%s: no event %s; ignored", dir, files.names[i],
			        alias_name);
			continue;
		}
		err = read_attr(ld, dir, files.names[i], false);
		if (err >= 0)
			err = apply_companion(ld, alias, kind);
	}
	name_list_free(&files);
	return err < 0 ? err : 0;
}

bool tly_pmu_is_software_context(const char *pmu)
{
	static const char *const names[] = { "software", "tracepoint", "breakpoint", "kprobe", "uprobe", "msr" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(pmu, names[i]) == 0)
			return true;
	return false;
}

static bool is_core_pmu(const struct tally_pmu *pmu)
{
	/* "cpu" is the one core PMU of a homogeneous x86 machine, and has no `cpus` file. Core PMUs of
	 * hybrid x86 (cpu_core, cpu_atom: Linux 5.13) and of arm64 (armv8_pmuv3_0, armv8_cortex_a53, ...)
	 * list their CPUs in `cpus`. s390's counter facility "cpum_cf" has neither (perf checks it by name,
	 * as here). */
	return !strcmp(pmu->name, "cpu") || !strcmp(pmu->name, "cpum_cf") || pmu->cpus != NULL;
}

/* TLY_PMU_TYPE: `type`, which every PMU has. */
static int load_type(struct loader *ld, const char *dir, struct tally_pmu *pmu)
{
	int len = read_attr(ld, dir, "type", true);
	if (len == -ENOENT)
		return tly_error(-TALLY_ESYSFS, "%s: missing; every PMU has one", ld->path);
	return len < 0 ? len : parse_type(ld->path, ld->text, &pmu->type);
}

/* TLY_PMU_CORE: whether it is a core PMU, from its name or its `cpus`. Only a core PMU has `cpus`: not
 * looking for it where the kernel never puts one saves an open of sysfs per software PMU (several
 * microseconds each). */
static int load_core(struct loader *ld, const char *dir, struct tally_pmu *pmu)
{
	int err = tly_pmu_is_software_context(pmu->name) ? 0 : read_optional(ld, dir, "cpus", &pmu->cpus);
	pmu->is_core = is_core_pmu(pmu);
	return err;
}

static int load_details(struct loader *ld, const char *dir, struct tally_pmu *pmu)
{
	int err = read_optional(ld, dir, "cpumask", &pmu->cpumask);
	if (!err)
		err = load_formats(ld, dir, pmu);
	if (!err)
		err = load_aliases(ld, dir, pmu);
	if (!err)
		err = load_caps(ld, dir, pmu);
	return err;
}

static void details_release(struct tally_pmu *pmu)
{
	for (size_t i = 0; i < pmu->nr_formats; i++) {
		free(pmu->formats[i].name);
		free(pmu->formats[i].text);
	}
	free(pmu->formats);
	for (size_t i = 0; i < pmu->nr_aliases; i++) {
		free(pmu->aliases[i].name);
		free(pmu->aliases[i].terms);
		free(pmu->aliases[i].unit);
	}
	free(pmu->aliases);
	for (size_t i = 0; i < pmu->nr_caps; i++) {
		free(pmu->caps[i].name);
		free(pmu->caps[i].value);
	}
	free(pmu->caps);
	free(pmu->cpumask);
	pmu->formats = NULL;
	pmu->aliases = NULL;
	pmu->caps = NULL;
	pmu->cpumask = NULL;
	pmu->nr_formats = pmu->nr_aliases = pmu->nr_caps = 0;
}

/* What a failed read of a part leaves: nothing of it. */
static void part_release(struct tally_pmu *pmu, enum tly_pmu_part part)
{
	if (part == TLY_PMU_CORE) {
		free(pmu->cpus);
		pmu->cpus = NULL;
		pmu->is_core = false;
	} else if (part == TLY_PMU_DETAILS) {
		details_release(pmu);
	}
}

static void pmu_release(struct tally_pmu *pmu)
{
	details_release(pmu);
	tly_pmu_table_release(pmu);
	for (int part = 0; part < TLY_PMU_NR_PARTS; part++)
		free(pmu->error[part]);
	free(pmu->cpus);
	free(pmu->name);
}

static int load_part(struct tally_pmu *pmu, enum tly_pmu_part part)
{
	static int (*const loaders[TLY_PMU_NR_PARTS])(struct loader *, const char *, struct tally_pmu *) = {
		[TLY_PMU_TYPE] = load_type,
		[TLY_PMU_CORE] = load_core,
		[TLY_PMU_DETAILS] = load_details,
	};
	char dir[PATH_MAX];
	struct loader *ld = malloc(sizeof(*ld));
	if (!ld)
		return tly_error(-ENOMEM, "out of memory");
	int err = join_path(ld->path, pmu->owner->sysfs_root, "bus/event_source/devices");
	if (!err)
		err = join_path(dir, ld->path, pmu->name);
	if (!err)
		err = loaders[part](ld, dir, pmu);
	free(ld);
	return err;
}

int tly_pmu_read(const struct tally_pmu *cpmu, enum tly_pmu_part part)
{
	/* The snapshot is const to its users; reading a part once is not a change they can see. The lock is
	 * taken at every call, not only the first: uncontended it costs tens of nanoseconds, this is not a hot
	 * path, and a plain lock is what race detectors (helgrind, TSan) can check. */
	struct tally_pmu *pmu = (struct tally_pmu *)cpmu;
	int state = 1;
	enum tly_pmu_part failed = part;
	pthread_mutex_lock(&pmu->owner->lock);
	/* The details come with the other parts: code that holds them reads every field. */
	enum tly_pmu_part first = part == TLY_PMU_DETAILS ? TLY_PMU_TYPE : part;
	for (int p = (int)first; p <= (int)part && state > 0; p++) {
		if (pmu->state[p] == 0) {
			int err = load_part(pmu, (enum tly_pmu_part)p);
			if (err) {
				part_release(pmu, (enum tly_pmu_part)p);
				pmu->error[p] = strdup(tally_last_error());
			}
			pmu->state[p] = err ? err : 1;
		}
		state = pmu->state[p];
		failed = (enum tly_pmu_part)p;
	}
	pthread_mutex_unlock(&pmu->owner->lock);
	if (state < 0)
		return tly_error(state, "%s", pmu->error[failed] ? pmu->error[failed] : "PMU: out of memory");
	return 0;
}

int tly_pmu_details(const struct tally_pmu *pmu)
{
	return tly_pmu_read(pmu, TLY_PMU_DETAILS);
}

bool tly_pmu_is_core(const struct tally_pmu *pmu)
{
	return tly_pmu_read(pmu, TLY_PMU_CORE) == 0 && pmu->is_core;
}

void tally_pmus_free(tally_pmus *pmus)
{
	if (!pmus)
		return;
	for (size_t i = 0; i < pmus->nr; i++)
		pmu_release(&pmus->pmus[i]);
	free(pmus->pmus);
	tly_pmu_tables_free(pmus->tables);
	free(pmus->sysmap);
	free(pmus->list_error);
	free(pmus->sysfs_root);
	pthread_mutex_destroy(&pmus->lock);
	free(pmus);
}

static int devices_dir(const tally_pmus *pmus, char devices[static PATH_MAX])
{
	return join_path(devices, pmus->sysfs_root, "bus/event_source/devices");
}

static int list_names(tally_pmus *pmus)
{
	char devices[PATH_MAX];
	int err = devices_dir(pmus, devices);
	if (err)
		return err;
	struct name_list names;
	err = list_dir(devices, false, false, &names);
	if (err == -ENOENT)
		tly_error_append(" (is sysfs mounted there? the root comes from tally_pmus_opts.sysfs_root, "
		                 "$TALLY_SYSFS_ROOT or /sys)");
	if (err || names.nr == 0)
		return err;
	pmus->pmus = calloc(names.nr, sizeof(*pmus->pmus));
	if (!pmus->pmus)
		err = tly_error(-ENOMEM, "out of memory");
	/* Only the names: each PMU's files are read when first asked for (tly_pmu_read). */
	for (size_t i = 0; !err && i < names.nr; i++) {
		struct tally_pmu *pmu = &pmus->pmus[pmus->nr++];
		pmu->owner = pmus;
		err = dup_text(names.names[i], &pmu->name);
	}
	name_list_free(&names);
	if (!err)
		qsort(pmus->pmus, pmus->nr, sizeof(*pmus->pmus), by_pmu_name);
	return err;
}

int tly_pmus_list(const struct tally_pmus *cpmus)
{
	/* Const to its users, as the parts of a PMU are (tly_pmu_read). */
	tally_pmus *pmus = (tally_pmus *)cpmus;
	pthread_mutex_lock(&pmus->lock);
	if (pmus->list_state == 0) {
		int err = list_names(pmus);
		if (err) {
			for (size_t i = 0; i < pmus->nr; i++)
				pmu_release(&pmus->pmus[i]);
			free(pmus->pmus);
			pmus->pmus = NULL;
			pmus->nr = 0;
			pmus->list_error = strdup(tally_last_error());
		}
		pmus->list_state = err ? err : 1;
	}
	int state = pmus->list_state;
	pthread_mutex_unlock(&pmus->lock);
	if (state < 0)
		return tly_error(state, "%s", pmus->list_error ? pmus->list_error : "PMUs: out of memory");
	return 0;
}

int tly_pmus_new(const char *sysfs_root, tally_pmus **out)
{
	*out = NULL;
	tally_pmus *pmus = calloc(1, sizeof(*pmus));
	if (!pmus)
		return tly_error(-ENOMEM, "out of memory");
	pthread_mutex_init(&pmus->lock, NULL);
	int err = 0;
	if (!(pmus->sysfs_root = strdup(sysfs_root ? sysfs_root : tly_default_sysfs_root())))
		err = tly_error(-ENOMEM, "out of memory");
	if (err) {
		tally_pmus_free(pmus);
		return err;
	}
	*out = pmus;
	return 0;
}

int tally_pmus_load(const struct tally_pmus_opts *opts, tally_pmus **out)
{
	if (!out)
		return tly_error(-EINVAL, "tally_pmus_load: out is NULL");
	*out = NULL;
	if (!TLY_OPTS_VALID(opts, tally_pmus_opts))
		return -TALLY_EOPTS;
	/* The names are listed here, so that a snapshot handed to the caller has no failure left to give
	 * but a PMU's own (tally_pmus_count cannot report one). */
	tally_pmus *pmus;
	int err = tly_pmus_new(TLY_OPT(opts, sysfs_root, NULL), &pmus);
	if (!err && (err = tly_pmus_list(pmus)) != 0)
		tally_pmus_free(pmus);
	if (!err)
		*out = pmus;
	return err;
}

size_t tally_pmus_count(const tally_pmus *pmus)
{
	return pmus && tly_pmus_list(pmus) == 0 ? pmus->nr : 0;
}

const tally_pmu *tally_pmus_at(const tally_pmus *pmus, size_t i)
{
	return i < tally_pmus_count(pmus) ? &pmus->pmus[i] : NULL;
}

const tally_pmu *tally_pmus_find(const tally_pmus *pmus, const char *name)
{
	if (!name || !tally_pmus_count(pmus))
		return NULL;
	struct tally_pmu key = { .name = (char *)name };
	return bsearch(&key, pmus->pmus, pmus->nr, sizeof(*pmus->pmus), by_pmu_name);
}

size_t tally_pmus_core_count(const tally_pmus *pmus)
{
	size_t n = 0;
	for (size_t i = 0; i < tally_pmus_count(pmus); i++)
		n += tly_pmu_is_core(&pmus->pmus[i]);
	return n;
}

const struct tly_format *tly_pmu_format(const struct tally_pmu *pmu, const char *name)
{
	struct tly_format key = { .name = (char *)name };
	/* bsearch's base must not be NULL even for zero elements (glibc declares it nonnull; UBSan checks). */
	if (tly_pmu_details(pmu) || !pmu->nr_formats)
		return NULL;
	return bsearch(&key, pmu->formats, pmu->nr_formats, sizeof(key), by_format_name);
}

const struct tly_alias *tly_pmu_alias(const struct tally_pmu *pmu, const char *name)
{
	return tly_pmu_details(pmu) ? NULL : find_alias((struct tally_pmu *)pmu, name);
}

/* i must index one of nr entries of the PMU's details (read here if they were not yet). */
static int check_index(const struct tally_pmu *pmu, size_t i, const size_t *nr, const char *fn, const char *pmu_name)
{
	int err = tly_pmu_details(pmu);
	if (err)
		return err;
	if (i >= *nr)
		return tly_error(-ERANGE, "%s: index %zu, but PMU %s has %zu", fn, i, pmu_name, *nr);
	return 0;
}

int tally_pmu_get_info(const tally_pmu *pmu, struct tally_pmu_info *info)
{
	if (!pmu || !info)
		return tly_error(-EINVAL, "%s: NULL argument", __func__);
	int err = tly_pmu_details(pmu);
	if (err)
		return err;
	struct tally_pmu_info full = {
		.sz = sizeof(full),
		.name = pmu->name,
		.type = pmu->type,
		.is_core = pmu->is_core,
		.cpus = pmu->cpus,
		.cpumask = pmu->cpumask,
		.nr_formats = pmu->nr_formats,
		.nr_aliases = pmu->nr_aliases,
		.nr_caps = pmu->nr_caps,
	};
	return TLY_INFO_COPY(info, &full, tally_pmu_info);
}

int tally_pmu_format_at(const tally_pmu *pmu, size_t i, struct tally_format_info *info)
{
	if (!pmu || !info)
		return tly_error(-EINVAL, "%s: NULL argument", __func__);
	int err = check_index(pmu, i, &pmu->nr_formats, __func__, pmu->name);
	if (err)
		return err;
	const struct tly_format *format = &pmu->formats[i];
	struct tally_format_info full = {
		.sz = sizeof(full),
		.name = format->name,
		.text = format->text,
		.field = (unsigned)format->field,
		.mask = format->mask,
		.width = tly_format_width(format->mask),
	};
	return TLY_INFO_COPY(info, &full, tally_format_info);
}

int tally_pmu_alias_at(const tally_pmu *pmu, size_t i, struct tally_alias_info *info)
{
	if (!pmu || !info)
		return tly_error(-EINVAL, "%s: NULL argument", __func__);
	int err = check_index(pmu, i, &pmu->nr_aliases, __func__, pmu->name);
	if (err)
		return err;
	const struct tly_alias *alias = &pmu->aliases[i];
	struct tally_alias_info full = {
		.sz = sizeof(full),
		.name = alias->name,
		.terms = alias->terms,
		.unit = alias->unit,
		.scale = alias->scale,
		.per_pkg = alias->per_pkg,
		.snapshot = alias->snapshot,
	};
	return TLY_INFO_COPY(info, &full, tally_alias_info);
}

int tally_pmu_cap_at(const tally_pmu *pmu, size_t i, const char **name, const char **value)
{
	if (!pmu)
		return tly_error(-EINVAL, "%s: NULL argument", __func__);
	int err = check_index(pmu, i, &pmu->nr_caps, __func__, pmu->name);
	if (err)
		return err;
	if (name)
		*name = pmu->caps[i].name;
	if (value)
		*value = pmu->caps[i].value;
	return 0;
}
