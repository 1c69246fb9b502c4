/* SPDX-License-Identifier: MIT */
#include "exporter/http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "exporter/basic_auth.h"
#include "exporter/exposition.h"
#include "exporter/http_deadline.h"

/* Threads that serve connections: concurrent scrapers are answered in parallel up to the lock, which a
 * scrape holds only while it reads the counters and writes the text. */
#define HTTP_THREADS 4
/* A client that sends or reads nothing for this long is disconnected (a slow or stuck scraper must not
 * keep a thread and a descriptor). */
#define HTTP_TIMEOUT_S 10
/* At most this many connections from one address: a client that holds many (64 trickling ones, each
 * within the timeout) leaves the others room. Above the 16 of test_exporter's slow clients and its
 * scraper, from one address. */
#define HTTP_MAX_PER_ADDRESS 32

struct http_server {
	struct MHD_Daemon *daemon;
	struct exporter *x;
	struct http_deadline *deadline;  /* the time a request may take to arrive */
	pthread_rwlock_t auth_lock;  /* a SIGHUP swaps auth while scrapers check it */
	struct basic_auth *auth;     /* NULL: no authentication */
	bool starting;               /* libmicrohttpd's messages go to start_log, not stderr */
	char start_log[512];         /* its first message while starting: why it did not */
};

/* libmicrohttpd's messages: kept while the daemon starts (a refusal says why in them: GnuTLS's reason
 * for a certificate, the bind's errno), said on stderr after. */
__attribute__((format(printf, 2, 0))) static void mhd_log(void *arg, const char *fmt, va_list ap)
{
	struct http_server *s = arg;
	if (!s->starting) {
		fputs("tally exporter: http: ", stderr);
		vfprintf(stderr, fmt, ap);
		return;
	}
	if (s->start_log[0])
		return;
	vsnprintf(s->start_log, sizeof(s->start_log), fmt, ap);
	s->start_log[strcspn(s->start_log, "\n")] = '\0';
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The exposition after an update of every counter: malloc'd text, its length in *len; NULL without
 * memory. */
static char *scrape(struct exporter *x, size_t *len)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);
	if (!out)
		return NULL;
	pthread_mutex_lock(&x->lock);
	double start = now_seconds();
	fleet_update(&x->fleet, false);
	struct exposition_info info = {
		.per_cpu = x->per_cpu, .scrapes = ++x->scrapes, .scrape_seconds = x->last_scrape_seconds,
	};
	int err = exposition_write(out, &x->fleet, &info);
	x->last_scrape_seconds = now_seconds() - start;
	pthread_mutex_unlock(&x->lock);
	if (fclose(out) != 0 || err) {
		free(text);
		return NULL;
	}
	return text;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, char *body, size_t len, bool owned,
                             const char *type)
{
	struct MHD_Response *r = owned ? MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE)
	                               : MHD_create_response_from_buffer(len, body, MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	enum MHD_Result ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* Whether the request carries the name and password of a user of --basic-auth-file. */
static bool authorized(struct http_server *s, struct MHD_Connection *c)
{
	pthread_rwlock_rdlock(&s->auth_lock);
	bool ok = !s->auth;
	if (!ok) {
		char *password = NULL, *user = MHD_basic_auth_get_username_password(c, &password);
		ok = user && password && basic_auth_check(s->auth, user, password);
		MHD_free(user);
		MHD_free(password);
	}
	pthread_rwlock_unlock(&s->auth_lock);
	return ok;
}

void http_set_basic_auth(struct http_server *s, struct basic_auth *auth)
{
	pthread_rwlock_wrlock(&s->auth_lock);
	struct basic_auth *old = s->auth;
	s->auth = auth;
	pthread_rwlock_unlock(&s->auth_lock);
	basic_auth_free(old);
}

static enum MHD_Result handle(void *arg, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *data, size_t *data_len, void **state)
{
	(void)version;
	(void)data;
	struct http_server *s = arg;
	static char text_plain[] = "text/plain; charset=utf-8";
	/* The first call is for the headers alone: answered at the second (libmicrohttpd's protocol). */
	if (!*state) {
		http_deadline_arrived(s->deadline, c);
		*state = s;
		return MHD_YES;
	}
	if (*data_len)
		return MHD_NO;  /* a GET has no body: a client that sends one is cut */
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		static char body[] = "only GET\n";
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, body, sizeof(body) - 1, false, text_plain);
	}
	if (!authorized(s, c)) {
		static char body[] = "authentication required\n";
		struct MHD_Response *r = MHD_create_response_from_buffer(sizeof(body) - 1, body, MHD_RESPMEM_PERSISTENT);
		if (!r)
			return MHD_NO;
		enum MHD_Result ret = MHD_queue_basic_auth_fail_response(c, "tally exporter", r);
		MHD_destroy_response(r);
		return ret;
	}
	if (strcmp(url, "/metrics") == 0) {
		size_t len = 0;
		char *text = scrape(s->x, &len);
		if (!text) {
			static char body[] = "out of memory\n";
			return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, body, sizeof(body) - 1, false, text_plain);
		}
		return reply(c, MHD_HTTP_OK, text, len, true, EXPOSITION_CONTENT_TYPE);
	}
	if (strcmp(url, "/") == 0) {
		static char body[] = "tally exporter: the metrics are at /metrics\n";
		return reply(c, MHD_HTTP_OK, body, sizeof(body) - 1, false, text_plain);
	}
	static char body[] = "not found: the metrics are at /metrics\n";
	return reply(c, MHD_HTTP_NOT_FOUND, body, sizeof(body) - 1, false, text_plain);
}

