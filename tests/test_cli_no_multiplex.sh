#!/usr/bin/env bash
# tally stat --no-multiplex (issue 25): the command run once per set of groups, each counting its set alone,
# the runs combined. Counts from the fake PMU (tests/fake_pmu.c) made as small as a real one with
# FAKE_PMU_COUNTERS (more events open than that: every group multiplexed), so that what is multiplexed and
# what each count is are exact. The command appends a line to a file per run (the run count), prints to its
# stdout (tally's stdout holds only that) and fails where asked (the exit status). Without the option, the
# figures whose events were multiplexed in different groups say "mixed windows" in the table, CSV and JSON.
set -uo pipefail
source "$(dirname "$0")/cli_helpers/common.sh"
FAKE=$TALLY_BUILD/tests/libfake_pmu.so
FIXTURES=${TALLY_FIXTURES:-$TALLY_SOURCE/tests/fixtures}
[ -f "$FAKE" ] || { echo "SKIP: $FAKE not built"; exit 77; }
{ ldd "$TALLY" 2>/dev/null | grep -q 'libasan\|libtsan' || grep -qa '__asan_init\|__tsan_init' "$TALLY"; } &&
	{ echo "SKIP: tally is built with a sanitizer (a preloaded library ahead of its runtime is refused)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }

RUNS=$WORK/runs
# The command: a line per run in $RUNS, "out" on its stdout, and exit status $FAIL_ON_RUN_2 in its second run.
PROG=(sh -c 'n=$(cat "$0" 2>/dev/null | wc -l); echo run >>"$0"; echo out; [ "$n" != 1 ] || exit "${1:-0}"' "$RUNS")
# stat ARGS...: tally stat ARGS -- PROG on the fake PMU of 2 counters; its stdout in $WORK/out, the results
# (stderr) in $WORK/err; the status in $st.
stat() {
	rm -f "$RUNS"
	LD_PRELOAD=$FAKE FAKE_PMU_COUNTERS=${COUNTERS-2} "$TALLY" stat "$@" -- "${PROG[@]}" ${FAIL:-} \
		>"$WORK/out" 2>"$WORK/err"
	st=$?
}
runs() { [ -f "$RUNS" ] && wc -l <"$RUNS" || echo 0; }

# Wrong inputs: exit 2, a message, nothing run, nothing on stdout.
refused_stat() {
	local name=$1 pattern=$2
	shift 2
	rm -f "$RUNS"
	"$TALLY" stat "$@" >"$WORK/r.out" 2>"$WORK/r.err"
	local s=$?
	[ $s -eq 2 ] && [ ! -s "$WORK/r.out" ] && [ ! -f "$RUNS" ] && grep -q -- "$pattern" "$WORK/r.err" &&
		ok "refused: $name" || fail "$name: status $s, stdout '$(cat "$WORK/r.out")', stderr '$(cat "$WORK/r.err")'"
}
refused_stat "no command" "needs\|give the command to run" --no-multiplex -e task-clock
refused_stat "-a" "not with -a, -C, -p or -t" --no-multiplex -a -e task-clock -- "${PROG[@]}"
refused_stat "-C" "not with -a, -C, -p or -t" --no-multiplex -C 0 -e task-clock -- "${PROG[@]}"
refused_stat "-p" "not with -a, -C, -p or -t" --no-multiplex -p $$ -e task-clock -- "${PROG[@]}"
refused_stat "-t" "not with -a, -C, -p or -t" --no-multiplex -t $$ -e task-clock -- "${PROG[@]}"
refused_stat "-r" "--no-multiplex and -r" --no-multiplex -r 3 -e task-clock -- "${PROG[@]}"
refused_stat "-I" "--no-multiplex and -I" --no-multiplex -I 100 -e task-clock -- "${PROG[@]}"
refused_stat "--regions" "--no-multiplex and --regions" --no-multiplex --regions -e task-clock -- "${PROG[@]}"
refused_stat "--control" "--no-multiplex and --control" --no-multiplex --control fd:0 -e task-clock -- "${PROG[@]}"

# The exact counts: one run on a fake PMU with room for everything.
COUNTERS= stat -x, -M IPC,branch_miss_rate -e task-clock
exact=$(cat "$WORK/err")
[ $st -eq 0 ] && [ "$(runs)" = 1 ] && ! grep -q ',50.00,' <<<"$exact" && ok "reference: one run, nothing multiplexed" ||
	fail "reference: $st, $(runs) runs: $exact"

# With 2 counters the 4 hardware events multiplex (50%) by default, and the metrics' groups are each one
# window: IPC and branch_miss_rate are scaled, not mixed.
stat -x, -M IPC,branch_miss_rate -e task-clock
[ $st -eq 0 ] && [ "$(runs)" = 1 ] && grep -q '^[0-9]*,,instructions,[0-9]*,50.00,' "$WORK/err" &&
	! grep -q 'mixed-windows' "$WORK/err" && ok "default: one run, multiplexed, each metric from its group" ||
	fail "default: $st, $(runs) runs: $(cat "$WORK/err")"

# --no-multiplex: run 1 counts everything (multiplexed), then its multiplexed units in halves: {instructions,
# cycles} and {branches,branch-misses}, each alone: 3 runs, every count the exact one, every metric its
# exact value, the command's stdout three times its own and nothing of tally's.
stat -x, --no-multiplex -M IPC,branch_miss_rate -e task-clock
[ $st -eq 0 ] && [ "$(runs)" = 3 ] && ok "--no-multiplex: 3 runs" || fail "--no-multiplex: $st, $(runs) runs: $(cat "$WORK/err")"
[ "$(cat "$WORK/out")" = "$(printf 'out\nout\nout')" ] && ok "stdout: the command's own, once per run" ||
	fail "stdout: $(cat "$WORK/out")"
python3 - "$exact" "$(cat "$WORK/err")" <<'PY' && ok "--no-multiplex: the exact counts, 100% running, exact metrics" ||
import sys
def parse(text):
    rows = [l.split(',') for l in text.splitlines() if l and not l.startswith('#')]
    counts = {r[2]: r for r in rows if r[0] and r[2] != 'task-clock'}
    metrics = {r[2]: r for r in rows if not r[0]}
    return counts, metrics
want, _ = parse(sys.argv[1])
got, metrics = parse(sys.argv[2])
assert sorted(got) == ['branch-misses', 'branches', 'cycles', 'instructions'], got
for name, row in got.items():
    assert row[0] == want[name][0], (name, row[0], want[name][0])   # the fake PMU's count, exactly
    assert row[4] == '100.00', row                                  # all of its run
ins, cyc, br, miss = (int(got[n][0]) for n in ('instructions', 'cycles', 'branches', 'branch-misses'))
assert metrics['IPC'][5] == '%.3f' % (ins / cyc), metrics['IPC']
assert metrics['branch_miss_rate'][5] == '%.3f' % (100 * miss / br), metrics['branch_miss_rate']
assert all(len(r) == 7 for r in metrics.values()), metrics          # no mixed-windows field
PY
	fail "--no-multiplex counts: $(cat "$WORK/err") against $exact"

# The table: which run counted what, the duration's spread, no multiplexing left.
stat --no-multiplex -M IPC,branch_miss_rate -e task-clock
table=$(cat "$WORK/err")
grep -q "Performance counter stats for .* (3 runs, --no-multiplex):" <<<"$table" &&
	grep -q '^   run 1 .* s: task-clock$' <<<"$table" && grep -q '^   run 2 .* s: instructions, cycles$' <<<"$table" &&
	grep -q '^   run 3 .* s: branches, branch-misses$' <<<"$table" && grep -q 'seconds time elapsed  ( +- ' <<<"$table" &&
	! grep -q '%)$' <<<"$table" && ok "table: each run's events, the elapsed time's spread" || fail "table: $table"

# JSON: each event's and metric's run, not scaled nor mixed; the runs, run 1's multiplexed.
stat -j --no-multiplex -M IPC,branch_miss_rate -e task-clock
python3 - "$WORK/err" <<'PY' && ok "JSON: runs, each event's and metric's run" || fail "JSON: $(head -c 3000 "$WORK/err")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d['no_multiplex'] is True and d['nr_runs'] == 3 and len(d['runs']) == 3, d['nr_runs']
run = {e['name']: e['run'] for e in d['events']}
assert all(e['status'] == 'counted' for e in d['events']), d['events']
assert run['task-clock'] == 1 and run['instructions'] == run['cycles'] and run['branches'] == run['branch-misses']
assert len({run['task-clock'], run['instructions'], run['branches']}) == 3, run
for m in d['metrics']:
    assert m['available'] and not m['scaled'] and not m['mixed_windows'], m
    assert m['run'] == run[m['inputs'][0]['event']], m
first = {e['name']: e['status'] for e in d['runs'][0]['events']}
assert first['instructions'] == 'scaled' and first['task-clock'] == 'counted', first
later = {e['name']: e['status'] for e in d['runs'][1]['events']}
assert sorted(later.values()).count('not-counted') == 3, later
PY

# Nothing multiplexed (room for everything): one run, as without the option.
COUNTERS= stat --no-multiplex -M IPC -e task-clock
[ $st -eq 0 ] && [ "$(runs)" = 1 ] && grep -q -- '--no-multiplex: 1 run,' "$WORK/err" &&
	ok "--no-multiplex with nothing multiplexed: one run" || fail "one run: $st, $(runs): $(cat "$WORK/err")"

# Events outside braces, each alone (--no-group), 3 groups on 2 counters: run 1 all, then {cycles} and
# {instructions,branches}; IPC beside instructions then reads two runs: "mixed windows", as it does by
# default (two groups, both multiplexed).
stat --no-group -e task-clock -e cycles -e instructions -e branches
grep -q 'instructions .*# .*insn per cycle .*(66.67%)  (mixed windows)$' "$WORK/err" &&
	grep -q '^ (mixed windows): ' "$WORK/err" && ok "table: default, a figure of two multiplexed groups is mixed" ||
	fail "mixed default: $(cat "$WORK/err")"
stat --no-multiplex --no-group -e task-clock -e cycles -e instructions -e branches
[ "$(runs)" = 3 ] && grep -q '^   run 2 .* s: cycles$' "$WORK/err" && grep -q '^   run 3 .* s: instructions, branches$' "$WORK/err" &&
	grep -q 'instructions .*insn per cycle  *(mixed windows)$' "$WORK/err" &&
	ok "--no-multiplex --no-group: halves of what multiplexed; IPC from two runs is mixed" ||
	fail "--no-group: $(runs) runs: $(cat "$WORK/err")"

# A group tally packed of more events than the PMU has counters never runs: the read that finds it idle
# splits it, but a command that has exited cannot be counted again; its events read not counted, and the
# exit status stays the command's (it was 1, "reading the counters failed", ESRCH).
LD_PRELOAD=$FAKE FAKE_PMU_COUNTERS=2 "$TALLY" stat -e task-clock -e cycles -e instructions -e branches -- \
	sh -c 'exit 3' >"$WORK/out" 2>"$WORK/err"
st=$?
[ $st -eq 3 ] && grep -q '^     <not counted>      cycles' "$WORK/err" &&
	grep -q '^its tasks had exited when tally reopened its halves, so it was not counted$' "$WORK/err" &&
	ok "an idle packed group after the command exited: not counted, the command's status" ||
	fail "idle group: $st: $(cat "$WORK/err")"
# --no-multiplex with perf's default events: that group's events are split into sets that fit: 3 runs.
stat -x, --no-multiplex
python3 - "$WORK/err" "$exact" <<'PY' && [ "$(runs)" = 3 ] && ok "--no-multiplex, the default events: 3 runs, exact" ||
import sys
rows = {l.split(',')[2]: l.split(',') for l in open(sys.argv[1]) if l.count(',') > 4}
want = {l.split(',')[2]: l.split(',') for l in sys.argv[2].splitlines() if l.count(',') > 4}
for name in ('cycles', 'instructions', 'branches', 'branch-misses'):
    assert rows[name][0] == want[name][0] and rows[name][4] == '100.00', (name, rows[name], want[name])
PY
	fail "default events: $(runs) runs: $(cat "$WORK/err")"

# A vendor metric's events not grouped (--metric-no-group: its topdown events in their slots-led group of 5,
# INT_MISC.CLEARS_COUNT alone) on a PMU of 5 counters (the fake's model: a counter per event): mixed windows
# in the table, CSV and JSON; where they fit together, not.
export TALLY_SYSFS_ROOT=$FIXTURES/sysfs/intel-server TALLY_CPUID=GenuineIntel-6-6A-0
COUNTERS=5 stat -x, -M tma_backend_bound --metric-no-group
grep -q '^,,tma_backend_bound,,,[0-9.]*,%,over-threshold,mixed-windows$' "$WORK/err" && ok "CSV: mixed-windows" ||
	fail "CSV mixed: $(cat "$WORK/err")"
COUNTERS=5 stat -j -M tma_backend_bound --metric-no-group
python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))["metrics"][0]; assert m["mixed_windows"] and m["scaled"], m' \
	"$WORK/err" && ok "JSON: mixed_windows" || fail "JSON mixed: $(cat "$WORK/err")"
