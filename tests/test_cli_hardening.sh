#!/bin/bash
# SPDX-License-Identifier: MIT
# tally as a hostile or unlucky user meets it: output that cannot be written (/dev/full, a full file
# system), -C with CPUs that are not online, -p/-t ids that are not processes, aggregation modes that
# cannot do what they say, several -e that only make a spec once joined, a -r run killed by a signal,
# control bytes in names and labels, invalid UTF-8 in JSON. Each behaviour is compared with perf stat
# 6.1 in tally(1).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"

# run_tally DESCRIPTION WANT -- tally args...: stdout to $WORK/out, stderr to $WORK/err.
run_tally() {
	local what=$1 want=$2; shift 3
	"$TALLY" "$@" >"$WORK/out" 2>"$WORK/err"
	local got=$?
	if [ "$got" -eq "$want" ]; then ok "$what (exit $got)"; else fail "$what: exit $got, want $want: $(cat "$WORK/err")"; fi
}
# expect_err PATTERN DESCRIPTION: the last stderr matches (grep -E).
expect_err() {
	grep -qE -- "$1" "$WORK/err" && ok "$2" || fail "$2: $(cat "$WORK/err")"
}

# --- output that cannot be written: the command's status, the loss said once on stderr -------------------
# A tally failure never changes the measured program's exit status (perf 6.1 does not check its writes).
lost="cannot write the results to /dev/full: No space left on device: the results are lost"
run_tally "-o /dev/full" 0 -- stat -o /dev/full -e task-clock -- echo hi
expect_err "$lost" "-o /dev/full: file and reason named, the loss said"
[ "$(grep -c "results are lost" "$WORK/err")" -eq 1 ] && ok "-o /dev/full: said once" || fail "said more than once: $(cat "$WORK/err")"
[ "$(cat "$WORK/out")" = hi ] && ok "-o /dev/full: the command ran, its stdout intact" || fail "command stdout: $(cat "$WORK/out")"
for format in "-x," "-j" "-x, --csv-header" "--json-format=perf"; do
	# shellcheck disable=SC2086
	run_tally "-o /dev/full $format: the command's status" 3 -- stat $format -o /dev/full -e task-clock -- sh -c 'exit 3'
	expect_err "$lost" "-o /dev/full $format: the loss said"
done
run_tally "-o /dev/full --append" 0 -- stat -o /dev/full --append -e task-clock -- true
run_tally "-o /dev/full -r 3: the last run's status" 4 -- stat -o /dev/full -r 3 -e task-clock -- sh -c 'exit 4'
[ "$(grep -c "results are lost" "$WORK/err")" -eq 1 ] && ok "-o /dev/full -r 3: said once" || fail "-r 3 said: $(cat "$WORK/err")"
run_tally "-o /dev/full -I: the command's status" 5 -- stat -o /dev/full -I 20 -e task-clock -- sh -c 'sleep 0.1; exit 5'
run_tally "the command's own failure: its status, 3" 3 -- stat -o /dev/full -e task-clock -- sh -c 'exit 3'
expect_err "$lost \\(the exit status stays the command's\\)" "the message says the status is the command's"
run_tally "a command killed by a signal: 128 + it" 137 -- stat -o /dev/full -e task-clock -- sh -c 'kill -9 $$'
run_tally "-q writes nothing: the command's status" 3 -- stat -q -o /dev/full -e task-clock -- sh -c 'exit 3'
"$TALLY" stat -e task-clock -- sh -c 'exit 6' 2>/dev/full; st=$?
[ $st -eq 6 ] && ok "results to a full stderr: the command's status (6)" || fail "full stderr: exit $st"
exec 3>/dev/full
run_tally "--log-fd to a full file: the command's status" 7 -- stat --log-fd 3 -e task-clock -- sh -c 'exit 7'
expect_err "cannot write the results to --log-fd's descriptor: No space left on device" "--log-fd: the loss said"
exec 3>&-
# The subcommands that measure no program (list, doctor, merge, compare) fail with 1 when their output is lost.
for cmd in "list" "list --json" "doctor" "doctor --json" "--version" "--help" "stat --help"; do
	# shellcheck disable=SC2086
	"$TALLY" $cmd >/dev/full 2>"$WORK/err"; st=$?
	[ $st -eq 1 ] && grep -q "cannot write to standard output: No space left on device" "$WORK/err" &&
		ok "tally $cmd >/dev/full: exit 1, said" || fail "tally $cmd >/dev/full: exit $st: $(cat "$WORK/err")"
