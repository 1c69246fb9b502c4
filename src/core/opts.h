/* SPDX-License-Identifier: MIT */
/* Structs that carry their own size (libbpf's scheme): options going in, info coming out. */
#ifndef TLY_OPTS_H
#define TLY_OPTS_H

#include <stdbool.h>
#include <stddef.h>

/* Where field f of struct T ends. */
#define tly_offsetofend(T, f) (offsetof(T, f) + sizeof(((T *)0)->f))

/* The bytes of struct `type` this build knows: up to the end of the field its public header names in
 * <type>__last_field. Not sizeof: a field a later version adds into today's trailing padding leaves
 * sizeof as it is, and a check up to sizeof would let that newer caller's setting pass unseen. */
#define TLY_KNOWN_SIZE(type) tly_offsetofend(struct type, type##__last_field)

/* tly_opts_valid / tly_info_copy for a struct named by its tag: TLY_OPTS_VALID(opts, tally_pmus_opts). */
#define TLY_OPTS_VALID(opts, type) tly_opts_valid(opts, TLY_KNOWN_SIZE(type), #type)
#define TLY_INFO_COPY(dst, src, type) tly_info_copy(dst, src, TLY_KNOWN_SIZE(type), #type)

/* True when opts is NULL, or its sz lies in [sizeof(size_t), TALLY_OPTS_MAX_SZ] and every byte from
 * known_size to sz is zero: a newer caller may pass a larger struct, as long as it sets nothing we would
 * ignore. A size out of that range is refused before any byte past sz itself is read. On false, records
 * a last-error text naming the struct. */
bool tly_opts_valid(const void *opts, size_t known_size, const char *type_name);

/* Reads field `f` of an options struct, or `def` when opts is NULL or too small to hold it. */
#define TLY_OPT(opts, f, def) \
	((opts) && (opts)->sz >= tly_offsetofend(__typeof__(*(opts)), f) ? (opts)->f : (def))

/* Copies a filled output struct (src, sz first) into a caller's (dst, sz first), no further than the
 * caller's sz reaches: a caller built against an older header passes a smaller struct and gets the fields
 * it has room for; a newer, larger one has the bytes from known_size to its sz zeroed. Returns 0; -EINVAL
 * when dst is NULL; -TALLY_EOPTS when the caller's sz is outside [sizeof(size_t), TALLY_OPTS_MAX_SZ],
 * and then nothing past sz is written. Each failure with a last-error text naming type_name. */
int tly_info_copy(void *dst, const void *src, size_t known_size, const char *type_name);

/* The same check of a caller's output struct's sz, for a function that wants to refuse it before doing
 * the work: 0 or -TALLY_EOPTS / -EINVAL as tly_info_copy would return. */
int tly_info_check(const void *dst, const char *type_name);

#endif
