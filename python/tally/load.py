# SPDX-License-Identifier: MIT
"""tally.load(path): any JSON document tally writes, as a Document of tidy rows.

Kinds (Document.kind), told apart by their keys (docs/json-schema.json):
  "stat"      tally stat -j: one run (rows per event, and per cgroup with -G)
  "repeat"    tally stat -j -r N: rows per run x event
  "interval"  tally stat -j -I MS: rows per interval x event
  "regions"   a regions document (TALLY_OUTPUT=x.json, RegionSet.write("json")): rows per region x
              thread x event; a stat document with --regions also has Document.regions
  "merge"     tally merge -j: rows per scope (all ranks, each host) x event
  "compare"   tally compare -j: rows per event with the difference, its 95% interval and the verdict

Every row is a dict; a count that did not count is None in the rows and NaN in pandas or numpy, never 0.
Counts are in the event's unit (`value`, with `unit`: task-clock in msec, as tally stat prints it);
`count` keeps the scaled count as the kernel gives it (ns for task-clock).
"""
import datetime
import json
import os

COUNTED = ("counted", "scaled")


class Document:
    """One document: kind, data (the JSON as read), rows (tidy dicts), events (names in order), meta
    (command, host, machine, date: what a title says), regions (a stat document's regions, or None)."""

    def __init__(self, kind, data, rows, path=None):
        self.kind, self.data, self.rows, self.path = kind, data, rows, path
        self.events = list(dict.fromkeys(r["event"] for r in rows if "event" in r))
        self.meta = _meta(data, path)
        self.regions = None

    def __repr__(self):
        return "<tally.Document %s: %d rows, events %s>" % (self.kind, len(self.rows), ", ".join(self.events))

    def to_pandas(self):
        """A tidy pandas DataFrame, one row per event x run/interval x rank x cgroup x region where each
        applies (needs pandas: Debian's python3-pandas)."""
        import pandas
        return pandas.DataFrame.from_records(self.rows).astype({"value": float}, errors="ignore")

    def to_numpy(self):
        """The counts as numpy: a 2-D array (runs or intervals x events, NaN where not counted) for
        "repeat" and "interval", else the `value` column (compare: the relative change)."""
        import numpy
        if self.kind in ("repeat", "interval"):
            axis = "run" if self.kind == "repeat" else "interval"
            keys = list(dict.fromkeys(r[axis] for r in self.rows))
            out = numpy.full((len(keys), len(self.events)), numpy.nan)
            for r in self.rows:
                if r["value"] is not None:
                    out[keys.index(r[axis]), self.events.index(r["event"])] = r["value"]
            return out
        column = "relative" if self.kind == "compare" else "value"
        return numpy.array([numpy.nan if r.get(column) is None else r[column] for r in self.rows], dtype=float)


def _meta(data, path):
    machine = data.get("machine") or {}
    command = data.get("command") or {}
    argv = command.get("argv") if isinstance(command, dict) else None
    if not argv and data.get("a"):
        argv = data["a"].get("argv", []) + [":::"] + data["b"].get("argv", [])
    described = (data.get("target") or {}).get("description")
    date = None
    if path:
        date = datetime.datetime.fromtimestamp(os.path.getmtime(path)).strftime("%Y-%m-%d %H:%M")
    return {
        "command": " ".join(argv) if argv else described,
        "host": data.get("host"),
        "cpu_model": machine.get("cpu_model"),
        "kernel": machine.get("kernel"),
        "date": date,
        "tally_version": data.get("tally_version"),
    }


def _event_row(e, **where):
    counted = e.get("status") in COUNTED
    scale = e.get("unit_scale") or 1
    enabled, running = e.get("enabled") or 0, e.get("running") or 0
    row = dict(where)
    row.update(event=e["name"], value=e["scaled"] * scale if counted else None,
               count=e["scaled"] if counted else None, unit=e.get("unit") or "", status=e.get("status"),
               enabled=enabled, running=running, ratio=running / enabled if enabled else 0.0,
               reason=e.get("reason"))
    if "cgroup" in e:
        row["cgroup"] = e["cgroup"]
    if "stddev" in e:
        row["stddev"] = e["stddev"] * scale
    return row