/* "host:port", "[v6]:port" or ":port" into an address. */
static int parse_listen(const char *listen, struct sockaddr_storage *addr, char *err, size_t err_len)
{
	char host[256] = "", port[16] = "";
	const char *colon = strrchr(listen, ':');
	if (!colon || !colon[1] || strlen(colon + 1) >= sizeof(port) || (size_t)(colon - listen) >= sizeof(host)) {
		snprintf(err, err_len, "--listen %s: expected HOST:PORT (127.0.0.1:9464, [::1]:9464, :9464)", listen);
		return -1;
	}
	memcpy(host, listen, (size_t)(colon - listen));
	snprintf(port, sizeof(port), "%s", colon + 1);
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	int e = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (e != 0) {
		snprintf(err, err_len, "--listen %s: %s", listen, gai_strerror(e));
		return -1;
	}
	memcpy(addr, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

/* Whether the address can be bound now: a socket bound and closed, never listening, so that nothing is
 * served without TLS while the reason is found (libmicrohttpd binds with SO_REUSEADDR too). */
static bool address_usable(const struct sockaddr_storage *addr)
{
	int fd = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	int on = 1;
	socklen_t len = addr->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	bool usable = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) == 0 &&
	              bind(fd, (const struct sockaddr *)addr, len) == 0;
	close(fd);
	return usable;
}

/* Why the daemon did not start: TLS refused (the certificate or key: libmicrohttpd's message says
 * what GnuTLS found), or the address (it cannot be bound either). */
static void start_error(struct http_server *s, const struct http_options *o, const struct sockaddr_storage *addr,
                        char *err, size_t err_len)
{
	const char *why = s->start_log[0] ? s->start_log : "no reason given";
	if (o->tls_cert && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		snprintf(err, err_len, "cannot serve HTTPS on %s: this libmicrohttpd has no TLS", o->listen);
		return;
	}
	if (o->tls_cert && address_usable(addr)) {
		snprintf(err, err_len, "--tls-cert/--tls-key: the certificate and key were refused (%s): each must be "
		         "PEM, the key unencrypted and the certificate's own", why);
		return;
	}
	snprintf(err, err_len, "cannot serve on %s (libmicrohttpd: %s)", o->listen, why);
}

struct http_server *http_start(struct exporter *x, const struct http_options *o, char *err, size_t err_len)
{
	struct sockaddr_storage addr;
	memset(&addr, 0, sizeof(addr));
	if (parse_listen(o->listen, &addr, err, err_len) < 0)
		return NULL;
	struct http_server *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	s->x = x;
	if (!(s->deadline = http_deadline_start())) {
		snprintf(err, err_len, "out of memory (or threads)");
		free(s);
		return NULL;
	}
	pthread_rwlock_init(&s->auth_lock, NULL);
	s->auth = o->basic_auth;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
	if (addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (o->tls_cert)
		flags |= MHD_USE_TLS;
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, o->tls_cert },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, o->tls_key },
		{ MHD_OPTION_END, 0, NULL },
	};
	s->starting = true;
	s->daemon = MHD_start_daemon(flags, 0, NULL, NULL, handle, s,
	                             MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s,
	                             MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
	                             MHD_OPTION_THREAD_POOL_SIZE, (unsigned)HTTP_THREADS,
	                             MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_MAX_CONNECTIONS,
	                             MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_TIMEOUT_S,
	                             MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)HTTP_MAX_PER_ADDRESS,
	                             MHD_OPTION_NOTIFY_CONNECTION, http_deadline_notify, s->deadline,
	                             MHD_OPTION_NOTIFY_COMPLETED, http_deadline_completed, s->deadline,
	                             MHD_OPTION_ARRAY, o->tls_cert ? tls : tls + 2,
	                             MHD_OPTION_END);
	if (!s->daemon) {
		start_error(s, o, &addr, err, err_len);
		http_deadline_stop(s->deadline);
		pthread_rwlock_destroy(&s->auth_lock);
		free(s);
		return NULL;
	}
	s->starting = false;
	return s;
}

void http_stop(struct http_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->daemon);
	http_deadline_stop(s->deadline);
	basic_auth_free(s->auth);
	pthread_rwlock_destroy(&s->auth_lock);
	free(s);
}
