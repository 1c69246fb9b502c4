# SPDX-License-Identifier: MIT
"""Shared fixtures: the tally CLI of the build ($TALLY_CLI, set by tests/test_python.sh) and documents
it writes, made once per run."""
import os
import subprocess
import sys

import pytest

EVENTS = "task-clock,page-faults,context-switches"

# The zero-configuration regions this process uses (test_regions.py) write their table at exit: not
# into the test's output.
os.environ.setdefault("TALLY_OUTPUT", os.devnull)


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("TALLY_CLI")
    if not path or not os.access(path, os.X_OK):
        pytest.skip("no tally CLI ($TALLY_CLI)")
    return path


@pytest.fixture(scope="session")
def documents(cli, tmp_path_factory):
    """Every kind of document: path by kind."""
    d = tmp_path_factory.mktemp("docs")
    run = lambda *a, **kw: subprocess.run([cli, *a], check=True, capture_output=True, **kw)
    out = {k: str(d / (k + ".json")) for k in ("stat", "repeat", "interval", "compare", "merge", "regions",
                                                "cgroup")}
    run("stat", "-j", "-e", EVENTS, "-o", out["stat"], "--", "sleep", "0.01")
    run("stat", "-j", "-r", "4", "-e", EVENTS, "-o", out["repeat"], "--", "sleep", "0.01")
    run("stat", "-j", "-I", "50", "-e", EVENTS + ",instructions", "-o", out["interval"], "--", "sleep", "0.26")
    run("compare", "-r", "4", "-j", "-e", EVENTS, "-o", out["compare"], "--", "sleep", "0.01", ":::",
        "sleep", "0.02")
    ranks = []
    for r in range(3):
        ranks.append(str(d / ("rank%d.json" % r)))
        env = dict(os.environ, PMI_RANK=str(r), PMI_SIZE="3")
        run("stat", "-j", "-e", EVENTS, "-o", ranks[-1], "--", "sh", "-c",
            "i=0; while [ $i -lt %d ]; do i=$((i+1)); done" % (2000 * r + 500), env=env)
    with open(out["merge"], "wb") as f:
        f.write(run("merge", "-j", *ranks).stdout)
    env = dict(os.environ, TALLY_EVENTS=EVENTS, TALLY_OUTPUT=out["regions"])
    subprocess.run([sys.executable, "-c",
                    "import tally\nfor i in range(8):\n    with tally.region('alloc'): x = [0] * 100000\n"
                    "    with tally.region('sum'): sum(range(5000))\n"], check=True, env=env)
    try:
        run("stat", "-j", "-a", "-e", "task-clock", "-G", "/", "-o", out["cgroup"], "--", "sleep", "0.01")
    except subprocess.CalledProcessError:
        del out["cgroup"]  # no cgroup v2 here, or no permission for system-wide counting
    return out
