/* SPDX-License-Identifier: MIT */
#include "opts.h"

#include "error.h"

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
