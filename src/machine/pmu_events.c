/* SPDX-License-Identifier: MIT */
/*
 * One model's event table, read in place: its .events file is mapped whole (the kernel pages in only what
 * a lookup touches) and searched by binary search over its sorted lines; the arch's descriptions and the
 * model's metrics are read only by those who ask for them (list, doctor, the metrics layer). Every open
 * and map goes through the system-call table, so tests see (and can fail) each one.
 */
#include "machine/pmu_events.h"

#include "core/error.h"
#include "core/sys.h"
#include "core/sysfs_file.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The fields of an .events line: name, pmu, terms, flags, scale-unit, counter, description offset. */
#define EVENT_FIELDS 7
/* The fields of a .counters line: pmu, generic, fixed. */
#define COUNTS_FIELDS 3
/* The fields of a .metrics line (struct tly_pmu_metric's, in order). */
#define METRIC_FIELDS 8
/* Names longer than this are no table's (the longest upstream is under 80 bytes). */
#define NAME_MAX_LEN 255

struct mapped {
	const char *text;
	size_t size;
	bool owned;   /* malloc'd (a table converted at run time), not mapped */
};

struct tly_pmu_events {
	struct mapped events, descs, metrics;  /* metrics: only for a table converted at run time */
	struct mapped counts;                  /* the model's counter.json, if it has one (else empty) */
	char *model, *version;
	char arch[8];
	char path[PATH_MAX];
	char metrics_path[PATH_MAX];
	char descs_path[PATH_MAX];
	char counts_path[PATH_MAX];
};

/* Maps path read-only. An empty file maps as nothing (size 0). Returns 0 or a negative code, recording
 * nothing. */
static int map_file(const char *path, struct mapped *m)
{
	m->text = NULL;
	m->size = 0;
	int fd = tly_sys->open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	int err = 0;
	if (tly_sys->fstat(fd, &st))
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -EBADMSG;
	else if (st.st_size > 0) {
		void *p = tly_sys->mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			err = -errno;
		else {
			m->text = p;
			m->size = (size_t)st.st_size;
		}
	}
	tly_sys->close(fd);
	return err;
}

static void unmap_file(struct mapped *m)
{
	if (m->owned)
		free((char *)m->text);
	else if (m->text)
		tly_sys->munmap((void *)m->text, m->size);
	m->text = NULL;
}

bool tly_pmu_events_chosen(void)
{
	/* secure_getenv, as for TALLY_SYSFS_ROOT: a set-id program must not read a caller's files. */
	const char *dir = secure_getenv("TALLY_PMU_EVENTS");
	return dir && dir[0];
}

const char *tly_pmu_events_dir(void)
{
	if (tly_pmu_events_chosen())
		return secure_getenv("TALLY_PMU_EVENTS");
	struct stat st;
	if (tly_sys->stat(TALLY_PMU_EVENTS_DATADIR, &st) == 0 || strcmp(TALLY_PMU_EVENTS_BUILDDIR, "") == 0)
		return TALLY_PMU_EVENTS_DATADIR;
	return TALLY_PMU_EVENTS_BUILDDIR;
}

void tly_pmu_events_close(struct tly_pmu_events *t)
{
	if (!t)
		return;
	unmap_file(&t->events);
	unmap_file(&t->descs);
	unmap_file(&t->metrics);
	unmap_file(&t->counts);
	free(t->model);
	free(t->version);
	free(t);
}

const char *tly_pmu_events_model(const struct tly_pmu_events *t)
{
	return t->model;
}

const char *tly_pmu_events_version(const struct tly_pmu_events *t)
{
	return t->version;
}

const char *tly_pmu_events_arch(const struct tly_pmu_events *t)
{
	return t->arch;
}

const char *tly_pmu_events_path(const struct tly_pmu_events *t)
{
	return t->path;
}

size_t tly_pmu_events_count(const struct tly_pmu_events *t)
{
	size_t n = 0;
	for (const char *p = t->events.text, *end = p + t->events.size; p && p < end; n++) {
		p = memchr(p, '\n', (size_t)(end - p));
		p = p ? p + 1 : end;
	}
	return n;
}

/* The line of m that holds offset at, not before from: its start. */
static size_t line_start(const struct mapped *m, size_t from, size_t at)
{
	while (at > from && m->text[at - 1] != '\n')
		at--;
	return at;
}

static size_t line_end(const struct mapped *m, size_t at)
{
	const char *nl = memchr(m->text + at, '\n', m->size - at);
	return nl ? (size_t)(nl - m->text) + 1 : m->size;
}

