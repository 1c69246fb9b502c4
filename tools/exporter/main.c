/* SPDX-License-Identifier: MIT */
/*
 * tally exporter: counts events per cgroup (or for the whole machine) and serves them to Prometheus at
 * /metrics. The main thread owns the schedule: every --interval it follows the cgroups under
 * --cgroups-under and adds each counter's interval to its totals (scrapes add theirs too, from the HTTP
 * threads); SIGHUP reloads --config, SIGTERM and SIGINT stop it cleanly (the HTTP server first, then
 * every counter). The signals are blocked in every thread and taken here with sigtimedwait.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tally/common.h>

#include "exporter/fleet.h"
#include "exporter/http.h"

#define DEFAULT_LISTEN "127.0.0.1:9464"
#define DEFAULT_EVENTS "cycles,instructions,task-clock,page-faults,context-switches"
#define MIN_INTERVAL_MS 100
#define MAX_CONFIG_BYTES (1 << 20)

struct exporter_options {
	struct fleet_config argv_config;  /* what the command line asks for */
	const char *config_path;          /* --config: more of the same, read again at SIGHUP */
	const char *auth_path;            /* --basic-auth-file: read again at SIGHUP */
	struct http_options http;
	unsigned interval_ms;
	bool per_cpu;
};

static void usage(FILE *out)
{
	fputs("usage: tally exporter [options]\n"
	      "\n"
	      "  --listen HOST:PORT      where to serve /metrics (default " DEFAULT_LISTEN "; :PORT for every\n"
	      "                          address)\n"
	      "  -e, --event SPEC        events to count (repeatable; default " DEFAULT_EVENTS ",\n"
	      "                          none beside --metrics' own)\n"
	      "  -M, --metrics LIST      metrics and metric groups to compute at every interval, a gauge each\n"
	      "                          (repeatable, comma lists; the names of tally list --metrics)\n"
	      "  --cgroup NAMES          count in these cgroups (repeatable, comma lists; relative to the\n"
	      "                          perf_event cgroup hierarchy's mount, or a path in it)\n"
	      "  --cgroups-under DIR     count in every cgroup directly below DIR, following those that come\n"
	      "                          and go (repeatable)\n"
	      "  -C, --cpus LIST         count on these CPUs (default: all online)\n"
	      "  --per-cpu               a series per CPU (a cpu label)\n"
	      "  --interval MS           read the counters and look for new cgroups every MS ms (default 1000)\n"
	      "  --config FILE           lines 'event SPEC', 'metrics LIST', 'cgroup NAMES', 'cgroups-under DIR',\n"
	      "                          'cpus LIST' ('#' comments), added to the options; read again at SIGHUP\n"
	      "  --tls-cert FILE, --tls-key FILE   serve HTTPS with this PEM certificate and key\n"
	      "  --basic-auth-file FILE  require HTTP basic authentication: FILE holds lines user:HASH\n"
	      "                          (bcrypt, htpasswd -nB USER; or yescrypt), read again at SIGHUP\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "Without --cgroup or --cgroups-under, counts the whole machine. See tally(1), EXPORTER.\n",
	      out);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("tally exporter: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("\n(see tally exporter --help)\n", stderr);
	va_end(ap);
	return 2;
}

static bool append(char ***list, size_t *n, const char *item, size_t len)
{
	char **grown = realloc(*list, (*n + 1) * sizeof(*grown));
	if (!grown)
		return false;
	*list = grown;
	return (grown[*n] = strndup(item, len)) != NULL && ++*n;
}

/* A comma list of cgroups appended one by one. */
static bool append_list(char ***list, size_t *n, const char *text)
{
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, ",");
		if (len && !append(list, n, p, len))
			return false;
		p += len + (p[len] == ',');
	}
	return true;
}

/* Appends text to the comma list *list (a spec, a metric list). */
static bool append_joined(char **list, const char *text)
{
	size_t old = *list ? strlen(*list) : 0;
	char *joined = realloc(*list, old + strlen(text) + 2);
	if (!joined)
		return false;
	snprintf(joined + old, strlen(text) + 2, "%s%s", old ? "," : "", text);
	*list = joined;
	return true;
}

