/* SPDX-License-Identifier: MIT */
/*
 * tally compare: is B different from A? Either runs both commands itself, interleaved (A B A B ..., so
 * that a drift of the machine, a warming cache or a throttling CPU, lands on both), each run launched and
 * counted through the library as tally stat's are; or reads two saved `tally stat -j -r N` documents. Per
 * event: each side's mean, the change B - A with a 95% confidence interval by Welch's t (welch.h), and a
 * verdict. The exit status is 0 whatever the verdict, unless --fail-on-worse asks for 1 when B counts more
 * of an event than A with that confidence (for CI: more cycles, time, faults or misses is worse).
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <tally/counter.h>
#include <tally/events.h>
#include <tally/pmu.h>

#include "lib/json_writer.h"
#include "lib/signals.h"
#include "lib/stream.h"
#include "lib/text_escape.h"
#include "report/default_events.h"
#include "report/event_unit.h"
#include "results/result_file.h"
#include "results/results.h"
#include "results/welch.h"

#define EXIT_USAGE 2
#define EXIT_FAILED 1
#define EXIT_WORSE 1
#define CONFIDENCE 0.95
#define DEFAULT_RUNS 5
#define MAX_RUNS 100000

/* One event's values on both sides: values[side][k] for k < n[side], the runs that counted it. */
struct compare_event {
	char *name, *unit;
	double unit_scale;
	double *values[2];
	size_t n[2];
	unsigned missed[2];        /* runs where it was not counted or not supported */
	struct welch w;
};

struct compare {
	unsigned runs;
	char **argv[2];            /* live: the two commands; NULL for saved files */
	const char *files[2];      /* saved: the two documents */
	size_t nr_events;
	struct compare_event *events;
	unsigned failed_runs[2];   /* runs whose command exited non-zero */
	unsigned done[2];          /* runs each side has: two saved documents may differ, an interrupt too */
	int interrupted;           /* the signal that ended the runs early (SIGINT, SIGTERM, ...), or 0 */
};

static const char *const side_name[2] = { "A", "B" };

static int usage(FILE *out, int status)
{
	fputs("usage: tally compare [-r N] [-e SPEC] [-j] [-o FILE] [--fail-on-worse] -- CMD_A... ::: CMD_B...\n"
	      "       tally compare [-j] [--fail-on-worse] A.json B.json\n"
	      "  runs A and B interleaved (A B A B ...) N times each, or reads two tally stat -j -r N documents,\n"
	      "  and per event gives both means, the change B - A with its 95% confidence interval (Welch's t)\n"
	      "  and a verdict: more, less, same (exact counts), or no evidence of a difference\n"
	      "  -r, --repeat N     runs of each command (default 5; at least 2)\n"
	      "  -e, --event SPEC   events to count (default: tally stat's)\n"
	      "  -j, --json         one JSON document with every figure\n"
	      "  -o, --output FILE  the report into FILE (stdout is the commands')\n"
	      "      --fail-on-worse  exit 1 when B counts more of an event than A (95% confidence)\n"
	      "  -h, --help         this help\n",
	      out);
	return status;
}

static int add_value(struct compare_event *e, int side, double v, unsigned capacity)
{
	if (!e->values[side] && !(e->values[side] = calloc(capacity ? capacity : 1, sizeof(double))))
		return -1;
	e->values[side][e->n[side]++] = v;
	return 0;
}

/* Waits for the command to exit. A signal that ends tally is passed on to the command, which would
 * otherwise run on unsupervised (Ctrl-C reaches it too; a signal sent to tally alone does not), a second
 * one as SIGKILL; the first is kept to end the runs with. */
static void wait_for_command(struct compare *c, pid_t child)
{
	unsigned forwarded = 0;
	while (child > 0 && !signals_child_exited(child)) {
		int signo = signals_wait(-1);
		if (!signals_ends_run(signo))
			continue;
		if (!c->interrupted)
			c->interrupted = signo;
		kill(child, forwarded++ ? SIGKILL : signo);
	}
}

/* One run of one side: open on the command, start, wait, read, close. Returns the command's exit code, or
 * -1 after a message. */