COUNTERS=5 stat -M tma_backend_bound --metric-no-group
grep -q 'tma_backend_bound  *# %  (over its threshold)  (mixed windows)$' "$WORK/err" && ok "table: mixed windows" ||
	fail "table mixed: $(cat "$WORK/err")"
COUNTERS= stat -x, -M tma_backend_bound --metric-no-group
grep -q '^,,tma_backend_bound,,,[0-9.]*,%,over-threshold$' "$WORK/err" && ok "CSV: not mixed when nothing multiplexed" ||
	fail "CSV not mixed: $(cat "$WORK/err")"
# --no-multiplex cannot split a metric's events (one run holds them all): one run, still multiplexed, said.
COUNTERS=5 stat --no-multiplex -M tma_backend_bound --metric-no-group
[ "$(runs)" = 1 ] && grep -q '^   run 1 .*(multiplexed still: a set that cannot be split further)$' "$WORK/err" &&
	ok "--no-multiplex: a metric's events more than the counters: one run, said" ||
	fail "unsplittable: $(runs) runs: $(cat "$WORK/err")"
unset TALLY_SYSFS_ROOT TALLY_CPUID

# The exit status: the first failing run's (run 2 exits with 3), every run made, the failure said.
FAIL=3 stat -x, --no-multiplex -M IPC,branch_miss_rate
[ $st -eq 3 ] && [ "$(runs)" = 3 ] && grep -q 'run 2: the command exited with 3' "$WORK/err" &&
	ok "exit status: the first failing run's" || fail "exit status: $st, $(runs) runs: $(cat "$WORK/err")"
