/* SPDX-License-Identifier: MIT */
/* tally: count CPU performance-monitoring events through perf_event_open(2). The umbrella header. */
#ifndef TALLY_H
#define TALLY_H

#include <tally/common.h>
#include <tally/counter.h>
#include <tally/events.h>
#include <tally/cpumap.h>
#include <tally/evlist.h>
#include <tally/evsel.h>
#include <tally/pmu.h>
#include <tally/probe.h>
#include <tally/read_path.h>
#include <tally/threadmap.h>
#include <tally/snapshot.h>
#include <tally/region.h>
#include <tally/metrics.h>

#endif
