/* SPDX-License-Identifier: MIT */
/*
 * One model of a perf-format pmu-events tree converted at run time into a table's text, by the rules of
 * tools/pmu_events/generate.py (the two must agree: the built-in tables are that script's output, and
 * test_pmu_events_agreement.sh compares both ways with perf 6.1): perf 6.1's jevents.py terms without
 * period=, ArchStdEvent resolved against the arch's top-level files, lines sorted by (name, PMU) bytewise,
 * the first of equal keys kept, descriptions as perf 6.1 lists them (its jevents' notes appended).
 */
#include "machine/pmu_events.h"

#include "core/error.h"
#include "core/sys.h"
#include "core/sysfs_file.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct text {
	char *p;
	size_t len, cap;
	bool failed;
};

static void add(struct text *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 4096) + n;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void add_str(struct text *b, const char *s)
{
	add(b, s ? s : "", s ? strlen(s) : 0);
}

/* A field as the files escape it: backslash, tab and newline as \\, \t, \n; carriage returns dropped. */
static void add_field(struct text *b, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\' || *s == '\t' || *s == '\n')
			add(b, *s == '\\' ? "\\\\" : *s == '\t' ? "\\t" : "\\n", 2);
		else if (*s != '\r')
			add(b, s, 1);
	}
}

/* jevents.py's unit_to_pmu (perf 6.12) for the units not named uncore_<unit lower-cased>. */
static void add_unit_pmu(struct text *b, const char *unit)
{
	static const char *const table[][2] = {
		{ "CBO", "uncore_cbox" }, { "QPI LL", "uncore_qpi" }, { "SBO", "uncore_sbox" }, { "iMPH-U", "uncore_arb" },
		{ "UPI LL", "uncore_upi" }, { "L3PMC", "amd_l3" }, { "DFPMC", "amd_df" }, { "UMCPMC", "amd_umc" },
		{ "cpu_core", "cpu_core" }, { "cpu_atom", "cpu_atom" }, { "arm_cmn", "arm_cmn" }, { "ali_drw", "ali_drw" },
		{ "imx8_ddr", "imx8_ddr" }, { "imx9_ddr", "imx9_ddr" }, { "hisi_sicl,cpa", "hisi_sicl,cpa" },
		{ "hisi_sccl,ddrc", "hisi_sccl,ddrc" }, { "hisi_sccl,hha", "hisi_sccl,hha" },
		{ "hisi_sccl,l3c", "hisi_sccl,l3c" },
	};
	if (!unit || !*unit)
		return;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (strcmp(unit, table[i][0]) == 0) {
			add_field(b, table[i][1]);
			return;
		}
	}
	add_str(b, "uncore_");
	for (; *unit; unit++)
		add(b, &(char){ (char)tolower((unsigned char)*unit) }, 1);
}

/* Python's int(s, 0) of s's first comma-separated part; false when it is no number. */
static bool number(const char *s, unsigned long long *v)
{
	char *end;
	if (!s || !*s)
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && end != s && (*end == '\0' || *end == ',');
}

/* A member of a model's event, the ArchStdEvent it names filling what it leaves empty; the standard
 * event's encoding wins, as jevents.py takes it. */
static const char *field(const struct tly_json_object *e, const struct tly_json_object *std, const char *key)
{
	const char *v = tly_json_get(std, key);
	if (v && (!strcmp(key, "EventCode") || !strcmp(key, "UMask") || !strcmp(key, "ConfigCode")))
		return v;
	const char *own = tly_json_get(e, key);
	return own && *own ? own : v;
}