done
# A real full file system, where this test may mount one (root, a kernel that lets it): SKIP otherwise.
mkdir -p "$WORK/small"
if mount -t tmpfs -o size=64k tally-test "$WORK/small" 2>/dev/null; then
	dd if=/dev/zero of="$WORK/small/filler" bs=4k count=64 2>/dev/null
	run_tally "-o on a full file system: the command's status" 3 -- stat -o "$WORK/small/out" -e task-clock,page-faults -- sh -c 'exit 3'
	expect_err "cannot write the results to $WORK/small/out: No space left on device" "full file system: said"
	umount "$WORK/small"
else
	echo "skip full file system: cannot mount a tmpfs here"
fi

# --- -C: CPUs that are not online are refused before anything runs -------------------------------------
online=$(cat /sys/devices/system/cpu/online)
last=$(tr ',' '\n' </sys/devices/system/cpu/online | tail -1 | sed 's/.*-//')
rm -f "$WORK/created"
run_tally "-C 0-$((last + 2))" 2 -- stat -C "0-$((last + 2))" -e task-clock -- touch "$WORK/created"
[ -e "$WORK/created" ] && fail "-C beyond the machine: the command ran" || ok "-C beyond the machine: nothing ran"
expect_err "not online here \(absent or offline\): $((last + 1))-$((last + 2)); the online CPUs are $online\$" \
	"-C beyond the machine: the missing and the online CPUs named"
run_tally "-C 4096" 2 -- stat -C 4096 -e task-clock -- true
run_tally "-C $last (online)" 0 -- stat -C "$last" -e task-clock -- true

# --- -A/-a, --per-core, --per-thread rows: the part column always, the metric column kept ---------------
# An event no kernel supports (software config 0x99) keeps the CPU column with -A, as perf's rows do.
run_tally "-a -A -x, with an unsupported event" 0 -- stat -a -A -x, -e 'task-clock,software/config=0x99/' -- true
awk -F, '{ print NF }' "$WORK/err" | sort -u | wc -l | grep -qx 1 && grep -q '^CPU[0-9]*,<not supported>,' "$WORK/err" &&
	ok "-A -x,: every record has the same fields, the unsupported one its CPU" || fail "-A fields: $(cat "$WORK/err")"
[ "$(grep -c '^CPU[0-9]*,[0-9.]*,msec,task-clock,.*,CPUs utilized$' "$WORK/err")" -eq "$(nproc)" ] &&
	ok "-A -x,: every CPU's task-clock has its CPUs utilized" || fail "-A metric: $(cat "$WORK/err")"
run_tally "-a -A table" 0 -- stat -a -A -e task-clock -- true
[ "$(grep -c '^CPU[0-9]* .*task-clock *# .*CPUs utilized' "$WORK/err")" -eq "$(nproc)" ] &&
	ok "-A table: every CPU's row has its metric" || fail "-A table metric: $(cat "$WORK/err")"
if [ -r /sys/devices/system/cpu/cpu0/topology/core_id ]; then
	run_tally "--per-core" 0 -- stat -a --per-core -x, -e task-clock -- true
	grep -q '^S[0-9]*-D[0-9]*-C[0-9]*,.*,CPUs utilized$' "$WORK/err" && ok "--per-core rows keep the metric" ||
		fail "--per-core metric: $(cat "$WORK/err")"
fi
run_tally "-a -A -j" 0 -- stat -j -o "$WORK/parts.json" -a -A -e task-clock,page-faults -- true
python3 "${TALLY_SOURCE:?}/tests/cli_helpers/validate_json_schema.py" "$TALLY_SOURCE/docs/json-schema.json" "$WORK/parts.json" \
	>"$WORK/why" && ok "-A -j: valid against the schema" || fail "-A -j schema: $(head -5 "$WORK/why")"
