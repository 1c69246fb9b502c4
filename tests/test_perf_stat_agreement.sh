#!/bin/bash
# SPDX-License-Identifier: MIT
# tally and perf stat count one deterministic workload alike: a static program that touches a fixed
# number of fresh pages and sleeps a fixed number of times, measured by
#   perf stat -x, -e page-faults,minor-faults,context-switches
# and by the counter API on a launched command (test_command's "count" mode), every event on its own fd
# as perf stat opens them.
# Tolerance: page faults of the same binary differ between two runs only by the kernel's start-up work
# (a few pages of stack and vDSO): 1% + 16. Context switches depend on the scheduler (a busy machine adds
# preemptions to either run): both counts must reach the number of sleeps; their difference is shown, not
# held to a bound.
set -u
build=${TALLY_BUILD:?TALLY_BUILD is not set}
counter=$build/tests/test_command
PAGES=4000
SLEEPS=20

command -v perf >/dev/null 2>&1 || { echo "SKIP: perf is not installed"; exit 77; }
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler to build the workload"; exit 77; }
[ -x "$counter" ] || { echo "FAIL: $counter is not built"; exit 1; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/workload.c" <<EOC
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
int main(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	char *p = mmap(0, $PAGES * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	for (long i = 0; i < $PAGES; i++)
		((volatile char *)p)[i * psz] = 1;
	struct timespec ms = { 0, 1000000 };
	for (int i = 0; i < $SLEEPS; i++)
		nanosleep(&ms, 0);
	return 0;
}
EOC
# Static when the C library allows it: no dynamic loader faults to vary between runs.
cc -O1 -static -o "$dir/workload" "$dir/workload.c" 2>/dev/null || cc -O1 -o "$dir/workload" "$dir/workload.c" || {
	echo "FAIL: cannot build the workload"; exit 1; }

events=page-faults,minor-faults,context-switches
if ! perf stat -x, -e $events -o "$dir/perf.csv" "$dir/workload" 2>"$dir/perf.err"; then
	if grep -qiE "permission|not allowed|paranoid" "$dir/perf.err"; then
		echo "SKIP: perf stat may not count here: $(head -n 3 "$dir/perf.err")"; exit 77
	fi
	echo "FAIL: perf stat failed:"; cat "$dir/perf.err"; exit 1
fi
"$counter" count $events -- "$dir/workload" > "$dir/tally.csv" || { echo "FAIL: tally could not count"; exit 1; }

perf_value() { awk -F, -v e="$1" '$3 == e { print $1 }' "$dir/perf.csv"; }
tally_value() { awk -F, -v e="$1" '$2 == e { print $1 }' "$dir/tally.csv"; }

status=0
for e in page-faults minor-faults context-switches; do
	p=$(perf_value $e)
	t=$(tally_value $e)
	if ! [[ "$p" =~ ^[0-9]+$ && "$t" =~ ^[0-9]+$ ]]; then
		echo "FAIL: $e: perf says '$p', tally says '$t'"; status=1; continue
	fi
	diff=$(( p > t ? p - t : t - p ))
	case $e in
	context-switches)
		low=$(( p < t ? p : t ))
		if (( low < SLEEPS )); then
			echo "FAIL: $e: perf $p, tally $t: fewer than the $SLEEPS sleeps"; status=1
		else
			echo "ok   $e: perf $p, tally $t, both at least the $SLEEPS sleeps (differ by $diff)"
		fi
		continue ;;
	*)
		allowed=$(( p / 100 + 16 ))
		if (( t < PAGES )); then
			echo "FAIL: $e: tally $t is below the $PAGES pages touched"; status=1
		fi ;;
	esac
	if (( diff > allowed )); then
		echo "FAIL: $e: perf $p, tally $t differ by $diff (allowed $allowed)"; status=1
	else
		echo "ok   $e: perf $p, tally $t (differ by $diff, allowed $allowed)"
	fi
done
exit $status
