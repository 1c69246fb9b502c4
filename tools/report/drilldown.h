/* SPDX-License-Identifier: MIT */
/* --drilldown: the vendor table's top-down metrics of a reading as their tree (drilldown.c). */
#ifndef TALLY_REPORT_DRILLDOWN_H
#define TALLY_REPORT_DRILLDOWN_H

#include "report/output.h"

/* Prints the tree of reading's top-down metrics: every node's children down to level td_level (0: none
 * but under a node over its threshold), and under a node over its threshold at any level. */
void drilldown_print(struct output *o, const struct output_reading *reading, unsigned td_level);

#endif
