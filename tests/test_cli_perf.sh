#!/bin/bash
# SPDX-License-Identifier: MIT
# Agreement with perf: `tally stat -x,` and `perf stat -x,` count the same page-faults and minor-faults
# on one deterministic workload (dd with one 16 MiB buffer: about 4,100 faults, nearly all from touching
# the buffer). Slack: 1% or 16 faults, whichever is larger, for the few faults that differ between two
# executions (ASLR placement, the dynamic loader's pages).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
command -v perf >/dev/null || { echo "SKIP: perf is not installed"; exit 77; }
perf stat -x, -e page-faults -- true >/dev/null 2>&1 || { echo "SKIP: perf stat cannot count here"; exit 77; }
workload=(dd if=/dev/zero of=/dev/null bs=16M count=1)
field() { grep ",$2," <<<"$1" | head -1 | cut -d, -f1; }
for round in 1 2 3; do
	t=$("$TALLY" stat -x, -e page-faults,minor-faults -- "${workload[@]}" 2>&1 >/dev/null | grep -v records)
	p=$(perf stat -x, -e page-faults,minor-faults -- "${workload[@]}" 2>&1 >/dev/null | grep -v records)
	for ev in page-faults minor-faults; do
		a=$(field "$t" $ev); b=$(field "$p" $ev)
		if ! [[ "$a" =~ ^[0-9]+$ && "$b" =~ ^[0-9]+$ ]]; then
			fail "round $round $ev: tally '$a' perf '$b'"; continue
		fi
		diff=$((a > b ? a - b : b - a)); slack=$((b / 100 > 16 ? b / 100 : 16))
		if [ $diff -le $slack ]; then ok "round $round $ev: tally $a, perf $b (|diff| $diff <= $slack)"
		else fail "round $round $ev: tally $a, perf $b (|diff| $diff > $slack)"; fi
	done
	[ "$(field "$t" page-faults)" -gt 4000 ] || fail "the workload faulted too little"
done
finish
