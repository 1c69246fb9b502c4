# SPDX-License-Identifier: MIT
"""The pytest plugin, run on a small suite in a child pytest: the table, --tally-json, the fixture, events
that cannot be counted (never 0), and --tally-strict."""
import json
import subprocess
import sys

import tally

SUITE = '''
import mmap

def touch(n):
    b = mmap.mmap(-1, n * 4096)
    for i in range(0, n * 4096, 4096):
        b[i] = 1

def test_big():
    touch(300)

def test_small(tally_counts):
    touch(20)
    assert tally_counts["page-faults"] >= 20
'''


def run(tmp_path, *args):
    (tmp_path / "test_suite.py").write_text(SUITE)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "tally.pytest_plugin", "-p", "no:cacheprovider",
                           str(tmp_path / "test_suite.py"), *args], capture_output=True, text=True, cwd=tmp_path)


def test_table_and_json(tmp_path):
    out = tmp_path / "counts.json"
    p = run(tmp_path, "--tally=page-faults,task-clock", "--tally-json=%s" % out)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "tally: page-faults,task-clock per test" in p.stdout
    lines = [l for l in p.stdout.splitlines() if "test_suite.py::" in l]
    assert lines[0].split()[0].endswith("test_big")  # sorted by the first event, largest first
    tests = json.load(open(out))["tests"]
    big = [t for t in tests if t["nodeid"].endswith("test_big")][0]
    assert big["events"]["page-faults"] >= 300 and big["status"]["page-faults"] == "counted"


def test_not_counted_is_reported_not_zero(tmp_path):
    if tally.doctor()["nr_core_pmus"] > 0:  # instructions counts: a CPU PMU
        return
    out = tmp_path / "counts.json"
    p = run(tmp_path, "--tally=page-faults,instructions", "--tally-json=%s" % out)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "not counted" in p.stdout and ("no hardware PMU" in p.stdout or "no CPU PMU" in p.stdout)
    t = json.load(open(out))["tests"][0]
    assert t["events"]["instructions"] is None and t["status"]["instructions"] == "not-supported"
    strict = run(tmp_path, "--tally=page-faults,instructions", "--tally-strict")
    assert strict.returncode != 0


def test_bad_spec_is_a_usage_error(tmp_path):
    p = run(tmp_path, "--tally=page-fault")
    assert p.returncode != 0 and "did you mean" in p.stderr
