/* SPDX-License-Identifier: MIT */
/*
 * Which event table a CPU has: its identification as perf builds it (tools/perf/arch/x86/util/header.c
 * get_cpuid_str, arch/arm64/util/header.c) and the arch's mapfile.csv row that matches it, as perf 6.1's
 * strcmp_cpuid_str matches (x86: a POSIX extended regex over the whole string, the stepping left out
 * unless the row names one; arm64: the row's part, of its revision or a later one, as perf 6.12 compares
 * MIDRs, which is 6.1's match of the MIDR with variant and revision cleared for every row the tables
 * have: all name r0p0). A system PMU (an SoC's DDR controller, Arm's CMN interconnect) has a table of its
 * own whatever the CPU, chosen by the PMU's sysfs `identifier` (the arch's sysmap, below).
 */
#include "machine/pmu_events.h"
#include "machine/pmu_family.h"

#include "core/error.h"
#include "core/sys.h"
#include "core/sysfs_file.h"

#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* mapfile.csv is a few kilobytes (x86: 43 rows). */
#define MAPFILE_MAX (64 * 1024)

const char *tly_cpuid_arch(const char *cpuid)
{
	return strncmp(cpuid, "0x", 2) == 0 ? "arm64" : "x86";
}

/* The MIDR of the first CPU of cpus, as perf's arm64 _get_cpuid reads it. Returns 0, -ENOENT (nothing
 * recorded) when the tree has no MIDR for it (not an arm64 machine), another code (recorded). */
static int midr_cpuid(const char *sysfs_root, const char *cpus, char *buf, size_t size)
{
	unsigned cpu = cpus && *cpus ? (unsigned)strtoul(cpus, NULL, 10) : 0;
	char path[PATH_MAX], rel[96], text[32];
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%u/regs/identification/midr_el1", cpu);
	if (tly_path_join(path, sizeof(path), sysfs_root, rel))
		return tly_error(-ENAMETOOLONG, "sysfs path too long: %.64s...", sysfs_root);
	int len = tly_sysfs_read(path, text, sizeof(text), TLY_SYSFS_WHOLE);
	if (len == -ENOENT)
		return len;
	if (len < 0)
		return tly_error(-ENOENT, "cannot identify CPU %u: cannot read %s (%s)", cpu, path, strerrordesc_np(-len));
	char *end;
	unsigned long long midr = strtoull(text, &end, 16);
	if (end == text || *end)
		return tly_error(-ENOENT, "cannot identify CPU %u: %s holds '%s', not a MIDR", cpu, path, text);
	snprintf(buf, size, "0x%016llx", midr);
	return 0;
}

/* x86's "vendor-family-model-stepping", as perf's get_cpuid_str prints it. */
static int x86_cpuid(char *buf, size_t size)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	char vendor[13];
	if (!__get_cpuid(0, &a, &b, &c, &d))
		return tly_error(-ENOENT, "this CPU has no cpuid instruction to identify it");
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	unsigned family = 0, model = 0, step = 0;
	if (a >= 1 && __get_cpuid(1, &a, &b, &c, &d)) {
		family = (a >> 8) & 0xf;
		model = (a >> 4) & 0xf;
		step = a & 0xf;
		if (family == 0xf)
			family += (a >> 20) & 0xff;
		if (family >= 0x6)
			model += ((a >> 16) & 0xf) << 4;
	}
	snprintf(buf, size, "%s-%u-%X-%X", vendor, family, model, step);
	return 0;
#else
	(void)buf;
	(void)size;
	return tly_error(-ENOENT, "cannot identify the CPU: no MIDR in sysfs and no cpuid instruction");
#endif
}

int tly_cpuid(const char *sysfs_root, const char *cpus, char *buf, size_t size)
{
	/* perf's PERF_CPUID, under tally's name: tests and `tally encode` of another machine. */
	const char *env = secure_getenv("TALLY_CPUID");
	if (env && env[0]) {
		snprintf(buf, size, "%s", env);
		return 0;
	}
	/* An arm64 tree (a machine or a fixture) has each CPU's MIDR; an x86 one has none. */
	int err = midr_cpuid(sysfs_root, cpus, buf, size);
	return err == -ENOENT ? x86_cpuid(buf, size) : err;
}

static size_t count_char(const char *s, char c)
{
	size_t n = 0;
	for (; (s = strchr(s, c)); s++)
		n++;
	return n;
}

enum { MIDR_VERSION = 0xf << 20 | 0xf }; /* Variant[23:20] and Revision[3:0] */

bool tly_midr_at_least(const char *map_id, const char *midr)
{
	unsigned long long want = strtoull(map_id, NULL, 16), have = strtoull(midr, NULL, 16);
	if ((want & ~(unsigned long long)MIDR_VERSION) != (have & ~(unsigned long long)MIDR_VERSION))
		return false;
	/* r<variant>p<revision> in that order: variant first, then the revision */
	unsigned want_v = (want >> 20) & 0xf, have_v = (have >> 20) & 0xf;
	return have_v > want_v || (have_v == want_v && (have & 0xf) >= (want & 0xf));
}

