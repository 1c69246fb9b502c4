# SPDX-License-Identifier: MIT
"""python3 -m tally plot: every kind renders, and the image itself is checked: its size, more than one
colour, and (SVG) the title's and labels' text."""
import subprocess
import sys

import pytest

pytest.importorskip("matplotlib")

KINDS = ["interval", "repeat", "merge", "compare", "regions", "stat"]


@pytest.mark.parametrize("kind", KINDS)
def test_png(documents, tmp_path, kind):
    from matplotlib import image
    out = tmp_path / (kind + ".png")
    p = subprocess.run([sys.executable, "-m", "tally", "plot", documents[kind], "-o", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert ("%s plot" % kind) in p.stdout
    img = image.imread(str(out))
    h, w = img.shape[:2]
    assert w >= 600 and h >= 300
    colours = {tuple(px) for px in img[::7, ::7].reshape(-1, img.shape[2]).tolist()}
    assert len(colours) > 10  # not one colour: axes, bars, text


TEXT = {"interval": ["tally stat -I", "page-faults", "msec per interval"],
        "repeat": ["tally stat -r 4", "mean", "each run"],
        "merge": ["tally merge of 3 ranks", "imbalance", "rank"],
        "compare": ["tally compare", "95% interval", "page-faults"],
        "regions": ["tally regions", "alloc", "mean per call"],
        "stat": ["tally stat", "page-faults"]}


@pytest.mark.parametrize("kind", KINDS)
def test_svg_has_the_text(documents, tmp_path, kind):
    import matplotlib
    out = tmp_path / (kind + ".svg")
    matplotlib.rcParams["svg.fonttype"] = "none"
    from tally import plot
    assert plot.render(documents[kind], str(out)) == kind
    svg = out.read_text()
    assert svg.startswith("<?xml") and "<svg" in svg
    for text in TEXT[kind]:
        assert text in svg, text
