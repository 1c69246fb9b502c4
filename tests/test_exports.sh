#!/usr/bin/env bash
# The shared library exports exactly the public API: every dynamic symbol it defines is a tally_* function
# declared with TALLY_API in include/tally/*.h, and every such declaration is exported (a declared but
# missing function would fail only when a program links against it).
set -euo pipefail
: "${TALLY_BUILD:?}" "${TALLY_SOURCE:?}"

lib="$TALLY_BUILD/libtally.so"
[ -f "$lib" ] || { echo "missing $lib"; exit 1; }

# Type A entries are version nodes (TALLY_0 from src/libtally.map), not symbols.
exported=$(nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' | sed 's/@.*//' | sort -u)
declared=$(grep -h 'TALLY_API' "$TALLY_SOURCE"/include/tally/*.h | grep -v '#define' |
	grep -o 'tally_[a-z0-9_]*[[:space:]]*(' | tr -d ' \t(' | sort -u)

status=0
[ -n "$exported" ] || { echo "$lib exports nothing"; exit 1; }

not_tally=$(grep -v '^tally_' <<<"$exported" || true)
if [ -n "$not_tally" ]; then
	echo "exported symbols without the tally_ prefix (src/libtally.map or visibility broken):"
	sed 's/^/  /' <<<"$not_tally"
	status=1
fi
undeclared=$(comm -23 <(echo "$exported") <(echo "$declared") | grep '^tally_' || true)
if [ -n "$undeclared" ]; then
	echo "exported but not declared TALLY_API in include/tally/*.h (internal functions must be tly_*):"
	sed 's/^/  /' <<<"$undeclared"
	status=1
fi
missing=$(comm -13 <(echo "$exported") <(echo "$declared"))
if [ -n "$missing" ]; then
	echo "declared TALLY_API but not exported by $lib (not implemented yet?):"
	sed 's/^/  /' <<<"$missing"
	status=1
fi
# Every exported symbol carries the library's version node.
unversioned=$(nm -D --defined-only "$lib" | awk '$2 != "A" && $3 !~ /@@TALLY_0$/ { print $3 }')
if [ -n "$unversioned" ]; then
	echo "exported symbols without the TALLY_0 version:"
	sed 's/^/  /' <<<"$unversioned"
	status=1
fi

echo "$(wc -l <<<"$exported") symbols exported, $(wc -l <<<"$declared") declared"
exit $status
