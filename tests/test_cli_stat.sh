#!/bin/bash
# SPDX-License-Identifier: MIT
# tally stat end to end with software events: every flag and format, exit statuses, Ctrl-C, a missing
# command, a bad spec (the command must not start), -I over a sleeping workload, -r statistics.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"

# expect_status WANT DESCRIPTION -- tally args...
expect_status() {
	local want=$1 what=$2; shift 3
	"$TALLY" "$@" >"$WORK/out" 2>"$WORK/err"
	local got=$?
	if [ "$got" -eq "$want" ]; then ok "$what (exit $got)"; else fail "$what: exit $got, want $want"; cat "$WORK/err"; fi
}

# --- exit statuses ------------------------------------------------------------------------------------
expect_status 0 "true" -- stat -e task-clock -- true
expect_status 3 "the command's own status" -- stat -e task-clock -- sh -c 'exit 3'
expect_status 137 "killed by SIGKILL: 128 + 9" -- stat -e task-clock -- sh -c 'kill -9 $$'
expect_status 127 "missing command" -- stat -e task-clock -- /nonexistent/command
grep -q "No such file" "$WORK/err" && ok "missing command explained" || fail "missing command: no reason: $(cat "$WORK/err")"
expect_status 2 "unknown option" -- stat --no-such-flag -- true
# A long option given a value it takes none of: named as given (optopt is the option's getopt value, not
# a character: it printed as a control byte, or as "-j" for --json=x).
for given in --summary=x --json=x --summ=x; do
	expect_status 2 "$given" -- stat "$given" -- true
	grep -qxF "tally stat: ${given%%=*} takes no value" "$WORK/err" && ok "$given: takes no value" ||
		fail "$given: $(cat "$WORK/err")"
done
# An unknown letter inside a cluster after a long option is the unknown letter, not the long option
# (argv[optind - 1] is still the long option while getopt walks "-Zq").
for before in --json --summary --event=task-clock --repeat=2; do
	expect_status 2 "$before -Zq" -- stat "$before" -Zq -- true
	grep -qxF "tally stat: unknown option -Z" "$WORK/err" && ok "$before -Zq: unknown option -Z" ||
		fail "$before -Zq: $(cat "$WORK/err")"
done
expect_status 0 "no command and no target: the whole system, here for --duration" -- stat -e task-clock --duration 0.05
expect_status 2 "-x and -j together" -- stat -x, -j -- true
expect_status 2 "-I below 10 ms" -- stat -I 5 -- true
# Waits beyond poll's int of milliseconds, negative, or not numbers are usage errors that name the option
# and its maximum (they reached a double-to-int cast, and poll waited forever). timeout: the old code hung.
for bad in "-I 4294967295" "-I -1" "-I 1e309" "-D 4294967295" "-D -2" "--duration 4294967295" \
	"--duration 3000000" "--duration 1e309" "--duration -1" "--duration nan" "--duration inf"; do
	opt=${bad%% *}
	if [ "$opt" = --duration ]; then target=(-a); else target=(-- true); fi
	timeout 10 "$TALLY" stat $bad -e task-clock "${target[@]}" >"$WORK/out" 2>"$WORK/err"; st=$?
	if [ $st -eq 2 ] && grep -q -- "$opt wants" "$WORK/err" && grep -qE "(2147483647|2147483)[,]" "$WORK/err"; then
		ok "$bad: usage error naming the maximum"
	else
		fail "$bad: exit $st: $(cat "$WORK/err")"
	fi
done
expect_status 0 "-I 3000000 (50 minutes) is a valid interval" -- stat -I 3000000 -e task-clock -- true
expect_status 2 "-r 0" -- stat -r 0 -- true
expect_status 2 "-C with a backward range" -- stat -C 3-1 -- true
expect_status 2 "--pin with a bad list" -- stat --pin 0,x -- true
expect_status 0 "--version" -- stat --version
grep -q "^tally [0-9]" "$WORK/out" && ok "--version prints the version" || fail "--version: $(cat "$WORK/out")"
expect_status 0 "--help" -- stat --help
grep -q -- "--interval-print" "$WORK/out" && ok "--help lists the flags" || fail "--help text"

