#!/usr/bin/env bash
# `cmake --install` (what `make install` runs) into a temporary prefix, from a build of the current source
# tree of its own: the files land where pkg-config and find_package look, the shared library carries its
# versioned soname, and programs built both ways against the installed copy run.
set -euo pipefail
: "${TALLY_SOURCE:?}" "${TALLY_BUILD:?}"

work=$(mktemp -d /tmp/tally-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
fail() { echo "FAIL: $*"; exit 1; }

# The same libpfm4 mode as the build under test; the system compiler whatever that build used (a sanitized
# libtally.so cannot be linked by an unsanitized consumer), and no test suite, to stay fast.
pfm=$(sed -n 's/^TALLY_WITH_LIBPFM:BOOL=//p' "$TALLY_BUILD/CMakeCache.txt")
env -u CC -u CFLAGS -u LDFLAGS cmake -S "$TALLY_SOURCE" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_C_COMPILER=cc -DTALLY_TESTS=OFF -DTALLY_WITH_LIBPFM="${pfm:-ON}" \
	-DCMAKE_INSTALL_PREFIX="$prefix" >"$work/configure.log" || { cat "$work/configure.log"; fail configure; }
cmake --build "$work/build" -j "$(nproc)" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail build; }
cmake --install "$work/build" >"$work/install.log" || { cat "$work/install.log"; fail install; }

libdir=$(dirname "$(find "$prefix" -name libtally.a | head -n 1)")
[ -d "$libdir" ] || fail "no libtally.a under $prefix"
version=$(sed -n 's/^project(tally VERSION \([0-9.]*\).*/\1/p' "$TALLY_SOURCE/CMakeLists.txt")

# The files.
for f in "$libdir/libtally.so.$version" "$libdir/libtally.a" "$libdir/pkgconfig/tally.pc" \
	"$libdir/cmake/tally/tallyConfig.cmake" "$libdir/cmake/tally/tallyConfigVersion.cmake" \
	"$libdir/cmake/tally/tallyTargets.cmake"; do
	[ -f "$f" ] || fail "not installed: ${f#"$prefix"/}"
done
[ "$(readlink "$libdir/libtally.so.0")" = "libtally.so.$version" ] || fail "libtally.so.0 is not a link to libtally.so.$version"
[ "$(readlink "$libdir/libtally.so")" = "libtally.so.0" ] || fail "libtally.so is not a link to libtally.so.0"
for h in $(cd "$TALLY_SOURCE/include" && find . -name '*.h'); do
	cmp -s "$TALLY_SOURCE/include/$h" "$prefix/include/$h" || fail "header not installed: ${h#./}"
done
for m in "$TALLY_SOURCE"/docs/man/*.[0-9]; do
	[ -e "$m" ] || continue
	section=${m##*.}
	[ -f "$prefix/share/man/man$section/$(basename "$m")" ] || fail "man page not installed: $(basename "$m")"
done
soname=$(readelf -d "$libdir/libtally.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libtally.so.0 ] || fail "soname is '$soname', expected libtally.so.0"

# A consumer of the public API only.
cat >"$work/consumer.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <tally.h>

int main(void)
{
	printf("version %s\n", tally_version());
	printf("libpfm4 %d\n", tally_have_libpfm());
	return strcmp(tally_strerror(-TALLY_ESPEC), "invalid event specification") != 0;
}
EOF
expect="version $version"

# pkg-config, shared.
export PKG_CONFIG_PATH="$libdir/pkgconfig"
[ "$(pkg-config --modversion tally)" = "$version" ] || fail "pkg-config --modversion tally"
# shellcheck disable=SC2046 # pkg-config prints several words on purpose
cc -std=c11 -Wall -Werror -o "$work/pc-shared" "$work/consumer.c" $(pkg-config --cflags --libs tally) \
	-Wl,-rpath,"$libdir"
out=$("$work/pc-shared") || fail "pkg-config consumer failed: $out"
grep -qx "$expect" <<<"$out" || fail "pkg-config consumer printed: $out"
# ldd's output as a whole: under pipefail, `ldd | grep -q` fails whenever grep exits before ldd's last write.
grep -q "libtally.so.0 => $libdir/libtally.so.0" <<<"$(ldd "$work/pc-shared")" || fail "pc-shared does not load $libdir/libtally.so.0"

# pkg-config, static: --static adds the private dependencies (the loader for libpfm4, when built with it).
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror -o "$work/pc-static" "$work/consumer.c" $(pkg-config --cflags tally) \
	"$libdir/libtally.a" $(pkg-config --static --libs-only-l tally | sed 's/-ltally//')
out=$("$work/pc-static") || fail "static pkg-config consumer failed: $out"
grep -qx "$expect" <<<"$out" || fail "static pkg-config consumer printed: $out"
! grep -q libtally <<<"$(ldd "$work/pc-static" 2>&1)" || fail "pc-static loads libtally.so"

# CMake package, both targets.
mkdir -p "$work/cmake-consumer"
cp "$work/consumer.c" "$work/cmake-consumer/"
cat >"$work/cmake-consumer/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(tally 0 REQUIRED CONFIG)
add_executable(cm-shared consumer.c)
target_link_libraries(cm-shared PRIVATE tally::tally)
add_executable(cm-static consumer.c)
target_link_libraries(cm-static PRIVATE tally::tally_static)
EOF
cmake -S "$work/cmake-consumer" -B "$work/cmake-consumer/build" -DCMAKE_PREFIX_PATH="$prefix" \
	>"$work/cm.log" 2>&1 || { cat "$work/cm.log"; fail "find_package(tally) project"; }
cmake --build "$work/cmake-consumer/build" >>"$work/cm.log" 2>&1 || { cat "$work/cm.log"; fail "CMake consumer build"; }
for exe in cm-shared cm-static; do
	out=$("$work/cmake-consumer/build/$exe") || fail "$exe failed: $out"
	grep -qx "$expect" <<<"$out" || fail "$exe printed: $out"
done
grep -q "$libdir/libtally.so.0" <<<"$(ldd "$work/cmake-consumer/build/cm-shared")" || fail "cm-shared does not load the installed library"

echo "installed to a temporary prefix: files, soname $soname, pkg-config and find_package consumers run"
