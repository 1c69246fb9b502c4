#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make check-hw: every test and benchmark that needs a hardware PMU, on this machine's own PMU (x86 Intel or
# AMD, arm64), from a fresh clone: builds what it needs in its own directory ($HW_BUILD, build-hw/,
# RelWithDebInfo), prints the machine's facts and `tally doctor`, runs each case under `timeout`, says what
# it could not test and why, and ends with `N passed, N failed, N skipped` alone on the last line. The log
# is kept in $HW_BUILD/check-hw.log.
#
# The cases (each its own pass, fail or skip):
#   counter_hw      tests/test_counter_hw.c through ctest, with its output
#   fast_reads      tests/hw/fast_reads.c: user-space reads of {instructions,cycles}:u agree with read(2)
#   rdpmc           tests/hw/fast_reads.c rdpmc (x86): the path follows /sys/.../cpu/rdpmc
#   topdown         tests/hw/topdown.sh: tally stat --topdown's level 1 sums to 100 % (Intel Icelake+)
#   bench_user_read build-hw/bench/bench_user_read, its figures printed (it reports; time is not judged)
#   perf_agreement  tests/hw/perf_agreement.sh: tally stat and perf stat agree on instructions:u of a loop
#
# A machine without a hardware PMU (a VM without a virtual PMU, as CI's) skips every case with the reason
# and exits 0; HW_REQUIRE_PMU=1 makes that a failure, for a machine meant to have one. Any failed case
# exits 1. HW_TIMEOUT_SCALE multiplies every case's time bound (default 1: 165 s in all).
set -uo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${HW_BUILD:-build-hw}
case $BUILD in /*) ;; *) BUILD=$SRC/$BUILD ;; esac
JOBS=${JOBS:-$(nproc)}
SCALE=${HW_TIMEOUT_SCALE:-1}
REQUIRE=${HW_REQUIRE_PMU:-0}
LOG=$BUILD/check-hw.log
HW=$SRC/tests/hw

PASSED=0 FAILED=0 SKIPPED=0
NOT_TESTED=()
FAILURES=()

section() { printf '\n==================== %s\n' "$*"; }

facts() {
	section "machine"
	local model vendor
	model=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
	vendor=$(awk -F': *' '/^vendor_id/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
	if [ -z "$model" ]; then # arm64: no model name; the implementer and part codes say it
		model=$(awk -F': *' '/^CPU implementer/ { i = $2 } /^CPU part/ { p = $2 }
			END { if (i != "") printf "implementer %s part %s", i, p }' /proc/cpuinfo 2>/dev/null)
		vendor=$(awk -F': *' '/^CPU implementer/ { print "implementer " $2; exit }' /proc/cpuinfo 2>/dev/null)
	fi
	echo "architecture:        $(uname -m)"
	echo "CPU model:           ${model:-unknown}"
	echo "vendor:              ${vendor:-unknown}"
	echo "online CPUs:         $(cat /sys/devices/system/cpu/online 2>/dev/null || echo unknown)"
	echo "PMUs:                $(ls /sys/bus/event_source/devices 2>/dev/null | tr '\n' ' ')"
	echo "kernel:              $(uname -r) ($(uname -v))"
	echo "perf_event_paranoid: $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 'absent (no perf events)')"
	local f found=0
	for f in /sys/bus/event_source/devices/cpu*/rdpmc; do
		[ -e "$f" ] || continue
		echo "rdpmc:               $f = $(cat "$f" 2>/dev/null)"
		found=1
	done
	[ $found = 1 ] || echo "rdpmc:               no /sys/bus/event_source/devices/cpu*/rdpmc"
	[ -e /proc/sys/kernel/perf_user_access ] &&
		echo "perf_user_access:    $(cat /proc/sys/kernel/perf_user_access) (arm64 user-space counter reads)"
	echo "nmi_watchdog:        $(cat /proc/sys/kernel/nmi_watchdog 2>/dev/null || echo absent)"
	echo "user:                $(id -un 2>/dev/null || id -u) (uid $(id -u))"
	if command -v perf >/dev/null 2>&1; then
		echo "perf:                $(perf --version 2>&1 | head -n 1)"
	else
		echo "perf:                not installed"
	fi
	section "tally doctor"
	"$TALLY" doctor
	echo "(tally doctor exit status $?)"
}

