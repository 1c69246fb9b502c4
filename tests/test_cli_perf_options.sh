#!/bin/bash
# SPDX-License-Identifier: MIT
# perf 6.1 stat options tally once refused as unknown: --json-output, --timeout, --pre, --post, --table,
# --control with -D -1, --scale, --hybrid-merge, --metric-no-group, --metric-no-merge,
# --percore-show-thread, --cputype (on a sysfs tree of a hybrid machine); and those it refuses with a reason
# (-T, --smi-cost, --iostat).
# Where perf runs here, the output's shape is compared with perf stat's.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
PERF=$(command -v perf || true)
[ -n "$PERF" ] && ! "$PERF" stat -e task-clock -x, -- true >/dev/null 2>&1 && PERF=

# --- --json-output: perf's -j, an object per line, as --json-format=perf --------------------------------
"$TALLY" stat --json-output -e task-clock,page-faults -- true 2>"$WORK/json"
st=$?
[ $st -eq 0 ] && [ "$(grep -c '^{"counter-value" : ' "$WORK/json")" -eq 2 ] && ok "--json-output: perf's JSON lines" ||
	fail "--json-output: status $st: $(cat "$WORK/json")"
"$TALLY" stat --json-format=perf -e task-clock,page-faults -- true 2>"$WORK/fmt"
[ "$(sed 's/: [^,]*,/:,/g' "$WORK/json")" = "$(sed 's/: [^,]*,/:,/g' "$WORK/fmt")" ] &&
	ok "--json-output: the keys of --json-format=perf" || fail "--json-output differs from --json-format=perf"

# --- --timeout: the command ended with SIGTERM, counts printed, status 0 (perf's) -----------------------
"$TALLY" stat --timeout 100 -x, -e task-clock -- sleep 30 2>"$WORK/timeout"
st=$?
[ $st -eq 0 ] && grep -q ',task-clock,' "$WORK/timeout" && ok "--timeout 100: sleep 30 ended, counts, status 0" ||
	fail "--timeout: status $st: $(cat "$WORK/timeout")"
"$TALLY" stat --timeout 100 -- sh -c 'exit 3' 2>/dev/null
st=$?
[ $st -eq 3 ] && ok "--timeout: a command that ends first keeps its status" || fail "--timeout, exit 3: status $st"
refused stat "--timeout under 10 ms" "from 10" --timeout 5 -- true
refused stat "--timeout with -I" "-I" --timeout 100 -I 100 -- true

# --- --pre and --post: around each run, in order ---------------------------------------------------------
export ORDER=$WORK/order2
"$TALLY" stat -r 2 --pre 'echo pre >>"$ORDER"' --post 'echo post >>"$ORDER"' -e task-clock \
	-- sh -c 'echo run >>"$ORDER"' 2>/dev/null
[ "$(tr '\n' ' ' <"$WORK/order2")" = "pre run post pre run post " ] && ok "--pre, --post: around each of -r 2" ||
	fail "--pre/--post order: $(tr '\n' ' ' <"$WORK/order2" 2>&1)"
"$TALLY" stat -r 3 --pre false -e task-clock -- true >/dev/null 2>"$WORK/pre"
st=$?
[ $st -eq 1 ] && grep -q -- "--pre 'false' exited with 1" "$WORK/pre" && ok "--pre failing: the runs stop, status 1" ||
	fail "--pre false: status $st: $(cat "$WORK/pre")"

# --- --table: perf's table of the runs' elapsed times ----------------------------------------------------
"$TALLY" stat -r 3 --table -e task-clock -- true 2>"$WORK/table"
shape() { grep -E '^ +(# |[0-9.]+ \([+-][0-9.]+\) #+$|[0-9.]+ \+- )' "$1" | sed -E 's/^ +//; s/[0-9.]+/N/g; s/#+$/#/; s/\( \+- +N%/( +- N%/'; }
want=$(printf '%s\n' "# Table of individual measurements:" "N (+N) #" "N (+N) #" "N (+N) #" "# Final result:" \
	"N +- N seconds time elapsed  ( +- N% )")
[ "$(shape "$WORK/table" | sed 's/(-N)/(+N)/')" = "$want" ] && ok "--table: a row per run, then the final result" ||
	fail "--table: $(cat "$WORK/table")"
if [ -n "$PERF" ]; then
	"$PERF" stat -r 3 --table -e task-clock -- true 2>"$WORK/perf"
	[ "$(shape "$WORK/table" | sed 's/(-N)/(+N)/')" = "$(shape "$WORK/perf" | sed 's/(-N)/(+N)/')" ] &&
		ok "--table: perf's shape" || fail "--table against perf: $(cat "$WORK/perf")"
fi
refused stat "--table without -r" "-r 2" --table -- true

