#!/bin/bash
# SPDX-License-Identifier: MIT
# The CLI over sysfs trees built here, as a hostile or broken machine could have them: names as long as
# a file name may be are listed whole; a FIFO in place of a PMU's file fails with its name instead of
# hanging; a PMU with unreadable events does not stop a spec that does not use it.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"

# A minimal tree: the software PMU (type 1), and PMU $1 with type 42.
make_tree() {
	local root=$1 pmu=$2
	mkdir -p "$root/bus/event_source/devices/software" "$root/bus/event_source/devices/$pmu/events"
	echo 1 >"$root/bus/event_source/devices/software/type"
	echo 42 >"$root/bus/event_source/devices/$pmu/type"
}

pmu=$(printf 'p%.0s' $(seq 200))
alias=$(printf 'a%.0s' $(seq 250))
make_tree "$WORK/long" "$pmu"
echo "config=0x1" >"$WORK/long/bus/event_source/devices/$pmu/events/$alias"
TALLY_SYSFS_ROOT=$WORK/long "$TALLY" list "$alias" >"$WORK/out" 2>&1
grep -qF "$pmu/$alias/" "$WORK/out" && ok "list: a 200-byte PMU and a 250-byte event, whole" \
	|| fail "list: long names cut: $(head -c 300 "$WORK/out")"
TALLY_SYSFS_ROOT=$WORK/long "$TALLY" list --json "$alias" >"$WORK/out" 2>&1
grep -qF "\"$pmu/$alias/\"" "$WORK/out" && ok "list --json: long names whole" || fail "list --json: long names cut"

make_tree "$WORK/fifo" evil
mkfifo "$WORK/fifo/bus/event_source/devices/evil/events/boom"
timeout 20 env TALLY_SYSFS_ROOT="$WORK/fifo" "$TALLY" list >"$WORK/out" 2>&1; st=$?
[ $st -ne 124 ] && ok "list: a FIFO does not hang it" || fail "list: hung on a FIFO"
[ $st -eq 1 ] && grep -q "evil/events/boom: not a regular file" "$WORK/out" && ok "list: exit 1, the FIFO named" \
	|| fail "list: no FIFO message: $(cat "$WORK/out")"
timeout 20 env TALLY_SYSFS_ROOT="$WORK/fifo" "$TALLY" stat -e task-clock -- true >"$WORK/out" 2>&1; st=$?
[ $st -eq 0 ] && ok "stat: a broken PMU the spec does not use is not read" \
	|| fail "stat: exit $st: $(cat "$WORK/out")"
timeout 20 env TALLY_SYSFS_ROOT="$WORK/fifo" "$TALLY" stat -e evil/config=1/ -- true >"$WORK/out" 2>&1; st=$?
[ $st -eq 2 ] && grep -q "evil/events/boom" "$WORK/out" && ok "stat: a spec naming the broken PMU fails naming the file" \
	|| fail "stat evil/config=1/: exit $st: $(cat "$WORK/out")"
# Without sysfs at all, software events count as perf counts them (the PMUs are listed only when a spec
# names one); a spec that names a PMU says where sysfs was looked for.
env TALLY_SYSFS_ROOT="$WORK/no-such-root" "$TALLY" stat -x, -e page-faults,task-clock -- true >"$WORK/out" 2>&1; st=$?
[ $st -eq 0 ] && grep -qE '^[0-9]+,,page-faults,' "$WORK/out" && ok "stat: software events count without sysfs" \
	|| fail "stat without sysfs: exit $st: $(cat "$WORK/out")"
env TALLY_SYSFS_ROOT="$WORK/no-such-root" "$TALLY" stat -e cpu/config=1/ -- true >"$WORK/out" 2>&1; st=$?
[ $st -eq 2 ] && grep -q "no-such-root/bus/event_source/devices" "$WORK/out" && grep -q "is sysfs mounted" "$WORK/out" \
	&& ok "stat: a PMU spec without sysfs names the directory" || fail "stat cpu/ without sysfs: exit $st: $(cat "$WORK/out")"
finish