# Whether this machine can count a hardware event: HW_WHY says why not (tally's own diagnosis).
probe_hw() {
	local out
	out=$("$TALLY" stat -x, -e instructions:u -- true 2>&1)
	if awk -F, '$3 == "instructions:u" && $1 ~ /^[0-9]+$/ { ok = 1 } END { exit !ok }' <<<"$out"; then
		HW_WHY=
		return 0
	fi
	# tally's note: "<not supported> instructions:u: cannot open ... (errno):", then the explanation, then
	# the fix; the explanation (else the first line) is the reason.
	local note
	note=$("$TALLY" stat -e instructions:u -- true 2>&1 | sed -n '/<not [a-z]*> *instructions:u:/,/^$/p')
	HW_WHY=$(sed -n '2s/^ *//p' <<<"$note")
	[ -n "$HW_WHY" ] || HW_WHY=$(sed -n '1s/^ *<not [a-z]*> *//p' <<<"$note")
	HW_WHY="instructions:u cannot be counted: ${HW_WHY:-$(tr '\n' ' ' <<<"$out")}"
	return 1
}

# run_case NAME SECONDS COMMAND...: runs COMMAND under timeout, prints its output, and counts it: exit 0
# passed, 77 skipped (the reason: its SKIP lines), anything else failed (124: the time bound).
run_case() {
	local name=$1 secs
	secs=$(awk -v s="$2" -v k="$SCALE" 'BEGIN { printf "%d", s * k + 0.5 }')
	shift 2
	local shown=("$@")
	[ "$1 ${2:-}" = "bash -c" ] && shown=("${3%% *}" "${@:5}") # a function of this script, and its arguments
	section "$name (at most ${secs}s): ${shown[*]#"$SRC"/}"
	local out rc start=$SECONDS
	out=$(timeout -k 5 "$secs" "$@" 2>&1)
	rc=$?
	[ -n "$out" ] && printf '%s\n' "$out"
	local took=$((SECONDS - start))
	case $rc in
	0)
		echo "---- $name: passed (${took}s)"
		PASSED=$((PASSED + 1)) ;;
	77)
		local why
		why=$(grep -oE 'SKIP( \[[a-z_0-9]*\])?: .*' <<<"$out" | sed -E 's/^SKIP( \[[a-z_0-9]*\])?: //' |
			sort -u | head -n 8 | awk 'NR > 1 { printf "; " } { printf "%s", $0 }')
		why=${why:-no reason given}
		# A harness program whose other cases passed: a pass, with what it could not test said.
		if grep -qE '^([0-9]+: )?ok  ' <<<"$out"; then
			echo "---- $name: passed, some cases skipped (${took}s): $why"
			PASSED=$((PASSED + 1))
			NOT_TESTED+=("$name (in part): $why")
		else
			echo "---- $name: skipped: $why"
			SKIPPED=$((SKIPPED + 1))
			NOT_TESTED+=("$name: $why")
		fi ;;
	124 | 137)
		echo "---- $name: FAILED: over its time bound of ${secs}s"
		FAILED=$((FAILED + 1))
		FAILURES+=("$name (timed out)") ;;
	*)
		echo "---- $name: FAILED (exit $rc, ${took}s)"
		FAILED=$((FAILED + 1))
		FAILURES+=("$name") ;;
	esac
}

# A case that cannot run at all on this machine: skipped with the reason, without running anything.
skip_case() {
	section "$1"
	echo "---- $1: skipped: $2"
	SKIPPED=$((SKIPPED + 1))
	NOT_TESTED+=("$1: $2")
}