static bool config_copy(struct fleet_config *to, const struct fleet_config *from)
{
	memset(to, 0, sizeof(*to));
	bool ok = (!from->spec || (to->spec = strdup(from->spec))) && (!from->cpus || (to->cpus = strdup(from->cpus))) &&
	          (!from->metrics || (to->metrics = strdup(from->metrics)));
	to->per_cpu = from->per_cpu;
	for (size_t i = 0; ok && i < from->nr_cgroups; i++)
		ok = append(&to->cgroups, &to->nr_cgroups, from->cgroups[i], strlen(from->cgroups[i]));
	for (size_t i = 0; ok && i < from->nr_under; i++)
		ok = append(&to->under, &to->nr_under, from->under[i], strlen(from->under[i]));
	return ok;
}

/* Reads a whole small file (a certificate, a key, a password, the config). NULL with errno. */
static char *read_file(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	char *text = malloc(MAX_CONFIG_BYTES + 1);
	errno = 0;
	size_t n = text ? fread(text, 1, MAX_CONFIG_BYTES, f) : 0;
	/* The read's own error (a directory opens and reads EISDIR); EFBIG only for a file that is more. */
	int err = !text ? ENOMEM : ferror(f) ? (errno ? errno : EIO) : !feof(f) ? EFBIG : 0;
	fclose(f);
	if (err) {
		free(text);
		errno = err;
		return NULL;
	}
	text[n] = '\0';
	return text;
}

/* The configuration in force: the command line's, then --config's lines. -1 after printing why. */
static int load_config(const struct exporter_options *o, struct fleet_config *out)
{
	if (!config_copy(out, &o->argv_config))
		return fprintf(stderr, "tally exporter: out of memory\n"), -1;
	char *text = o->config_path ? read_file(o->config_path) : NULL;
	if (o->config_path && !text)
		return fprintf(stderr, "tally exporter: cannot read %s: %s\n", o->config_path, tally_strerror(errno)), -1;
	int line_no = 0, status = 0;
	for (char *line = text, *next; line && status == 0; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line_no++;
		line += strspn(line, " \t");
		size_t end = strlen(line);
		while (end && (line[end - 1] == ' ' || line[end - 1] == '\t' || line[end - 1] == '\r'))
			line[--end] = '\0';
		if (!*line || *line == '#')
			continue;
		char *value = line + strcspn(line, " \t");
		if (*value)
			*value++ = '\0';
		value += strspn(value, " \t");
		bool ok = *value;
		if (ok && strcmp(line, "event") == 0)
			ok = append_joined(&out->spec, value);
		else if (ok && strcmp(line, "metrics") == 0)
			ok = append_joined(&out->metrics, value);
		else if (ok && strcmp(line, "cgroup") == 0)
			ok = append_list(&out->cgroups, &out->nr_cgroups, value);
		else if (ok && strcmp(line, "cgroups-under") == 0)
			ok = append(&out->under, &out->nr_under, value, strlen(value));
		else if (ok && strcmp(line, "cpus") == 0) {
			free(out->cpus);
			ok = (out->cpus = strdup(value)) != NULL;
		} else
			ok = false;
		if (!ok) {
			fprintf(stderr, "tally exporter: %s:%d: expected 'event SPEC', 'metrics LIST', 'cgroup NAMES', "
			        "'cgroups-under DIR' or 'cpus LIST'\n", o->config_path, line_no);
			status = -1;
		}
	}
	free(text);
	/* Metrics without events count the metrics' events alone, as perf stat -M does. */
	if (status == 0 && !out->spec && !(out->spec = strdup(out->metrics ? "" : DEFAULT_EVENTS)))
		status = -1;
	if (status)
		fleet_config_free(out);
	return status;
}