static void add_terms(struct text *b, const struct tly_json_object *e, const struct tly_json_object *std)
{
	static const char *const fixed[][2] = {
		{ "inst_retired.any", "event=0xc0" }, { "inst_retired.any_p", "event=0xc0" },
		{ "cpu_clk_unhalted.ref", "event=0x0,umask=0x03" }, { "cpu_clk_unhalted.thread", "event=0x3c" },
		{ "cpu_clk_unhalted.core", "event=0x3c" }, { "cpu_clk_unhalted.thread_any", "event=0x3c,any=1" },
	};
	static const char *const terms[][2] = {
		{ "AnyThread", "any=" }, { "PortMask", "ch_mask=" }, { "CounterMask", "cmask=" }, { "EdgeDetect", "edge=" },
		{ "FCMask", "fc_mask=" }, { "Invert", "inv=" }, { "UMask", "umask=" }, { "NodeType", "type=" },
		{ "RdWrMask", "rdwrmask=" }, { "EnAllCores", "enallcores=" }, { "EnAllSlices", "enallslices=" },
		{ "SliceId", "sliceid=" }, { "ThreadMask", "threadmask=" },
	};
	const char *name = field(e, std, "EventName");
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (strcasecmp(name, fixed[i][0]) == 0) {
			add_str(b, fixed[i][1]);
			return;
		}
	}
	unsigned long long code = 0, v;
	char num[32];
	if (number(field(e, std, "EventCode"), &v))
		code = v;
	if (number(field(e, std, "ExtSel"), &v))
		code |= v << 8;
	/* As jevents.py's llx writes them: "0", else 0x and hex digits. */
	if (number(field(e, std, "ConfigCode"), &v))
		snprintf(num, sizeof(num), v ? "config=%#llx" : "config=0", v);
	else if (number(field(e, std, "EventidCode"), &v))
		snprintf(num, sizeof(num), v ? "eventid=%#llx" : "eventid=0", v);
	else
		snprintf(num, sizeof(num), code ? "event=%#llx" : "event=0", code);
	add_str(b, num);
	for (size_t i = 0; i < sizeof(terms) / sizeof(terms[0]); i++) {
		const char *t = field(e, std, terms[i][0]);
		if (t && !(number(t, &v) && v == 0 && !strchr(t, ','))) {
			add_str(b, ",");
			add_str(b, terms[i][1]);
			add_field(b, t);
		}
	}
	const char *filter = field(e, std, "Filter");
	if (filter && *filter) {
		add_str(b, ",");
		add_field(b, filter);
	}
	if (number(field(e, std, "MSRIndex"), &v) && (v == 0x3f6 || v == 0x1a6 || v == 0x1a7 || v == 0x3f7)) {
		const char *value = field(e, std, "MSRValue");
		add_str(b, v == 0x3f6 ? ",ldlat=" : v == 0x3f7 ? ",frontend=" : ",offcore_rsp=");
		add_field(b, value ? value : "0");
	}
}

/* ---- The model's records ---- */

struct row {
	char *line;      /* the record's line, whose first key_len bytes are its sort key */
	size_t key_len;  /* events: "name TAB pmu", which sorts as (name, pmu) does; metrics: the name */
	size_t order;    /* in the files: the first of equal keys is kept */
};

struct model {
	bool sys;                        /* a sys/ folder: only records of a Unit and a Compat */
	struct tly_json_objects std;     /* the arch's standard events, for ArchStdEvent */
	struct row *rows, *metrics, *counts;
	size_t nr_rows, nr_metrics, nr_counts;
	struct text descs;
	bool failed;
};

static const struct tly_json_object *standard(const struct model *m, const char *ref)
{
	for (size_t i = 0; ref && i < m->std.nr; i++) {
		const char *name = tly_json_get(&m->std.v[i], "EventName");
		name = name ? name : tly_json_get(&m->std.v[i], "MetricName");
		if (name && strcasecmp(name, ref) == 0)
			return &m->std.v[i];
	}
	return NULL;
}

static bool push(struct row **v, size_t *nr, struct text *line, size_t key_len)
{
	struct row *grown = line->failed ? NULL : realloc(*v, (*nr + 1) * sizeof(**v));
	if (!grown) {
		free(line->p);
		return false;
	}
	*v = grown;
	grown[*nr] = (struct row){ line->p, key_len, *nr };
	(*nr)++;
	return true;
}

