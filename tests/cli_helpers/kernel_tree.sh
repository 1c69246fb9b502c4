# SPDX-License-Identifier: MIT
# Sourced by the tests that take perf's own data or scripts from a Linux source tree (not a test itself).
# kernel_tree VERSION prints the tree of that version that holds perf's tools/perf: an extracted Debian
# linux-source-VERSION, under /work/kernel (a developer's) or /usr/src (where .ci/run extracts it). It
# prints nothing, and fails, when neither is there: the caller SKIPs and says which tree it needs.
kernel_tree() {
	local dir
	for dir in /work/kernel/linux-source-"$1" /usr/src/linux-source-"$1"; do
		[ -d "$dir/tools/perf" ] && { echo "$dir"; return 0; }
	done
	return 1
}

# perf61_oracle sets PERF61_TREE to perf 6.1's pmu-events arch folder ($PERF61_PMU_EVENTS, else the
# extracted linux-source-6.1's), or exits 77 saying what is missing: perf 6.1 itself, that tree, or root
# with `unshare -m` (perf sees a fixture sysfs tree through a bind mount): the oracle's tests start so.
perf61_oracle() {
	PERF61_TREE=${PERF61_PMU_EVENTS:-$(kernel_tree 6.1)/tools/perf/pmu-events/arch}
	command -v perf >/dev/null || { echo "SKIP: perf is not installed"; exit 77; }
	case "$(perf --version 2>/dev/null)" in
	*" 6.1."*) ;;
	*) echo "SKIP: the oracle is perf 6.1, this is $(perf --version 2>&1)"; exit 77 ;;
	esac
	[ -f "$PERF61_TREE/x86/mapfile.csv" ] || {
		echo "SKIP: no perf 6.1 pmu-events tree (install linux-source-6.1 and extract tools/perf/pmu-events, or set PERF61_PMU_EVENTS)"
		exit 77
	}
	[ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null ||
		{ echo "SKIP: needs root and unshare -m to show perf a fixture"; exit 77; }
}