# The counter's hardware tests through ctest: ctest reports a SKIP (77) as no failure, so its verdict is
# read from its output.
ctest_case() {
	local out rc
	out=$(ctest --test-dir "$1" -R '^test_counter_hw$' -V --timeout "$2" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -Ev '^(UpdateCTestConfiguration|Parse Config|Constructing|Checking test|Test project|Internal ctest|Done constructing|Updating test list|Added [0-9]+ tests|test [0-9]+$| *Start +[0-9]+:|[0-9]+: (Working Directory|Environment variables|Test timeout| +TALLY_))' | cat -s
	grep -q 'No tests were found' <<<"$out" && { echo "test_counter_hw is not built"; return 1; }
	[ $rc = 0 ] || return 1
	grep -q '\*\*\*Skipped' <<<"$out" && return 77
	return 0
}

# The benchmark: it reports, it does not judge its figures; it says "skipped" (exit 0) where it cannot run.
bench_case() {
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	[ $rc = 0 ] || return 1
	if grep -q 'skipped' <<<"$out"; then # its reason, on one line
		echo "SKIP: $(head -n 2 <<<"$out" | tr -s ' \n' '  ' | sed 's/^[a-z_]*: //; s/ *$//; s/: skipped$//')"
		return 77
	fi
	return 0
}

main() {
	local start=$SECONDS
	echo "check-hw: $SRC, build $BUILD, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	section "build (RelWithDebInfo)"
	cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$BUILD/configure.txt" 2>&1 ||
		{ cat "$BUILD/configure.txt"; echo "check-hw: the configure failed"; echo "0 passed, 1 failed, 0 skipped"; return 1; }
	cmake --build "$BUILD" -j "$JOBS" --target tally_cli test_counter_hw hw_fast_reads hw_loop bench_user_read \
		>"$BUILD/build.txt" 2>&1 ||
		{ tail -n 40 "$BUILD/build.txt"; echo "check-hw: the build failed"; echo "0 passed, 1 failed, 0 skipped"; return 1; }
	echo "built in $((SECONDS - start))s: tally, test_counter_hw, hw_fast_reads, hw_loop, bench_user_read"
	TALLY=$BUILD/tools/tally
	local loop=$BUILD/tests/hw/hw_loop fast=$BUILD/tests/hw/hw_fast_reads
	facts
	probe_hw
	section "hardware counting"
	if [ -z "$HW_WHY" ]; then echo "instructions:u counts here"; else echo "no: $HW_WHY"; fi
	export -f ctest_case bench_case

	run_case counter_hw 60 bash -c 'ctest_case "$@"' _ "$BUILD" 50
	run_case fast_reads 20 "$fast"
	if [ "$(uname -m)" = x86_64 ] || [ "$(uname -m)" = i686 ]; then
		run_case rdpmc 10 "$fast" rdpmc
	else
		skip_case rdpmc "not x86 ($(uname -m)): rdpmc is x86's; arm64's mrs reads are the fast_reads case"
	fi
	if [ -n "$HW_WHY" ]; then
		skip_case topdown "$HW_WHY"
	else
		run_case topdown 20 bash "$HW/topdown.sh" "$TALLY" "$loop"
	fi
	run_case bench_user_read 40 bash -c 'bench_case "$@"' _ "$BUILD/bench/bench_user_read" 200000
	if [ -n "$HW_WHY" ]; then
		skip_case perf_agreement "$HW_WHY"
	else
		run_case perf_agreement 15 bash "$HW/perf_agreement.sh" "$TALLY" "$loop"
	fi

	section "summary ($((SECONDS - start))s)"
	if [ -n "$HW_WHY" ] && [ "$REQUIRE" = 1 ]; then
		echo "HW_REQUIRE_PMU=1, and this machine cannot count a hardware event: $HW_WHY"
		FAILED=$((FAILED + 1))
		FAILURES+=("hardware PMU (HW_REQUIRE_PMU=1)")
	fi
	if [ ${#NOT_TESTED[@]} -gt 0 ]; then
		echo "not tested here:"
		printf '  %s\n' "${NOT_TESTED[@]}"
	fi
	[ ${#FAILURES[@]} -gt 0 ] && echo "check-hw: failed: ${FAILURES[*]}"
	echo "log: $LOG"
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ "$FAILED" = 0 ]
}

mkdir -p "$BUILD" || exit 1
main 2>&1 | tee "$LOG"
exit "${PIPESTATUS[0]}"
