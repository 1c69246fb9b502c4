#!/bin/bash
# SPDX-License-Identifier: MIT
# tally stat's command, whatever the target: one launcher (the library's) for a counted command and for one
# that only bounds -a/-C/-p/-t counting (same exec rules, --pin errors and exit statuses); -p/-t ending
# when the counted tasks exit; SIGINT/SIGTERM/SIGHUP/SIGPIPE ending tally: forwarded to the command, which
# is waited for, and 128 + signal. No timing thresholds: every wait is on output or on an exit.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"

# run_modes WANT_STATUS DESCRIPTION -- command...: the same command counted, and bounding the counting of
# another target (-p of this shell; -a, -C and -t take the same path).
run_modes() {
	local want=$1 what=$2; shift 3
	for mode in counted bounding; do
		local target=()
		[ $mode = bounding ] && target=(-p $$)
		"$TALLY" stat -x, -e task-clock "${target[@]}" -- "$@" >"$WORK/out.$mode" 2>"$WORK/err.$mode"
		local got=$?
		[ "$got" -eq "$want" ] && ok "$what, $mode: exit $got" || fail "$what, $mode: exit $got, want $want: $(cat "$WORK/err.$mode")"
	done
}

# --- one launcher -------------------------------------------------------------------------------------
printf 'echo script ran\nexit 4\n' >"$WORK/noshebang"
chmod +x "$WORK/noshebang"
run_modes 4 "a script without #! runs under /bin/sh" -- "$WORK/noshebang"
grep -q "script ran" "$WORK/out.counted" && grep -q "script ran" "$WORK/out.bounding" && ok "the script's output, both ways" ||
	fail "the script did not run: $(cat "$WORK/out.counted" "$WORK/out.bounding")"
PATH="$WORK:$PATH" run_modes 4 "found in \$PATH" -- noshebang
run_modes 3 "the command's exit code" -- sh -c 'exit 3'
run_modes 137 "killed by SIGKILL" -- sh -c 'kill -9 $$'
run_modes 127 "a command that does not exist" -- /nonexistent/tally-command
grep -q "No such file" "$WORK/err.counted" && grep -q "No such file" "$WORK/err.bounding" && ok "missing command explained both ways" ||
	fail "missing command: $(cat "$WORK/err.counted" "$WORK/err.bounding")"
: >"$WORK/notexec"
run_modes 126 "a file that may not be executed is the shell's 126 under sh -c" -- sh -c "'$WORK/notexec'"
run_modes 127 "a file that may not be executed, directly" -- "$WORK/notexec"
grep -q "Permission denied" "$WORK/err.counted" && grep -q "Permission denied" "$WORK/err.bounding" &&
	ok "EACCES explained both ways" || fail "EACCES: $(cat "$WORK/err.counted" "$WORK/err.bounding")"
for mode in counted bounding; do
	target=()
	[ $mode = bounding ] && target=(-p $$)
	"$TALLY" stat -x, --pin 4095 -e task-clock "${target[@]}" -- true >/dev/null 2>"$WORK/pin.$mode"
	echo $? >>"$WORK/pin.$mode"
done
cmp -s "$WORK/pin.counted" "$WORK/pin.bounding" && tail -1 "$WORK/pin.counted" | grep -qx 127 &&
	grep -q "cannot pin 'true' to CPUs 4095" "$WORK/pin.counted" && ok "--pin to a missing CPU: the same 127 and message both ways" ||
	fail "--pin errors differ: $(cat "$WORK/pin.counted"; echo ---; cat "$WORK/pin.bounding")"
for mode in counted bounding; do
	target=()
	[ $mode = bounding ] && target=(-p $$)
	"$TALLY" stat -x, --pin 0 -e task-clock "${target[@]}" -- sh -c 'taskset -p $$' 2>/dev/null | grep -q "affinity mask: 1$" &&
		ok "--pin 0 pins the command, $mode" || fail "--pin 0, $mode"
done

# --- -p / -t end when the counted tasks exit -----------------------------------------------------------
# The victims sleep until they are killed, which happens once tally holds its counters (a perf_event
# descriptor): a victim that exited on a timer of its own could be gone before a slow tally opened it.
# victim: a sleep in $victim, under its own name (the background shell has exec'd it).
victim() {
	sleep 600 & victim=$!
	for _ in $(seq 600); do grep -qx sleep "/proc/$victim/comm" 2>/dev/null && break; sleep 0.02; done
}
# counting PID: waits until tally (PID) holds a counter.
counting() {
	for _ in $(seq 1200); do ls -l "/proc/$1/fd" 2>/dev/null | grep -q perf_event && return; sleep 0.05; done
}
victim
"$TALLY" stat -x, -e task-clock -p $victim 2>"$WORK/err" & pid=$!
counting $pid; kill $victim; wait $pid; st=$?
[ $st -eq 0 ] && grep -q ",task-clock," "$WORK/err" && ok "-p ends when the process exits, with its counts" ||
	fail "-p did not end with the process: exit $st $(cat "$WORK/err")"
