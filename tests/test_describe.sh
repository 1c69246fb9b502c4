#!/usr/bin/env bash
# examples/describe (what `make run` shows until the CLI exists) on fixture machines and on this one:
# the PMU table, encodings, hybrid expansion, and a refused spec with its caret and a failing status.
set -euo pipefail
: "${TALLY_BUILD:?}" "${TALLY_FIXTURES:?}"
describe="$TALLY_BUILD/examples/describe"
[ -x "$describe" ] || { echo "missing $describe"; exit 1; }
fail() { echo "FAIL: $*"; echo "--- output:"; echo "$out"; exit 1; }
has() { grep -qF -- "$1" <<<"$out" || fail "no line with: $1"; }
# Encodings may carry more exclude bits than a check names (perf's exclude_guest default, say): match the
# fields named, then any others, then the rest of the line.
X='(,[a-z_]+=[0-9]+)*'
has_re() { grep -qE -- "$1" <<<"$out" || fail "no line matching: $1"; }

# Intel fixture: a core PMU, its raw type 4, format terms, and a sysfs alias.
out=$(TALLY_SYSFS_ROOT="$TALLY_FIXTURES/sysfs/intel" "$describe" 'cpu/event=0x3c,umask=0x01/u' topdown-retiring)
has "  cpu                           4  yes"
has_re "type=4,config=0x13c,config1=0,config2=0,exclude_kernel=1,exclude_hv=1$X\$"
has "canonical: cpu/topdown-retiring/, PMU: cpu"

# Hybrid fixture: cycles once per core PMU, the PMU's type in config[63:32].
out=$(TALLY_SYSFS_ROOT="$TALLY_FIXTURES/sysfs/hybrid" "$describe" cycles)
has_re "^  cpu_atom/cycles/ +type=0,config=0xa00000000,config1=0,config2=0$X \\[one of 2 for item 0\\]$"
has_re "^  cpu_core/cycles/ +type=0,config=0x400000000,config1=0,config2=0$X \\[one of 2 for item 0\\]$"

# A VM without a virtual PMU (the machines tally is built on): said plainly.
out=$(TALLY_SYSFS_ROOT="$TALLY_FIXTURES/sysfs/novpmu" "$describe" task-clock)
has "0 of them core PMUs"
has "No core PMU: hardware events (cycles, instructions, caches) cannot be counted here;"

# This machine, with the default specs (make run): the software events always encode.
out=$("$describe")
has "{task-clock,context-switches}"
has_re "^  task-clock +type=1,config=0x1,config1=0,config2=0$X \\[group 0, leader\\]$"
has_re "^  context-switches +type=1,config=0x3,config1=0,config2=0$X \\[group 0\\]$"
has_re "^  page-faults:u +type=1,config=0x2,config1=0,config2=0,exclude_kernel=1,exclude_hv=1$X$"
# Software events count on every machine; cycles either counts or is explained.
[ "$(grep -c '^  counts on this machine$' <<<"$out")" -ge 3 ] || fail "the three software specs do not all count"
cycles_section=$(sed -n '/^cycles$/,$p' <<<"$out")
grep -qE "^  counts on this machine$|^cannot open event 'cycles'" <<<"$cycles_section" ||
	fail "cycles neither counts nor says why"

# A refused spec: the explanation with its caret, and exit status 1.
set +e
out=$("$describe" 'task-clock,cylces' 2>&1)
status=$?
set -e
[ $status -eq 1 ] || fail "exit status $status for a refused spec, expected 1"
has "unknown event 'cylces'"
has "did you mean 'cycles'?"
has "             ^~~~~~"
echo "describe: fixtures, this machine and a refused spec as expected"