/* The line at `at`'s first field compared with key (lower-case, NUL-terminated), as strcmp compares. */
static int compare_name(const struct mapped *m, size_t at, const char *key)
{
	const unsigned char *p = (const unsigned char *)m->text + at, *end = (const unsigned char *)m->text + m->size;
	for (;; p++, key++) {
		unsigned c = p < end && *p != '\t' && *p != '\n' ? *p : 0;
		if (c != (unsigned char)*key)
			return (int)c - (unsigned char)*key;
		if (!c)
			return 0;
	}
}

size_t tly_pmu_events_seek(const struct tly_pmu_events *t, const char *name)
{
	char key[NAME_MAX_LEN + 1];
	size_t n = strlen(name);
	if (n > NAME_MAX_LEN)
		return t->events.size;
	for (size_t i = 0; i <= n; i++)
		key[i] = (char)tolower((unsigned char)name[i]);
	/* Lines before lo sort below key, lines from hi on do not; both stay at line starts. */
	size_t lo = 0, hi = t->events.size;
	while (lo < hi) {
		size_t start = line_start(&t->events, lo, lo + (hi - lo) / 2);
		if (compare_name(&t->events, start, key) < 0)
			lo = line_end(&t->events, start);
		else
			hi = start;
	}
	return lo;
}

/* Splits the line text[0, len) (without its newline) at tabs into nr spans. Returns whether it has nr
 * fields exactly. */
static bool split_fields(const char *text, size_t len, struct tly_span *f, size_t nr)
{
	size_t k = 0;
	const char *p = text, *end = text + len;
	while (k < nr) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));
		const char *stop = tab ? tab : end;
		f[k++] = (struct tly_span){ p, (size_t)(stop - p) };
		if (!tab)
			break;
		p = tab + 1;
	}
	return k == nr && f[nr - 1].s + f[nr - 1].len == end;
}

static bool span_has(struct tly_span s, char c)
{
	return memchr(s.s, c, s.len) != NULL;
}

static int bad_line(const char *path, size_t at)
{
	return tly_error(-EBADMSG, "the event table %s is corrupt at byte %zu (not a line of 7 tab-separated "
	                 "fields): regenerate it with tools/pmu_events/generate.py", path, at);
}

int tly_pmu_events_next(const struct tly_pmu_events *t, size_t *pos, struct tly_pmu_events_rec *rec)
{
	const struct mapped *m = &t->events;
	if (*pos >= m->size)
		return 0;
	size_t at = *pos, end = line_end(m, at);
	struct tly_span f[EVENT_FIELDS];
	if (!split_fields(m->text + at, end - at - 1, f, EVENT_FIELDS) || !f[0].len)
		return bad_line(t->path, at);
	uint64_t offset = 0;
	for (size_t i = 0; i < f[6].len; i++) {
		if (!isdigit((unsigned char)f[6].s[i]) || offset > UINT64_MAX / 10)
			return bad_line(t->path, at);
		offset = offset * 10 + (uint64_t)(f[6].s[i] - '0');
	}
	*rec = (struct tly_pmu_events_rec){
		.name = f[0], .pmu = f[1], .terms = f[2], .scale_unit = f[4], .counter = f[5], .desc_offset = offset,
		.deprecated = span_has(f[3], 'D'), .per_pkg = span_has(f[3], 'P'), .experimental = span_has(f[3], 'X'),
	};
	*pos = end;
	return 1;
}

bool tly_pmu_events_named(const struct tly_pmu_events_rec *rec, const char *name)
{
	return strlen(name) == rec->name.len && strncasecmp(rec->name.s, name, rec->name.len) == 0;
}

char *tly_span_unescape(char *out, struct tly_span span)
{
	char *o = out;
	/* The text between escapes in one copy each: most fields have none. */
	for (const char *s = span.s, *end = span.s + span.len; s < end;) {
		const char *bs = memchr(s, '\\', (size_t)(end - s));
		size_t run = (size_t)((bs ? bs : end) - s);
		memcpy(o, s, run);
		o += run;
		if (!bs)
			break;
		if (bs + 1 == end) { /* a backslash that ends the field stands for itself */
			*o++ = '\\';
			break;
		}
		char c = bs[1];
		*o++ = c == 't' ? '\t' : c == 'n' ? '\n' : c;
		s = bs + 2;
	}
	*o++ = '\0';
	return o;
}