python3 - "$WORK/parts.json" <<'PY' && ok "-A -j: every part has its metric" || fail "-A -j metric: $(cat "$WORK/parts.json")"
import json, sys
events = json.load(open(sys.argv[1]))["events"]
assert all(p["metric"]["unit"] == "CPUs utilized" for p in events[0]["parts"]), events[0]["parts"]
assert all(p["metric"]["unit"].endswith("/sec") for p in events[1]["parts"]), events[1]["parts"]
PY
# A busy process: a sleeping one has no task-clock to rate.
sh -c 'while :; do :; done' & victim=$!
# Until the background shell has exec'd sh, the victim's comm is still bash's (a loaded machine lets tally
# see it so).
for _ in $(seq 600); do grep -qx sh "/proc/$victim/comm" 2>/dev/null && break; sleep 0.02; done
run_tally "--per-thread -p" 0 -- stat --per-thread -x, -e task-clock,page-faults -p $victim --duration 0.2
grep -q "^sh-$victim,.*task-clock,.*,CPUs utilized\$" "$WORK/err" && grep -q "^sh-$victim,.*page-faults,.*/sec\$" "$WORK/err" &&
	ok "--per-thread rows keep the metric" || fail "--per-thread metric: $(cat "$WORK/err")"

# --- --per-thread where the kernel cannot split the threads: refused, as perf 6.1 does ------------------
rm -f "$WORK/created"
run_tally "--per-thread with a command" 2 -- stat --per-thread -e task-clock -- touch "$WORK/created"
expect_err "--per-thread .* needs -p, -t or -a" "--per-thread with a command: explained"
[ -e "$WORK/created" ] && fail "--per-thread: the command ran" || ok "--per-thread: nothing ran"
run_tally "-a --per-thread" 0 -- stat -a --per-thread -x, -e task-clock -- true
grep -q "^tally-[0-9]*,[0-9.]*,msec,task-clock," "$WORK/err" && ok "-a --per-thread: every thread, tally's own among them" ||
	fail "-a --per-thread: $(cat "$WORK/err")"
run_tally "-C 0 --per-thread" 2 -- stat -C 0 --per-thread -e task-clock --duration 0.1

# --- -p / -t: ids that name no other process are usage errors --------------------------------------------
for ids in 0 "$victim,0" -1 "" abc "1," "0-3"; do
	run_tally "-p '$ids'" 2 -- stat -p "$ids" -e task-clock --duration 0.1
	run_tally "-t '$ids'" 2 -- stat -t "$ids" -e task-clock --duration 0.1
done
expect_err "-t wants a comma list of thread ids" "-t: explained"
kill $victim 2>/dev/null; wait $victim 2>/dev/null

# --- each -e is one spec ------------------------------------------------------------------------------------
rm -f "$WORK/created"
run_tally "-e '{task-clock' -e 'cs}'" 2 -- stat -e '{task-clock' -e 'cs}' -- touch "$WORK/created"
[ -e "$WORK/created" ] && fail "split group: the command ran" || ok "split group: nothing ran"
expect_err "each -e is a spec of its own" "split group: explained"
run_tally "-e 'software/config=1' -e 'name=x/'" 2 -- stat -e 'software/config=1' -e 'name=x/' -- true
run_tally "-e task-clock -e cs" 0 -- stat -x, -e task-clock -e cs -- true
grep -q ',task-clock,' "$WORK/err" && grep -q ',cs,' "$WORK/err" && ok "two -e: both counted" || fail "two -e: $(cat "$WORK/err")"
run_tally "-e '{task-clock,cs}' -e page-faults" 0 -- stat -x, -e '{task-clock,cs}' -e page-faults -- true

