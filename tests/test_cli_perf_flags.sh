#!/bin/bash
# SPDX-License-Identifier: MIT
# perf stat's flags tally once refused with exit 2: -d/-dd/-ddd, -n, -S, --all-user, --all-kernel,
# --interval-clear and --log-fd. Each is checked for what it does, and where perf is installed its output's
# shape (rows, event names, CSV field counts) against perf stat's on the same machine.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
PERF=$(command -v perf || true)
# perf runs here only where it may count a command (not a perf without its kernel's tools).
[ -n "$PERF" ] && ! "$PERF" stat -e task-clock -x, -- true >/dev/null 2>&1 && PERF=

# csv_shape FILE: each row's event name and field count, "name:fields", one a line.
csv_shape() {
	awk -F, '!/^#/ && NF { print $3 ":" NF }' "$1"
}

# --- -d, -dd, -ddd: perf's detailed events appended, in perf's order ------------------------------------
d1="L1-dcache-loads L1-dcache-load-misses LLC-loads LLC-load-misses"
d2="$d1 L1-icache-loads L1-icache-load-misses dTLB-loads dTLB-load-misses iTLB-loads iTLB-load-misses"
d3="$d2 L1-dcache-prefetches L1-dcache-prefetch-misses"
for level in d dd ddd dddd; do
	case $level in d) want=$d1 ;; dd) want=$d2 ;; *) want=$d3 ;; esac
	"$TALLY" stat -$level -x, -e task-clock -- true 2>"$WORK/csv"
	got=$(csv_shape "$WORK/csv" | cut -d: -f1 | tr '\n' ' ')
	[ "$got" = "task-clock $want " ] && ok "-$level: -e's events, then perf's detailed ones" || fail "-$level: $got"
	if [ -n "$PERF" ]; then
		"$PERF" stat -$level -x, -e task-clock -- true 2>"$WORK/perf"
		[ "$(csv_shape "$WORK/csv")" = "$(csv_shape "$WORK/perf")" ] && ok "-$level -x,: rows and fields as perf's" ||
			fail "-$level -x, against perf: $(csv_shape "$WORK/csv" | tr '\n' ' ') / $(csv_shape "$WORK/perf" | tr '\n' ' ')"
	fi
done
"$TALLY" stat --detailed -x, -- true 2>"$WORK/csv"
got=$(csv_shape "$WORK/csv" | cut -d: -f1 | tr '\n' ' ')
[ "$got" = "task-clock context-switches cpu-migrations page-faults cycles instructions branches branch-misses $d1 " ] &&
	ok "--detailed: after the default events" || fail "--detailed: $got"
if [ -n "$PERF" ]; then
	"$PERF" stat -d -x, -- true 2>"$WORK/perf"
	[ "$(csv_shape "$WORK/csv")" = "$(csv_shape "$WORK/perf")" ] && ok "-d -x: as perf's (defaults)" ||
		fail "-d against perf: $(csv_shape "$WORK/perf" | tr '\n' ' ')"
fi
# The table: each detailed event a line, or (no core PMU) the note says what needs one, as for the defaults.
"$TALLY" stat -d -e task-clock -- true 2>"$WORK/table"
if grep -q "^ *[0-9<].* L1-dcache-loads" "$WORK/table"; then
	ok "-d table: the detailed events' lines"
else
	grep -q "^note: .*-d's cache events need one" "$WORK/table" && ! grep -q "L1-dcache" "$WORK/table" &&
		ok "-d table without a PMU: the note, no <not supported> lines" || fail "-d table: $(cat "$WORK/table")"
fi

# --- -n: no events, the elapsed time alone --------------------------------------------------------------
"$TALLY" stat -n -- sh -c 'exit 3' 2>"$WORK/n"; st=$?
[ $st = 3 ] && ok "-n: the command's status" || fail "-n: exit $st"
# perf's lines: blank, heading, blank, elapsed, blank, user, sys, blank.
shape=$(sed -E 's/[0-9.]+/N/g; s/ +/ /g' "$WORK/n" | tr '\n' '|')
want="| Performance counter stats for 'sh -c exit N':|| N seconds time elapsed|| N seconds user| N seconds sys||"
[ "$shape" = "$want" ] && ok "-n: the heading and the times only, perf's lines" || fail "-n: $shape"
if [ -n "$PERF" ]; then
	"$PERF" stat -n -- sh -c 'exit 3' 2>"$WORK/perf"
	pshape=$(sed -E 's/[0-9.]+/N/g; s/ +/ /g' "$WORK/perf" | tr '\n' '|')
	# perf ends its table with one more blank line than tally does, with or without -n.
	[ "${pshape%|}" = "$shape" ] && ok "-n: as perf's" || fail "-n against perf: $pshape"
