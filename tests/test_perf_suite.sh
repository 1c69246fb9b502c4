#!/bin/bash
# SPDX-License-Identifier: MIT
# perf's own `perf stat` shell tests (Debian's linux-perf installs them in /usr/lib/perf-core/tests/shell;
# they are GPL and perf's, so they are run from the package, never copied here) against real perf and
# against tally through tests/perf_suite/perf. Each check function of a script is run on its own (a copy
# made at run time calls only that one), so one failure does not hide the checks after it. A check that
# passes with perf must pass with tally, unless tally(1) lists it under "Differences from perf stat"
# (DIFFERENT below) or it is a known gap still open (GAP below: it must fail, so that a fix is noticed and
# the entry removed). A tally run rejected as a usage error fails its check even when the script passed.
# Exit 77 (SKIP) when the suite or perf is not installed.
set -u
suite=${PERF_SUITE_DIR:-/usr/lib/perf-core/tests/shell}
here=$(cd "$(dirname "$0")" && pwd)
: "${TALLY_BUILD:?}"
TALLY=$(cd "$TALLY_BUILD" && pwd)/tools/tally
export TALLY
if [ ! -f "$suite/stat.sh" ] || ! command -v perf >/dev/null; then
	echo "SKIP: perf's stat shell tests are not installed (Debian: apt-get install linux-perf)"
	exit 77
fi
real_perf=$(command -v perf)
export PERF_SUITE_REAL_PERF=$real_perf

# Deliberately not in tally (tally(1), "Differences from perf stat").
DIFFERENT="
stat.sh:test_stat_record_report		perf stat record/report: tally writes no perf.data
stat_bpf_counters.sh:all		--bpf-counters: tally counts with perf_event_open only
stat_bpf_counters_cgrp.sh:all		--bpf-counters: tally counts with perf_event_open only
"
# Open gaps (issue 14): each must still fail here.
GAP="
"

scripts="stat.sh stat+csv_output.sh stat+csv_summary.sh stat+json_output.sh stat+shadow_stat.sh
stat_all_metrics.sh stat_all_metricgroups.sh stat_all_pmu.sh stat_bpf_counters.sh stat_bpf_counters_cgrp.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$suite/lib" "$work/lib"

# The check functions a script calls at its top level, in order (setup functions excluded).
checks_of() {
	awk '/^(function +)?[a-z_]+ *\(\)/ { body = 1 } body && /^}/ { body = 0; next }
	     !body && /^[[:space:]]*(check|test)_[a-z_]+[[:space:]]*$/ { print $1 }' "$1" | grep -v '^check_for_topology$'
}

# A copy of script s that runs only check c (the others' calls become no-ops).
copy_for() {
	local s=$1 c=$2 out="$work/${1%.sh}.$2.sh"
	awk -v keep="$c" '/^(function +)?[a-z_]+ *\(\)/ { body = 1 } body && /^}/ { body = 0; print; next }
	     !body && /^[[:space:]]*(check|test)_[a-z_]+[[:space:]]*$/ && $1 != "check_for_topology" && $1 != keep { print ":"; next }
	     { print }' "$suite/$s" >"$out"
	echo "$out"
}

# Runs one check with perf (who=perf) or tally (who=tally): pass, fail or skip.
run_check() {
	local file=$1 who=$2 log="$work/log" out rc
	: >"$log"
	if [ "$who" = tally ]; then
		out=$(cd "$work" && PATH="$here/perf_suite:$PATH" PERF_SUITE_LOG="$log" timeout 300 bash "$file" 2>&1)
	else
		out=$(cd "$work" && timeout 300 bash "$file" 2>&1)
	fi
	rc=$?
	echo "$out" >"$work/last.$who"
	if [ "$who" = tally ] && grep -q USAGE-ERROR "$log"; then
		echo "fail(rejected: $(grep USAGE-ERROR "$log" | head -1 | cut -c1-120))"
	elif [ $rc -eq 2 ] || echo "$out" | grep -qE '\[Skip'; then
		echo skip
	elif [ $rc -eq 0 ]; then
		echo pass
	else
		echo fail
	fi
}

listed() { echo "$2" | awk -v k="$1" '$1 == k { found = 1 } END { exit !found }'; }

bad=0
printf '%-28s %-32s %-6s %s\n' script check perf tally
for s in $scripts; do
	[ -f "$suite/$s" ] || continue
	cs=$(checks_of "$suite/$s")
	[ -n "$cs" ] || cs=all
	for c in $cs; do
		if [ "$c" = all ]; then
			cp "$suite/$s" "$work/$s"
			file="$work/$s"
		else
			file=$(copy_for "$s" "$c")
		fi
		p=$(run_check "$file" perf)
		t=$(run_check "$file" tally)
		key="$s:$c"
		verdict=
		if [ "$p" = pass ] && [ "$t" != pass ]; then
			if listed "$key" "$DIFFERENT"; then
				verdict="(different by design)"
			elif listed "$key" "$GAP"; then
				verdict="(open gap)"
			else
				verdict="<- FAILS with tally"
				bad=1
				sed 's/^/    | /' "$work/last.tally" | tail -15
			fi
		elif [ "$t" = pass ] && listed "$key" "$GAP"; then
			verdict="<- passes now: remove it from GAP"
			bad=1
		fi
		printf '%-28s %-32s %-6s %s %s\n' "$s" "$c" "$p" "$t" "$verdict"
	done
done
exit $bad
