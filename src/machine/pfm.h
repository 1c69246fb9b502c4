/* SPDX-License-Identifier: MIT */
/* Optional libpfm4 encoding of names such as "skl::INST_RETIRED:ANY_P" or vendor names libpfm4 knows. */
#ifndef TLY_PFM_H
#define TLY_PFM_H

#include <linux/perf_event.h>
#include <stdbool.h>

/* Fills attr->type, config, config1, config2 (and exclude bits for modifiers libpfm4 parses) for a libpfm4
 * event name. Returns 0; -TALLY_ENOPFM when this build has no libpfm4; -TALLY_ESPEC when libpfm4 does not
 * know the name (with a last-error text from libpfm4's own message). Thread-safe (libpfm4 is initialised
 * once through pthread_once). */
int tly_pfm_encode(const char *name, struct perf_event_attr *attr);

#endif