# A bad spec is refused before anything runs: the command would create a file.
rm -f "$WORK/created"
expect_status 2 "bad spec" -- stat -e 'task-clock,nosuchevent' -- touch "$WORK/created"
[ -e "$WORK/created" ] && fail "bad spec: the command ran" || ok "bad spec: the command was not started"
grep -q "nosuchevent" "$WORK/err" && grep -q "\^" "$WORK/err" && ok "bad spec: caret message" ||
	fail "bad spec message: $(cat "$WORK/err")"

expect_status 2 "-o into a missing directory" -- stat -o "$WORK/missing/dir/out" -- touch "$WORK/created"
[ -e "$WORK/created" ] && fail "-o unwritable: the command ran" || ok "-o unwritable: the command was not started"
expect_status 1 "a process that does not exist" -- stat -p 4194000 --duration 0.1
if ! ls /sys/bus/event_source/devices/ | grep -qE '^(cpu|cpu_core|armv8.*)$'; then
	# As perf stat does: the command runs, the event reads <not supported> with the reason, and the exit
	# status is the command's own.
	expect_status 3 "nothing countable (only cycles, no PMU)" -- stat -e cycles -- sh -c "touch '$WORK/created'; exit 3"
	[ -e "$WORK/created" ] && ok "nothing countable: the command still ran" || fail "nothing countable: command not started"
	# "no hardware PMU", or "no CPU PMU" where another hardware PMU (RAPL's power) exists.
	grep -q "<not supported> *cycles" "$WORK/err" && grep -qE "no (hardware|CPU) PMU" "$WORK/err" &&
		ok "nothing countable: <not supported>, explained" || fail "explanation: $(cat "$WORK/err")"
	rm -f "$WORK/created"
fi

# --- results go to stderr, the command's stdout stays clean ----------------------------------------------
"$TALLY" stat -e task-clock -- echo hello >"$WORK/out" 2>"$WORK/err"
[ "$(cat "$WORK/out")" = hello ] && ok "stdout is the command's" || fail "stdout polluted: $(cat "$WORK/out")"
grep -q "task-clock" "$WORK/err" && ok "table on stderr" || fail "no table on stderr"

# --- default events: software ones plus a note on a machine without a hardware PMU --------------------
"$TALLY" stat -- true 2>"$WORK/err"
for e in task-clock context-switches cpu-migrations page-faults; do
	grep -q " $e" "$WORK/err" || fail "default events: $e missing"
done
if ! ls /sys/bus/event_source/devices/ | grep -qE '^(cpu|cpu_core|armv8.*)$'; then
	grep -q "^note: no hardware PMU" "$WORK/err" && ok "no-PMU note" || fail "no-PMU note missing"
	grep -v "^note:" "$WORK/err" | grep -q "cycles" && fail "cycles listed by default without a PMU" || ok "no cycles by default"
fi
grep -q "seconds time elapsed" "$WORK/err" && grep -q "seconds user" "$WORK/err" && grep -q "seconds sys" "$WORK/err" &&
	ok "elapsed/user/sys" || fail "times missing"
grep -q "CPUs utilized" "$WORK/err" && ok "CPUs utilized metric" || fail "metric missing"

# --- table: thousands separators as the locale has them: none in C, as perf (test_cli_locale: others) ---
LC_ALL=C "$TALLY" stat -e page-faults -- dd if=/dev/zero of=/dev/null bs=32M count=1 2>"$WORK/err"
grep -qE "^ +[0-9]{4,} +page-faults" "$WORK/err" && ok "C locale: no thousands separators, as perf prints" ||
	fail "C locale: $(grep page-faults "$WORK/err")"

# --- -e repeatable, unsupported event reported, -v encodings -----------------------------------------
"$TALLY" stat -v -e task-clock -e page-faults -e cycles -- true 2>"$WORK/err"
grep -q " task-clock" "$WORK/err" && grep -q " page-faults" "$WORK/err" && ok "-e repeatable" || fail "-e repeatable"
grep -q "type=1,config=0x2" "$WORK/err" && ok "-v prints encodings" || fail "-v: $(cat "$WORK/err")"
if ! ls /sys/bus/event_source/devices/ | grep -qE '^(cpu|cpu_core)$'; then
	grep -q "<not supported> *cycles" "$WORK/err" && grep -q "<not supported> cycles: " "$WORK/err" &&
		ok "cycles <not supported> with a footnote" || fail "cycles status: $(cat "$WORK/err")"