static int parse_options(int argc, char **argv, struct exporter_options *o)
{
	enum { OPT_LISTEN = 256, OPT_CGROUP, OPT_UNDER, OPT_PER_CPU, OPT_INTERVAL, OPT_CONFIG, OPT_CERT, OPT_KEY,
	       OPT_AUTH };
	static const struct option longs[] = {
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "event", required_argument, NULL, 'e' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "cgroups-under", required_argument, NULL, OPT_UNDER },
		{ "cpus", required_argument, NULL, 'C' },
		{ "per-cpu", no_argument, NULL, OPT_PER_CPU },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "tls-cert", required_argument, NULL, OPT_CERT },
		{ "tls-key", required_argument, NULL, OPT_KEY },
		{ "basic-auth-file", required_argument, NULL, OPT_AUTH },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	memset(o, 0, sizeof(*o));
	o->http.listen = DEFAULT_LISTEN;
	o->interval_ms = 1000;
	optind = 0;
	opterr = 0;
	for (int c; (c = getopt_long(argc, argv, "+:e:M:C:h", longs, NULL)) != -1;) {
		char *text = NULL, *end = NULL;
		switch (c) {
		case OPT_LISTEN: o->http.listen = optarg; break;
		case 'e':
			if (!*optarg || !append_joined(&o->argv_config.spec, optarg))
				return usage_error("-e needs an event spec");
			break;
		case 'M':
			if (!*optarg || !append_joined(&o->argv_config.metrics, optarg))
				return usage_error("--metrics needs a list of metrics or metric groups");
			break;
		case OPT_CGROUP:
			if (!append_list(&o->argv_config.cgroups, &o->argv_config.nr_cgroups, optarg))
				return usage_error("out of memory");
			break;
		case OPT_UNDER:
			if (!append(&o->argv_config.under, &o->argv_config.nr_under, optarg, strlen(optarg)))
				return usage_error("out of memory");
			break;
		case 'C':
			free(o->argv_config.cpus);
			o->argv_config.cpus = strdup(optarg);
			break;
		case OPT_PER_CPU: o->per_cpu = o->argv_config.per_cpu = true; break;
		case OPT_INTERVAL: {
			unsigned long ms = strtoul(optarg, &end, 10);
			if (!*optarg || *end || ms < MIN_INTERVAL_MS || ms > 3600000)
				return usage_error("--interval wants milliseconds from 100 to 3600000, not '%s'", optarg);
			o->interval_ms = (unsigned)ms;
			break;
		}
		case OPT_CONFIG: o->config_path = optarg; break;
		case OPT_CERT:
		case OPT_KEY:
		case OPT_AUTH:
			if (!(text = read_file(optarg))) {
				fprintf(stderr, "tally exporter: cannot read %s: %s\n", optarg, tally_strerror(errno));
				return 1;
			}
			if (c == OPT_CERT)
				o->http.tls_cert = text;
			else if (c == OPT_KEY)
				o->http.tls_key = text;
			else {
				char err[1024];
				basic_auth_free(o->http.basic_auth);
				o->http.basic_auth = basic_auth_parse(text, optarg, err, sizeof(err));
				free(text);
				if (!o->http.basic_auth)
					return usage_error("%s", err);
				o->auth_path = optarg;
			}
			break;
		case 'h': usage(stdout); return 0;
		case ':': return usage_error("%s needs a value", argv[optind - 1]);
		default: return usage_error("unknown option %s", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (!o->http.tls_cert != !o->http.tls_key)
		return usage_error("--tls-cert and --tls-key go together");
	return -1;
}

/* Says which metrics of the groups asked for are left out (once per configuration). */
static void log_metrics_note(const struct fleet *f, const char *when)
{
	if (f->metrics.note[0])
		fprintf(stderr, "tally exporter: %s%s\n", when, f->metrics.note);
}

/* Says, once per failure, why a cgroup is not counted. */
static void log_errors(struct fleet *f)
{
	for (size_t k = 0; k < f->nr_targets; k++) {
		struct fleet_target *t = f->targets[k];
		if (t->counter || t->logged || !t->error[0])
			continue;
		fprintf(stderr, "tally exporter: cgroup %s: not counted: %s\n", t->name ? t->name : "(machine)",
		        t->error);
		t->logged = true;
	}
}

/* SIGHUP: --basic-auth-file read again; one that does not load leaves the running users as they are. */
static void reload_basic_auth(const struct exporter_options *o, struct http_server *server)
{
	if (!o->auth_path)
		return;
	char err[1024];
	char *text = read_file(o->auth_path);
	struct basic_auth *auth = text ? basic_auth_parse(text, o->auth_path, err, sizeof(err)) : NULL;
	if (!text)
		snprintf(err, sizeof(err), "cannot read %s: %s", o->auth_path, tally_strerror(errno));
	free(text);
	if (auth)
		http_set_basic_auth(server, auth);
	else
		fprintf(stderr, "tally exporter: SIGHUP: %s: the running users stay\n", err);
}

/* SIGHUP: the configuration read again; the same events and CPUs keep every total that stays, other
 * ones start afresh. A configuration that does not load leaves the running one as it is. */
static void reload(struct exporter *x, const struct exporter_options *o, struct http_server *server)
{
	reload_basic_auth(o, server);
	struct fleet_config config;
	if (load_config(o, &config) < 0) {
		fprintf(stderr, "tally exporter: SIGHUP: the configuration did not load: the running one stays\n");
		return;
	}
	pthread_mutex_lock(&x->lock);
	if (fleet_config_same_counting(&x->fleet.config, &config)) {
		fleet_reconfigure(&x->fleet, &config);
	} else {
		struct fleet fresh;
		char err[1024];
		if (fleet_init(&fresh, &config, err, sizeof(err)) < 0) {
			fprintf(stderr, "tally exporter: SIGHUP: %s: the running configuration stays\n", err);
			fleet_free(&fresh);
		} else {
			fleet_free(&x->fleet);
			x->fleet = fresh;
			log_metrics_note(&x->fleet, "SIGHUP: ");
		}
	}
	if (x->fleet.mount[0])
		fprintf(stderr, "tally exporter: SIGHUP: reloaded: %zu cgroups counted\n", x->fleet.nr_targets);
	else
		fprintf(stderr, "tally exporter: SIGHUP: reloaded: counting the whole machine\n");
	log_errors(&x->fleet);
	pthread_mutex_unlock(&x->lock);
	fleet_config_free(&config);
}

static int exporter_main(int argc, char **argv)
{
	struct exporter_options o;
	int status = parse_options(argc, argv, &o);
	struct exporter x;
	memset(&x, 0, sizeof(x));
	struct fleet_config config;
	if (status < 0 && load_config(&o, &config) < 0)
		status = 1;
	/* Blocked before any thread starts, so that libmicrohttpd's threads inherit the mask and the
	 * signals come to sigtimedwait here. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* A scraper that goes away mid-reply must not end the exporter. */
	signal(SIGPIPE, SIG_IGN);
	char err[1024];
	struct http_server *server = NULL;
	if (status < 0) {
		pthread_mutex_init(&x.lock, NULL);
		x.per_cpu = o.per_cpu;
		int init = fleet_init(&x.fleet, &config, err, sizeof(err));
		fleet_config_free(&config);
		if (init < 0) {
			fprintf(stderr, "tally exporter: %s\n", err);
			status = 1;
		} else if (!(server = http_start(&x, &o.http, err, sizeof(err)))) {
			fprintf(stderr, "tally exporter: %s\n", err);
			status = 1;
		} else {
			o.http.basic_auth = NULL;  /* the server's now */
		}
	}
	if (status < 0) {
		fprintf(stderr, "tally exporter: serving http%s://%s/metrics: %zu events, %zu metrics, %ld CPUs, %zu %s\n",
		        o.http.tls_cert ? "s" : "", o.http.listen, x.fleet.nr_events, x.fleet.metrics.nr, x.fleet.nr_cpus,
		        x.fleet.nr_targets, x.fleet.mount[0] ? "cgroups" : "target (the machine)");
		log_metrics_note(&x.fleet, "");
		log_errors(&x.fleet);
		struct timespec every = { o.interval_ms / 1000, (long)(o.interval_ms % 1000) * 1000000 };
		for (;;) {
			int signo = sigtimedwait(&set, NULL, &every);
			if (signo == SIGTERM || signo == SIGINT) {
				fprintf(stderr, "tally exporter: SIG%s: stopping\n", sigabbrev_np(signo));
				break;
			}
			if (signo == SIGHUP) {
				reload(&x, &o, server);
				continue;
			}
			pthread_mutex_lock(&x.lock);
			fleet_scan(&x.fleet);
			fleet_update(&x.fleet, true);
			log_errors(&x.fleet);
			pthread_mutex_unlock(&x.lock);
		}
		status = 0;
	}
	http_stop(server);
	fleet_free(&x.fleet);  /* zeroed, or what fleet_init made (all of it when it failed part way) */
	pthread_mutex_destroy(&x.lock);
	fleet_config_free(&o.argv_config);
	free(o.http.tls_cert);
	free(o.http.tls_key);
	basic_auth_free(o.http.basic_auth);
	return status;
}

int main(int argc, char **argv)
{
	return exporter_main(argc, argv);
}