fi
"$TALLY" stat -n --null -r 3 -- true 2>"$WORK/n"
grep -qE '^ +[0-9.]+ \+- [0-9.]+ seconds time elapsed' "$WORK/n" && ! grep -q "task-clock" "$WORK/n" &&
	ok "-n -r 3: the mean elapsed time alone" || fail "-n -r: $(cat "$WORK/n")"
for format in "-x," "--json-format=perf"; do
	"$TALLY" stat -n "$format" -- true 2>"$WORK/n"
	[ ! -s "$WORK/n" ] && ok "-n $format: no line, as perf" || fail "-n $format: $(cat "$WORK/n")"
done
"$TALLY" stat -n -j -- true 2>"$WORK/n"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["events"] == [] and d["elapsed"] > 0, d' "$WORK/n" &&
	ok "-n -j: no events, the elapsed time" || fail "-n -j: $(cat "$WORK/n")"
"$TALLY" stat -n -d -x, -e page-faults -- true 2>"$WORK/n"
[ "$(csv_shape "$WORK/n" | cut -d: -f1)" = page-faults ] && ok "-n with -e: -e's events, no -d ones (as perf)" ||
	fail "-n -e: $(cat "$WORK/n")"

# --- -S: sync(2) before each run ------------------------------------------------------------------------
if command -v strace >/dev/null && strace -f -qq -e trace=sync -o "$WORK/trace" true 2>/dev/null; then
	strace -f -qq -e trace=sync -o "$WORK/trace" "$TALLY" stat -S -r 2 -e task-clock -- true 2>/dev/null
	[ "$(grep -c '^[0-9]* *sync()' "$WORK/trace")" = 2 ] && ok "-S -r 2: sync(2) before each run" ||
		fail "-S: $(cat "$WORK/trace")"
	strace -f -qq -e trace=sync -o "$WORK/trace" "$TALLY" stat -e task-clock -- true 2>/dev/null
	[ "$(grep -c 'sync()' "$WORK/trace")" = 0 ] && ok "without -S: no sync(2)" || fail "no -S: $(cat "$WORK/trace")"
else
	echo "SKIP part: strace cannot trace here"
fi
"$TALLY" stat --sync -e task-clock -- sh -c 'exit 4' 2>/dev/null
[ $? = 4 ] && ok "--sync: the command's status" || fail "--sync: exit $?"

# --- --all-user, --all-kernel: every event in one space, names as written ------------------------------
"$TALLY" stat --all-user -v -e task-clock,page-faults:k -- true 2>"$WORK/u"
grep -E ' page-faults:k .*\[type=1,config=0x2,.*exclude_kernel=1' "$WORK/u" | grep -qv exclude_user &&
	grep -E ' task-clock .*exclude_kernel=1' "$WORK/u" | grep -qv exclude_user &&
	ok "--all-user: exclude_kernel on every event, over :k, names as written" || fail "--all-user: $(cat "$WORK/u")"
"$TALLY" stat --all-kernel -v -e page-faults:u -- true 2>"$WORK/k"
grep -E ' page-faults:u .*exclude_user=1,exclude_hv=1' "$WORK/k" | grep -qv exclude_kernel &&
	ok "--all-kernel: exclude_user over :u, :u's exclude_hv kept (perf's bits)" || fail "--all-kernel: $(cat "$WORK/k")"
"$TALLY" stat --all-user -x, -- true 2>"$WORK/csv"
[ "$(csv_shape "$WORK/csv" | head -1)" = "task-clock:7" ] && ok "--all-user: the default events, named as perf names them" ||
	fail "--all-user defaults: $(cat "$WORK/csv")"
if [ -n "$PERF" ]; then
	"$PERF" stat --all-user -x, -- true 2>"$WORK/perf"
	[ "$(csv_shape "$WORK/csv")" = "$(csv_shape "$WORK/perf")" ] && ok "--all-user -x,: as perf's" ||
		fail "--all-user against perf: $(csv_shape "$WORK/perf" | tr '\n' ' ')"