# The last run's otherwise: a command that exits 0 in every run.
stat -x, --no-multiplex -M IPC,branch_miss_rate
[ $st -eq 0 ] && ok "exit status: 0 when every run exits 0" || fail "exit 0: $st"

# Ctrl-C in run 2 (the command sends tally SIGINT): the runs stop, what was counted is printed, branches
# from run 1 (multiplexed, said so), and tally exits 130.
rm -f "$RUNS"
LD_PRELOAD=$FAKE FAKE_PMU_COUNTERS=2 "$TALLY" stat --no-multiplex -M IPC,branch_miss_rate -- \
	sh -c 'n=$(cat "$0" 2>/dev/null | wc -l); echo run >>"$0"; [ "$n" != 1 ] || { kill -INT $PPID; exec sleep 5; }' \
	"$RUNS" >"$WORK/out" 2>"$WORK/err"
st=$?
[ $st -eq 130 ] && [ "$(runs)" = 2 ] && grep -q '(interrupted by SIGINT' "$WORK/err" &&
	grep -q '^   run 1 .* s: branches, branch-misses  (multiplexed: the runs stopped before it was counted alone)$' \
		"$WORK/err" && grep -q 'branch-misses .*(50.00%)$' "$WORK/err" &&
	ok "SIGINT in run 2: 130, the runs so far, the rest from run 1 and said" || fail "SIGINT: $st, $(runs): $(cat "$WORK/err")"

