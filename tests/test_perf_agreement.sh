#!/bin/bash
# SPDX-License-Identifier: MIT
# tally's encoding of event specs against the perf_event_attr that `perf stat -vv` prints for them on this
# machine (perf parses before it opens, so events this machine cannot count still show their attr).
#
# Compared: type, config, config1, config2 (a breakpoint's bp_addr and bp_len), exclude_user/kernel/hv/
# idle/host/guest, pinned, exclusive, precise_ip, bp_type. tally follows perf also where perf's choice
# comes from `perf stat` running without --guest (exclude_guest on events without modifiers), so every
# bit must agree.
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

	# whitespace between the parts
	'cycles, instructions' ' task-clock ' 'task-clock ,page-faults' "$(printf 'task-clock,\n\tpage-faults')"
	'software/ config=1 /' 'software/config=1, config1=2/' 'software / config = 3 /' '{ task-clock , page-faults }'
	'task-clock : u' '{task-clock,page-faults} :u' 'software/config=1/ u'
	# terms: raw codes, bare configs, quoted names, an alias as a value
	software/r1a/ software/r0x1a/ software/config/ software/config1/ software/config2/ software/r1a,name=x/
	"software/config=1,name='foo'/" 'software/config=1,name="foo"/' "software/config=1,name='a-b,c:d=e'/"
	msr/tsc=1/ msr/event=tsc/ msr/EVENT=tsc/ msr/event=tsc,name=t/ msr/TSC/ TSC msr/event=Tsc/
	# NAME/terms/ on generic, cache, raw and numeric events
	instructions/name=insn/ cycles//u r1234/name=rawpmu/ L1-dcache-loads/name=x/ L1-dcache-loads/name=x/:u
	task-clock/name=tc/ task-clock//u task-clock/config=2/ task-clock/config1=2/ task-clock/r2/ r1234//u
	r1234/name=x/:u cycles/config=3/k task-clock/config2=7,name=z/
	# the numeric form TYPE:CONFIG
	1:1 1:1:hp 1:1:u 1:0x2 0:1 0x1:5 4:0x1c2 3:0x10000:k 1:1/name=x/u 1:1//u 9:0 '1:2,{1:3,1:5}:k'
	# named groups and their modifiers
	'group1{task-clock,page-faults}' 'g{task-clock,page-faults}:u' 'g.1{cpu-clock,task-clock}:k'
	'G1{task-clock,page-faults}:u,g2{cs}' '_x {task-clock:k,page-faults}:D'
	# tracepoints (ids from this machine's tracefs; globs in its directory order)
	sched:sched_switch syscalls:sys_enter_openat sched:sched_switch:u sched:sched_switch:k sched:sched_switch// 'sched : sched_switch'
	'sched:sched_s?itch' 'sched:*' 'syscalls:sys_enter_open*' 'sch*:sched_wak*' ftrace:function
	'{sched:sched_switch,sched:sched_wakeup}:u' 'syscalls:sys_enter_openat:u,sched:sched_switch:kH'
	# breakpoints
	mem:0x1000 mem:4096 mem:0x1000/8:rw mem:0x1000/1:w mem:0x1000/2:w:k mem:0x1000:x mem:0x1000/0:x
	mem:0x1000:xw mem:0x1000:rwx mem:0x1000:r mem:0x1000:w:u mem:0x1000:wu mem:0x1000:u mem:0x1000/8u
	mem:0x1000:k mem:0xffffffffffffffff:w '{mem:0x1000:w,mem:0x2000:r}:u' 'mem:0x1000:w,task-clock'
	# perf's tool events: the dummy's attr, which perf opens for them and tally does not.
	duration_time user_time system_time duration_time:u user_time:kG '{duration_time,task-clock}'
)

keys='type|config|config1|config2|exclude_user|exclude_kernel|exclude_hv|exclude_idle|exclude_host|exclude_guest|pinned|exclusive|precise_ip|bp_type'

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

# tally_attrs SPEC [SYSFS_ROOT]
tally_attrs() {
	local out
	out=$("$encode" ${2:+-s "$2"} "$1") || return 1
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

# PMU families and uncore PMUs, on fixture trees of machines this one is not (a 2-socket Intel server with
# six uncore_imc and four uncore_cha, a 2-socket EPYC): perf sees a fixture as its PMUs through a mount
# namespace (unshare -m, the fixture's devices bound over /sys/bus/event_source/devices). The PMU types
# do not exist in this kernel, so perf's opens fail with ENOENT; -vv has printed each attr before its
# open, and those are compared, as sets: perf adds the instances in readdir order, tally in name order.
fixture_specs=(
	intel-server:uncore_imc/cas_count_read/ intel-server:imc/cas_count_read/
	intel-server:uncore_imc/cas_count_write/ intel-server:uncore_imc/clockticks/
	intel-server:uncore_cha/event=0x34,umask=0x11/ intel-server:uncore_cha/clockticks/
	intel-server:uncore_imc_free_running/dclk/ intel-server:uncore_imc_3/cas_count_read/
	intel-server:power/energy-pkg/ intel-server:uncore_imc/cas_count_read/,uncore_cha/clockticks/
	amd-server:amd_l3/event=0x04,umask=0xff/ amd-server:amd_df/event=0x07,umask=0x1/
	amd-server:power/energy-pkg/ intel-server:cas_count_read intel-server:cas_count_write:u
)
fixtures=${TALLY_FIXTURES:-$(dirname "$0")/fixtures}
fixture_checked=0
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	for item in "${fixture_specs[@]}"; do
		machine=${item%%:*} spec=${item#*:}
		devices=$(cd "$fixtures/sysfs/$machine/bus/event_source/devices" && pwd)
		perf_out=$(unshare -m bash -c 'mount --bind "$1" /sys/bus/event_source/devices &&
			'"$(declare -f perf_attrs)"'; keys=$2; perf_attrs "$3"' _ "$devices" "$keys" "$spec" | sort)
		tally_out=$(tally_attrs "$spec" "$fixtures/sysfs/$machine" | sort)
		fixture_checked=$((fixture_checked + 1))
		if [ -z "$perf_out" ] || [ "$perf_out" != "$tally_out" ]; then
			echo "FAIL '$spec' on the $machine fixture"
			echo "  perf:  $(tr '\n' '|' <<<"$perf_out")"
			echo "  tally: $(tr '\n' '|' <<<"$tally_out")"
			failed=$((failed + 1))
		else
			compared=$((compared + $(wc -l <<<"$perf_out")))
		fi
	done
else
	echo "note: the fixture cases need root and unshare -m; skipped"
fi
echo "$((${#specs[@]} + fixture_checked)) specs, $compared attrs equal to perf's, $failed specs differ"
[ "$failed" = 0 ]