fi
"$TALLY" stat --all-user --all-kernel -- true 2>"$WORK/e"
[ $? = 2 ] && grep -q "choose one" "$WORK/e" && ok "--all-user with --all-kernel: refused" || fail "both: $(cat "$WORK/e")"
# Where perf_event_paranoid 2 refuses kernel mode to a user, a kernel-only event fails with the reason, as
# perf's does: tally's retry in user space only would have counted nothing (page-faults:k read 0).
if [ "$(id -u)" = 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" = 2 ] && command -v runuser >/dev/null; then
	chmod 755 "$WORK" && cp "$TALLY" "$WORK/tally" && chmod 755 "$WORK/tally"
	for events in "--all-kernel -e page-faults" "-e page-faults:k"; do
		# shellcheck disable=SC2086
		runuser -u nobody -- "$WORK/tally" stat $events -- true 2>"$WORK/err"; st=$?
		[ $st = 1 ] && grep -q "perf_event_paranoid is 2" "$WORK/err" &&
			ok "$events as a user under paranoid 2: refused with the reason" || fail "$events as nobody: exit $st: $(cat "$WORK/err")"
	done
else
	echo "SKIP part: needs root, perf_event_paranoid 2 and runuser to count as a user"
fi

# --- --interval-clear: perf's header over every interval; the clearing only on a terminal ---------------
"$TALLY" stat --interval-clear -I 50 --interval-count 3 -e task-clock -- sleep 1 2>"$WORK/i"
[ "$(grep -c '^# *time' "$WORK/i")" = 3 ] && [ "$(grep -c ' task-clock' "$WORK/i")" = 3 ] &&
	ok "--interval-clear: the header over each of 3 intervals" || fail "--interval-clear: $(cat -A "$WORK/i")"
grep -q $'\e' "$WORK/i" && fail "--interval-clear into a file: escape sequences" || ok "--interval-clear into a file: no escape"
"$TALLY" stat -I 50 --interval-count 3 -e task-clock -- sleep 1 2>"$WORK/i"
[ "$(grep -c '^# *time' "$WORK/i")" = 1 ] && ok "without it: one header" || fail "one header: $(cat "$WORK/i")"
# script(1) makes a terminal where the machine has pseudo-terminals (a build chroot without /dev/pts has
# none: script fails, "failed to create pseudo-terminal").
have_terminal() { command -v script >/dev/null && script -qec tty /dev/null 2>/dev/null | grep -q '^/dev/'; }
if have_terminal; then
	script -qec "$TALLY stat --interval-clear -I 50 --interval-count 2 -e task-clock -- sleep 1" /dev/null >"$WORK/tty"
	[ "$(grep -o $'\e\\[H\e\\[2J#' "$WORK/tty" | wc -l)" = 2 ] && ok "--interval-clear on a terminal: cleared before each" ||
		fail "on a terminal: $(cat -A "$WORK/tty")"
else
	echo "SKIP part: no terminal to be had (no script(1), or no pseudo-terminals)"
fi
# With -x, perf's table header as a comment line over each interval's records.
"$TALLY" stat -x, --interval-clear -I 50 --interval-count 2 -A -a -e cpu-clock 2>"$WORK/i"
awk '/^#/ { h++ } END { exit h != 2 }' "$WORK/i" && [ "$(grep -vc '^#' "$WORK/i")" = $((2 * $(getconf _NPROCESSORS_ONLN))) ] &&
	ok "--interval-clear -x, -A: the header line over each interval's records" || fail "-x, -A: $(cat "$WORK/i")"
# perf (6.1.192 and later 6.1 updates, 6.12) refuses --interval-clear when its output is no terminal
# ("does not work with output"), where tally writes the headers without the clearing: perf then runs on a
# terminal made by script(1), its clearing sequences and carriage returns taken out.
perf_interval_clear() { # ARGS...: perf's output into $WORK/perf
	"$PERF" stat --interval-clear -I 50 --interval-count 3 "$@" 2>"$WORK/perf" >/dev/null
	grep -q "does not work with output" "$WORK/perf" || return 0
	have_terminal || return 1
	script -qec "$PERF stat --interval-clear -I 50 --interval-count 3 $* 2>&1 >/dev/null" /dev/null |
		sed $'s/\e\\[H\e\\[2J//g; s/\r$//' > "$WORK/perf"
}
if [ -n "$PERF" ]; then
	for args in "-e task-clock -- sleep 1" "-x, -e task-clock -- sleep 1" "-x, -A -a -e cpu-clock"; do
		# shellcheck disable=SC2086
		perf_interval_clear $args || { echo "SKIP (part): perf refuses --interval-clear into a file, and no terminal to be had"; continue; }
		# shellcheck disable=SC2086
		"$TALLY" stat --interval-clear -I 50 --interval-count 3 $args 2>"$WORK/i"
		[ "$(grep '^#' "$WORK/perf" | tr -s ' ')" = "$(grep '^#' "$WORK/i" | tr -s ' ')" ] &&
			[ "$(grep -v '^#' "$WORK/perf" | grep -c .)" = "$(grep -v '^#' "$WORK/i" | grep -c .)" ] &&
			ok "--interval-clear $args: perf's header lines and line count" ||
			fail "--interval-clear $args against perf: $(cat "$WORK/perf") / $(cat "$WORK/i")"
	done
fi

# --- --log-fd: the results to an open descriptor; messages stay on stderr -------------------------------
"$TALLY" stat --log-fd 3 -e task-clock -- sh -c 'echo mine >&3; exit 5' 3>"$WORK/fd3" 2>"$WORK/err"; st=$?
[ $st = 5 ] && ok "--log-fd: the command's status" || fail "--log-fd: exit $st"
grep -q "Performance counter stats" "$WORK/fd3" && grep -q "^mine$" "$WORK/fd3" && [ ! -s "$WORK/err" ] &&
	ok "--log-fd 3: the results on fd 3, the command's fd 3 its own, nothing on stderr" ||
	fail "--log-fd: fd3 '$(cat "$WORK/fd3")' err '$(cat "$WORK/err")'"
grep -q "# started on" "$WORK/fd3" && fail "--log-fd: perf's -o line" || ok "--log-fd: no '# started on' line (perf's -o only)"
"$TALLY" stat --log-fd 3 -x, -e task-clock,page-faults -- true 3>"$WORK/fd3" 2>/dev/null
[ "$(csv_shape "$WORK/fd3" | tr '\n' ' ')" = "task-clock:7 page-faults:7 " ] && ok "--log-fd -x,: the CSV on fd 3" ||
	fail "--log-fd -x,: $(cat "$WORK/fd3")"
"$TALLY" stat --log-fd 3 --append -e task-clock -- true 3>>"$WORK/fd3" 2>/dev/null
[ $? = 0 ] && ok "--log-fd with --append: accepted, as perf" || fail "--log-fd --append refused"
for bad in "--log-fd 9" "--log-fd 0" "--log-fd x" "--log-fd 3 -o $WORK/o"; do
	# shellcheck disable=SC2086
	"$TALLY" stat $bad -e task-clock -- touch "$WORK/ran" 3>/dev/null 2>"$WORK/err"; st=$?
	[ $st = 2 ] && [ ! -e "$WORK/ran" ] && [ -s "$WORK/err" ] && ok "$bad: refused before anything runs" ||
		fail "$bad: exit $st: $(cat "$WORK/err")"
	rm -f "$WORK/ran"
done
"$TALLY" stat --log-fd 3 -e task-clock -- true 3</dev/null 2>"$WORK/err"
grep -q "not open for writing" "$WORK/err" && ok "--log-fd on a read-only descriptor: says so" ||
	fail "--log-fd read-only: $(cat "$WORK/err")"
"$TALLY" stat --log-fd 9 -e task-clock -- true 2>"$WORK/err"
grep -q "no such descriptor is open" "$WORK/err" && ok "--log-fd on a closed descriptor: says so" ||
	fail "--log-fd closed: $(cat "$WORK/err")"
# The reader of --log-fd's pipe leaves once the command has ended: SIGPIPE ends tally (141, as on stderr),
# and the message must not promise the command's status.
rm -f "$WORK/closed"
"$TALLY" stat --log-fd 3 -e task-clock -- sh -c "while [ ! -e '$WORK/closed' ]; do sleep 0.01; done; exit 5" \
	3>&1 >/dev/null 2>"$WORK/err" | (exec 0<&-; touch "$WORK/closed")
st=${PIPESTATUS[0]}
[ "$st" = 141 ] && grep -q "reader went away" "$WORK/err" && ! grep -q "stays the command's" "$WORK/err" &&
	ok "--log-fd pipe closed: exit 141, said so" || fail "--log-fd pipe closed: exit $st: $(cat "$WORK/err")"
rm -f "$WORK/closed"

# --- each is listed by --help ----------------------------------------------------------------------------
for opt in -d, --detailed -n, --null -S, --sync --all-user --all-kernel --interval-clear --log-fd; do
	"$TALLY" stat --help | grep -qE -- "(^| )$opt( |$)" && ok "--help lists $opt" || fail "--help lacks $opt"
done
finish
