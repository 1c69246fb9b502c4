#!/bin/bash
# SPDX-License-Identifier: MIT
# The cost of the read(2) path in user instructions, counted by callgrind (instruction counts, not time, so
# the same in every run of one build), each against the bare read(2) of the same 4 software events with a
# hand-written decode:
# - tally_counter_read (bench/bench_counter_read: 2001 reads against 2000 bare ones; GCC 12 on x86-64:
#   154 per read against 152, 1.015x);
# - an empty region, begin + end (bench/bench_region: 1001 pairs against two bare group reads each; 1.52x).
# The bounds leave room for other compilers and C libraries; the bench programs say how to reproduce and
# where the instructions go.
set -u
READ_BOUND=1.10
REGION_BOUND=1.65
for bench in bench_counter_read bench_region; do
	[ -x "${TALLY_BUILD:?}/bench/$bench" ] || { echo "SKIP: $TALLY_BUILD/bench/$bench not built"; exit 77; }
done
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
	{ echo "SKIP: valgrind's callgrind is needed"; exit 77; }
# Instruction counts are those of an optimized build (no type: CMakeLists.txt makes it RelWithDebInfo): a
# debug, coverage or sanitizer build counts others.
cache=$TALLY_BUILD/CMakeCache.txt
grep -Eq '^CMAKE_BUILD_TYPE:[A-Z]*=(|Release|RelWithDebInfo|MinSizeRel)$' "$cache" 2>/dev/null &&
	! grep -E '^CMAKE_C_FLAGS:[A-Z]*=' "$cache" | grep -Eq -- '-O0|--coverage|-fsanitize' ||
	{ echo "SKIP: not an optimized build"; exit 77; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failed=0

profile() { # BENCH ARGS...: callgrind's profile of one run, in $WORK/BENCH.out
	local bench=$1
	shift
	valgrind --tool=callgrind --callgrind-out-file="$WORK/$bench.out" "$TALLY_BUILD/bench/$bench" "$@" \
		>"$WORK/$bench.log" 2>&1 ||
		{ echo "SKIP: $bench does not run under callgrind here: $(tail -2 "$WORK/$bench.log")"; exit 77; }
}
inclusive() { # BENCH PATTERN: the inclusive instructions of the first function the pattern names
	callgrind_annotate --inclusive=yes "$WORK/$1.out" | grep -m1 -E "$2" | awk '{ gsub(",", "", $1); print $1 }'
}
check() { # WHAT OURS BARE BOUND
	[ -n "$2" ] && [ -n "$3" ] || { echo "FAIL: $1: not found in the profile"; failed=1; return; }
	local ratio
	ratio=$(awk -v r="$2" -v b="$3" 'BEGIN { printf "%.3f", r / b }')
	echo "$1: $2 against $3 user instructions for the bare reads: ${ratio}x"
	if awk -v x="$ratio" -v m="$4" 'BEGIN { exit !(x <= m) }'; then
		echo "ok   $1 costs at most ${4}x the bare reads"
	else
		echo "FAIL: $1: ${ratio}x is over ${4}x"
		failed=1
	fi
}

profile bench_counter_read 2000 1
check "tally_counter_read (read(2) path, 2001 reads; bare 2000)" \
	"$(inclusive bench_counter_read ':tally_counter_read( |$)')" \
	"$(inclusive bench_counter_read 'bench_counter_read\.c:bare_read ')" "$READ_BOUND"
profile bench_region 1000 1
check "region begin+end (read(2) path, 1001 pairs)" "$(inclusive bench_region 'bench_region\.c:region_pair ')" \
	"$(inclusive bench_region 'bench_region\.c:bare_pair ')" "$REGION_BOUND"
exit $failed
