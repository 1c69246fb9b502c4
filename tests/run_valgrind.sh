#!/usr/bin/env bash
# Runs every C test of a build under valgrind's memcheck: any invalid access, use of an uninitialised
# value or leaked block fails the test (exit 99), as a failed check does. Usage: run_valgrind.sh BUILD_DIR
set -u
build=${1:?usage: run_valgrind.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 1; }
# Tests that replace malloc themselves (tests/alloc_fault.h) skip under valgrind, which replaces it too;
# this tells them where <valgrind/valgrind.h> is not installed.
export TALLY_FIXTURES=$root/tests/fixtures TALLY_SOURCE=$root TALLY_BUILD=$build TALLY_UNDER_VALGRIND=1
passed=0 failed=0 skipped=0
for test in "$build"/tests/test_*; do
	[ -x "$test" ] && [ -f "$test" ] && head -c 4 "$test" | grep -q ELF || continue
	name=$(basename "$test")
	log=$build/valgrind-$name.log
	timeout 600 valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--child-silent-after-fork=yes "$test" >"$log" 2>&1
	case $? in
	0) passed=$((passed + 1)); echo "ok   $name" ;;
	77) skipped=$((skipped + 1)); echo "SKIP $name" ;;
	*) failed=$((failed + 1)); echo "FAIL $name (log: $log)"; tail -n 30 "$log" ;;
	esac
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
