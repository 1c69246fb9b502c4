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

/* Copies a filled output struct (src, known_size bytes, sz first) into a caller's (dst, sz first), no
 * further than the caller's sz reaches: a caller built against an older header passes a smaller struct
 * and gets the fields it has room for; a newer, larger one has the bytes this build does not know zeroed.
 * Returns 0, or -TALLY_EOPTS (with a last-error text naming type_name) when the caller's sz is below
 * sizeof(size_t). */
int tly_info_copy(void *dst, const void *src, size_t known_size, const char *type_name);

#endif