/* A description as perf 6.1's jevents.py fixdesc leaves it: one final ".  ", ". " or "." cut, in turn. */
static void add_fixdesc(struct text *b, const char *s)
{
	static const char *const suffixes[] = { ".  ", ". ", "." };
	size_t n = s ? strlen(s) : 0;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t k = strlen(suffixes[i]);
		if (n >= k && memcmp(s + n - k, suffixes[i], k) == 0)
			n -= k;
	}
	add(b, s ? s : "", n);
}

static bool ends_with(const struct text *b, const char *suffix)
{
	size_t k = strlen(suffix);
	return b->len >= k && memcmp(b->p + b->len - k, suffix, k) == 0;
}

/* The brief and long descriptions of one JSON object as perf 6.1's JsonEvent makes them (generate.py's
 * own_descriptions): with the address and precise notes and the erratum jevents appends, and to the brief
 * one the PMU of a Unit. */
static void own_descriptions(const struct tly_json_object *e, struct text *desc, struct text *long_desc)
{
	add_fixdesc(desc, tly_json_get(e, "BriefDescription"));
	add_fixdesc(long_desc, tly_json_get(e, "PublicDescription"));
	const char *errata = tly_json_get(e, "Errata"), *pebs = tly_json_get(e, "PEBS");
	struct text extra = { 0 };
	add(&extra, "", 0);
	if (tly_json_get(e, "Data_LA"))
		add_str(&extra, errata ? "  Supports address when precise." : "  Supports address when precise");
	if (errata) {
		add_str(&extra, "  Spec update: ");
		add_str(&extra, errata);
	}
	if (pebs && *pebs && desc->len && !strstr(desc->p, "(Precise Event)"))
		add_str(&extra, strcmp(pebs, "2") == 0 ? " (Must be precise)" : " (Precise event)");
	if (desc->len)
		add_str(desc, extra.p);
	if (long_desc->len)
		add_str(long_desc, extra.p);
	free(extra.p);
	struct text pmu = { 0 };
	add_unit_pmu(&pmu, tly_json_get(e, "Unit"));
	if (pmu.len) {
		if (desc->len && !ends_with(desc, ". "))
			add_str(desc, ". ");
		add_str(desc, "Unit: ");
		add_str(desc, pmu.p);
	}
	free(pmu.p);
	desc->failed |= extra.failed || pmu.failed;
}

static void rstrip(struct text *b)
{
	while (b->len && isspace((unsigned char)b->p[b->len - 1]))
		b->p[--b->len] = '\0';
}

/* The description line of e (its ArchStdEvent std filling an empty text, as jevents copies the standard
 * event's), its offset in m->descs: the texts perf 6.1 lists (the long one the brief one when it has none,
 * as perf's __perf_pmu__new_alias takes it), stored empty when the same as the brief one. (Not shared
 * between events as the converted files share them: a run-time table is one model's, read once.) */
static size_t describe(struct model *m, const char *topic, const struct tly_json_object *e,
                       const struct tly_json_object *std)
{
	struct text d[2] = { 0 }, base[2] = { 0 };
	own_descriptions(e, &d[0], &d[1]);
	if (std)
		own_descriptions(std, &base[0], &base[1]);
	for (int i = 0; i < 2; i++) {
		struct text *use = d[i].len ? &d[i] : base[i].len ? &base[i] : i ? &d[0] : &d[i];
		if (use != &d[i]) {
			free(d[i].p);
			d[i] = (struct text){ 0 };
			add(&d[i], use->p ? use->p : "", use->len);
		}
		rstrip(&d[i]);
	}
	size_t at = m->descs.len;
	add_field(&m->descs, topic);
	add_str(&m->descs, "\t");
	add_field(&m->descs, d[0].p);
	add_str(&m->descs, "\t");
	bool same = d[0].len == d[1].len && (!d[0].len || !memcmp(d[0].p, d[1].p, d[0].len));
	add_field(&m->descs, same ? "" : d[1].p);
	add_str(&m->descs, "\n");
	m->failed |= d[0].failed || d[1].failed || base[0].failed || base[1].failed;
	for (int i = 0; i < 2; i++) {
		free(d[i].p);
		free(base[i].p);
	}
	return at;
}