static int run_once(struct compare *c, tally_counter *counter, int side, struct tally_result *results)
{
	/* As tally stat's runs: the first command inherits tally's parent's dispositions untouched; the
	 * handlers go in once it is forked, and later commands start with the ignored ones. */
	bool handlers = signals_installed();
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_COMMAND, .argv = c->argv[side], .inherit_signals = !handlers,
	           .ignored = handlers ? signals_inherited_ignored() : 0);
	if (tally_counter_open(counter, &t) < 0) {
		fprintf(stderr, "tally compare: %s: %s\n", side_name[side], tally_counter_last_error(counter));
		return -1;
	}
	if (signals_install() < 0) {
		fprintf(stderr, "tally compare: cannot install signal handlers: %s\n", tally_strerror(errno));
		tally_counter_close(counter);
		return -1;
	}
	struct tally_exit ex = { 0 };
	int err = tally_counter_start(counter);
	wait_for_command(c, tally_counter_pid(counter));
	int waited = tally_counter_wait(counter, &ex, sizeof(ex));
	if (err == 0 && waited == 0) {
		tally_counter_stop(counter);
		err = tally_counter_read(counter, results, c->nr_events, sizeof(results[0]));
	}
	if (err < 0 || waited < 0)
		fprintf(stderr, "tally compare: %s: %s\n", side_name[side], tally_counter_last_error(counter));
	tally_counter_close(counter);
	return err < 0 || waited < 0 ? -1 : ex.code;
}

static int record_run(struct compare *c, int side, const struct tally_result *results)
{
	for (size_t i = 0; i < c->nr_events; i++) {
		struct compare_event *e = &c->events[i];
		if (results[i].status != TALLY_STATUS_EXACT && results[i].status != TALLY_STATUS_SCALED)
			e->missed[side]++;
		else if (add_value(e, side, (double)results[i].scaled * e->unit_scale, c->runs) < 0)
			return -1;
	}
	return 0;
}

static int name_event(struct compare_event *e, const char *name, const char *unit)
{
	e->name = strdup(name);
	e->unit = strdup(unit ? unit : "");
	return e->name && e->unit ? 0 : -1;
}

/* The events as the counter names them, with their display units. */
static int describe_events(struct compare *c, tally_counter *counter)
{
	const tally_events *list = tally_counter_events(counter);
	c->nr_events = tally_counter_count(counter);
	c->events = calloc(c->nr_events + 1, sizeof(*c->events));
	if (!c->events)
		return -1;
	for (size_t i = 0; i < c->nr_events; i++) {
		TALLY_OPTS(tally_event_info, info);
		const char *unit;
		if (tally_events_at(list, i, &info) < 0)
			return -1;
		event_unit(&info, &unit, &c->events[i].unit_scale);
		if (name_event(&c->events[i], tally_counter_name(counter, i), unit) < 0)
			return -1;
	}
	return 0;
}

static int run_live(struct compare *c, const char *spec)
{
	tally_pmus *pmus = NULL;
	if (!spec && tally_pmus_load(NULL, &pmus) < 0) {
		fprintf(stderr, "tally compare: %s\n", tally_last_error());
		return EXIT_FAILED;
	}
	TALLY_OPTS(tally_counter_opts, opts, .pmus = pmus, .open_without_events = true);
	tally_counter *counter = NULL;
	int status = 0;
	if (tally_counter_new(spec ? spec : default_events_spec(tally_pmus_core_count(pmus) > 0, false), &opts, &counter) < 0) {
		fprintf(stderr, "tally compare: %s\n", tally_last_error());
		status = EXIT_USAGE;
	} else if (describe_events(c, counter) < 0) {
		fputs("tally compare: out of memory\n", stderr);
		status = EXIT_FAILED;
	}
	struct tally_result *results = status ? NULL : calloc(c->nr_events + 1, sizeof(*results));
	if (!status && !results) {
		fputs("tally compare: out of memory\n", stderr);
		status = EXIT_FAILED;
	}
	for (unsigned run = 0; run < c->runs && !status && !c->interrupted; run++)
		for (int side = 0; side < 2 && !status && !c->interrupted; side++) {
			int code = run_once(c, counter, side, results);
			/* The run a signal cut short is left out: its counts stop wherever the signal fell. */
			if (c->interrupted)
				break;
			if (code < 0 || record_run(c, side, results) < 0)
				status = EXIT_FAILED;
			c->failed_runs[side] += code != 0;
			c->done[side]++;
		}
	free(results);
	tally_counter_free(counter);
	tally_pmus_free(pmus);
	return status;
}

