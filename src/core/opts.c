/* SPDX-License-Identifier: MIT */
#include "core/opts.h"

#include "core/error.h"

#include <string.h>

/* sz below its own size cannot describe a struct; above TALLY_OPTS_MAX_SZ it is a bug (1 << 30 read or
 * cleared that far would crash), never a newer header. */
static int check_sz(size_t sz, const char *type_name)
{
	if (sz < sizeof(size_t) || sz > TALLY_OPTS_MAX_SZ)
		return tly_error(-TALLY_EOPTS, "struct %s: sz is %zu, outside %zu..%d; declare it with TALLY_OPTS()",
		                 type_name, sz, sizeof(size_t), TALLY_OPTS_MAX_SZ);
	return 0;
}

bool tly_opts_valid(const void *opts, size_t known_size, const char *type_name)
{
	if (!opts)
		return true;
	size_t sz = *(const size_t *)opts;
	if (check_sz(sz, type_name))
		return false;
	const unsigned char *bytes = opts;
	for (size_t i = known_size; i < sz; i++) {
		if (bytes[i]) {
			tly_error(-TALLY_EOPTS,
			          "struct %s: byte %zu of its sz %zu is set but this libtally (%s) knows only %zu bytes of it",
			          type_name, i, sz, tally_version(), known_size);
			return false;
		}
	}
	return true;
}

int tly_info_check(const void *dst, const char *type_name)
{
	if (!dst)
		return tly_error(-EINVAL, "struct %s: the pointer to fill is NULL", type_name);
	return check_sz(*(const size_t *)dst, type_name);
}

int tly_info_copy(void *dst, const void *src, size_t known_size, const char *type_name)
{
	int err = tly_info_check(dst, type_name);
	if (err)
		return err;
	size_t sz = *(const size_t *)dst;
	memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t),
	       (sz < known_size ? sz : known_size) - sizeof(size_t));
	/* A newer caller's larger struct: the fields this build does not know read as zero. */
	if (sz > known_size)
		memset((char *)dst + known_size, 0, sz - known_size);
	return 0;
}
