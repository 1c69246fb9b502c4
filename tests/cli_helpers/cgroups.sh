# SPDX-License-Identifier: MIT
# Sourced by the cgroup tests after common.sh (not a test itself): root and a cgroup hierarchy with
# perf_event are required (SKIP, exit 77, naming what is missing); sets $mount, the hierarchy's mount
# point (a v1 perf_event mount first, as tally and perf choose), and builds $WORK/touch, a program that
# touches N fresh pages (touch_pages.c: its page faults are N plus its exec's own).
[ "$(id -u)" = 0 ] || { echo "SKIP: making cgroups needs root"; exit 77; }
mount=$(awk '$9 == "cgroup" && $NF ~ /(^|,)perf_event(,|$)/ { print $5; exit }' /proc/self/mountinfo)
mount=${mount:-$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)}
[ -n "$mount" ] || { echo "SKIP: no cgroup hierarchy with perf_event is mounted"; exit 77; }
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler to build the workload"; exit 77; }
# Static when the C library allows it: no dynamic loader faults to vary between runs.
touch_src=$(dirname "${BASH_SOURCE[0]}")/touch_pages.c
cc -O1 -static -o "$WORK/touch" "$touch_src" 2>/dev/null || cc -O1 -o "$WORK/touch" "$touch_src" ||
	{ echo "FAIL: cannot build the workload"; exit 1; }
