/* SPDX-License-Identifier: MIT */
/* The parsed event list (tally_events) shared by the spec parser that fills it and the accessors. */
#ifndef TLY_EVENT_LIST_H
#define TLY_EVENT_LIST_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <tally/events.h>

#include "machine/topdown.h"
#include "spec/builtin_events.h"

struct tly_event {
	struct perf_event_attr attr;
	char *name;        /* display name */
	char *base;        /* canonical text without modifiers: "cycles", "cpu/event=0x3c/", "cpu_core/cycles/" */
	char *canonical;   /* base with the modifiers that reproduce attr's bits; built by tly_events_finish */
	char *pmu;         /* PMU name, NULL for a type with none */
	char *unit;        /* from a sysfs alias's .unit */
	double scale;
	int group;
	bool leader;
	unsigned origin;
	unsigned nr_origins;
	bool pmu_form;     /* base ends in '/': modifiers follow without ':' */
	bool libpfm;       /* encoded by libpfm4, whose name carries its own modifiers: base is canonical */
	bool family;       /* one instance of a PMU family ("uncore_imc/.../" on uncore_imc_<n>) */
	bool weak;         /* in a {...}:W group: tally may split it (perf's weak group) */
	bool per_core_pmu; /* one core PMU's attr of an item expanded over a hybrid machine's core PMUs */
	char *origin_name; /* the item's name where its expansions are named after their PMU, else NULL */
	bool exclude_gh;   /* a G or H modifier was applied (perf's exclude_GH, for later group modifiers) */
	enum tly_tool_kind tool; /* one of perf's tool events, counted by tally; else TLY_TOOL_NONE */
	enum tly_topdown_kind topdown; /* on a PMU with PERF_METRICS: slots or a metric (spec_topdown.c) */
	uint64_t counters; /* the counters its vendor table record lists (tly_alias.counters), 0 for none */
};

struct tally_events {
	struct tly_event *v;
	size_t nr;
	size_t cap;
};

/* Appends a copy of ev; the list takes ownership of ev's strings (also on failure, when it frees them). */
int tly_events_push(struct tally_events *list, struct tly_event *ev);

/* Frees the strings of one event. */
void tly_event_release(struct tly_event *ev);

/* Builds every event's canonical text once the modifiers are final. */
int tly_events_finish(struct tally_events *list);

#endif