# --- -r: a run killed by a signal is said, and tally exits 128 + signal ----------------------------------
cat >"$WORK/second_run_dies.sh" <<EOF
#!/bin/sh
n=\$(cat "$WORK/runs" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$WORK/runs"
[ \$n -eq 2 ] && kill -TERM \$\$
exit 0
EOF
chmod +x "$WORK/second_run_dies.sh"
rm -f "$WORK/runs"
run_tally "-r 3, run 2 killed by SIGTERM" 143 -- stat -r 3 -e task-clock -- "$WORK/second_run_dies.sh"
expect_err "run 2 of 3: the command was killed by signal 15 \(Terminated\)" "-r: the killed run named on stderr"
expect_err "1 of 3 runs killed by a signal" "-r: the table says its mean holds a killed run"
[ "$(cat "$WORK/runs")" = 3 ] && ok "-r: the other runs still ran (as perf)" || fail "-r: $(cat "$WORK/runs") runs"
rm -f "$WORK/runs"
run_tally "-r 3 -j" 143 -- stat -j -o "$WORK/r.json" -r 3 -e task-clock -- "$WORK/second_run_dies.sh"
python3 - "$WORK/r.json" <<'PY' && ok "-r -j: the killed run's status in its record and the document's" || fail "-r -j: $(cat "$WORK/r.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert [r["exit_status"] for r in doc["runs"]] == [0, 143, 0], doc["runs"]
assert doc["exit_status"] == 143
PY

# --- control bytes: escaped in the table and CSV, never written raw to a terminal ------------------------
esc=$(printf '\033')
run_tally "a name with ESC and ^A, table" 0 -- stat -e "software/config=1,name=a${esc}[2Jb$(printf '\001')/" -- true
grep -qF 'a\x1b[2Jb\x01' "$WORK/err" && ! grep -q "$esc" "$WORK/err" && ok "table: control bytes in the name escaped" ||
	fail "table escaping: $(cat -A "$WORK/err")"
run_tally "a name with a newline, CSV" 0 -- stat -x, -e "software/config=1,name=two
lines/" -- true
[ "$(wc -l <"$WORK/err")" -eq 1 ] && grep -qF ',two\x0alines,' "$WORK/err" && ok "CSV: a newline in a name stays in its record" ||
	fail "CSV escaping: $(cat -A "$WORK/err")"
run_tally "a name holding the separator, CSV" 0 -- stat -x, -e "software/config=1,name='x,y'/" -- true
[ "$(awk -F, '{ print NF }' "$WORK/err")" = 7 ] && grep -qF ',x\x2cy,' "$WORK/err" &&
	ok "CSV: a separator in a name is escaped, the record keeps its 7 fields" || fail "CSV separator: $(cat "$WORK/err")"
run_tally "a command with ESC in its arguments" 0 -- stat -e task-clock -- true "${esc}]0;title$(printf '\007')"
grep -qF "'true \\x1b]0;title\\x07'" "$WORK/err" && ! grep -q "$esc" "$WORK/err" && ok "table heading: the command's bytes escaped" ||
	fail "heading escaping: $(cat -A "$WORK/err")"
run_tally "a bad spec with ESC" 2 -- stat -e "task-clock${esc}" -- true
! grep -q "$esc" "$WORK/err" && grep -qF 'task-clock\x1b' "$WORK/err" && ok "spec error: the spec's bytes escaped" ||
	fail "spec error escaping: $(cat -A "$WORK/err")"
# A thread names itself: its comm (here the name of the program it runs) comes to the --per-thread label.
ln -s "$(command -v sleep)" "$WORK/ev${esc}il"
"$WORK/ev${esc}il" 5 & victim=$!
# Until the background shell has exec'd, the victim's comm is still the shell's.
for _ in $(seq 100); do grep -q "^ev" "/proc/$victim/comm" 2>/dev/null && break; sleep 0.02; done
run_tally "--per-thread, a comm with ESC" 0 -- stat --per-thread -x, -e context-switches -p $victim --duration 0.1
grep -qF "ev\\x1bil-$victim," "$WORK/err" && ! grep -q "$esc" "$WORK/err" && ok "--per-thread: the comm escaped" ||
	fail "comm escaping: $(cat -A "$WORK/err")"
kill $victim 2>/dev/null; wait $victim 2>/dev/null

# --- JSON: an invalid UTF-8 byte is U+FFFD, never another character ---------------------------------------
run_tally "a name with an invalid byte, JSON" 0 -- stat -j -e "software/config=1,name=a$(printf '\377')b/" -- true
python3 - "$WORK/err" <<'PY' && ok "JSON: 0xff in a name reads U+FFFD" || fail "JSON U+FFFD: $(grep name "$WORK/err")"
import json, sys
doc = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
assert doc["events"][0]["name"] == "a\ufffdb", doc["events"][0]["name"]
PY

finish