wait $victim
victim
"$TALLY" stat -x, -e task-clock -t $victim 2>"$WORK/err" & pid=$!
counting $pid; kill $victim; wait $pid; st=$?
[ $st -eq 0 ] && grep -q ",task-clock," "$WORK/err" && ok "-t ends when the thread exits" ||
	fail "-t did not end with the thread: exit $st $(cat "$WORK/err")"
wait $victim
# --per-thread labels each thread comm-tid with the name it had when counting began: a task that ends the
# run by exiting has no /proc/<tid>/comm left when the results are made (it read as the bare tid); perf
# reads the names at the start too.
for flag in -p -t; do
	victim
	"$TALLY" stat -x, --per-thread -e task-clock $flag $victim 2>"$WORK/err" & pid=$!
	counting $pid; kill $victim; wait $pid; st=$?
	[ $st -eq 0 ] && grep -q "^sleep-$victim,.*,task-clock," "$WORK/err" &&
		ok "$flag --per-thread: the exited thread keeps its name" ||
		fail "$flag --per-thread label: exit $st $(cat "$WORK/err")"
	wait $victim
done
victim; v1=$victim
victim; v2=$victim
"$TALLY" stat -x, -e task-clock -I 200 -p $v1,$v2 2>"$WORK/err" & pid=$!
counting $pid; kill $v1; wait $v1
# One of the two gone: tally counts on, until the other is gone too (no timing: this holds for a tally
# that ended early only when it had ended by now, and it fails then).
kill -0 $pid 2>/dev/null && running=1 || running=0
kill $v2; wait $pid; st=$?
[ $st -eq 0 ] && [ $running -eq 1 ] && ok "-p with two processes ends once both are gone" ||
	fail "-p two processes: exit $st, running after the first exit: $running"
wait $v2

# --- signals that end tally -----------------------------------------------------------------------------
# The commands below are `sleep 9.1NN$u`: NN names the check, and this shell's pid, in every argument,
# makes it this run's alone. pgrep sees the whole machine, where another run of this test may be going on
# (two builds' tests, or two work trees', on one machine): with bare arguments that run's `sleep 9.104`
# read here as ours "left running", and our cleanup killed its `sleep 9.106` before its SIGTERM, so that
# its tally, never interrupted, printed no note (the two checks a CI run under ASan once failed).
u=$$
# gone ARG: no process runs `sleep ARG` any more.
gone() { ! pgrep -f "^sleep $1\$" >/dev/null; }
# Ends whatever a failed check left behind, by pid.
cleanup() { for p in $(pgrep -f "^sleep $1\$"); do kill "$p"; done; }
# Stand-ins for another run's commands (another pid in the argument; perl names itself like them and
# outlives the checks): the checks must neither count them as ours nor kill them.
other=$((u + 1))
decoys=()
for nn in 01 02 03 04 05 06; do
	perl -e '$0 = shift; sleep 300' "sleep 9.1$nn$other" &
	decoys+=($!)
done

# A closed output pipe: tally's next write raises SIGPIPE, which it passes on to the command.
"$TALLY" stat -I 100 -x, -e task-clock -- sleep "9.101$u" 2>&1 | head -1 >/dev/null
st=${PIPESTATUS[0]}
gone "9.101$u" && ok "SIGPIPE: the command ended with tally" || fail "SIGPIPE: sleep left running unsupervised"
[ "$st" -eq 141 ] && ok "SIGPIPE: exit 141" || fail "SIGPIPE: exit $st, want 141"
cleanup "9.101$u"

# The reader goes away once the command has ended (tally stat -- make 2>&1 | head, where make finishes
# first): the results' writes raise SIGPIPE all the same, and tally exits 141 as above (as perf 6.1 does),
# not the command's status that a write failing for another reason leaves. The command waits until the
# reader has closed its end.
rm -f "$WORK/closed"
"$TALLY" stat -e task-clock -- sh -c "while [ ! -e '$WORK/closed' ]; do sleep 0.01; done" 2>&1 |
	(exec 0<&-; touch "$WORK/closed")