# --- --control with -D -1: counting only between "enable" and "disable", each acknowledged --------------
mkfifo "$WORK/ctl" "$WORK/ack"
# Three phases of the same work; the command itself says enable and disable around the middle one.
phase='dd if=/dev/zero of=/dev/null bs=4M count=1 2>/dev/null'
script="$phase; echo enable >\"\$0\"; read a <\"\$1\"; echo \$a >>\"\$2\"; $phase; echo disable >\"\$0\";
	read a <\"\$1\"; echo \$a >>\"\$2\"; $phase"
"$TALLY" stat -D -1 --control "fifo:$WORK/ctl,$WORK/ack" -x, -e task-clock -- sh -c "$script" "$WORK/ctl" \
	"$WORK/ack" "$WORK/acks" 2>"$WORK/control"
st=$?
[ $st -eq 0 ] && [ "$(tr '\n' ' ' <"$WORK/acks")" = "ack ack " ] && ok "--control fifo: enable, disable acknowledged" ||
	fail "--control fifo: status $st: $(cat "$WORK/control" "$WORK/acks")"
[ "$(grep '^Events' "$WORK/control" | tr '\n' ' ')" = "Events disabled Events enabled Events disabled " ] &&
	ok "--control: perf's messages" || fail "--control messages: $(cat "$WORK/control")"
if [ -n "$PERF" ]; then
	rm -f "$WORK/acks"
	"$PERF" stat -D -1 --control "fifo:$WORK/ctl,$WORK/ack" -x, -e task-clock -- sh -c "$script" "$WORK/ctl" \
		"$WORK/ack" "$WORK/acks" 2>"$WORK/perf"
	[ "$(grep -v '^#' "$WORK/control" | awk -F, '{ print $1 ~ /^Events/ ? $0 : $3 ":" NF }')" = \
		"$(grep -v '^#' "$WORK/perf" | awk -F, '{ print $1 ~ /^Events/ ? $0 : $3 ":" NF }')" ] &&
		ok "--control: perf's lines and fields" || fail "--control against perf: $(cat "$WORK/perf")"
fi
# Two enabled stretches add up, as perf's do, and the disabled one between them is left out: 4 MiB of page
# faults in each stretch (>= 1024 each) around 16 MiB (>= 4096) while disabled.
rm -f "$WORK/acks"
small='dd if=/dev/zero of=/dev/null bs=4M count=1 2>/dev/null'
big='dd if=/dev/zero of=/dev/null bs=16M count=1 2>/dev/null'
say='read a <"$1"; echo $a >>"$2"'
script="echo enable >\"\$0\"; $say; $small; echo disable >\"\$0\"; $say; $big; echo enable >\"\$0\"; $say; $small;
	echo disable >\"\$0\"; $say"
"$TALLY" stat -D -1 --control "fifo:$WORK/ctl,$WORK/ack" -x, -e page-faults -- sh -c "$script" "$WORK/ctl" \
	"$WORK/ack" "$WORK/acks" 2>"$WORK/stretches"
faults=$(awk -F, '$3 == "page-faults" { print $1 }' "$WORK/stretches")
[ -n "$faults" ] && [ "$faults" -ge 2048 ] && [ "$faults" -lt 4096 ] &&
	ok "--control: two enabled stretches add up ($faults page faults), the disabled one left out" ||
	fail "--control stretches: ${faults:-none} page faults: $(cat "$WORK/stretches")"
# fd:CTL,ACK: descriptors the caller opened (the FIFOs again, read-write so that nothing waits).
"$TALLY" stat -D -1 --control fd:7,8 -x, -e task-clock -- sh -c "echo enable >&7; read a <&8; echo \$a" \
	7<>"$WORK/ctl" 8<>"$WORK/ack" >"$WORK/fd.out" 2>"$WORK/fd.err"
[ "$(cat "$WORK/fd.out")" = ack ] && grep -q ',task-clock,' "$WORK/fd.err" && ok "--control fd:7,8" ||
	fail "--control fd: $(cat "$WORK/fd.out" "$WORK/fd.err")"
# A pipe whose writer is gone after "enable": the end of the descriptor is not waited on again.
"$TALLY" stat --control fd:3 -x, -e task-clock -- sleep 0.2 3< <(echo enable) 2>"$WORK/eof"
st=$?
[ $st -eq 0 ] && grep -q ',task-clock,' "$WORK/eof" && ok "--control fd: a pipe that ends" ||
	fail "--control, pipe at its end: status $st: $(cat "$WORK/eof")"
refused stat "--control fd: not open" "not an open file descriptor" --control fd:99 -- true
refused stat "--control: a bad form" "fd:CTL" --control pipe:3 -- true
refused stat "-D -1 without --control" "--control" -D -1 -- true