fi

# --- -o / --append / -q ------------------------------------------------------------------------------------
"$TALLY" stat -o "$WORK/o.txt" -e task-clock -- true 2>"$WORK/err"
[ -s "$WORK/err" ] && fail "-o: stderr not empty" || ok "-o leaves stderr empty"
grep -q task-clock "$WORK/o.txt" && ok "-o writes the file" || fail "-o file"
"$TALLY" stat -o "$WORK/o.txt" --append -e page-faults -- true
grep -q task-clock "$WORK/o.txt" && grep -q page-faults "$WORK/o.txt" && ok "--append keeps" || fail "--append"
"$TALLY" stat -q -e task-clock -- true 2>"$WORK/err"; st=$?
[ $st -eq 0 ] && [ ! -s "$WORK/err" ] && ok "-q prints nothing" || fail "-q: $st $(cat "$WORK/err")"

# --- CSV: perf's field order, header option --------------------------------------------------------------
"$TALLY" stat -x, --csv-header -e task-clock,page-faults -- true 2>"$WORK/err"
head -1 "$WORK/err" | grep -q "^value,unit,event,run_time_ns,percent_running,metric_value,metric_unit$" &&
	ok "CSV header" || fail "CSV header: $(head -1 "$WORK/err")"
grep -qE "^[0-9]+\.[0-9]{2},msec,task-clock,[0-9]+,100\.00,[0-9.]+,CPUs utilized$" "$WORK/err" &&
	ok "CSV task-clock record" || fail "CSV record: $(cat "$WORK/err")"
grep -qE "^[0-9]+,,page-faults,[0-9]+,100\.00,[0-9.]+,[KM]?/sec$" "$WORK/err" && ok "CSV page-faults record" ||
	fail "CSV page-faults: $(cat "$WORK/err")"
"$TALLY" stat -x ';' -e task-clock -- true 2>"$WORK/err"
grep -q "^[0-9.]*;msec;task-clock;" "$WORK/err" && ok "-x ';'" || fail "-x ;: $(cat "$WORK/err")"

# --- -I: intervals, the last partial one at exit ----------------------------------------------------
# Nothing here waits on the clock: the command blocks on a FIFO until tally has printed three intervals
# and one in which it did not run at all, then exits. Ticks lie on a grid from the start: the j-th
# interval ends at j x 100 ms or later (a late wake-up prints later, and one that missed ticks prints one
# interval for them, its length measured), so the stamps ascend and there is never an interval more than
# ticks gone by; after the three seen comes at least the partial one at the exit. An interval without
# time for the command reads <not counted>, never a plain 0.
# The test holds the FIFO open (read-write: never blocks) from the start, so that the command's open
# never waits and the word sent reaches it whenever it reads.
mkfifo "$WORK/tick"
rm -f "$WORK/err"
exec 3<>"$WORK/tick"
"$TALLY" stat -I 100 -x, -e task-clock,context-switches -- sh -c "read go <'$WORK/tick'" 2>"$WORK/err" 3>&- &
pid=$!
for _ in $(seq 1200); do
	[ "$(grep -c ',context-switches,' "$WORK/err")" -ge 3 ] && grep -q ',<not counted>,msec,task-clock,' "$WORK/err" &&
		break
	sleep 0.05
done
echo go >&3
wait $pid; st=$?
exec 3>&-
python3 - "$WORK/err" <<'PY' && ok "-I 100: intervals on the grid, the last at exit (exit $st)" ||
import sys
rows = [l.strip().split(",") for l in open(sys.argv[1]) if l.strip()]
stamps = [float(r[0]) for r in rows[::2]]
# One line per event and interval, both with the interval's stamp.
ok = len(rows) % 2 == 0 and all(a[0] == b[0] and a[3] == "task-clock" and b[3] == "context-switches"
                                for a, b in zip(rows[::2], rows[1::2]))