char *tly_span_dup(struct tly_span span)
{
	char *out = malloc(span.len + 1);
	if (out)
		tly_span_unescape(out, span);
	return out;
}

void tly_pmu_events_desc_free(struct tly_pmu_events_desc *d)
{
	free(d->topic);
	free(d->brief);
	free(d->public_desc);
	*d = (struct tly_pmu_events_desc){ 0 };
}

int tly_pmu_events_describe(const struct tly_pmu_events *t, const struct tly_pmu_events_rec *rec,
                            struct tly_pmu_events_desc *out)
{
	*out = (struct tly_pmu_events_desc){ 0 };
	const struct mapped *m = &t->descs;
	if (!m->text)
		return tly_error(-ENOENT, "the event descriptions %s are missing", t->descs_path);
	struct tly_span f[3];
	size_t at = rec->desc_offset;
	if (at >= m->size || (at && m->text[at - 1] != '\n') ||
	    !split_fields(m->text + at, line_end(m, at) - at - 1, f, 3))
		return tly_error(-EBADMSG, "the event descriptions %s are corrupt at byte %zu: regenerate them with "
		                 "tools/pmu_events/generate.py", t->descs_path, (size_t)at);
	out->topic = tly_span_dup(f[0]);
	out->brief = tly_span_dup(f[1]);
	out->public_desc = tly_span_dup(f[2]);
	if (!out->topic || !out->brief || !out->public_desc) {
		tly_pmu_events_desc_free(out);
		return tly_error(-ENOMEM, "out of memory");
	}
	return 0;
}

/* A count of counters: decimal digits, at most 64 (no PMU has more; the masks are 64 bits). */
static bool counter_number(struct tly_span f, unsigned *out)
{
	unsigned v = 0;
	for (size_t i = 0; i < f.len; i++) {
		if (!isdigit((unsigned char)f.s[i]) || v > 64)
			return false;
		v = v * 10 + (unsigned)(f.s[i] - '0');
	}
	*out = v;
	return f.len && v <= 64;
}

int tly_pmu_events_counts_next(const struct tly_pmu_events *t, size_t *pos, struct tly_pmu_events_counts *rec)
{
	const struct mapped *m = &t->counts;
	if (*pos >= m->size)
		return 0;
	size_t at = *pos, end = line_end(m, at);
	struct tly_span f[COUNTS_FIELDS];
	if (m->text[end - 1] != '\n' || !split_fields(m->text + at, end - at - 1, f, COUNTS_FIELDS) ||
	    !counter_number(f[1], &rec->generic) || !counter_number(f[2], &rec->fixed))
		return tly_error(-EBADMSG, "the counter table %s is corrupt at byte %zu (not a line of a PMU and two "
		                 "numbers): regenerate it with tools/pmu_events/generate.py", t->counts_path, at);
	rec->pmu = f[0];
	*pos = end;
	return 1;
}

/* Calls cb with the metric of one .metrics line. */
static int metric_line(const char *path, const char *text, size_t len, size_t at,
                       int (*cb)(struct tly_pmu_metric *m, void *arg), void *arg)
{
	struct tly_span f[METRIC_FIELDS];
	if (!split_fields(text, len, f, METRIC_FIELDS))
		return tly_error(-EBADMSG, "the metric table %s is corrupt at byte %zu: regenerate it with "
		                 "tools/pmu_events/generate.py", path, at);
	size_t size = 0;
	for (size_t i = 0; i < METRIC_FIELDS; i++)
		size += f[i].len + 1;
	char *block = malloc(size), *at_field = block;
	if (!block)
		return tly_error(-ENOMEM, "out of memory");
	const char *s[METRIC_FIELDS];
	for (size_t i = 0; i < METRIC_FIELDS; i++) {
		s[i] = at_field;
		at_field = tly_span_unescape(at_field, f[i]);
	}
	struct tly_pmu_metric m = { s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], block };
	int ret = cb(&m, arg);
	free(m.text);
	return ret;
}

int tly_pmu_events_metrics(const struct tly_pmu_events *t, int (*cb)(struct tly_pmu_metric *m, void *arg),
                           void *arg)
{
	struct mapped m = t->metrics;
	int err = m.owned ? 0 : map_file(t->metrics_path, &m);
	if (err)
		return tly_error(err, "cannot read the metric table %s: %s", t->metrics_path, strerrordesc_np(-err));
	int ret = 0;
	for (size_t at = 0; !ret && at < m.size;) {
		size_t end = line_end(&m, at);
		if (m.text[end - 1] != '\n')
			ret = tly_error(-EBADMSG, "the metric table %s is cut short", t->metrics_path);
		else
			ret = metric_line(t->metrics_path, m.text + at, end - at - 1, at, cb, arg);
		at = end;
	}
	if (!m.owned)
		unmap_file(&m);
	return ret;
}

