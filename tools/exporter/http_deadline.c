/* SPDX-License-Identifier: MIT */
#include "exporter/http_deadline.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

struct conn_clock {
	struct conn_clock *prev, *next;
	MHD_socket fd;
	struct timespec since;       /* CLOCK_MONOTONIC: the connection's start, or its last answer */
	bool in_request;             /* the headers arrived: the handler has the request */
};

struct http_deadline {
	pthread_mutex_t lock;        /* the list: libmicrohttpd's threads add, stop and remove clocks */
	pthread_cond_t wake;         /* stop */
	bool stopping;
	struct conn_clock *clocks;
	pthread_t watchdog;
};

static struct timespec now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts;
}

/* Every second, the connections past the deadline cut. A clock is removed (under the lock) before
 * libmicrohttpd closes its descriptor, so that a descriptor shut here is still that connection's. */
static void *watchdog(void *arg)
{
	struct http_deadline *d = arg;
	pthread_mutex_lock(&d->lock);
	while (!d->stopping) {
		struct timespec t = now();
		for (struct conn_clock *k = d->clocks; k; k = k->next)
			if (!k->in_request && t.tv_sec - k->since.tv_sec > HTTP_REQUEST_DEADLINE_S)
				shutdown(k->fd, SHUT_RDWR);
		struct timespec until = t;
		until.tv_sec += 1;
		pthread_cond_timedwait(&d->wake, &d->lock, &until);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

struct http_deadline *http_deadline_start(void)
{
	struct http_deadline *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&d->wake, &attr);
	pthread_condattr_destroy(&attr);
	pthread_mutex_init(&d->lock, NULL);
	if (pthread_create(&d->watchdog, NULL, watchdog, d) != 0) {
		pthread_cond_destroy(&d->wake);
		pthread_mutex_destroy(&d->lock);
		free(d);
		return NULL;
	}
	return d;
}

void http_deadline_notify(void *deadline, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
	struct http_deadline *d = deadline;
	struct conn_clock *k = *socket_context;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (!info || !(k = calloc(1, sizeof(*k)))) {
			/* No clock, no connection: one that could outlast the deadline is not served. */
			if (info)
				shutdown(info->connect_fd, SHUT_RDWR);
			return;
		}
		k->fd = info->connect_fd;
		k->since = now();
		pthread_mutex_lock(&d->lock);
		k->next = d->clocks;
		if (d->clocks)
			d->clocks->prev = k;
		d->clocks = k;
		pthread_mutex_unlock(&d->lock);
		*socket_context = k;
		return;
	}
	if (code != MHD_CONNECTION_NOTIFY_CLOSED || !k)
		return;
	pthread_mutex_lock(&d->lock);
	if (k->prev)
		k->prev->next = k->next;
	else
		d->clocks = k->next;
	if (k->next)
		k->next->prev = k->prev;
	pthread_mutex_unlock(&d->lock);
	free(k);
	*socket_context = NULL;
}

/* The clock of connection C, or NULL. */
static struct conn_clock *clock_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return info ? info->socket_context : NULL;
}

void http_deadline_arrived(struct http_deadline *d, struct MHD_Connection *c)
{
	struct conn_clock *k = clock_of(c);
	if (!k)
		return;
	pthread_mutex_lock(&d->lock);
	k->in_request = true;
	pthread_mutex_unlock(&d->lock);
}

void http_deadline_completed(void *deadline, struct MHD_Connection *c, void **state,
                             enum MHD_RequestTerminationCode why)
{
	(void)state;
	(void)why;
	struct http_deadline *d = deadline;
	struct conn_clock *k = clock_of(c);
	if (!k)
		return;
	pthread_mutex_lock(&d->lock);
	k->since = now();
	k->in_request = false;
	pthread_mutex_unlock(&d->lock);
}

void http_deadline_stop(struct http_deadline *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	d->stopping = true;
	pthread_cond_signal(&d->wake);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->watchdog, NULL);
	pthread_cond_destroy(&d->wake);
	pthread_mutex_destroy(&d->lock);
	free(d);
}