ok = ok and len(stamps) >= 4 and all(a < b for a, b in zip(stamps, stamps[1:]))
ok = ok and all(t >= 0.1 * j - 1e-9 for j, t in enumerate(stamps[:-1], 1))
sys.exit(0 if ok else 1)
PY
	fail "-I: exit $st: $(cat "$WORK/err")"
[ $st -eq 0 ] && grep -q "^ *[0-9.]*,<not counted>,msec,task-clock," "$WORK/err" &&
	! grep -q "^ *[0-9.]*,0\.00,msec,task-clock," "$WORK/err" &&
	ok "-I: an interval without time reads <not counted>" || fail "-I idle interval: $(cat "$WORK/err")"
# A run shorter than -I: one interval, the partial one at the exit, as perf 6.1 prints it.
"$TALLY" stat -I 100000 -x, -e task-clock -- true 2>"$WORK/err"
[ "$(wc -l <"$WORK/err")" -eq 1 ] && grep -q "^ *[0-9.]*,[0-9.]*,msec,task-clock," "$WORK/err" &&
	ok "-I longer than the run: the partial interval at exit" || fail "-I partial: $(cat "$WORK/err")"
"$TALLY" stat -I 100 -e task-clock -- sleep 0.25 2>"$WORK/err"
grep -q "^# *time *counts" "$WORK/err" && ok "-I table header" || fail "-I table header"

# Part by part too (--per-thread: the sleeping process's rows, while a busy one counts).
sleep 60 & sleeper=$!
(while :; do :; done) & busy=$!
# Until the sleeper has exec'd sleep and gone to sleep, it runs and its comm is still the shell's.
for _ in $(seq 600); do
	grep -qx sleep "/proc/$sleeper/comm" 2>/dev/null && grep -q ') S ' "/proc/$sleeper/stat" 2>/dev/null && break
	sleep 0.02
done
"$TALLY" stat --per-thread -I 100 -x, -e task-clock -p $sleeper,$busy --duration 0.3 2>"$WORK/err"
kill $sleeper $busy 2>/dev/null; wait $sleeper $busy 2>/dev/null
grep -q "^ *[0-9.]*,sleep-$sleeper,<not counted>,msec,task-clock," "$WORK/err" &&
	grep -qE "^ *[0-9.]*,[^,]*-$busy,[0-9]+\.[0-9]+,msec,task-clock," "$WORK/err" &&
	ok "-I --per-thread: a thread that did not run reads <not counted>, the busy one counts" ||
	fail "-I --per-thread idle part: $(cat "$WORK/err")"

# --duration a multiple of -I: the run ends with the deadline's own tick, no partial interval after it.
# The last tick was merged into a 0.3 ms "partial" interval and printed "403 CPUs utilized" on 2 CPUs.
# On the grid (the j-th interval ends at j x 100 ms or later) and ending at the first tick at or past
# 0.5 s, there are at most 5 intervals. The bound on the counts is physical: task-clock summed over every
# CPU cannot run faster than the CPUs online, between the readings before the interval's start and its
# end (1% for the kernel's clock against tally's; not within the interval alone: the CPUs are read one
# after another, and a delay between two reads moves counts from one interval to the next).
"$TALLY" stat -a -I 100 --duration 0.5 -x, -e task-clock 2>"$WORK/err"
python3 - "$WORK/err" <<'PY' && ok "-a -I 100 --duration 0.5: 5 ticks at most, never more CPUs busy than online" ||
import os, sys
cpus = os.cpu_count()
rows = [l.strip().split(",") for l in open(sys.argv[1]) if l.lstrip()[:1].isdigit()]
stamps = [float(r[0]) for r in rows]
busy = [float(r[1]) / 1000 for r in rows]
ok = 1 <= len(rows) <= 5 and all(r[7] == "CPUs utilized" for r in rows) and stamps[-1] >= 0.5
ok = ok and all(a < b for a, b in zip(stamps, stamps[1:]))
before = [0.0, 0.0] + stamps
ok = ok and all(busy[i] <= cpus * (stamps[i] - before[i]) * 1.01 for i in range(len(rows)))
sys.exit(0 if ok else 1)
PY
	fail "-I with --duration: $(cat "$WORK/err")"