# Standard input from a file: each run reads it from the start.
printf 'a\nb\n' >"$WORK/in"
rm -f "$WORK/read"
LD_PRELOAD=$FAKE FAKE_PMU_COUNTERS=2 "$TALLY" stat --no-multiplex -M IPC,branch_miss_rate -- sh -c 'cat >>"$0"' \
	"$WORK/read" <"$WORK/in" 2>/dev/null
[ "$(cat "$WORK/read")" = "$(printf 'a\nb\na\nb\na\nb')" ] && ok "stdin: each run reads the file from its start" ||
	fail "stdin: $(cat "$WORK/read")"
# From a pipe, which cannot be rewound: the runs after the first read what is left, which is said once.
rm -f "$WORK/read"
printf 'a\nb\n' | LD_PRELOAD=$FAKE FAKE_PMU_COUNTERS=2 "$TALLY" stat --no-multiplex -M IPC,branch_miss_rate -- \
	sh -c 'cat >>"$0"' "$WORK/read" 2>"$WORK/err"
[ "$(grep -c 'standard input is a pipe' "$WORK/err")" = 1 ] && [ "$(cat "$WORK/read")" = "$(printf 'a\nb')" ] &&
	ok "stdin a pipe: the later runs read what is left, said once" || fail "stdin pipe: $(cat "$WORK/err")"

finish