/* The per-run display values of every event of a saved tally stat -j -r document. */
static int read_saved(struct compare *c, int side)
{
	const char *file = c->files[side];
	struct json_value doc;
	if (result_file_read("compare", file, &doc) < 0)
		return -1;
	int status = -1;
	const struct json_value *runs = json_member(&doc, "runs");
	uint64_t schema;
	if (doc.type != JSON_OBJECT || !json_as_u64(json_member(&doc, "schema_version"), &schema))
		result_file_error("compare", file, "not a tally stat -j document (no schema_version)");
	else if (schema < 2 || schema > 3)
		result_file_error("compare", file, "tally stat -j schema version %" PRIu64 ": tally compare reads 2 and 3",
		                  schema);
	else if (!runs || runs->type != JSON_ARRAY || runs->n == 0)
		result_file_error("compare", file, "no runs (a document of tally stat -j -r N)");
	else if (runs->n < 2)
		/* As -r 1 is refused: one run has no spread to compare with, and would give a verdict on one
		 * sample. */
		result_file_error("compare", file, "1 run: the runs of each command, 2 to %d (tally stat -j -r N)",
		                  MAX_RUNS);
	else
		status = 0;
	c->done[side] = status == 0 ? (unsigned)runs->n : 0;
	for (size_t k = 0; status == 0 && k < runs->n; k++) {
		const struct json_value *events = json_member(&runs->items[k], "events");
		size_t n = events && events->type == JSON_ARRAY ? events->n : 0;
		if (side == 0 && k == 0) {
			c->nr_events = n;
			c->runs = (unsigned)runs->n;
			if (!(c->events = calloc(n + 1, sizeof(*c->events))))
				status = result_file_error("compare", file, "out of memory");
		}
		for (size_t i = 0; status == 0 && i < n && i < c->nr_events; i++) {
			const struct json_value *e = &events->items[i];
			struct compare_event *ce = &c->events[i];
			const char *name = json_as_string(json_member(e, "name"));
			const char *word = json_as_string(json_member(e, "status"));
			double scaled, scale;
			if (!name || !word || !json_as_double(json_member(e, "scaled"), &scaled) ||
			    !json_as_double(json_member(e, "unit_scale"), &scale))
				status = result_file_error("compare", file, "run %zu: an event without its name, status, scaled "
				                           "value or unit_scale", k + 1);
			else if (!ce->name && name_event(ce, name, json_as_string(json_member(e, "unit"))) < 0)
				status = result_file_error("compare", file, "out of memory");
			else if (strcmp(ce->name, name) != 0)
				status = result_file_error("compare", file, "run %zu counts %s where %s counts %s: compare the "
				                           "same events", k + 1, name, c->files[0], ce->name);
			else if (strcmp(word, "counted") != 0 && strcmp(word, "scaled") != 0)
				ce->missed[side]++;
			else if (add_value(ce, side, scaled * scale, (unsigned)(runs->n > c->runs ? runs->n : c->runs)) < 0)
				status = result_file_error("compare", file, "out of memory");
		}
		if (status == 0 && n != c->nr_events)
			status = result_file_error("compare", file, "run %zu has %zu events where %s has %zu: compare the "
			                           "same events", k + 1, n, c->files[0], c->nr_events);
	}
	json_value_free(&doc);
	return status;
}

/* "+12.34%", or "-" when there is no such number (A's mean 0, too few runs). */
static void percent(double v, char *text, size_t cap)
{
	if (isnan(v))
		snprintf(text, cap, "-");
	else
		snprintf(text, cap, "%+.2f%%", 100 * v);
}

static void print_command(FILE *out, int side, const struct compare *c)
{
	fprintf(out, "   %s: ", side_name[side]);
	if (c->files[side]) {
		text_escape_write(out, c->files[side]);
	} else {
		for (char **a = c->argv[side]; *a; a++) {
			text_escape_write(out, *a);
			fputc(a[1] ? ' ' : '\n', out);
		}
		return;
	}
	fputc('\n', out);
}

