#!/bin/bash
# SPDX-License-Identifier: MIT
# tally stat and the kernel's rules on groups: a group's D and e modifiers (members count), many events of
# one PMU (packed into groups whose read fits the kernel's 16 KiB limit; the command runs), an explicit
# group within the limit (counts, as perf) and past it (refused with the limit named, as perf refuses it).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"

# task-clock N times, comma-separated.
task_clocks() { local s; s=$(printf 'task-clock,%.0s' $(seq "$1")); echo "${s%,}"; }

# Rows of -x, output whose value is a number (counted), and all rows.
counted() { grep -c '^[0-9][0-9.]*,' "$1"; }

for m in D e; do
	"$TALLY" stat -x, -e "{task-clock,page-faults,minor-faults}:$m" -- true 2>"$WORK/err"
	n=$(counted "$WORK/err")
	[ "$n" -eq 3 ] && ok "{task-clock,page-faults,minor-faults}:$m: every member counts" ||
		fail ":$m: $n of 3 counted: $(cat "$WORK/err")"
done

# Past 1022 task-clocks the packed group splits; 1100 events need that many descriptors and some.
if ! ulimit -n 4096 2>/dev/null; then
	echo "SKIP (the many-event cases): cannot raise RLIMIT_NOFILE to 4096"
	finish
	exit 0
fi
for n in 700 1100; do
	rm -f "$WORK/ran"
	"$TALLY" stat -x, -e "$(task_clocks $n)" -- touch "$WORK/ran" 2>"$WORK/err"
	st=$? c=$(counted "$WORK/err")
	[ $st -eq 0 ] && [ -e "$WORK/ran" ] && [ "$c" -eq $n ] && ok "$n x task-clock: the command ran, $c counted" ||
		fail "$n x task-clock: exit $st, $c counted: $(head -c 600 "$WORK/err")"
done

"$TALLY" stat -x, -e "{$(task_clocks 700)}" -- true 2>"$WORK/err"
st=$? c=$(counted "$WORK/err")
[ $st -eq 0 ] && [ "$c" -eq 700 ] && ok "an explicit group of 700 counts (as perf's does)" ||
	fail "explicit 700: exit $st, $c counted: $(head -c 600 "$WORK/err")"

kernel=$(uname -r)
if [ "$(printf '%s\n' 6.7 "${kernel%%-*}" | sort -V | head -1)" = 6.7 ]; then
	rm -f "$WORK/ran"
	"$TALLY" stat -x, -e "{$(task_clocks 1100)}" -- touch "$WORK/ran" 2>"$WORK/err"
	st=$?
	[ $st -ne 0 ] && grep -q "E2BIG" "$WORK/err" && grep -q "limit of 16384 bytes (16 KiB) on a group's read" "$WORK/err" &&
		grep -q "at most 1022 events" "$WORK/err" && ok "an explicit group of 1100: refused, the limit named" ||
		fail "explicit 1100: exit $st: $(cat "$WORK/err")"
	grep -q "attr is" "$WORK/err" && fail "explicit 1100: the attr-size explanation: $(cat "$WORK/err")"
fi

finish