/* Whether one of the plain alternatives of a row's group "(97|9A|B7)" (alts: after its '(') begins id:
 * false only when none can, so that the row needs no regex (a regcomp and regexec cost 130,000
 * instructions, more than the rest of the lookup; 7 of the x86 rows start "GenuineIntel-6-(" and all of
 * them passed the literal test). An alternative with any regex character leaves it to the regex (true). */
static bool an_alternative_begins(const char *alts, const char *id)
{
	for (const char *a = alts;;) {
		size_t n = strcspn(a, "|)");
		if (!a[n] || a[strspn(a, "0123456789ABCDEFabcdef")] != a[n] ||
		    (a[n] == ')' && a[n + 1] && strchr("\\^$.[]|()*+?{}", a[n + 1])))
			return true; /* not a plain group followed by plain text: the regex's question */
		if (strncmp(a, id, n) == 0)
			return true;
		if (a[n] == ')')
			return false;
		a += n + 1;
	}
}

/* Whether a regex of the tables (a mapfile row's cpuid, a sysmap compat) is of the forms the tables
 * write, which compile small: at most 256 bytes, no interval ({n,m}), and each quantifier (* + ?) after a
 * plain character, '.' or a bracket expression ("(434|43c).*", "[[:xdigit:]]+"), never after another or
 * after a group. glibc's regcomp expands stacked or nested quantifiers ("a+++...", "((a*)*)*") into
 * automata of gigabytes: a corrupt data file, or a tree TALLY_PMU_EVENTS names, must not exhaust the
 * measured program's memory (fuzz_pmu_events found one of 300 bytes). */
static bool tame_regex(const char *re)
{
	size_t n = strlen(re);
	if (n > 256 || strchr(re, '{'))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (re[i] == '\\' && re[i + 1]) {
			i++;
			continue;
		}
		if (strchr("*+?", re[i]) && (i == 0 || strchr("*+?()|", re[i - 1])))
			return false;
	}
	return true;
}

/* Whether the mapfile's row matches cpuid as perf matches (x86: its regex, as 6.1; arm64: its part and
 * version, as 6.12). */
static bool cpuid_matches(const char *row, const char *cpuid)
{
	bool x86 = strncmp(cpuid, "0x", 2) != 0;
	if (!x86)
		return tly_midr_at_least(row, cpuid);
	bool full_row = x86 && count_char(row, '-') == 3, full_id = x86 && count_char(cpuid, '-') == 3;
	if (full_row && !full_id)
		return false;
	/* The row's literal start must begin the id: most rows are refused so, without compiling a regex
	 * (a regcomp costs more than the rest of a lookup). */
	size_t literal = strcspn(row, "\\^$.[]|()*+?{}");
	if (strncmp(row, cpuid, literal) != 0 && !(literal && strchr("?*{", row[literal]) &&
	                                           strncmp(row, cpuid, literal - 1) == 0))
		return false;
	if (row[literal] == '(' && !an_alternative_begins(row + literal + 1, cpuid + literal))
		return false;
	regex_t re;
	regmatch_t match[1];
	if (!tame_regex(row) || regcomp(&re, row, REG_EXTENDED))
		return false;
	bool matched = regexec(&re, cpuid, 1, match, 0) == 0;
	regfree(&re);
	if (!matched)
		return false;
	size_t want = x86 && !full_row && full_id ? (size_t)(strrchr(cpuid, '-') - cpuid) : strlen(cpuid);
	return (size_t)(match[0].rm_eo - match[0].rm_so) == want;
}

/* Reads dir/arch/mapfile.csv into text. */
static int read_mapfile(const char *dir, const char *arch, char *path, size_t path_size, char *text)
{
	struct stat st;
	if (tly_sys->stat(dir, &st))
		return tly_pmu_events_chosen()
		               ? tly_error(-ENOENT, "the event tables' folder %s that TALLY_PMU_EVENTS names is missing", dir)
		               : tly_error(-ENOENT, "the event tables' folder %s is missing (install tally's data, or "
		                           "set TALLY_PMU_EVENTS to a folder of them)", dir);
	if ((size_t)snprintf(path, path_size, "%s/%s/mapfile.csv", dir, arch) >= path_size)
		return tly_error(-ENAMETOOLONG, "path too long: %.64s...", dir);
	int len = tly_sysfs_read(path, text, MAPFILE_MAX, TLY_SYSFS_WHOLE);
	if (len < 0)
		return tly_error(len == -ENOENT ? -ENOENT : -EBADMSG, "the event tables' folder %s has no %s tables "
		                 "(cannot read %s: %s)", dir, arch, path, strerrordesc_np(-len));
	return 0;
}