static void add_event(struct model *m, const struct tly_json_object *e, const struct tly_json_object *std,
                      const char *topic)
{
	struct text line = { 0 };
	const char *name = field(e, std, "EventName");
	for (const char *c = name; *c; c++)
		add(&line, &(char){ (char)tolower((unsigned char)*c) }, 1);
	add_str(&line, "\t");
	add_unit_pmu(&line, field(e, std, "Unit"));
	size_t key_len = line.len;
	add_str(&line, "\t");
	add_terms(&line, e, std);
	add_str(&line, "\t");
	const char *d = field(e, std, "Deprecated"), *p = field(e, std, "PerPkg"), *x = field(e, std, "Experimental");
	add_str(&line, d && !strcmp(d, "1") ? "D" : "");
	add_str(&line, p && !strcmp(p, "1") ? "P" : "");
	add_str(&line, x && !strcmp(x, "1") ? "X" : "");
	add_str(&line, "\t");
	add_field(&line, field(e, std, "ScaleUnit"));
	add_str(&line, "\t");
	add_field(&line, field(e, std, "Counter"));
	char offset[32];
	snprintf(offset, sizeof(offset), "\t%zu\n", describe(m, topic, e, std));
	add_str(&line, offset);
	m->failed |= !push(&m->rows, &m->nr_rows, &line, key_len);
}

static void add_metric(struct model *m, const struct tly_json_object *e, const struct tly_json_object *std)
{
	static const char *const keys[] = { "MetricName", "MetricGroup", "MetricExpr", "MetricThreshold", "ScaleUnit",
		                            "MetricConstraint", "BriefDescription", "PublicDescription" };
	/* Sorted by the lower-cased name, which the line starts with (and is cut from) as its key. */
	struct text line = { 0 };
	const char *name = field(e, std, "MetricName");
	for (const char *c = name; *c; c++)
		add(&line, &(char){ (char)tolower((unsigned char)*c) }, 1);
	size_t key_len = line.len;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (i)
			add_str(&line, "\t");
		add_field(&line, field(e, std, keys[i]));
	}
	add_str(&line, "\n");
	m->failed |= !push(&m->metrics, &m->nr_metrics, &line, key_len);
}

/* One Unit of a counter.json (perf 6.12's numbers of counters): its PMU as an event's (the core's empty),
 * CountersNumGeneric, CountersNumFixed. One without a number is left out, as no count is known. */
static void add_counts(struct model *m, const struct tly_json_object *e)
{
	unsigned long long generic, fixed = 0;
	const char *unit = tly_json_get(e, "Unit"), *nr_fixed = tly_json_get(e, "CountersNumFixed");
	if (!number(tly_json_get(e, "CountersNumGeneric"), &generic) || generic > 64 ||
	    (nr_fixed && (!number(nr_fixed, &fixed) || fixed > 64)))
		return;
	struct text line = { 0 };
	if (unit && strcmp(unit, "core") != 0)
		add_unit_pmu(&line, unit);
	size_t key_len = line.len;
	char numbers[48];
	snprintf(numbers, sizeof(numbers), "\t%llu\t%llu\n", generic, fixed);
	add_str(&line, numbers);
	m->failed |= !push(&m->counts, &m->nr_counts, &line, key_len);
}

/* Reads path whole (through the system-call table) and parses it. Returns 0 or a negative code
 * (recorded). */
