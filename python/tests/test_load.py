# SPDX-License-Identifier: MIT
"""tally.load: every kind of document the CLI writes, as rows, pandas and numpy."""
import math

import pytest

import tally


def test_kinds(documents):
    for kind, path in documents.items():
        doc = tally.load(path)
        assert doc.kind == {"cgroup": "stat"}.get(kind, kind), path
        assert doc.rows and doc.events


def test_stat_rows_are_tidy(documents):
    doc = tally.load(documents["stat"])
    assert doc.events == ["task-clock", "page-faults", "context-switches"]
    row = doc.rows[1]
    assert row["status"] == "counted" and row["value"] == row["count"] > 0
    assert doc.rows[0]["unit"] == "msec" and doc.rows[0]["value"] == doc.rows[0]["count"] * 1e-6
    assert doc.meta["command"] == "sleep 0.01" and doc.meta["host"]


def test_interval_not_counted_is_nan(documents):
    doc = tally.load(documents["interval"])
    a = doc.to_numpy()
    assert a.shape[1] == 4 and a.shape[0] >= 4
    if tally.doctor()["nr_core_pmus"] == 0:  # no CPU PMU (other hardware PMUs, RAPL's power, may exist)
        assert all(math.isnan(v) for v in a[:, 3])  # instructions: not supported, never 0
        assert {r["status"] for r in doc.rows if r["event"] == "instructions"} == {"not-supported"}


def test_repeat_to_numpy_and_pandas(documents):
    doc = tally.load(documents["repeat"])
    assert doc.to_numpy().shape == (4, 3)
    pd = pytest.importorskip("pandas")
    df = doc.to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert sorted(df["run"].unique()) == [1, 2, 3, 4]
    assert len(df) == 12


def test_merge_compare_regions(documents):
    merge = tally.load(documents["merge"])
    tc = [r for r in merge.rows if r["scope"] == "all" and r["event"] == "task-clock"][0]
    assert tc["ranks"] == 3 and tc["imbalance"] >= 1
    cmp = tally.load(documents["compare"])
    assert {r["verdict"] for r in cmp.rows} <= {"no evidence", "more", "less", "same"}
    assert all(r["difference_low"] <= r["difference"] <= r["difference_high"] for r in cmp.rows)
    reg = tally.load(documents["regions"])
    calls = {r["region"]: r["calls"] for r in reg.rows if r["thread"] == "all"}
    assert calls == {"alloc": 8, "sum": 8}


def test_cgroup_rows(documents):
    if "cgroup" not in documents:
        pytest.skip("no cgroup document (system-wide counting refused here)")
    doc = tally.load(documents["cgroup"])
    assert doc.rows[0]["cgroup"] == "/"


def test_not_a_document(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"hello": 1}')
    with pytest.raises(ValueError):
        tally.load(str(p))