/* A table of model stem, its paths under dir/arch named (for messages, and the files a mapped one reads). */
static struct tly_pmu_events *table_new(const char *dir, const char *arch, const char *stem, const char *version)
{
	struct tly_pmu_events *t = calloc(1, sizeof(*t));
	if (!t || !(t->model = strdup(stem)) || !(t->version = strdup(version))) {
		tly_pmu_events_close(t);
		tly_error(-ENOMEM, "out of memory");
		return NULL;
	}
	snprintf(t->arch, sizeof(t->arch), "%s", arch);
	if ((size_t)snprintf(t->path, sizeof(t->path), "%s/%s/%s.events", dir, arch, stem) >= sizeof(t->path) ||
	    (size_t)snprintf(t->metrics_path, sizeof(t->path), "%s/%s/%s.metrics", dir, arch, stem) >= sizeof(t->path) ||
	    (size_t)snprintf(t->descs_path, sizeof(t->path), "%s/%s/descriptions", dir, arch) >= sizeof(t->path) ||
	    (size_t)snprintf(t->counts_path, sizeof(t->path), "%s/%s/%s.counters", dir, arch, stem) >= sizeof(t->path)) {
		tly_pmu_events_close(t);
		tly_error(-ENAMETOOLONG, "event table path too long: %.64s...", dir);
		return NULL;
	}
	return t;
}

/* Its first and last lines are checked now (a file of another format, or cut short, fails here, with
 * its own message); a line between them is checked when a lookup lands on it. */
static int check_ends(const struct tly_pmu_events *t)
{
	struct tly_pmu_events_rec rec;
	size_t first = 0, last = t->events.size ? line_start(&t->events, 0, t->events.size - 1) : 0;
	if (t->events.size && (t->events.text[t->events.size - 1] != '\n' || tly_pmu_events_next(t, &first, &rec) < 0 ||
	                       tly_pmu_events_next(t, &last, &rec) < 0))
		return t->events.text[t->events.size - 1] != '\n' ? bad_line(t->path, t->events.size) : -EBADMSG;
	return 0;
}

int tly_pmu_events_adopt(const char *dir, const char *arch, const char *stem, const char *source,
                         const char *version, struct tly_pmu_events_text *text, struct tly_pmu_events **out)
{
	*out = NULL;
	struct tly_pmu_events *t = table_new(dir, arch, stem, version);
	if (!t)
		return -ENOMEM;
	/* Messages name the model folder the text came from. */
	snprintf(t->path, sizeof(t->path), "%s/%s/%s", dir, arch, source);
	struct mapped *parts[] = { &t->events, &t->descs, &t->metrics, &t->counts };
	for (size_t i = 0; i < 4; i++) {
		*parts[i] = (struct mapped){ .text = text->part[i], .size = text->len[i], .owned = true };
		text->part[i] = NULL;
	}
	int err = check_ends(t);
	if (err) {
		tly_pmu_events_close(t);
		return err;
	}
	*out = t;
	return 0;
}

int tly_pmu_events_open(const char *dir, const char *arch, const char *stem, const char *version,
                        struct tly_pmu_events **out)
{
	*out = NULL;
	struct tly_pmu_events *t = table_new(dir, arch, stem, version);
	if (!t)
		return -ENOMEM;
	int err = map_file(t->path, &t->events);
	if (err) {
		tly_error(err, "cannot read the event table %s: %s", t->path, strerrordesc_np(-err));
		tly_pmu_events_close(t);
		return err;
	}
	if ((err = check_ends(t))) {
		tly_pmu_events_close(t);
		return err;
	}
	/* The descriptions are mapped, not read: only `tally list` touches their pages. A missing file
	 * leaves the events usable; describe says it is missing. */
	map_file(t->descs_path, &t->descs);
	/* Most models have no counter.json (AMD's, Arm's, Intel's hybrids): no counts, no limits known. */
	err = map_file(t->counts_path, &t->counts);
	if (err && err != -ENOENT) {
		tly_error(err, "cannot read the counter table %s: %s", t->counts_path, strerrordesc_np(-err));
		tly_pmu_events_close(t);
		return err;
	}
	*out = t;
	return 0;
}
