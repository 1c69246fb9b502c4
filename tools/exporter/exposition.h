/* SPDX-License-Identifier: MIT */
/*
 * The Prometheus text exposition format, version 0.0.4, of a fleet's totals: a HELP and a TYPE line for
 * every family, names and units as Prometheus's conventions ask (a counter ends in _total, times are
 * seconds), label values escaped (\\, \", \n).
 */
#ifndef TALLY_EXPORTER_EXPOSITION_H
#define TALLY_EXPORTER_EXPOSITION_H

#include <stdbool.h>
#include <stdio.h>

#include "exporter/fleet.h"

#define EXPOSITION_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct exposition_info {
	bool per_cpu;              /* a series per CPU (a cpu label) rather than per event and cgroup */
	unsigned long scrapes;     /* this scrape included */
	double scrape_seconds;     /* the previous scrape's update and rendering */
};

/* Writes the exposition of f to out. Returns 0, or -1 when a write failed. */
int exposition_write(FILE *out, const struct fleet *f, const struct exposition_info *info);

#endif
