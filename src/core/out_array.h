/* SPDX-License-Identifier: MIT */
/*
 * Caller-allocated output that can grow: every array (or single struct) the library fills comes with the
 * size of one element as the caller's header declared it (sizeof). A newer caller's element is larger:
 * the library writes the fields it knows and zeroes the rest, so a field it does not know reads 0. An older
 * caller's element is smaller (never below the first version's size): the library writes only the bytes
 * that caller has. Fields are never reordered or removed, only appended, so the bytes up to a caller's
 * size mean the same to both.
 */
#ifndef TLY_OUT_ARRAY_H
#define TLY_OUT_ARRAY_H

#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "core/error.h"
#include "core/opts.h"

/* Sizes of the first version of each output struct (tally 0.x as frozen): a caller's element is never
 * smaller. These stay as they are when a struct grows. */
#define TLY_RESULT_SZ_V1 72
#define TLY_PART_SZ_V1 48
#define TLY_EXIT_SZ_V1 40
#define TLY_COUNT_SZ_V1 40

/* elem_sz of a caller's `type_name` array: at least the first version, at most TALLY_OPTS_MAX_SZ, a multiple
 * of the struct's alignment (elements of an array of a larger struct stay aligned). Sets the last error
 * and returns false when not. */
static inline bool tly_out_valid(size_t elem_sz, size_t v1_sz, size_t align, const char *type_name)
{
	if (elem_sz >= v1_sz && elem_sz <= TALLY_OPTS_MAX_SZ && elem_sz % align == 0)
		return true;
	tly_error(-TALLY_EOPTS, "struct %s: element size %zu; pass sizeof(struct %s)", type_name, elem_sz,
	          type_name);
	return false;
}

/* Element i of an array of elem_sz-byte elements. */
static inline void *tly_out_at(void *base, size_t i, size_t elem_sz)
{
	return (char *)base + i * elem_sz;
}

static inline const void *tly_out_at_const(const void *base, size_t i, size_t elem_sz)
{
	return (const char *)base + i * elem_sz;
}

/* Puts the library's element (its fields end at `known` bytes) into the caller's of elem_sz bytes: what
 * both know, then zeros up to elem_sz. */
static inline void tly_out_put(void *dst, size_t elem_sz, const void *src, size_t known)
{
	if (elem_sz <= known) {
		memcpy(dst, src, elem_sz);
		return;
	}
	memcpy(dst, src, known);
	memset((char *)dst + known, 0, elem_sz - known);
}

/* Reads a caller's element of elem_sz bytes into the library's (fields ending at `known`): fields the
 * caller's version lacks read 0. */
static inline void tly_in_get(void *dst, size_t known, const void *src, size_t elem_sz)
{
	memset(dst, 0, known);
	memcpy(dst, src, elem_sz < known ? elem_sz : known);
}

#endif