static void write_table(const struct compare *c, FILE *out)
{
	fprintf(out, "\n tally compare: %u run%s of ", c->done[0], c->done[0] == 1 ? "" : "s");
	if (c->done[0] == c->done[1])
		fputs("each", out);
	else
		fprintf(out, "A, %u of B", c->done[1]);
	fprintf(out, ", %s\n", c->files[0] ? "from saved results" : "interleaved (A B A B ...)");
	print_command(out, 0, c);
	print_command(out, 1, c);
	fputs(" change = (mean B - mean A) / mean A, with its 95% confidence interval by Welch's t-test (unequal\n"
	      " variances); events without spread in either side compared exactly\n\n",
	      out);
	fprintf(out, "%-24s %-5s %16s %16s %10s %22s  %s\n", "event", "unit", "mean A", "mean B", "change",
	        "95% interval", "verdict");
	for (size_t i = 0; i < c->nr_events; i++) {
		const struct compare_event *e = &c->events[i];
		const struct welch *w = &e->w;
		char rel[32], lo[32], hi[32], interval[80];
		text_escape_pad(out, e->name, 24);
		fputc(' ', out);
		text_escape_pad(out, e->unit, 5);
		if (e->n[0] == 0 || e->n[1] == 0) {
			fprintf(out, " %16s %16s  not counted in every run of A or B\n", "-", "-");
			continue;
		}
		percent(w->rel, rel, sizeof(rel));
		percent(w->rel_lo, lo, sizeof(lo));
		percent(w->rel_hi, hi, sizeof(hi));
		if (w->exact)
			snprintf(interval, sizeof(interval), "exact");
		else if (w->verdict == WELCH_TOO_FEW)
			snprintf(interval, sizeof(interval), "-");
		else
			snprintf(interval, sizeof(interval), "[%s, %s]", lo, hi);
		fprintf(out, " %16.2f %16.2f %10s %22s  %s", w->a.mean, w->b.mean, rel, interval,
		        welch_verdict_name(w->verdict));
		if (e->missed[0] || e->missed[1])
			fprintf(out, " (not counted in %u run(s) of A, %u of B)", e->missed[0], e->missed[1]);
		fputc('\n', out);
	}
	for (int side = 0; side < 2; side++)
		if (c->failed_runs[side])
			fprintf(out, "\n note: %s exited non-zero in %u of %u runs\n", side_name[side], c->failed_runs[side],
			        c->done[side]);
	if (c->interrupted)
		fprintf(out, "\n (interrupted by SIG%s: the runs before it; the one it cut short left out)\n",
		        sigabbrev_np(c->interrupted));
	fputc('\n', out);
}

static void json_side(struct json_writer *w, const struct compare_event *e, int side, const struct welch_sample *s)
{
	json_begin_object(w);
	json_member_uint(w, "n", s->n);
	json_member_uint(w, "not_counted", e->missed[side]);
	json_member_double(w, "mean", s->mean);
	json_member_double(w, "stddev", s->stddev);
	json_key(w, "values");
	json_begin_array(w);
	for (size_t k = 0; k < e->n[side]; k++)
		json_double(w, e->values[side][k]);
	json_end_array(w);
	json_end_object(w);
}

static void write_json(const struct compare *c, FILE *out)
{
	struct json_writer w;
	json_init(&w, out);
	json_begin_object(&w);
	json_member_int(&w, "compare_version", 1);
	json_member_string(&w, "test", "Welch's two-sample t-test (unequal variances), two-sided");
	json_member_double(&w, "confidence", CONFIDENCE);
	json_member_bool(&w, "interleaved", c->files[0] == NULL);
	json_member_bool(&w, "interrupted", c->interrupted != 0);
	for (int side = 0; side < 2; side++) {
		json_key(&w, side ? "b" : "a");
		json_begin_object(&w);
		json_member_uint(&w, "runs", c->done[side]);
		if (c->files[side]) {
			json_member_string(&w, "file", c->files[side]);
		} else {
			json_key(&w, "argv");
			json_begin_array(&w);
			for (char **a = c->argv[side]; *a; a++)
				json_string(&w, *a);
			json_end_array(&w);
			json_member_uint(&w, "failed_runs", c->failed_runs[side]);
		}
		json_end_object(&w);
	}
	json_key(&w, "events");
	json_begin_array(&w);
	for (size_t i = 0; i < c->nr_events; i++) {
		const struct compare_event *e = &c->events[i];
		json_begin_object(&w);
		json_member_string(&w, "event", e->name);
		json_member_string(&w, "unit", e->unit);
		json_key(&w, "a");
		json_side(&w, e, 0, &e->w.a);
		json_key(&w, "b");
		json_side(&w, e, 1, &e->w.b);
		bool compared = e->n[0] && e->n[1];
		json_member_double(&w, "difference", compared ? e->w.diff : NAN);
		json_member_double(&w, "difference_low", compared ? e->w.lo : NAN);
		json_member_double(&w, "difference_high", compared ? e->w.hi : NAN);
		json_member_double(&w, "relative", compared ? e->w.rel : NAN);
		json_member_double(&w, "relative_low", compared ? e->w.rel_lo : NAN);
		json_member_double(&w, "relative_high", compared ? e->w.rel_hi : NAN);
		json_member_double(&w, "standard_error", e->w.se);
		json_member_double(&w, "df", e->w.df);
		json_member_double(&w, "t", e->w.t);
		json_member_bool(&w, "exact", e->w.exact);
		json_member_string(&w, "verdict", compared ? welch_verdict_name(e->w.verdict) : "not counted");
		json_end_object(&w);
	}
	json_end_array(&w);
	json_end_object(&w);
	fputc('\n', out);
}

