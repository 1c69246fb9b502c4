/* SPDX-License-Identifier: MIT */
/*
 * The exporter's HTTP side, on GNU libmicrohttpd: GET /metrics answers the exposition (each scrape first
 * reads every counter, under the exporter's lock), / a pointer to it, anything else 404. A pool of
 * threads serves concurrent scrapers; a silent client is cut after a timeout, one whose request is
 * slow to arrive in full after a deadline (http_deadline.h), and the number of connections is bounded,
 * in all and per client address, so that none holds the others up or exhausts descriptors. TLS (a
 * certificate and key in PEM) and HTTP basic authentication where asked for.
 */
#ifndef TALLY_EXPORTER_HTTP_H
#define TALLY_EXPORTER_HTTP_H

#include <pthread.h>
#include <stdbool.h>

#include "exporter/basic_auth.h"
#include "exporter/fleet.h"

/* At most this many connections at once (their descriptors are kept aside from the counters' budget). */
#define HTTP_MAX_CONNECTIONS 64

struct exporter {
	pthread_mutex_t lock;        /* serialises the fleet: scrapes, updates, scans, reloads */
	struct fleet fleet;
	bool per_cpu;
	unsigned long scrapes;
	double last_scrape_seconds;
};

struct http_options {
	const char *listen;          /* "127.0.0.1:9464", "[::1]:9464", ":9464" (every address) */
	char *tls_cert, *tls_key;    /* PEM text (not paths), both or neither */
	struct basic_auth *basic_auth;  /* --basic-auth-file's users, NULL for none: the server's from http_start */
};

struct http_server;

/* Starts serving. On failure returns NULL with the reason in err. */
struct http_server *http_start(struct exporter *x, const struct http_options *o, char *err, size_t err_len);

/* SIGHUP: the users of --basic-auth-file read again (the server's from now on; the old ones freed). */
void http_set_basic_auth(struct http_server *s, struct basic_auth *auth);

/* Stops accepting, finishes the scrapes in progress, and frees. */
void http_stop(struct http_server *s);

#endif
