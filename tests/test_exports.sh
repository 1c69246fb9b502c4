#!/usr/bin/env bash
# The shared library exports exactly the public API, each symbol with its version:
# - every dynamic symbol it defines is a tally_* function declared with TALLY_API in include/tally/*.h, and
#   every such declaration is exported (a declared but missing function would fail only when a program
#   links against it);
# - src/libtally.map lists every symbol by name (no pattern other than the `local: *;` that hides the
#   rest), each in exactly one version node, and lists nothing that is not declared;
# - every exported symbol carries the version node the map gives it (readelf shows name@@NODE);
# - neither the library nor the CLI calls strerror or strerror_r: their texts are translated by the
#   locale, and tally's messages use the untranslated strerrordesc_np (through tally_strerror).
set -euo pipefail
: "${TALLY_BUILD:?}" "${TALLY_SOURCE:?}"

lib="$TALLY_BUILD/libtally.so"
map="$TALLY_SOURCE/src/libtally.map"
[ -f "$lib" ] || { echo "missing $lib"; exit 1; }

# name@@NODE for every defined dynamic symbol (readelf's Ndx is UND for the undefined ones); the version
# nodes themselves appear as ABS entries named after the node.
versioned=$(readelf --dyn-syms --wide "$lib" | awk '$1 ~ /^[0-9]+:$/ && $7 != "UND" && $7 != "ABS" && NF >= 8 { print $8 }' |
	sort -u)
exported=$(sed 's/@.*//' <<<"$versioned" | sort -u)
declared=$(grep -h 'TALLY_API' "$TALLY_SOURCE"/include/tally/*.h | grep -v '#define' |
	grep -o 'tally_[a-z0-9_]*[[:space:]]*(' | tr -d ' \t(' | sort -u)
# "symbol NODE" for every name the map lists: comments stripped, nodes tracked by their opening line.
mapped=$(sed 's@/\*.*\*/@@g' "$map" | awk '
	/\/\*/ { comment = 1 } comment { if (/\*\//) comment = 0; next }
	/^[A-Z0-9_.]+[[:space:]]*\{/ { node = $1; next }
	/^[[:space:]]*(global|local):/ { next }
	/^[[:space:]]*[A-Za-z_*][A-Za-z0-9_*]*;/ { gsub(/[[:space:];]/, ""); print $0, node }')

status=0
[ -n "$exported" ] || { echo "$lib exports nothing"; exit 1; }
report() { # title list
	[ -z "$2" ] && return 0
	echo "$1"
	sed 's/^/  /' <<<"$2"
	status=1
}

report "exported symbols without the tally_ prefix (src/libtally.map or visibility broken):" \
	"$(grep -v '^tally_' <<<"$exported" || true)"
report "exported but not declared TALLY_API in include/tally/*.h (internal functions must be tly_*):" \
	"$(comm -23 <(echo "$exported") <(echo "$declared") | grep '^tally_' || true)"
report "declared TALLY_API but not exported by $lib (not implemented, or missing from src/libtally.map?):" \
	"$(comm -13 <(echo "$exported") <(echo "$declared"))"
report "exported symbols without a version (readelf shows no @@NODE):" \
	"$(grep -v '@@TALLY_' <<<"$versioned" || true)"

# The map itself: names only (the one pattern is local's *), each once, each declared.
report "patterns in src/libtally.map other than 'local: *;' (list every symbol by name):" \
	"$(awk '$1 ~ /\*/ && $1 != "*"' <<<"$mapped")"
named=$(awk '$1 != "*" { print $1 }' <<<"$mapped")
report "listed in more than one version node of src/libtally.map:" "$(sort <<<"$named" | uniq -d)"
report "listed in src/libtally.map but not declared TALLY_API:" \
	"$(comm -23 <(sort -u <<<"$named") <(echo "$declared"))"
report "declared TALLY_API but absent from src/libtally.map:" \
	"$(comm -13 <(sort -u <<<"$named") <(echo "$declared"))"
# Each export carries the node the map puts it in.
expected=$(awk '$1 != "*" { print $1 "@@" $2 }' <<<"$mapped" | sort -u)
report "exported with a version other than its node in src/libtally.map (built from a stale map?):" \
	"$(comm -13 <(echo "$expected") <(echo "$versioned"))"

for bin in "$lib" "$TALLY_BUILD/tools/tally"; do
	[ -f "$bin" ] || continue
	report "$bin calls the locale's strerror (use tally_strerror / strerrordesc_np):" \
		"$(nm -D --undefined-only "$bin" | awk '{ print $2 }' | sed 's/@.*//' | grep -xE 'strerror|strerror_r|__xpg_strerror_r|strerror_l' || true)"
done

echo "$(wc -l <<<"$exported") symbols exported, $(wc -l <<<"$declared") declared, versions:" \
	"$(sed 's/.*@@//' <<<"$versioned" | sort | uniq -c | awk '{ printf "%s %s  ", $2, $1 }')"
exit $status