st=${PIPESTATUS[0]}
[ "$st" -eq 141 ] && ok "SIGPIPE after the command: exit 141" || fail "SIGPIPE after the command: exit $st, want 141"
rm -f "$WORK/closed" "$WORK/results"; mkfifo "$WORK/results"
(exec 3<"$WORK/results"; exec 3<&-; touch "$WORK/closed") &
reader=$!
"$TALLY" stat -o "$WORK/results" -e task-clock -- sh -c "while [ ! -e '$WORK/closed' ]; do sleep 0.01; done" 2>/dev/null
st=$?
wait $reader
[ "$st" -eq 141 ] && ok "-o FIFO whose reader left: exit 141" || fail "-o FIFO whose reader left: exit $st, want 141"
rm -f "$WORK/results" "$WORK/closed"

# signal_after_first_interval SIGNAL WANT ARG [target args]: the signal reaches tally (alone) once it has
# printed its first interval; tally must end the command, wait for it and exit WANT.
signal_after_first_interval() {
	local sig=$1 want=$2 arg=$3; shift 3
	rm -f "$WORK/fifo"; mkfifo "$WORK/fifo"
	"$TALLY" stat -I 100 -x, -e task-clock "$@" -- sleep "$arg" 2>"$WORK/fifo" >/dev/null &
	local pid=$!
	exec 3<"$WORK/fifo"
	read -r _ <&3
	kill -"$sig" $pid
	wait $pid; local st=$?
	gone "$arg" && ok "SIG$sig: the command ended before tally did" || fail "SIG$sig: sleep left running"
	[ $st -eq "$want" ] && ok "SIG$sig: exit $st" || fail "SIG$sig: exit $st, want $want"
	cat <&3 >"$WORK/rest"
	exec 3<&-
	cleanup "$arg"
}
signal_after_first_interval TERM 143 "9.102$u"
signal_after_first_interval HUP 129 "9.103$u"
signal_after_first_interval INT 130 "9.104$u"
signal_after_first_interval HUP 129 "9.105$u" -p $$

# A SIGHUP that tally's parent ignores (nohup) stays ignored: tally goes on until the command ends.
rm -f "$WORK/fifo" "$WORK/fifo2"; mkfifo "$WORK/fifo" "$WORK/fifo2"
(trap '' HUP; exec "$TALLY" stat -I 100 -x, -e task-clock -- sh -c 'read -r _ <"$0"; exit 6' "$WORK/fifo2" 2>"$WORK/fifo" >/dev/null) &
pid=$!
exec 3<"$WORK/fifo"
read -r _ <&3
kill -HUP $pid
echo go >"$WORK/fifo2"
wait $pid; st=$?
cat <&3 >/dev/null
exec 3<&-
[ $st -eq 6 ] && ok "an inherited SIG_IGN of SIGHUP stays: the command's own exit (6)" || fail "nohup'd tally: exit $st, want 6"

# What tally's parent left ignored, the command inherits ignored (nohup's SIGHUP, as under perf or the shell
# alone); what it did not, the command has at its default. SigIgn is a hex mask, bit 0 is SIGHUP.
sighup_ignored() { # tally stat's command reports whether SIGHUP is ignored in it
	local mask
	mask=$("$TALLY" stat -x, -o /dev/null -e task-clock -- sh -c 'grep "^SigIgn" /proc/self/status' | awk '{ print $2 }')
	echo $((0x${mask:-0} & 1))
}
[ "$( (trap '' HUP; sighup_ignored) )" = 1 ] && ok "a SIGHUP ignored by tally's parent (nohup) stays ignored in the command" ||
	fail "nohup: the command's SIGHUP is not ignored"
[ "$( (trap - HUP; sighup_ignored) )" = 0 ] && ok "a SIGHUP tally's parent did not ignore is at its default in the command" ||
	fail "the command's SIGHUP is ignored without nohup"

# The closing note names the signal, not Ctrl-C.
rm -f "$WORK/fifo"; mkfifo "$WORK/fifo"
"$TALLY" stat -I 100 -e task-clock -- sleep "9.106$u" 2>"$WORK/fifo" >/dev/null &
pid=$!
exec 3<"$WORK/fifo"
read -r _ <&3
kill -TERM $pid
cat <&3 >"$WORK/rest"
exec 3<&-
wait $pid
grep -q "interrupted by SIGTERM" "$WORK/rest" && ! grep -q "Ctrl-C" "$WORK/rest" && ok "SIGTERM is named in the note" ||
	fail "SIGTERM note: $(cat "$WORK/rest")"
cleanup "9.106$u"
alive=0
for p in "${decoys[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); kill "$p" 2>/dev/null; done
[ $alive -eq ${#decoys[@]} ] && ok "another run's commands were neither taken for ours nor ended" ||
	fail "another run's commands: $alive of ${#decoys[@]} left alive"
wait "${decoys[@]}" 2>/dev/null

finish