static void compare_free(struct compare *c)
{
	for (size_t i = 0; c->events && i < c->nr_events; i++) {
		free(c->events[i].name);
		free(c->events[i].unit);
		free(c->events[i].values[0]);
		free(c->events[i].values[1]);
	}
	free(c->events);
}

/* Splits argv[0 .. argc) at ":::" into the two commands (NULL-terminated in place). */
static int split_commands(struct compare *c, int argc, char **argv)
{
	int sep = -1;
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], ":::") == 0) {
			if (sep >= 0)
				sep = argc; /* a second one: refused below */
			else
				sep = i;
		}
	if (sep <= 0 || sep >= argc - 1) {
		fputs("tally compare: two commands separated by ::: are needed: tally compare -- CMD_A ::: CMD_B\n",
		      stderr);
		return -1;
	}
	argv[sep] = NULL; /* argv[argc] is NULL already */
	c->argv[0] = argv;
	c->argv[1] = argv + sep + 1;
	return 0;
}

int command_compare(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "repeat", required_argument, NULL, 'r' },
		{ "event", required_argument, NULL, 'e' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "fail-on-worse", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct compare c = { .runs = DEFAULT_RUNS };
	const char *spec = NULL, *output = NULL;
	bool json = false, fail_on_worse = false, repeat_given = false;
	optind = 1;
	for (int opt; (opt = getopt_long(argc, argv, "+r:e:jo:h", longs, NULL)) != -1;) {
		char *end;
		unsigned long n;
		switch (opt) {
		case 'r':
			n = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || n < 2 || n > MAX_RUNS) {
				fprintf(stderr, "tally compare: -r %s: the runs of each command, 2 to %d\n", optarg, MAX_RUNS);
				return EXIT_USAGE;
			}
			c.runs = (unsigned)n;
			repeat_given = true;
			break;
		case 'e': spec = optarg; break;
		case 'j': json = true; break;
		case 'o': output = optarg; break;
		case 'W': fail_on_worse = true; break;
		case 'h': return usage(stdout, 0);
		default: return usage(stderr, EXIT_USAGE);
		}
	}
	int nargs = argc - optind, status = 0;
	bool saved = nargs == 2 && strcmp(argv[optind], ":::") != 0 && strcmp(argv[optind + 1], ":::") != 0;
	if (saved && (spec || repeat_given)) {
		fputs("tally compare: -r and -e are for running commands; saved results have their own\n", stderr);
		return EXIT_USAGE;
	}
	if (!saved && split_commands(&c, nargs, argv + optind) < 0)
		return EXIT_USAGE;
	if (saved) {
		/* Read before -o is opened: FILE may be one of them. */
		c.files[0] = argv[optind];
		c.files[1] = argv[optind + 1];
		status = read_saved(&c, 0) < 0 || read_saved(&c, 1) < 0 ? EXIT_USAGE : 0;
	}
	/* Opened before anything runs, as tally stat's -o: a FILE that cannot be written is a usage error. */
	FILE *out = status == 0 && output ? fopen(output, "we") : stdout;
	if (!out) {
		fprintf(stderr, "tally compare: cannot write %s: %s\n", output, tally_strerror(errno));
		out = stdout;
		status = EXIT_USAGE;
	}
	if (!saved && status == 0)
		status = run_live(&c, spec);
	bool worse = false;
	for (size_t i = 0; status == 0 && i < c.nr_events; i++) {
		struct compare_event *e = &c.events[i];
		if (e->n[0] && e->n[1])
			welch_compare(e->values[0], e->n[0], e->values[1], e->n[1], CONFIDENCE, &e->w);
		worse |= e->n[0] && e->n[1] && e->w.verdict == WELCH_MORE;
	}
	if (status == 0) {
		if (json)
			write_json(&c, out);
		else
			write_table(&c, out);
	}
	if (out != stdout) {
		int err = stream_flush(out);
		if (fclose(out) != 0 && err == 0)
			err = errno;
		if (err && !status) {
			fprintf(stderr, "tally compare: cannot write the results to %s: %s\n", output, stream_strerror(err));
			status = EXIT_FAILED;
		}
	}
	compare_free(&c);
	if (status == 0 && c.interrupted)
		status = 128 + c.interrupted;
	return status ? status : fail_on_worse && worse ? EXIT_WORSE : 0;
}
