# SPDX-License-Identifier: MIT
"""Regions: the zero-configuration session from Python (context manager, decorator), and the handle form."""
import json
import mmap
import os
import subprocess
import sys

import tally

SCRIPT = """
import tally
@tally.region("deco")
def f():
    return sum(range(1000))
for i in range(5):
    with tally.region("ctx"):
        bytearray(64 * 4096)
    f()
"""


def test_zero_configuration_session_writes_at_exit(tmp_path):
    out = tmp_path / "r.json"
    env = dict(os.environ, TALLY_EVENTS="task-clock,page-faults", TALLY_OUTPUT=str(out))
    subprocess.run([sys.executable, "-c", SCRIPT], check=True, env=env)
    doc = json.load(open(out))
    calls = {r["name"]: r["calls"] for r in doc["regions"]}
    assert calls == {"ctx": 5, "deco": 5}
    assert [e["name"] for e in doc["events"]] == ["task-clock", "page-faults"]


def test_decorator_keeps_the_function():
    @tally.region("kept")
    def g(x):
        """doc"""
        return x + 1
    assert g(1) == 2 and g.__name__ == "g" and g.__doc__ == "doc"


def test_region_set_handle_form():
    s = tally.RegionSet("task-clock,page-faults")
    assert s.error == ""
    with s.region("touch"):
        b = mmap.mmap(-1, 128 * 4096)
        for i in range(0, 128 * 4096, 4096):
            b[i] = 1
    rid = s.id("manual")
    for _ in range(3):
        s.begin(rid)
        s.end(rid)
    res = {r["name"]: r for r in s.read()}
    assert res["touch"]["calls"] == 1 and res["manual"]["calls"] == 3
    assert res["touch"]["events"]["page-faults"]["sum"] >= 100
    assert set(s.overhead) == {"task-clock", "page-faults"}
    assert json.loads(s.write("json"))["regions"][0]["name"] == "touch"
    assert s.write("csv").splitlines()[0].startswith("region")


def test_region_set_that_cannot_count_says_why():
    s = tally.RegionSet("task-clok")
    assert "did you mean" in s.error
    with s.region("x"):
        pass
