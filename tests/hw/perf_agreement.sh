#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The hardware check's perf case (tests/hw/run.sh): `tally stat -e cycles:u,instructions:u` and `perf stat`
# with the same events count the same loop of known length (tests/hw/loop.h): instructions:u within 1 % of
# each other, and both at least the loop's listing (x86, arm64: 2 per iteration). A hybrid machine's perf
# prints one line per core PMU: they are summed, as tally sums them. cycles are shown, not compared (the
# clock changes from run to run). Exits 0, 1, or 77 with the reason where perf cannot count here.
#
#   perf_agreement.sh TALLY HW_LOOP
set -u
tally=$1 loop=$2
N=100000000
command -v perf >/dev/null 2>&1 || { echo "SKIP: perf is not installed (Debian: linux-perf)"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
events=cycles:u,instructions:u
if ! perf stat -x, -e $events -o "$dir/perf.csv" -- "$loop" $N 2>"$dir/perf.err"; then
	echo "SKIP: perf stat cannot count here: $(head -n 3 "$dir/perf.err" | tr '\n' ' ')"; exit 77
fi
"$tally" stat -x, -e $events -o "$dir/tally.csv" -- "$loop" $N 2>"$dir/tally.err" ||
	{ echo "FAIL: tally stat failed:"; cat "$dir/tally.err"; exit 1; }
sed 's/^/  perf:  /' "$dir/perf.csv" | grep -v '^  perf:  #\|^  perf:  $'
sed 's/^/  tally: /' "$dir/tally.csv"
# The sum of a column-1 count over the lines naming the event (cpu_core/instructions:u/ and the like).
count() { awk -F, -v e="$2" '$3 == e || $3 ~ ("/" e "/$") { if ($1 !~ /^[0-9]+$/) bad = 1; s += $1; n++ }
	END { if (n && !bad) printf "%.0f\n", s }' "$1"; }
p=$(count "$dir/perf.csv" instructions:u)
t=$(count "$dir/tally.csv" instructions:u)
if [ -z "$p" ] && grep -q 'not supported\|not counted' "$dir/perf.csv"; then
	echo "SKIP: perf stat counts no instructions:u here"; exit 77
fi
[ -n "$p" ] && [ -n "$t" ] || { echo "FAIL: instructions:u: perf '$p', tally '$t'"; exit 1; }
case $(uname -m) in x86_64 | aarch64) want=$((2 * N)) ;; *) want=$N ;; esac # loop.h's listing
awk -v p="$p" -v t="$t" -v n=$N -v want=$want 'BEGIN {
	d = (t - p) / p; if (d < 0) d = -d
	bad = d > 0.01 || p < want || t < want
	printf "%s instructions:u of %d loop iterations: perf %d, tally %d (relative difference %.2e, bound 1e-2; the listing: at least %d)\n",
		bad ? "FAIL:" : "ok  ", n, p, t, d, want
	exit bad }'
