# SPDX-License-Identifier: MIT
"""`pip install ./python` offline, against libtally installed from this build into a staging prefix: the
package builds as abi3, imports, counts, and registers the pytest11 entry point."""
import glob
import os
import shutil
import subprocess
import sys

import pytest

SOURCE = os.environ.get("TALLY_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("TALLY_BUILD")


def test_pip_install_offline(tmp_path):
    if not BUILD or not shutil.which("cmake"):
        pytest.skip("needs $TALLY_BUILD and cmake")
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode:
        pytest.skip("no pip for %s (Debian: python3-pip)" % sys.executable)
    prefix, target = tmp_path / "prefix", tmp_path / "site"
    subprocess.run(["cmake", "--install", BUILD, "--prefix", str(prefix)], check=True, capture_output=True)
    src = tmp_path / "src"
    shutil.copytree(os.path.join(SOURCE, "python"), src, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    env = dict(os.environ, TALLY_PREFIX=str(prefix), PIP_NO_INDEX="1")
    p = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-index",
                        "--target", str(target), str(src)], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    assert glob.glob(str(target / "tally" / "_tally.abi3.so"))
    assert "pytest11" in open(glob.glob(str(target / "tally-*.dist-info" / "entry_points.txt"))[0]).read()
    code = "import tally\nwith tally.count('page-faults') as c: bytearray(1 << 20)\nprint(tally.__file__, c['page-faults'])"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    env["PYTHONPATH"] = str(target)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    path, faults = out.stdout.split()
    assert path.startswith(str(target)) and int(faults) > 0
