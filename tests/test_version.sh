#!/usr/bin/env bash
# The version is written once, in CMakeLists.txt's project(); what else carries it must say the same:
# tally --version (and so the JSON results' tally_version), the installed man pages (CMake fills them
# in), debian/changelog's upstream part (debian/check-version fails a package build on it too) and
# python/pyproject.toml, which pip reads and CMake cannot fill in.
set -euo pipefail
: "${TALLY_SOURCE:?}" "${TALLY_BUILD:?}"
fail() { echo "FAIL: $*"; exit 1; }
version=$(sed -n 's/^project(tally VERSION \([0-9.]*\).*/\1/p' "$TALLY_SOURCE/CMakeLists.txt")
[ -n "$version" ] || fail "no project(tally VERSION ...) in CMakeLists.txt"

said=$("$TALLY_BUILD/tools/tally" --version)
[ "$said" = "tally $version" ] || fail "tally --version: $said"
for page in "$TALLY_BUILD"/man/*.[137]; do
	grep -q "^\.TH .* \"tally $version\" " "$page" || fail "$(basename "$page"): $(grep '^\.TH' "$page")"
done
changelog=$(sed -n '1s/^tally (\([^)]*\)).*/\1/p' "$TALLY_SOURCE/debian/changelog")
[ "${changelog%-*}" = "$version" ] || fail "debian/changelog: $changelog, not $version-N (dch -v $version-1)"
if [ -f "$TALLY_SOURCE/python/pyproject.toml" ]; then
	py=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$TALLY_SOURCE/python/pyproject.toml")
	[ "$py" = "$version" ] || fail "python/pyproject.toml says version $py"
fi
echo "version $version: tally --version, the man pages, debian/changelog, python/pyproject.toml"
