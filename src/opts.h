/* SPDX-License-Identifier: MIT */
/* Options structs that carry their own size (libbpf's scheme). */
#ifndef TLY_OPTS_H
#define TLY_OPTS_H

#include <stdbool.h>
#include <stddef.h>

/* True when opts is NULL, or its sz is at least sizeof(size_t) and every byte past the fields this build
 * knows (known_size) is zero: a newer caller may pass a larger struct, as long as it sets nothing we
 * would ignore. On false, records a last-error text naming the struct. */
bool tly_opts_valid(const void *opts, size_t known_size, const char *type_name);

/* Reads field `f` of an options struct, or `def` when opts is NULL or too small to hold it. */
#define TLY_OPT(opts, f, def)                                                                      \
	((opts) && (opts)->sz >= offsetof(__typeof__(*(opts)), f) + sizeof((opts)->f) ? (opts)->f : (def))

/* Writes field `f` of a caller's output struct (one that carries its sz, as tally_pmu_info does) when the
 * caller's struct has room for it: a caller built against an older header passes a smaller struct. */
#define TLY_OUT_SET(out, f, value)                                                                 \
	do {                                                                                       \
		if ((out)->sz >= offsetof(__typeof__(*(out)), f) + sizeof((out)->f))               \
			(out)->f = (value);                                                        \
	} while (0)

#endif
