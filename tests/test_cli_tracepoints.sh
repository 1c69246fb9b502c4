#!/bin/bash
# SPDX-License-Identifier: MIT
# Tracepoints and breakpoints counted for real, by tally stat and perf stat on the same deterministic
# workload (tests/tp_workload.c): every count must be equal to perf's, and the ones the workload fixes
# exact: N openat calls (over the N = 0 run: the dynamic loader opens its libraries too), N sleeps
# (clock_nanosleep, which the loader never calls), N user-mode writes to a watched variable (the kernel
# writes it 4 times while it loads the program, which plain :w counts and :u does not, in both tools).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
work=$TALLY_BUILD/tests/tp_workload
[ -x "$work" ] || { echo "missing $work (build the tests first)"; exit 1; }

# tally list shows the tracepoints of a fixture's tracefs, and says why when there is none.
fixtures=${TALLY_FIXTURES:-tests/fixtures}
out=$(TALLY_SYSFS_ROOT=$fixtures/sysfs/novpmu "$TALLY" list 'sched:*')
grep -q '^  sched:sched_switch  *\[Tracepoint event\]$' <<<"$out" && ! grep -q syscalls: <<<"$out" &&
	ok "list: sched:* from the fixture's tracefs" || fail "list sched:*: $out"
out=$(TALLY_SYSFS_ROOT=$fixtures/sysfs/novpmu "$TALLY" list --json | python3 -c \
	'import json, sys; d = json.load(sys.stdin); print(len(d["tracepoints"]), d["tracepoints_unavailable"])')
[ "$out" = "8 None" ] && ok "list --json: 8 tracepoints" || fail "list --json: $out"
out=$(TALLY_SYSFS_ROOT=$fixtures/sysfs/intel "$TALLY" list sched)
grep -q 'not available: tracefs is not mounted in the sysfs tree .*kernel/tracing/events/SYSTEM/EVENT/id' <<<"$out" &&
	! grep -q 'mount -t' <<<"$out" && ok "list: a tree without tracefs, what it lacks" || fail "list without tracefs: $out"
# This machine without tracefs (a tmpfs over both places): the command that mounts it.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	out=$(unshare -m sh -c 'mount -t tmpfs none /sys/kernel/tracing && { mount -t tmpfs none /sys/kernel/debug || :; } &&
		"$1" stat -e sched:sched_switch -- true' sh "$TALLY" 2>&1)
	grep -q 'tracefs is not mounted: .*mount -t tracefs nodev /sys/kernel/tracing`' <<<"$out" &&
		ok "stat: this machine's tracefs not mounted, with the mount command" || fail "unmounted tracefs: $out"
fi
out=$(TALLY_SYSFS_ROOT=$fixtures/sysfs/intel "$TALLY" stat -e sched:sched_switch -- true 2>&1)
grep -q 'tracefs is not mounted' <<<"$out" && ! grep -q 'unknown event' <<<"$out" &&
	ok "stat: tracefs not mounted" || fail "stat without tracefs: $out"

command -v perf >/dev/null || { echo "SKIP: perf is not installed"; finish; exit 77; }
tracefs=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -r $d/events/syscalls/sys_enter_openat/id ] && { tracefs=$d; break; }
done
[ -n "$tracefs" ] || { echo "SKIP: no readable tracefs with syscalls:sys_enter_openat (mount -t tracefs nodev /sys/kernel/tracing)"; finish; exit 77; }
perf stat -x, -e syscalls:sys_enter_openat -- true >/dev/null 2>&1 || { echo "SKIP: perf stat cannot count tracepoints here"; finish; exit 77; }
addr=$("$work" addr)

# count TOOL SPEC ARGS...: the CSV count of the spec's first event (perf 6.1 names some events apart
# from the spec, e.g. syscalls:sys_enter_openat:u without the :u, so the first count line is taken).
count() {
	local tool=$1 spec=$2
	shift 2
	if [ "$tool" = tally ]; then "$TALLY" stat -x, -e "$spec" -- "$work" "$@" 2>&1 >/dev/null
	else perf stat -x, -e "$spec" -- "$work" "$@" 2>&1 >/dev/null; fi | grep -E '^[0-9]+,' | head -1 | cut -d, -f1
}

# same SPEC EXPECT ARGS...: tally and perf count the same, and EXPECT unless it is '-'.
same() {
	local spec=$1 expect=$2
	shift 2
	local t p
	t=$(count tally "$spec" "$@"); p=$(count perf "$spec" "$@")
	if ! [[ "$t" =~ ^[0-9]+$ && "$p" =~ ^[0-9]+$ ]]; then fail "$spec ($*): tally '$t', perf '$p'"; return; fi
	if [ "$t" != "$p" ]; then fail "$spec ($*): tally $t, perf $p"; return; fi
	if [ "$expect" != - ] && [ "$t" != "$expect" ]; then fail "$spec ($*): $t, expected $expect"; return; fi
	ok "$spec ($*): tally $t = perf $p$([ "$expect" = - ] || echo " = expected")"
}

N=200
base=$(count tally syscalls:sys_enter_openat openat 0)
same syscalls:sys_enter_openat - openat 0
same syscalls:sys_enter_openat $((base + N)) openat $N
same syscalls:sys_enter_openat:u - openat $N
same syscalls:sys_enter_openat:k $((base + N)) openat $N
# a glob's first match in tracefs order (perf's order too)
same 'syscalls:sys_enter_openat*' - openat $N
same syscalls:sys_enter_clock_nanosleep $N sleep $N
same 'syscalls:sys_exit_clock_nano*' $N sleep $N
same '{syscalls:sys_enter_clock_nanosleep,sched:sched_process_exec}:k' $N sleep $N
same sched:sched_process_exec 1 sleep $N
same "mem:$addr:w" $((N + 4)) write $N
same "mem:$addr:w:u" $N write $N
same "mem:$addr/8:wu" $N write $N
same "mem:$addr/1:w:u" $N write $N
same "mem:$addr/4:rw:u" $N write $N
same "mem:$addr:w:k" 4 write $N
finish