static int read_json(const char *path, struct tly_json_objects *out)
{
	*out = (struct tly_json_objects){ 0 };
	int fd = tly_sys->open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tly_error(-errno, "cannot read %s: %s", path, strerrordesc_np(errno));
	struct stat st;
	void *p = MAP_FAILED;
	if (tly_sys->fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		p = tly_sys->mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	tly_sys->close(fd);
	if (p == MAP_FAILED)
		return tly_error(-EBADMSG, "cannot read %s: not a regular file of JSON", path);
	size_t at = 0;
	int err = tly_json_objects_parse(p, (size_t)st.st_size, out, &at);
	tly_sys->munmap(p, (size_t)st.st_size);
	return err ? tly_error(err, "%s is not pmu-events JSON (malformed at byte %zu)", path, at) : 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json files of dir, sorted (generate.py's order). Returns their number, or a negative code. */
static int json_files(const char *dir, char ***out)
{
	*out = NULL;
	DIR *d = tly_sys->opendir(dir);
	if (!d)
		return tly_error(-ENOENT, "the model folder %s is missing", dir);
	size_t nr = 0;
	char **v = NULL;
	int err = 0;
	for (struct dirent *e; !err && (e = tly_sys->readdir(d));) {
		size_t n = strlen(e->d_name);
		if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0 || strcmp(e->d_name, "metricgroups.json") == 0)
			continue;
		char **grown = realloc(v, (nr + 1) * sizeof(*v));
		if (!grown || !(grown[nr] = strdup(e->d_name))) {
			v = grown ? grown : v;
			err = tly_error(-ENOMEM, "out of memory");
			break;
		}
		v = grown;
		nr++;
	}
	tly_sys->closedir(d);
	if (err) {
		for (size_t i = 0; i < nr; i++)
			free(v[i]);
		free(v);
		return err;
	}
	if (nr) /* qsort's array may not be NULL: a folder of no JSON (x86's top level has none) */
		qsort(v, nr, sizeof(*v), by_name);
	*out = v;
	return (int)nr;
}

static void free_names(char **v, int nr)
{
	for (int i = 0; i < nr; i++)
		free(v[i]);
	free(v);
}

/* Adds every object of the JSON files of folder; std: whether they are the arch's standard events. */
static int read_folder(struct model *m, const char *folder, bool std)
{
	char **names;
	int nr = json_files(folder, &names), err = nr < 0 ? nr : 0;
	for (int i = 0; !err && i < nr; i++) {
		char path[PATH_MAX], topic[NAME_MAX + 1];
		struct tly_json_objects list;
		if (tly_path_join(path, sizeof(path), folder, names[i])) {
			err = tly_error(-ENAMETOOLONG, "path too long: %.64s.../%s", folder, names[i]);
			break;
		}
		if ((err = read_json(path, &list)))
			break;
		size_t n = strlen(names[i]);
		snprintf(topic, sizeof(topic), "%s", n >= 12 && !strcmp(names[i] + n - 12, "metrics.json") ? "metrics" : names[i]);
		for (char *c = strstr(topic, ".json") ? topic + strlen(topic) - 5 : NULL; c; c = NULL)
			*c = '\0';
		for (char *c = topic; *c; c++)
			*c = *c == '-' ? ' ' : *c;
		for (size_t k = 0; !std && k < list.nr; k++) {
			const struct tly_json_object *e = &list.v[k], *base = standard(m, tly_json_get(e, "ArchStdEvent"));
			if (tly_json_get(e, "CountersNumGeneric")) {
				add_counts(m, e);
				continue;
			}
			if (m->sys && !(tly_json_get(e, "Unit") && tly_json_get(e, "Compat")))
				continue;  /* perf ignores them there */
			if (field(e, base, "MetricName"))
				add_metric(m, e, base);
			if (field(e, base, "EventName"))
				add_event(m, e, base, topic);
		}
		if (std) {
			struct tly_json_object *grown = realloc(m->std.v, (m->std.nr + list.nr) * sizeof(*grown));
			if (!grown) {
				tly_json_objects_free(&list);
				err = tly_error(-ENOMEM, "out of memory");
				break;
			}
			memcpy(grown + m->std.nr, list.v, list.nr * sizeof(*grown));
			m->std.v = grown;
			m->std.nr += list.nr;
			free(list.v);
		} else {
			tly_json_objects_free(&list);
		}
	}
	free_names(names, nr);
	return err ? err : m->failed ? tly_error(-ENOMEM, "out of memory") : 0;
}

static int by_key(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
	int c = memcmp(x->line, y->line, n);
	if (c)
		return c;
	if (x->key_len != y->key_len)
		return x->key_len < y->key_len ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The rows sorted, the first of each key kept, as one text; metrics lose their key prefix. */
static char *join(struct row *v, size_t nr, bool cut_key, size_t *len)
{
	if (nr)  /* qsort's array may not be NULL, even with no rows */
		qsort(v, nr, sizeof(*v), by_key);
	struct text out = { 0 };
	add(&out, "", 0);
	for (size_t i = 0; i < nr; i++) {
		if (i && v[i].key_len == v[i - 1].key_len && !memcmp(v[i].line, v[i - 1].line, v[i].key_len))
			continue;
		add_str(&out, v[i].line + (cut_key ? v[i].key_len : 0));
	}
	*len = out.len;
	return out.failed ? (free(out.p), NULL) : out.p;
}

static void model_free(struct model *m)
{
	for (size_t i = 0; i < m->nr_rows; i++)
		free(m->rows[i].line);
	for (size_t i = 0; i < m->nr_metrics; i++)
		free(m->metrics[i].line);
	for (size_t i = 0; i < m->nr_counts; i++)
		free(m->counts[i].line);
	free(m->rows);
	free(m->metrics);
	free(m->counts);
	free(m->descs.p);
	tly_json_objects_free(&m->std);
}

int tly_pmu_events_convert(const char *dir, const char *arch, const char *path, const char *version,
                           struct tly_pmu_events **out)
{
	*out = NULL;
	size_t n = strlen(path);
	struct model m = { .sys = (n == 3 || (n > 3 && path[n - 4] == '/')) && strcmp(path + n - 3, "sys") == 0 };
	char folder[PATH_MAX], model[PATH_MAX], stem[PATH_MAX];
	int err = 0;
	if (tly_path_join(folder, sizeof(folder), dir, arch) || tly_path_join(model, sizeof(model), folder, path))
		err = tly_error(-ENAMETOOLONG, "path too long: %.64s...", dir);
	if (!err)
		err = read_folder(&m, folder, true);
	if (!err)
		err = read_folder(&m, model, false);
	struct tly_pmu_events_text text = { 0 };
	if (!err) {
		text.part[0] = join(m.rows, m.nr_rows, false, &text.len[0]);
		text.part[1] = m.descs.p ? m.descs.p : strdup("");
		text.len[1] = m.descs.len;
		m.descs.p = NULL;
		text.part[2] = join(m.metrics, m.nr_metrics, true, &text.len[2]);
		text.part[3] = join(m.counts, m.nr_counts, false, &text.len[3]);
		if (!text.part[0] || !text.part[1] || !text.part[2] || !text.part[3])
			err = tly_error(-ENOMEM, "out of memory");
	}
	snprintf(stem, sizeof(stem), "%s", path);
	for (char *c = stem; *c; c++)
		*c = *c == '/' ? '-' : *c;
	if (!err)
		err = tly_pmu_events_adopt(dir, arch, stem, path, version, &text, out);
	for (int i = 0; i < 4; i++)
		free(text.part[i]);
	model_free(&m);
	return err;
}

/* ---- The sys/ folders' map ---- */

static bool is_dir(const char *path, const struct dirent *e)
{
	struct stat st;
	if (e->d_type != DT_UNKNOWN && e->d_type != DT_LNK)  /* a link to a folder is one (stat follows it) */
		return e->d_type == DT_DIR;
	return tly_sys->stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The sysmap rows of the sys/ folder at path (below the arch folder arch_dir): "pmu TAB compat TAB path"
 * for each event of a Unit and a Compat. */
static int sys_folder_rows(const char *arch_dir, const char *path, struct row **rows, size_t *nr)
{
	char folder[PATH_MAX];
	if (tly_path_join(folder, sizeof(folder), arch_dir, path))
		return tly_error(-ENAMETOOLONG, "path too long: %.64s...", arch_dir);
	char **names;
	int nr_files = json_files(folder, &names), err = nr_files < 0 ? nr_files : 0;
	for (int i = 0; !err && i < nr_files; i++) {
		char file[PATH_MAX];
		struct tly_json_objects list;
		if (tly_path_join(file, sizeof(file), folder, names[i]))
			err = tly_error(-ENAMETOOLONG, "path too long: %.64s.../%s", folder, names[i]);
		else if (!(err = read_json(file, &list))) {
			for (size_t k = 0; k < list.nr && !err; k++) {
				const char *unit = tly_json_get(&list.v[k], "Unit"), *compat = tly_json_get(&list.v[k], "Compat");
				if (!unit || !*unit || !compat || !*compat || !tly_json_get(&list.v[k], "EventName"))
					continue;
				struct text line = { 0 };
				add_unit_pmu(&line, unit);
				add_str(&line, "\t");
				add_field(&line, compat);
				add_str(&line, "\t");
				add_field(&line, path);
				add_str(&line, "\n");
				if (!push(rows, nr, &line, line.len))
					err = tly_error(-ENOMEM, "out of memory");
			}
			tly_json_objects_free(&list);
		}
	}
	free_names(names, nr_files);
	return err;
}

/* Adds the rows of every sys/ folder at or below path (depth folders deep at most: vendor/model/sys). */
static int sys_rows(const char *arch_dir, const char *path, int depth, struct row **rows, size_t *nr)
{
	char folder[PATH_MAX];
	if (tly_path_join(folder, sizeof(folder), arch_dir, path))
		return tly_error(-ENAMETOOLONG, "path too long: %.64s...", arch_dir);
	DIR *d = tly_sys->opendir(folder);
	if (!d)
		return 0;
	int err = 0;
	for (struct dirent *e; !err && (e = tly_sys->readdir(d));) {
		char sub[PATH_MAX], full[PATH_MAX];
		if (e->d_name[0] == '.')
			continue;
		if ((path[0] ? tly_path_join(sub, sizeof(sub), path, e->d_name)
		             : (size_t)snprintf(sub, sizeof(sub), "%s", e->d_name) >= sizeof(sub)) ||
		    tly_path_join(full, sizeof(full), folder, e->d_name)) {
			err = tly_error(-ENAMETOOLONG, "path too long: %.64s.../%s", folder, e->d_name);
			break;
		}
		if (!is_dir(full, e))
			continue;
		if (path[0] && strcmp(e->d_name, "sys") == 0)
			err = sys_folder_rows(arch_dir, sub, rows, nr);
		else if (depth > 1)
			err = sys_rows(arch_dir, sub, depth - 1, rows, nr);
	}
	tly_sys->closedir(d);
	return err;
}

int tly_pmu_events_tree_sysmap(const char *dir, const char *arch, char **out)
{
	*out = NULL;
	char arch_dir[PATH_MAX];
	if (tly_path_join(arch_dir, sizeof(arch_dir), dir, arch))
		return tly_error(-ENAMETOOLONG, "path too long: %.64s...", dir);
	struct row *rows = NULL;
	size_t nr = 0, len;
	int err = sys_rows(arch_dir, "", 3, &rows, &nr);
	if (!err && !(*out = join(rows, nr, false, &len)))
		err = tly_error(-ENOMEM, "out of memory");
	for (size_t i = 0; i < nr; i++)
		free(rows[i].line);
	free(rows);
	return err;
}

bool tly_pmu_events_is_tree(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;
	return tly_path_join(path, sizeof(path), dir, "MANIFEST") == 0 && tly_sys->stat(path, &st) != 0;
}
