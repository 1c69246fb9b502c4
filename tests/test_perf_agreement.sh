#!/bin/bash
# SPDX-License-Identifier: MIT
# tally's encoding of event specs against the perf_event_attr that `perf stat -vv` prints for them on this
# machine (perf parses before it opens, so events this machine cannot count still show their attr).
#
# Compared: type, config, config1, config2, exclude_user/kernel/hv/idle/host/guest, pinned, exclusive,
# precise_ip. tally follows perf also where perf's choice comes from `perf stat` running without --guest
# (exclude_guest on events without modifiers), so every bit must agree.
set -u
build=${TALLY_BUILD:-build}
encode=$build/tests/encode_spec
if ! command -v perf >/dev/null 2>&1; then
	echo "SKIP: perf is not installed"
	exit 77
fi
if ! perf stat -e task-clock true >/dev/null 2>&1; then
	echo "SKIP: perf cannot run here (perf stat -e task-clock true failed)"
	exit 77
fi
[ -x "$encode" ] || { echo "missing $encode (build the tests first)"; exit 1; }

# Specs perf 6.1 accepts on this machine.
specs=(
	cycles cpu-cycles instructions cache-references cache-misses branches branch-instructions branch-misses
	bus-cycles stalled-cycles-frontend idle-cycles-frontend stalled-cycles-backend idle-cycles-backend
	ref-cycles
	cpu-clock task-clock page-faults faults minor-faults major-faults context-switches cs cpu-migrations
	migrations alignment-faults emulation-faults dummy bpf-output cgroup-switches
	L1-dcache-loads L1-dcache-load-misses L1-dcache-stores L1-dcache-store-misses L1-dcache-prefetches
	L1-dcache-prefetch-misses L1-icache-loads L1-icache-load-misses L1-icache-prefetches
	L1-icache-prefetch-misses LLC-loads LLC-load-misses LLC-stores LLC-store-misses LLC-prefetches
	LLC-prefetch-misses dTLB-loads dTLB-load-misses dTLB-stores dTLB-store-misses dTLB-prefetches
	dTLB-prefetch-misses iTLB-loads iTLB-load-misses branch-loads branch-load-misses node-loads
	node-load-misses node-stores node-store-misses node-prefetches node-prefetch-misses
	L1-dcache-load L1-dcache-load-miss L1-dcache-speculative-read l1d-miss L2-loads
	LLC-read-access node-write
	r1c2 r0 rffff r1C2
	software/config=2/ software/config=1,config1=5,config2=7/ msr/tsc/ tsc msr/event=1/
	tracepoint/config=1/ uprobe/ref_ctr_offset=1/
	cpu-clock,task-clock,page-faults '{cpu-clock,task-clock}' '{task-clock,page-faults,minor-faults}'

	cycles:u cycles:k cycles:h cycles:uk cycles:kh cycles:ukh cycles:G cycles:H cycles:GH cycles:I cycles:D
	cycles:e cycles:p cycles:pp cycles:ppp cycles:kG cycles:uG cycles:uGH cycles:Gp cycles:Dp cycles:upp
	instructions:uD task-clock:u task-clock:k task-clock:h page-faults:uD cs:kI
	L1-dcache-loads:k LLC-load-misses:u r1c2:u r1c2:ppp
	software/config=2/u software/config=3/kG
	'{cpu-clock,task-clock}:u' '{task-clock:k,page-faults}:u' '{cpu-clock,task-clock:G}:k'
	'{cycles,instructions}:k' cpu-clock:u,task-clock:k
	'{task-clock,page-faults,minor-faults}:D' '{task-clock,page-faults,minor-faults}:e' '{cpu-clock,task-clock}:uD'
	# perf's tool events: the dummy's attr, which perf opens for them and tally does not.
	duration_time user_time system_time duration_time:u user_time:kG '{duration_time,task-clock}'
)

keys='type|config|config1|config2|exclude_user|exclude_kernel|exclude_hv|exclude_idle|exclude_host|exclude_guest|pinned|exclusive|precise_ip'

# perf's attr blocks, one line each of sorted key=value for non-zero keys. Blocks after an open that
# failed with anything but ENOENT are dropped: perf retries those with altered attrs.
perf_attrs() {
	perf stat -vv -e "$1" true 2>&1 | awk -v keys="^($keys)\$" '
		/^perf_event_attr:/ { inblock = 1; line = ""; next }
		inblock && /^-----/ { inblock = 0; blocks[n++] = line; next }
		inblock {
			key = $1; value = $2
			if ($1 == "{") { key = $3; value = $5 }
			if (key ~ keys && value != "0") line = line " " key "=" value
		}
		/sys_perf_event_open failed, error/ { if ($NF != "-2") { stop = 1; exit } }
		END { for (i = 0; i < n; i++) print blocks[i] }' | while read -r line; do
		tr ' ' '\n' <<<"$line" | grep . | sort | tr '\n' ' '
		echo
	done
}

tally_attrs() {
	local out
	out=$("$encode" "$1") || return 1
	cut -f1 <<<"$out" | while read -r enc; do
		tr ',' '\n' <<<"$enc" | grep -v '=0$' | sort | tr '\n' ' '
		echo
	done
}

failed=0 compared=0
check() {
	local spec=$1 perf_out tally_out
	if ! tally_out=$(tally_attrs "$spec"); then
		echo "FAIL '$spec': tally rejects it: $("$encode" "$spec" 2>&1)"
		failed=$((failed + 1))
		return
	fi
	perf_out=$(perf_attrs "$spec")
	if ! perf stat -vv -e "$spec" true 2>&1 | grep -q '^perf_event_attr:'; then
		echo "FAIL '$spec': perf printed no perf_event_attr (does perf accept it here?)"
		failed=$((failed + 1))
		return
	fi
	# perf stops at a group it cannot open: compare the attrs it printed.
	local n
	n=$(wc -l <<<"$perf_out")
	tally_out=$(head -n "$n" <<<"$tally_out")
	if [ "$perf_out" != "$tally_out" ]; then
		echo "FAIL '$spec'"
		echo "  perf:  $(tr '\n' '|' <<<"$perf_out")"
		echo "  tally: $(tr '\n' '|' <<<"$tally_out")"
		failed=$((failed + 1))
	else
		compared=$((compared + n))
	fi
}

for spec in "${specs[@]}"; do check "$spec"; done
echo "${#specs[@]} specs, $compared attrs equal to perf's, $failed specs differ"
[ "$failed" = 0 ]