def _stat_rows(data, kind):
    rank = {"rank": data.get("rank")} if data.get("rank") is not None else {}
    if kind == "interval":
        return [_event_row(e, interval=i["timestamp"], **rank) for i in data["intervals"] for e in i["events"]]
    if kind == "repeat":
        return [_event_row(e, run=r["run"], **rank) for r in data["runs"] for e in r["events"]]
    return [_event_row(e, **rank) for e in data["events"]]


def _region_event_row(region, thread, e, rank):
    counted = e.get("status") in COUNTED
    row = {"region": region["name"], "thread": thread, "calls": region.get("calls"),
           "wall_ns": region.get("wall_ns"), "event": e["event"], "status": e.get("status"),
           "low": e.get("low", False)}
    for k in ("sum", "mean", "stddev", "min", "max"):
        row[k] = e.get(k) if counted else None
    row["value"] = row["mean"]
    if rank is not None:
        row["rank"] = rank
    return row


def _regions_rows(regions):
    rows, rank = [], regions.get("rank")
    for region in regions.get("regions", []):
        rows += [_region_event_row(region, "all", e, rank) for e in region.get("events", [])]
        for t in region.get("threads", []):
            t = dict(t, name=region["name"])
            rows += [_region_event_row(t, t.get("tid"), e, rank) for e in t.get("events", [])]
    return rows


def _merge_rows(data):
    rows = []
    scopes = [("all", data["all"])] + [("host", h) for h in data.get("hosts", [])]
    for scope, s in scopes:
        for e in s.get("events", []):
            row = {"scope": scope, "host": s.get("host"), "event": e["event"], "unit": e.get("unit", "")}
            for k in ("ranks", "sum", "mean", "min", "max", "stddev", "imbalance"):
                row[k] = e.get(k)
            row["min_rank"] = (e.get("min_at") or {}).get("rank")
            row["max_rank"] = (e.get("max_at") or {}).get("rank")
            row["value"] = e.get("mean")
            rows.append(row)
    return rows


def _compare_rows(data):
    rows = []
    for e in data["events"]:
        row = {"event": e["event"], "unit": e.get("unit", ""), "verdict": e.get("verdict")}
        for side in ("a", "b"):
            for k in ("n", "mean", "stddev"):
                row["%s_%s" % (side, k)] = (e.get(side) or {}).get(k)
            row[side + "_values"] = (e.get(side) or {}).get("values")
        for k in ("difference", "difference_low", "difference_high", "relative", "relative_low",
                  "relative_high", "df", "t", "exact"):
            row[k] = e.get(k)
        row["value"] = e.get("difference")
        rows.append(row)
    return rows


def kind_of(data):
    """The kind of a parsed document (see the module's docstring); ValueError for anything else."""
    if "compare_version" in data:
        return "compare"
    if "merge_version" in data:
        return "merge"
    if "intervals" in data:
        return "interval"
    if "runs" in data:
        return "repeat" if data.get("nr_runs", 1) > 1 else "stat"
    if "regions" in data and "version" in data:
        return "regions"
    if isinstance(data.get("regions"), dict):
        return "regions"
    raise ValueError("not a tally document (no runs, intervals, regions, merge_version or compare_version)")


def from_data(data, path=None):
    """A Document from a document already parsed (json.loads of a tally output)."""
    kind = kind_of(data)
    if kind == "compare":
        return Document(kind, data, _compare_rows(data), path)
    if kind == "merge":
        return Document(kind, data, _merge_rows(data), path)
    if kind == "regions":
        regions = data["regions"] if isinstance(data.get("regions"), dict) else data
        return Document(kind, data, _regions_rows(regions), path)
    doc = Document(kind, data, _stat_rows(data, kind), path)
    if isinstance(data.get("regions"), dict):
        doc.regions = Document("regions", data, _regions_rows(data["regions"]), path)
    return doc


def load(path):
    """Reads one JSON document tally wrote (tally stat -j with or without -r, -I, -G, --regions; tally
    merge -j; tally compare -j; a regions output) into a Document: .kind, .rows, .events, .meta,
    .to_pandas(), .to_numpy()."""
    with open(path, encoding="utf-8") as f:
        return from_data(json.load(f), path)
