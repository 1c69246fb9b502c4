#!/bin/bash
# SPDX-License-Identifier: MIT
# The cost of a scrape of tally exporter, and of the node exporter's perf collector beside it where it
# runs: for E events x C cgroups x P CPUs, the exporter's CPU time per scrape (utime + stime from
# /proc/PID/stat over N scrapes), the read(2) calls per scrape (perf's syscalls:sys_enter_read on the
# exporter), microseconds of CPU per read, the CPU a 1 s scrape interval costs per second (a scrape, plus
# the update each --interval makes on its own), and the steady RSS. Root (it makes the cgroups).
# Usage: bench/bench_exporter.sh BUILD_DIR [EVENTS] [CGROUPS] [SCRAPES]
#   e.g. bench/bench_exporter.sh build page-faults,task-clock,context-switches,cpu-migrations 50 200
set -u
build=${1:?usage: bench_exporter.sh BUILD_DIR [EVENTS] [CGROUPS] [SCRAPES]}
events=${2:-page-faults,task-clock,context-switches,cpu-migrations}
cgroups=${3:-50}
scrapes=${4:-200}
exporter=$build/tools/tally-exporter
[ -x "$exporter" ] || { echo "no $exporter (libmicrohttpd-dev missing at build time)"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "run as root: it makes $cgroups cgroups"; exit 1; }
mount=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
top=tally-bench-$$
mkdir "$mount/$top" && for i in $(seq 1 "$cgroups"); do mkdir "$mount/$top/c$i"; done
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	for i in $(seq 1 "$cgroups"); do rmdir "$mount/$top/c$i"; done
	rmdir "$mount/$top"
}
trap cleanup EXIT
cpus=$(nproc)

# CPU time of every thread of the process, ns (schedstat's first field: finer than stat's clock ticks).
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%.0f", s }'; }
rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
scrape_n() { # URL N: N scrapes, one after the other
	python3 - "$1" "$2" <<'EOP'
import sys, urllib.request
for _ in range(int(sys.argv[2])):
    urllib.request.urlopen(sys.argv[1]).read()
EOP
}
# measure NAME PID URL: prints one line of figures; sets the globals us_per_scrape
measure() {
	local name=$1 pid=$2 url=$3
	scrape_n "$url" 5 # warm
	local reads
	reads=$(perf stat -x, -e syscalls:sys_enter_read -p "$pid" -- python3 -c "
import urllib.request
for _ in range($scrapes): urllib.request.urlopen('$url').read()" 2>&1 | awk -F, '/sys_enter_read/ { print $1 }')
	local t0 t1 idle0 idle1
	t0=$(cpu_ns "$pid")
	scrape_n "$url" "$scrapes"
	t1=$(cpu_ns "$pid")
	idle0=$(cpu_ns "$pid")
	sleep 3
	idle1=$(cpu_ns "$pid")
	us_per_scrape=$(awk -v d=$((t1 - t0)) -v n="$scrapes" 'BEGIN { printf "%.0f", d / n / 1e3 }')
	local per_read per_second
	per_read=$(awk -v us="$us_per_scrape" -v r="$reads" -v n="$scrapes" 'BEGIN { printf "%.2f", (r > 0) ? us / (r / n) : 0 }')
	# A scrape a second, and whatever the process does on its own in a second (tally: its --interval update).
	per_second=$(awk -v us="$us_per_scrape" -v d=$((idle1 - idle0)) 'BEGIN { printf "%.2f", us / 1e3 + d / 3 / 1e6 }')
	printf "%-26s %10s us/scrape %8s reads/scrape %8s us/read %8s ms CPU/s at 1 s %8s KiB RSS\n" "$name" \
		"$us_per_scrape" "$(awk -v r="$reads" -v n="$scrapes" 'BEGIN { printf "%.0f", r / n }')" "$per_read" \
		"$per_second" "$(rss_kib "$pid")"
}

nev=$(awk -F, '{ print NF }' <<<"$events")
echo "tally exporter: $nev events x $cgroups cgroups x $cpus CPUs, $scrapes scrapes (CPU time from /proc, reads from perf)"
port=$((30000 + $$ % 20000))
"$exporter" --listen "127.0.0.1:$port" -e "$events" --cgroups-under "$top" --interval 1000 2>/dev/null &
pids+=($!)
python3 "$(dirname "$0")/../tests/cli_helpers/scrape.py" wait "http://127.0.0.1:$port/metrics" 20
sleep 1.5
measure "tally exporter" "${pids[0]}" "http://127.0.0.1:$port/metrics"
tally_us=$us_per_scrape

# The node exporter's perf collector: system-wide per CPU (no cgroups), its software events.
if command -v prometheus-node-exporter >/dev/null 2>&1; then
	nport=$((port + 1))
	prometheus-node-exporter --collector.disable-defaults --collector.perf --collector.perf.cpus="0-$((cpus - 1))" \
		--web.listen-address="127.0.0.1:$nport" 2>/dev/null &
	pids+=($!)
	python3 "$(dirname "$0")/../tests/cli_helpers/scrape.py" wait "http://127.0.0.1:$nport/metrics" 20
	sleep 1
	series=$(python3 "$(dirname "$0")/../tests/cli_helpers/scrape.py" get "http://127.0.0.1:$nport/metrics" |
		grep -c '^node_perf_')
	measure "node exporter (perf)" "${pids[1]}" "http://127.0.0.1:$nport/metrics"
	echo "node exporter: $series node_perf_ series (per CPU, no cgroups: its collector cannot count per cgroup)"
	awk -v t="$tally_us" -v n="$us_per_scrape" 'BEGIN { if (n > 0) printf "ratio: tally exporter / node exporter CPU per scrape = %.2f\n", t / n }'
else
	echo "node exporter: not installed (apt-get install prometheus-node-exporter): no comparison"
fi
