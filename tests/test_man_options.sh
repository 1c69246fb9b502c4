#!/usr/bin/env bash
# tally(1) documents every option tally stat, encode, merge and compare --help list, each as an item of its own
# (.TP) under Options:
# a merge once dropped the items of -r, -I, -x, --csv-header, -j, -o, -p and -t, and nothing noticed.
# --append (documented with -o) and --version (with -h) are the two options that share another's item.
# tally stat's --help is printed from its option table (tools/stat/options.c, through tools/lib/parse_options.c),
# one "  -e, --event SPEC" line per entry with a help: an option added to the table without an item here fails.
# (Entries without a help, accepted or refused quietly, are not in --help: -T, --smi-cost, --iostat, --big-num.)
set -euo pipefail
: "${TALLY_BUILD:?}" "${TALLY_SOURCE:?}"
man="$TALLY_SOURCE/docs/man/tally.1"
tally="$TALLY_BUILD/tools/tally"
[ -x "$tally" ] || { echo "missing $tally"; exit 1; }

# The line after each .TP, with roff's escaped hyphens made plain: "-e, --event SPEC" style items.
items=$(awk 'prev == ".TP" { print } { prev = $0 }' "$man" | sed 's/\\-/-/g')
# tally encode's options too (its --c is a long option of one letter), and
longs=
# tally exporter's, where it is built (libmicrohttpd found).
for command in stat encode merge compare $([ -x "$TALLY_BUILD/tools/tally-exporter" ] && echo exporter); do
	help=$("$tally" $command --help 2>&1 || true)
	found=$(grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' <<<"$help" | grep -oE -- '--[a-z-]+')
	[ -n "$found" ] || { echo "FAIL: no options found in tally $command --help"; exit 1; }
	longs+=" $found"
done
missing=()
for opt in $longs; do
	case $opt in --append | --version) grep -qF -- "$opt" <<<"$(sed 's/\\-/-/g' "$man")" || missing+=("$opt");
		continue ;;
	esac
	grep -qE -- "(^|[ \"])$opt([ \"]|\$)" <<<"$items" || missing+=("$opt")
done
# Conflict markers a merge left behind.
if grep -nE '^(<<<<<<<|=======$|>>>>>>>)' "$man"; then
	echo "FAIL: merge conflict markers in tally(1)"
	exit 1
fi
if [ ${#missing[@]} -gt 0 ]; then
	echo "FAIL: tally(1) has no item for: ${missing[*]}"
	exit 1
fi
echo "ok: tally(1) has an item for each of $(wc -w <<<"$longs") options"