# --- -r 5: mean and relative stddev ----------------------------------------------------------------------
"$TALLY" stat -r 5 -e task-clock,page-faults -- true 2>"$WORK/err"
grep -q "(5 runs)" "$WORK/err" && ok "-r 5 heading" || fail "-r heading"
grep -qE "page-faults .*\( \+- +[0-9.]+% \)" "$WORK/err" && ok "-r relative stddev" || fail "-r stddev: $(cat "$WORK/err")"
grep -qE "[0-9.]+ \+- [0-9.]+ seconds time elapsed" "$WORK/err" && ok "-r elapsed mean +- stddev" || fail "-r elapsed"

# --- targets: -p with --duration, -t, -a, -C, -A, --per-thread, --per-core ---------------------------
# The victims sleep until killed at the end of these checks, however long they take.
sleep 600 & victim=$!
for _ in $(seq 600); do grep -qx sleep "/proc/$victim/comm" 2>/dev/null && break; sleep 0.02; done
"$TALLY" stat -e task-clock,context-switches -p $victim --duration 0.3 2>"$WORK/err"; st=$?
[ $st -eq 0 ] && grep -q "process id '$victim'" "$WORK/err" && ok "-p --duration" || fail "-p: $st $(cat "$WORK/err")"
"$TALLY" stat -e task-clock -t $victim --duration 0.2 2>"$WORK/err"
grep -q "thread id '$victim'" "$WORK/err" && ok "-t" || fail "-t: $(cat "$WORK/err")"
"$TALLY" stat --per-thread -x, -e context-switches -p $victim --duration 0.2 2>"$WORK/err"
grep -q "^sleep-$victim," "$WORK/err" && ok "--per-thread labels comm-tid" || fail "--per-thread: $(cat "$WORK/err")"
sleep 600 & victim2=$!
# Until the background shell has exec'd sleep, the victim's comm is still the shell's.
for _ in $(seq 600); do grep -qx sleep "/proc/$victim2/comm" 2>/dev/null && break; sleep 0.02; done
"$TALLY" stat --per-thread -x, -e task-clock -p $victim,$victim2 --duration 0.2 2>"$WORK/err"; st=$?
[ $st -eq 0 ] && grep -q "^sleep-$victim," "$WORK/err" && grep -q "^sleep-$victim2," "$WORK/err" \
	&& ok "-p with two processes counts the threads of both" || fail "-p list: $st $(cat "$WORK/err")"
# perf's `perf stat -p PID -- sleep N`: the process is counted while the command runs; the command's status.
"$TALLY" stat -x, -e context-switches -p $victim -- sh -c 'sleep 0.1; exit 3' 2>"$WORK/err"; st=$?
[ $st -eq 3 ] && grep -q ",context-switches," "$WORK/err" && ok "-p with a command: counted while it runs (exit $st)" ||
	fail "-p with a command: $st $(cat "$WORK/err")"
"$TALLY" stat -e task-clock -t $victim -- sleep 0.05 2>"$WORK/err"; st=$?
[ $st -eq 0 ] && grep -q "thread id '$victim'" "$WORK/err" && ok "-t with a command: headed by the thread" ||
	fail "-t with a command: $st $(cat "$WORK/err")"
kill $victim $victim2 2>/dev/null; wait $victim $victim2 2>/dev/null
# --per-thread with a command is refused, as perf does: tests/test_cli_hardening.sh.
ncpu=$(nproc)
"$TALLY" stat -a -A -x, -e task-clock -- sleep 0.1 2>"$WORK/err"
[ "$(grep -c '^CPU[0-9]*,' "$WORK/err")" -eq "$ncpu" ] && ok "-a -A: one record per CPU" || fail "-A: $(cat "$WORK/err")"
"$TALLY" stat -a -e task-clock -- true 2>"$WORK/err"
grep -q "seconds time elapsed" "$WORK/err" && ! grep -q "seconds user" "$WORK/err" &&
	ok "-a with a command: no user/sys of the command (as perf)" || fail "-a user/sys: $(cat "$WORK/err")"
