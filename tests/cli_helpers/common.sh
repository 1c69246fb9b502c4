# SPDX-License-Identifier: MIT
# Sourced by the tests/test_cli_*.sh tests (not a test itself): the tally binary under test, a private
# work directory removed on exit, and the ok/fail/finish reporting every CLI test uses.
# Needs TALLY_BUILD (set by CTest); SKIPs (exit 77) when the CLI was not built.
TALLY=${TALLY_BUILD:?}/tools/tally
[ -x "$TALLY" ] || { echo "SKIP: $TALLY not built"; exit 77; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok   $*"; }

# finish [MESSAGE]: exit 1 with the failure count if anything failed, else print MESSAGE ("all passed").
finish() {
	[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
	echo "${1:-all passed}"
}

# refused SUBCOMMAND NAME PATTERN ARGS...: `tally SUBCOMMAND ARGS...` must exit 2 with nothing on stdout and
# PATTERN in its message (tally merge's and tally compare's malformed inputs).
refused() {
	local sub=$1 name=$2 pattern=$3
	shift 3
	"$TALLY" "$sub" "$@" >"$WORK/refused.out" 2>"$WORK/refused.err"
	local st=$?
	[ $st -eq 2 ] && [ ! -s "$WORK/refused.out" ] && grep -q -- "$pattern" "$WORK/refused.err" && ok "refused: $name" ||
		fail "$name: status $st, stdout '$(head -c 200 "$WORK/refused.out")', stderr '$(cat "$WORK/refused.err")'"
}

# require_two_cpus_counted_wide: SKIP (77) unless CPUs 0 and 1 are online and CPU-wide events may be opened
# (perf_event_paranoid), what the tests of per-CPU and per-topology output need.
require_two_cpus_counted_wide() {
	if [ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ]; then
		echo "SKIP: needs CPUs 0 and 1"
		exit 77
	fi
	if ! "$TALLY" stat -a -e cpu-clock --duration 0.01 >/dev/null 2>&1; then
		echo "SKIP: CPU-wide events are refused here (perf_event_paranoid)"
		exit 77
	fi
}
