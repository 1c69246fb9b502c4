/* SPDX-License-Identifier: MIT */
/*
 * The time a request may take to arrive in full. libmicrohttpd's connection timeout is one of
 * idleness: a client that sends a byte every few seconds and never ends its headers holds its
 * connection for ever, and 64 of them lock every scraper out before any authentication. Each connection
 * has a clock here, started when it opens and again when a request on it is answered; a watchdog thread
 * cuts (shutdown(2): libmicrohttpd sees the end and closes it) every connection whose request has not
 * arrived whole HTTP_REQUEST_DEADLINE_S after its clock started.
 */
#ifndef TALLY_EXPORTER_HTTP_DEADLINE_H
#define TALLY_EXPORTER_HTTP_DEADLINE_H

#include <microhttpd.h>

/* Seconds from a connection's start (or its last answer) to its request's whole headers: a scraper's
 * request is a few hundred bytes, sent at once. */
#define HTTP_REQUEST_DEADLINE_S 5

struct http_deadline;

/* Starts the watchdog. NULL without memory or a thread. */
struct http_deadline *http_deadline_start(void);

/* MHD_OPTION_NOTIFY_CONNECTION's callback (its argument the deadline): the clock of each connection. */
void http_deadline_notify(void *deadline, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code);

/* The access handler's first call for a request: its headers have arrived, the clock stops. */
void http_deadline_arrived(struct http_deadline *d, struct MHD_Connection *c);

/* MHD_OPTION_NOTIFY_COMPLETED's callback: answered, the clock starts again for the next request. */
void http_deadline_completed(void *deadline, struct MHD_Connection *c, void **state,
                             enum MHD_RequestTerminationCode why);

/* Stops the watchdog and frees: after the daemon is stopped (which closes every connection). */
void http_deadline_stop(struct http_deadline *d);

#endif