"$TALLY" stat -C 0 -x, -e task-clock -- sleep 0.1 2>"$WORK/err"
v=$(cut -d, -f1 "$WORK/err")
python3 -c "import sys; sys.exit(0 if 50 < float('$v') < 200 else 1)" && ok "-C 0: one CPU's task-clock ($v ms over 0.1 s)" ||
	fail "-C 0: $(cat "$WORK/err")"
if [ -r /sys/devices/system/cpu/cpu0/topology/core_id ]; then
	"$TALLY" stat -a --per-core -x, -e task-clock -- sleep 0.05 2>"$WORK/err"
	grep -q "^S[0-9]*-D[0-9]*-C[0-9]*," "$WORK/err" && ok "--per-core" || fail "--per-core: $(cat "$WORK/err")"
fi

# --- -i: children are not counted ---------------------------------------------------------------------
with=$("$TALLY" stat -x, -e page-faults -- sh -c 'dd if=/dev/zero of=/dev/null bs=16M count=1 2>/dev/null' 2>&1 | cut -d, -f1)
without=$("$TALLY" stat -i -x, -e page-faults -- sh -c 'dd if=/dev/zero of=/dev/null bs=16M count=1 2>/dev/null' 2>&1 | cut -d, -f1)
[ "$with" -gt 4000 ] && [ "$without" -lt 1000 ] && ok "-i: $with faults with children, $without without" ||
	fail "-i: with $with, without $without"

# --- --no-scale, --no-group, -D, --pin ------------------------------------------------------------------
expect_status 0 "--no-scale" -- stat --no-scale -e task-clock -- true
expect_status 0 "--no-group" -- stat --no-group -e '{task-clock,page-faults},cs' -- true
# -D without timing: the command stops tally (its parent) while it does phase 1 in a child, so that the
# delay's end, the counter's reset, comes after phase 1 however slow the machine is (provided sh gets to
# its first command within the delay); it then waits on a FIFO that the test opens only once tally printed
# an interval, which it does only after the reset, and does phase 2. dd's 16 MiB buffer is >= 4096 page
# faults, the 8 MiB one >= 2048: -D counts phase 2 only (the child that did phase 1 exited before the
# reset; a reset alone would keep its count).
if grep -q '\[always\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
	ok "-D counts: SKIP (transparent huge pages [always]: dd's buffer faults in 2 MiB pages)"
else
	mkfifo "$WORK/go"
	# No err before tally makes it: the previous check's err read as tally's first interval when the
	# background job's redirection had not truncated it yet (the command then ran before the delay's end).
	rm -f "$WORK/err"
	phase1='dd if=/dev/zero of=/dev/null bs=16M count=1 2>/dev/null'
	phase2='dd if=/dev/zero of=/dev/null bs=8M count=1 2>/dev/null'
	"$TALLY" stat -D 1000 -I 100 -x, -e page-faults -- \
		sh -c "kill -STOP \$PPID; $phase1; kill -CONT \$PPID; read go <'$WORK/go'; $phase2" 2>"$WORK/err" &
	pid=$!
	for _ in $(seq 1200); do [ -s "$WORK/err" ] && break; sleep 0.05; done
	echo go >"$WORK/go"
	wait $pid; st=$?
	d=$(awk -F, '{ s += $2 } END { print s + 0 }' "$WORK/err")
	"$TALLY" stat -x, -e page-faults -- sh -c "$phase1; $phase2" 2>"$WORK/err2"
	nd=$(cut -d, -f1 "$WORK/err2")
	[ $st -eq 0 ] && [ "$d" -ge 2048 ] && [ "$d" -lt 4096 ] && [ "$nd" -ge 6144 ] &&
		ok "-D counts from the delay's end only ($d page faults with -D, $nd without)" ||
		fail "-D: exit $st, $d page faults with -D (want 2048..4095), $nd without: $(cat "$WORK/err")"
fi
# The elapsed time is the counted window, which -D shortens, as perf's is (not the command's whole run):
# the window begins at the delay's end, at least 0.5 s after tally started, so it is at most the whole
# run's time less 0.5 s.
t0=$(date +%s.%N)
"$TALLY" stat -D 500 -j -e task-clock -- sleep 1 2>"$WORK/err"
t1=$(date +%s.%N)
python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['elapsed']; sys.exit(0 if 0 < e <= $t1 - $t0 - 0.5 else 1)" "$WORK/err" &&
	ok "-D: elapsed counts from the delay's end" || fail "-D elapsed ($t0 .. $t1): $(cat "$WORK/err")"
