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