int tly_pmu_events_find_model(const char *dir, const char *cpuid, char *stem, size_t stem_size, char *version,
                              size_t version_size)
{
	const char *arch = tly_cpuid_arch(cpuid);
	char path[PATH_MAX];
	char *text = malloc(MAPFILE_MAX);
	if (!text)
		return tly_error(-ENOMEM, "out of memory");
	int err = read_mapfile(dir, arch, path, sizeof(path), text);
	unsigned line = 0;
	for (char *row = text, *next; !err && row && *row; row = next) {
		next = strchr(row, '\n');
		if (next)
			*next++ = '\0';
		line++;
		/* perf's own mapfiles have comments and a header row. */
		if (row[0] == '#' || strncmp(row, "Family-model,", 13) == 0 || strspn(row, " \t\r") == strlen(row))
			continue;
		char *f[4] = { row }, *save = NULL;
		f[0] = strtok_r(row, ",", &save);
		for (int i = 1; f[i - 1] && i < 4; i++)
			f[i] = strtok_r(NULL, ",", &save);
		if (!f[3]) {
			err = tly_error(-EBADMSG, "%s line %u is not 'cpuid,version,model,type': regenerate the "
			                "tables with tools/pmu_events/generate.py", path, line);
			break;
		}
		f[3][strcspn(f[3], " \t\r")] = '\0';
		if (strcmp(f[3], "core") == 0 && cpuid_matches(f[0], cpuid)) {
			snprintf(stem, stem_size, "%s", f[2]);
			snprintf(version, version_size, "%s", f[1]);
			free(text);
			return 0;
		}
	}
	if (!err)
		err = tly_error(-ENOENT, "no event table for CPU %s in %s (a model newer than the tables: set "
		                "TALLY_PMU_EVENTS to a newer perf pmu-events tree's conversion)", cpuid, path);
	free(text);
	return err;
}

int tly_pmu_events_sysmap(const char *dir, const char *arch, char **out)
{
	*out = NULL;
	if (tly_pmu_events_is_tree(dir))
		return tly_pmu_events_tree_sysmap(dir, arch, out);
	char path[PATH_MAX];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s/sysmap", dir, arch) >= sizeof(path))
		return tly_error(-ENAMETOOLONG, "path too long: %.64s...", dir);
	char *text = malloc(MAPFILE_MAX);
	if (!text)
		return tly_error(-ENOMEM, "out of memory");
	int len = tly_sysfs_read(path, text, MAPFILE_MAX, TLY_SYSFS_WHOLE);
	if (len == -ENOENT) {
		text[0] = '\0';  /* an arch without system PMU tables (x86) */
	} else if (len < 0) {
		free(text);
		return tly_error(-EBADMSG, "cannot read the system PMU tables' map %s: %s", path, strerrordesc_np(-len));
	}
	*out = text;
	return 0;
}

/* The fields of sysmap's row at line: pmu, compat and model, unescaped into row (of size). */
static bool sysmap_row(const char *line, size_t len, char *row, size_t size, char **f)
{
	struct tly_span span[3];
	const char *at = line, *end = line + len;
	for (int i = 0; i < 3; i++) {
		const char *tab = i < 2 ? memchr(at, '\t', (size_t)(end - at)) : end;
		if (!tab)
			return false;
		span[i] = (struct tly_span){ at, (size_t)(tab - at) };
		at = tab + 1;
	}
	/* The fields take len - 2 bytes (the tabs dropped, unescaping only shortens) and a NUL each. */
	if (len >= size)
		return false;
	char *out = row;
	for (int i = 0; i < 3; i++) {
		f[i] = out;
		out = tly_span_unescape(out, span[i]); /* past the field's NUL */
	}
	return true;
}

/* Calls found for each well-formed row of sysmap for pmu_name until it returns true. */
static bool each_row(const char *sysmap, const char *pmu_name, bool (*found)(char **f, void *arg), void *arg)
{
	char row[1024], *f[3];
	for (const char *line = sysmap, *next; line && *line; line = next) {
		const char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : NULL;
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (sysmap_row(line, len, row, sizeof(row), f) && tly_pmu_unit_member(f[0], strlen(f[0]), pmu_name) &&
		    found(f, arg))
			return true;
	}
	return false;
}

static bool any_row(char **f, void *arg)
{
	(void)f;
	(void)arg;
	return true;
}

bool tly_pmu_sysmap_names(const char *sysmap, const char *pmu_name)
{
	return each_row(sysmap, pmu_name, any_row, NULL);
}

struct sys_match {
	const char *identifier;
	char *model;
	size_t size;
};

static bool compat_matches(char **f, void *arg)
{
	struct sys_match *m = arg;
	regex_t re;
	regmatch_t match[1];
	/* One of another form is compared as perf 6.1 compares them all, whole. */
	if (!tame_regex(f[1]))
		return strcmp(f[1], m->identifier) == 0 && (size_t)snprintf(m->model, m->size, "%s", f[2]) < m->size;
	if (regcomp(&re, f[1], REG_EXTENDED))
		return false;
	bool whole = regexec(&re, m->identifier, 1, match, 0) == 0 && match[0].rm_so == 0 &&
	             (size_t)match[0].rm_eo == strlen(m->identifier);
	regfree(&re);
	return whole && (size_t)snprintf(m->model, m->size, "%s", f[2]) < m->size;
}

int tly_pmu_sysmap_find(const char *sysmap, const char *pmu_name, const char *identifier, char *model,
                        size_t model_size)
{
	struct sys_match m = { identifier, model, model_size };
	return each_row(sysmap, pmu_name, compat_matches, &m) ? 0 : -ENOENT;
}
