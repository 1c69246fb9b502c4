#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The hardware check's topdown case (tests/hw/run.sh): where the core PMU has Intel's top-down events
# (slots and topdown-retiring in /sys/bus/event_source/devices/cpu{,_core}/events: Icelake and later),
# `tally stat --topdown` over a loop gives the four level-1 metrics, each available and in [0, 100] %, summing
# to 100 % within 1 (1e-2 of 1; tma_bad_speculation is what the others leave, so this holds the other three
# to at most 100 % together), and the raw events {slots,topdown-*} sum to slots within 2e-2 (each metric is an
# 8-bit fraction of 255: 4/255 of rounding at most). Exits 0, 1, or 77 with the reason elsewhere.
#
#   topdown.sh TALLY HW_LOOP
set -u
tally=$1 loop=$2
ev=${TALLY_SYSFS_ROOT:-/sys}/bus/event_source/devices # a fixture tree as tally reads one
pmu=
for p in cpu cpu_core; do
	[ -e "$ev/$p/events/slots" ] && [ -e "$ev/$p/events/topdown-retiring" ] && { pmu=$p; break; }
done
[ -n "$pmu" ] || { echo "SKIP: no topdown: no $ev/cpu{,_core}/events/{slots,topdown-retiring} (AMD, arm64, Intel before Icelake, a VM without a PMU)"; exit 77; }

# On a hybrid machine the metrics are cpu_core's: run the loop on one of its CPUs.
pin=()
if [ "$pmu" = cpu_core ] && command -v taskset >/dev/null 2>&1 && [ -r "$ev/cpu_core/cpus" ]; then
	first=$(sed 's/[-,].*//' "$ev/cpu_core/cpus")
	pin=(taskset -c "$first")
fi
N=200000000
out=$("$tally" stat --topdown -x, -- "${pin[@]}" "$loop" $N 2>&1)
echo "$out" | sed 's/^/  /'
awk -F, '
	$3 ~ /^tma_(retiring|bad_speculation|frontend_bound|backend_bound)$/ {
		n++
		if ($6 !~ /^[0-9.]+$/) { printf "FAIL: %s is %s\n", $3, $6; bad = 1; next }
		v = $6 + 0; sum += v
		if (v < 0 || v > 100) { printf "FAIL: %s = %s %% is outside [0, 100]\n", $3, $6; bad = 1 }
		if ($3 == "tma_retiring" && v <= 0) { print "FAIL: the loop retired nothing (tma_retiring 0)"; bad = 1 }
	}
	END {
		if (n != 4) { printf "FAIL: %d of the 4 level-1 metrics in the output\n", n; exit 1 }
		d = sum - 100; if (d < 0) d = -d
		printf "%s level-1 metrics sum to %.2f %% (|1 - sum| = %.4f, bound 1e-2)\n", (bad || d > 1) ? "FAIL:" : "ok  ", sum, d / 100
		exit (bad || d > 1)
	}' <<<"$out" || exit 1

raw=$("$tally" stat -x, -e "{slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound}" -- "${pin[@]}" "$loop" $N 2>&1)
echo "$raw" | sed 's/^/  /'
awk -F, '
	# The names as spelled, or as cpu_core/NAME/ where a PMU is named.
	$3 ~ /^([a-z_]+\/)?slots\/?$/ { slots = $1 }
	$3 ~ /^([a-z_]+\/)?topdown-(retiring|bad-spec|fe-bound|be-bound)\/?$/ { if ($1 !~ /^[0-9]+$/) bad = 1; n++; sum += $1 }
	END {
		if (n != 4 || bad || slots !~ /^[0-9]+$/ || slots == 0) { print "FAIL: slots and the four topdown events did not all count"; exit 1 }
		d = (sum - slots) / slots; if (d < 0) d = -d
		printf "%s topdown-{retiring,bad-spec,fe-bound,be-bound} sum to %.0f of %.0f slots (relative difference %.4f, bound 2e-2)\n", (d > 0.02) ? "FAIL:" : "ok  ", sum, slots, d
		exit (d > 0.02)
	}' <<<"$raw"