"$TALLY" stat -x, --pin 0 -e cpu-migrations -- sh -c 'for i in 1 2 3 4 5 6 7 8; do :; done; taskset -p $$' >"$WORK/out" 2>"$WORK/err"
grep -q "affinity mask: 1$" "$WORK/out" && ok "--pin 0 pins the command" || fail "--pin: $(cat "$WORK/out")"

# --- Ctrl-C: prints what was counted, exits 130 --------------------------------------------------------
# catching PID: waits until tally (PID: its comm first, as the shell's forked child has its own
# handlers until the exec) has its SIGINT handler (bit 1 of SigCgt): a SIGINT before it would be lost.
catching() {
	for _ in $(seq 1200); do
		grep -qx tally "/proc/$1/comm" 2>/dev/null && grep -q '^SigCgt:.*[2367abef]$' "/proc/$1/status" && return
		sleep 0.05
	done
}
# The command ends when told, after the signal: a background job's commands ignore SIGINT (tally passes
# it on, and a sleep would run to its end).
rm -f "$WORK/int"
mkfifo "$WORK/intgo"
exec 3<>"$WORK/intgo"
"$TALLY" stat -e task-clock -o "$WORK/int" -- sh -c "read go <'$WORK/intgo'" 3>&- &
pid=$!
catching $pid
kill -INT $pid
echo go >&3
wait $pid; st=$?
exec 3>&-
[ $st -eq 130 ] && ok "SIGINT: exit 130" || fail "SIGINT: exit $st"
grep -q "task-clock" "$WORK/int" && grep -q "interrupted" "$WORK/int" && ok "SIGINT: counts printed" ||
	fail "SIGINT output: $(cat "$WORK/int")"
# A signal that tally's loop meets only after the command's exit still ends the run as interrupted (it
# was lost, exit 0): tally stopped once the command runs, SIGINT sent, the command ended, tally continued.
rm -f "$WORK/int"
exec 3<>"$WORK/intgo"
"$TALLY" stat -e task-clock -o "$WORK/int" -- sh -c "read go <'$WORK/intgo'" 3>&- &
pid=$!
catching $pid
child=
for _ in $(seq 1200); do child=$(pgrep -P $pid -x sh) && break; sleep 0.05; done
kill -STOP $pid
kill -INT $pid
echo go >&3
for _ in $(seq 1200); do grep -q ') Z' "/proc/$child/stat" 2>/dev/null && break; sleep 0.05; done
kill -CONT $pid
wait $pid; st=$?
exec 3>&-
[ $st -eq 130 ] && grep -q "interrupted" "$WORK/int" && ok "SIGINT before the command's exit, seen after it: exit 130" ||
	fail "SIGINT seen after the exit: exit $st: $(cat "$WORK/int")"
"$TALLY" stat -e task-clock -a -x, -o "$WORK/int" &
pid=$!
catching $pid
kill -INT $pid
wait $pid; st=$?
[ $st -eq 130 ] && grep -q ",task-clock," "$WORK/int" && ok "SIGINT without a command (-a)" || fail "SIGINT -a: $st"

# --- what the command inherits -------------------------------------------------------------------------
# The file descriptors tally had itself, no more: not the -o file, its buffered copy of stderr or the
# counters' fds.
fds() { sh -c 'ls /proc/$$/fd' | sort | tr '\n' ' '; }
direct=$(fds)
export -f fds
under=$("$TALLY" stat -e task-clock -- bash -c fds 2>/dev/null)
[ "$under" = "$direct" ] && ok "the command inherits tally's fds only: $under" || fail "fds: '$under', want '$direct'"
under=$("$TALLY" stat -e task-clock -o "$WORK/fd-report" -- bash -c fds 2>/dev/null)
[ "$under" = "$direct" ] && ok "-o: the file is not inherited" || fail "-o fds: '$under', want '$direct'"

finish
