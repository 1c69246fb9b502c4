#!/usr/bin/env bash
# Idempotent set-up for the arm64 hardware suite: host tools from Debian's packages, and an arm64 kernel and
# static busybox fetched as .deb files and unpacked under the cache folder (default .cache/arm64/, ignored by
# git). A warm run only checks that everything is there. Needs root (or sudo) the first time, for apt-get.
#
#   tests/arm64/setup.sh [CACHE_DIR]     prints nothing on success but what it installs or fetches
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cache=${1:-$root/.cache/arm64}
mkdir -p "$cache"

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

updated=0
apt_update() {
	if [ "$updated" = 0 ]; then
		as_root apt-get update -qq
		updated=1
	fi
}

# Host tools. The cross libc's static archive is the one file of libc6-dev-arm64-cross that static links need.
missing=()
command -v qemu-system-aarch64 >/dev/null || missing+=(qemu-system-arm)
command -v aarch64-linux-gnu-gcc >/dev/null || missing+=(gcc-aarch64-linux-gnu)
[ -f /usr/aarch64-linux-gnu/lib/libc.a ] || missing+=(libc6-dev-arm64-cross)
command -v cpio >/dev/null || missing+=(cpio)
command -v cmake >/dev/null || missing+=(cmake)
# The CLI cases' JSON documents are parsed on the host (tests/arm64/check_json.py).
command -v python3 >/dev/null || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
	echo "arm64 setup: installing ${missing[*]}"
	apt_update
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Fetches one arm64 package into the cache and unpacks it into $cache/root-<name>.
fetch_arm64() {
	local pkg=$1
	local dir=$cache/root-${pkg%%:*}
	[ -d "$dir" ] && return 0
	echo "arm64 setup: fetching $pkg"
	rm -f "$cache"/*.deb.part
	# As root apt would drop to the _apt user, which cannot write into a folder under the work tree.
	(cd "$cache" && apt-get -o APT::Sandbox::User=root download -q=2 "$pkg:arm64")
	local deb
	deb=$(ls -t "$cache"/"${pkg%%:*}"_*_arm64.deb | head -n 1)
	dpkg -x "$deb" "$dir.tmp"
	mv "$dir.tmp" "$dir"
	rm -f "$deb"
}

need_kernel=0; need_busybox=0
[ -f "$cache/vmlinuz" ] || need_kernel=1
[ -x "$cache/busybox" ] || need_busybox=1
if [ $need_kernel = 1 ] || [ $need_busybox = 1 ]; then
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		as_root dpkg --add-architecture arm64
		updated=0
	fi
	apt_update
fi

if [ $need_kernel = 1 ]; then
	# The metapackage names the current ABI (security updates rename the image package, e.g. 6.1.0-37).
	image=$(apt-cache depends linux-image-arm64:arm64 | sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*-arm64\).*/\1/p' | head -n 1)
	if [ -z "$image" ]; then
		echo "arm64 setup: cannot find the kernel image package behind linux-image-arm64:arm64" >&2
		exit 1
	fi
	fetch_arm64 "$image"
	# The kernel needs no modules: the PMU driver, the PL011 console and gzip initrd support are built in.
	cp "$(ls "$cache/root-$image"/boot/vmlinuz-* | head -n 1)" "$cache/vmlinuz.tmp"
	mv "$cache/vmlinuz.tmp" "$cache/vmlinuz"
	echo "$image" > "$cache/kernel-package"
	rm -rf "$cache/root-$image"
fi

if [ $need_busybox = 1 ]; then
	fetch_arm64 busybox-static
	cp "$cache/root-busybox-static/bin/busybox" "$cache/busybox.tmp"
	mv "$cache/busybox.tmp" "$cache/busybox"
	rm -rf "$cache/root-busybox-static"
fi