# --- accepted, perf's defaults or tally's way already ----------------------------------------------------
"$TALLY" stat -x, -e task-clock -- true 2>"$WORK/plain"
for opt in --scale --hybrid-merge --metric-no-group --metric-no-merge --percore-show-thread; do
	"$TALLY" stat $opt -x, -e task-clock -- true 2>"$WORK/opt"
	st=$?
	[ $st -eq 0 ] && [ "$(awk -F, '{ print $3 ":" NF }' "$WORK/opt")" = \
		"$(awk -F, '{ print $3 ":" NF }' "$WORK/plain")" ] && ok "$opt: accepted, the same lines" ||
		fail "$opt: status $st: $(cat "$WORK/opt")"
done
"$TALLY" stat --no-scale --scale -e task-clock -x, -- true 2>/dev/null && ok "--scale after --no-scale" ||
	fail "--scale after --no-scale"

# --- refused, with the reason ----------------------------------------------------------------------------
refused stat "-T" "TSX" -T -- true
refused stat "--transaction" "TSX" --transaction -- true
refused stat "--smi-cost" "SMI" --smi-cost -- true
refused stat "--iostat" "IIO" --iostat -- true

# --- --cputype: on a hybrid machine, only that core PMU's events ------------------------------------------
# A sysfs tree of Intel's hybrid layout (cpu_atom on CPU 0, cpu_core on CPU 1) whose core PMUs are software
# ones (type 1): r2 counts page faults on either, so that the lines are those of a real count.
hybrid=$WORK/hybrid
devices=$hybrid/bus/event_source/devices
mkdir -p "$devices/software"
echo 1 >"$devices/software/type"
cpu=0
for pmu in cpu_atom cpu_core; do
	mkdir -p "$devices/$pmu/format" "$hybrid/devices/system/cpu/cpu$cpu/topology"
	echo 1 >"$devices/$pmu/type"
	echo $cpu >"$devices/$pmu/cpus"
	echo config:0-15 >"$devices/$pmu/format/event"
	cpu=$((cpu + 1))
done
echo 0-1 >"$hybrid/devices/system/cpu/online"
names() { TALLY_SYSFS_ROOT=$hybrid "$TALLY" stat "$@" -x, -- true 2>&1 | cut -d, -f3 | tr '\n' ' '; }
got=$(names --no-merge -e 'r2,task-clock,{r2,r3}:u')
[ "$got" = "cpu_atom/r2/ cpu_core/r2/ task-clock cpu_atom/r2/ cpu_atom/r3/ cpu_core/r2/ cpu_core/r3/ " ] &&
	ok "hybrid tree: each event on both core PMUs" || fail "hybrid tree, --no-merge: $got"
for type in core cpu_core; do
	got=$(names --cputype $type -e 'r2,task-clock,{r2,r3}:u')
	[ "$got" = "cpu_core/r2/ task-clock cpu_core/r2/ cpu_core/r3/ " ] && ok "--cputype $type: cpu_core's events only" ||
		fail "--cputype $type: $got"
done
got=$(names --cputype atom -e r2)
[ "$got" = "cpu_atom/r2/ " ] && ok "--cputype atom: cpu_atom's" || fail "--cputype atom: $got"
TALLY_SYSFS_ROOT=$hybrid "$TALLY" stat --cputype atom -x, -- true 2>"$WORK/defaults"
[ "$(grep -c 'cpu_core' "$WORK/defaults")" -eq 0 ] && grep -q ',cpu_atom/cycles/,' "$WORK/defaults" &&
	ok "--cputype atom: the default events on cpu_atom only" || fail "--cputype atom, defaults: $(cat "$WORK/defaults")"
TALLY_SYSFS_ROOT=$hybrid refused stat "--cputype of a PMU this machine lacks" "no cpu_foo PMU" --cputype foo -- true
if [ ! -e /sys/bus/event_source/devices/cpu_core ]; then
	refused stat "--cputype core without a hybrid CPU" "no cpu_core PMU" --cputype core -- true
fi

# --- each is in --help and tally(1) ----------------------------------------------------------------------
MAN=$(dirname "${BASH_SOURCE[0]}")/../docs/man/tally.1
for opt in --json-output --timeout --pre --post --table --control --cputype --scale --hybrid-merge --metric-no-group \
	--metric-no-merge --percore-show-thread; do
	"$TALLY" stat --help | grep -qE -- "(^| )$opt([ ,]|$)" && ok "--help lists $opt" || fail "--help lacks $opt"
done
for opt in json-output timeout pre post table control scale hybrid-merge metric-no-group metric-no-merge \
	transaction smi-cost iostat percore-show-thread cputype; do
	sed 's/\\//g' "$MAN" | grep -qE -- "(^| )-?-$opt( |,|$)" && ok "tally(1) names --$opt" || fail "tally(1) lacks --$opt"
done
finish
