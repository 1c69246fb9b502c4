#!/usr/bin/env bash
# The tree is the map: folders per layer in docs/design.md's order, includes that name their folder, no
# folder-level include cycle, every public header in the README, no function over 100 lines
# (tests/tree_layout.py says what each check is).
set -u
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed (apt-get install python3)"; exit 77; }
exec python3 "$TALLY_SOURCE/tests/tree_layout.py" "$TALLY_SOURCE"
