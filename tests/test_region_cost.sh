#!/bin/bash
# SPDX-License-Identifier: MIT
# The cost of an empty region (begin + end) in user instructions, against two bare group reads of the same
# 4 software events (read(2) path), counted by callgrind in one run of bench/bench_region: instruction
# counts, not time, so the same in every run of one build. The bound leaves room for other compilers and
# C libraries (GCC 12 on x86-64: 1.52x; bench_region.c says how to reproduce and where the rest goes).
set -u
BENCH=${TALLY_BUILD:?}/bench/bench_region
BOUND=1.8
[ -x "$BENCH" ] || { echo "SKIP: $BENCH not built"; exit 77; }
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
valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" "$BENCH" 1000 1 >"$WORK/out" 2>&1 ||
	{ echo "SKIP: bench_region does not run under callgrind here: $(tail -2 "$WORK/out")"; exit 77; }
inclusive() { # FUNCTION: its inclusive instructions
	callgrind_annotate --inclusive=yes "$WORK/cg.out" | grep -m1 -E "bench_region\.c:$1 " | awk '{ gsub(",", "", $1); print $1 }'
}
region=$(inclusive region_pair)
bare=$(inclusive bare_pair)
[ -n "$region" ] && [ -n "$bare" ] || { echo "FAIL: no region_pair or bare_pair in the profile"; exit 1; }
ratio=$(awk -v r="$region" -v b="$bare" 'BEGIN { printf "%.2f", r / b }')
echo "region begin+end $region, two bare group reads $bare user instructions (1001 pairs): ${ratio}x"
awk -v x="$ratio" -v m="$BOUND" 'BEGIN { exit !(x <= m) }' || { echo "FAIL: ${ratio}x is over ${BOUND}x"; exit 1; }
echo "ok   an empty region costs at most ${BOUND}x two bare reads"
