/* SPDX-License-Identifier: MIT */
#include "opts.h"

#include "error.h"

#include <string.h>

bool tly_opts_valid(const void *opts, size_t known_size, const char *type_name)
{
	if (!opts)
		return true;
	size_t sz = *(const size_t *)opts;
	if (sz < sizeof(size_t)) {
		tly_error(-TALLY_EOPTS, "struct %s: sz is %zu; declare it with TALLY_OPTS()", type_name, sz);
		return false;
	}
	const unsigned char *bytes = opts;
	for (size_t i = known_size; i < sz; i++) {
		if (bytes[i]) {
			tly_error(-TALLY_EOPTS,
			          "struct %s: byte %zu is set but this libtally (%s) knows only %zu bytes of it",
			          type_name, i, tally_version(), known_size);
			return false;
		}
	}
	return true;
}

int tly_info_copy(void *dst, const void *src, size_t known_size, const char *type_name)
{
	size_t sz = *(const size_t *)dst;
	if (sz < sizeof(size_t))
		return tly_error(-TALLY_EOPTS, "struct %s: sz is %zu; declare it with TALLY_OPTS()", type_name, sz);
	memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t),
	       (sz < known_size ? sz : known_size) - sizeof(size_t));
	/* A newer caller's larger struct: the fields this build does not know read as zero. */
	if (sz > known_size)
		memset((char *)dst + known_size, 0, sz - known_size);
	return 0;
}
