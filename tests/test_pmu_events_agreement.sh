#!/bin/bash
# SPDX-License-Identifier: MIT
# The vendor tables' events against perf 6.1 (tests/pmu_events_agreement.py says how): every x86 model
# of perf 6.1's mapfile, its table events as perf lists them over a fixture sysfs tree, encoded alike with
# perf 6.1's own tree (TALLY_PMU_EVENTS) and, with the differences counted, with the built-in tables.
# Needs perf, root and `unshare -m` (perf sees the fixture through a bind mount), and perf 6.1's
# pmu-events tree: $PERF61_PMU_EVENTS, else Debian's linux-source-6.1 extracted (.ci/run does).
set -u
build=${TALLY_BUILD:-build}
source=${TALLY_SOURCE:-$(dirname "$0")/..}
source "$source/tests/cli_helpers/kernel_tree.sh"
perf61_oracle
# Not under a sanitizer build (check-asan): 18,000 encodings of perf and tally take past the test's time
# there, and what the sanitizers look for in the table readers test_pmu_events and fuzz_pmu_events check.
grep -qa '__asan_init\|__tsan_init' "$build/tests/encode_spec" &&
	{ echo "SKIP: a sanitizer build (the readers' memory checks: test_pmu_events, fuzz_pmu_events)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unshare -m python3 "$source/tests/pmu_events_agreement.py" "$source" "$build/tests/encode_spec" "$PERF61_TREE" "$work"
