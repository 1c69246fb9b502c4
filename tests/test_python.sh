#!/usr/bin/env bash
# The Python binding's pytest suite (python/tests/) against the build tree's package (build/python).
# SKIP (77) with the reason where the binding was not built (no Python 3 headers) or no Python has
# pytest. The extension is abi3, so any Python 3.9+ with pytest can load it: the first of python3 on
# PATH and Debian's /usr/bin/python3 that has pytest runs the suite.
set -u
build=${TALLY_BUILD:?}
source=${TALLY_SOURCE:-$(dirname "$0")/..}
if ! ls "$build"/python/tally/_tally*.so >/dev/null 2>&1; then
	echo "SKIP: the Python binding was not built (no Python 3 headers: install python3-dev and reconfigure; or a -fsanitize build)"
	exit 77
fi
py=
for cand in python3 /usr/bin/python3; do
	if command -v "$cand" >/dev/null && "$cand" -c 'import pytest' 2>/dev/null; then
		py=$cand
		break
	fi
done
if [ -z "$py" ]; then
	echo "SKIP: no Python 3 with pytest (install python3-pytest)"
	exit 77
fi
export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}"
export TALLY_CLI="$build/tools/tally"
cd "$source/python/tests" || exit 1
exec "$py" -m pytest -q -rs -p no:cacheprovider -p tally.pytest_plugin .
