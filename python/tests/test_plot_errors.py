# SPDX-License-Identifier: MIT
"""python3 -m tally plot where it cannot plot: without matplotlib, or with a file that is no JSON
document, it says why on standard error (nothing on standard output) and exits non-zero, never with a
traceback."""
import subprocess
import sys

import pytest


def plot(*code_and_args):
    code, args = code_and_args[0], list(code_and_args[1:])
    return subprocess.run([sys.executable, "-c", code + "\nfrom tally.plot import main\nsys.exit(main(%r))" % args],
                          capture_output=True, text=True)


def test_without_matplotlib(tmp_path):
    doc = tmp_path / "doc.json"
    doc.write_text("{}")
    # matplotlib made unimportable, as on a machine without python3-matplotlib.
    p = plot("import sys; sys.modules['matplotlib'] = None", "plot", str(doc), "-o", str(tmp_path / "x.png"))
    assert p.returncode == 2, p.stderr
    assert "plotting needs matplotlib (Debian: python3-matplotlib)" in p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""


@pytest.mark.parametrize("text", ["", "root:x:0:0:root:/root:/bin/bash\n", '{"schema_version": 3, "events": ['])
def test_not_a_document(tmp_path, text):
    pytest.importorskip("matplotlib")
    doc = tmp_path / "bad.json"
    doc.write_text(text)
    p = plot("import sys", "plot", str(doc), "-o", str(tmp_path / "x.png"))
    assert p.returncode == 1, p.stderr
    assert p.stderr.startswith("python3 -m tally plot: %s: " % doc) and "Traceback" not in p.stderr
    assert p.stdout == ""
