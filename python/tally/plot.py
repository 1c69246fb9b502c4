# SPDX-License-Identifier: MIT
"""python3 -m tally plot FILE [-o OUT.png|OUT.svg]: a plot of a JSON document tally wrote, by its kind:
  interval  each event over time, the multiplexed intervals shaded by the share they ran
  repeat    each run's count with the mean and the mean +- one standard deviation
  merge     per-rank bars (from the rank files the merge names, where readable), the mean and the
            imbalance (max / mean) marked
  compare   each event's relative change with its 95% interval, coloured by the verdict
  regions   per-region bars of the mean per call with its standard deviation
  stat      each event's count
Needs matplotlib (Debian's python3-matplotlib); rendered without a display (Agg)."""
import argparse
import os
import sys

from .load import load

VERDICT_COLOURS = {"more": "#d62728", "less": "#1f77b4", "same": "#2ca02c", "no evidence": "#7f7f7f"}


def _label(unit):
    return unit if unit else "count"


def _title(doc, what):
    m = doc.meta
    where = ", ".join(x for x in (m.get("host"), m.get("cpu_model"), m.get("date")) if x)
    command = " ".join((m.get("command") or "").split())
    if len(command) > 90:
        command = command[:87] + "..."
    return "%s%s%s" % (what, ": " + command if command else "", "\n" + where if where else "")


def _figure(plt, n, width=8.0, height=2.4):
    fig, axes = plt.subplots(max(n, 1), 1, figsize=(width, 1.2 + height * max(n, 1)), squeeze=False)
    return fig, [a[0] for a in axes]


def _counted_events(doc):
    return [e for e in doc.events if any(r["event"] == e and r["value"] is not None for r in doc.rows)]


def _footnote(fig, doc):
    missing = [e for e in doc.events if e not in _counted_events(doc)]
    if missing:
        fig.text(0.01, 0.005, "not counted: " + ", ".join(missing), fontsize=8, color="#a00000")


def plot_interval(plt, doc):
    events = _counted_events(doc)
    fig, axes = _figure(plt, len(events))
    times = sorted({r["interval"] for r in doc.rows})
    step = times[1] - times[0] if len(times) > 1 else 1.0
    for ax, e in zip(axes, events):
        rows = [r for r in doc.rows if r["event"] == e]
        ax.plot([r["interval"] for r in rows], [r["value"] for r in rows], marker="o", ms=3, color="#1f77b4")
        for r in rows:
            if r["value"] is not None and r["ratio"] < 1:
                ax.axvspan(r["interval"] - step, r["interval"], color="#ff7f0e", alpha=0.15 + 0.5 * (1 - r["ratio"]),
                           lw=0)
        ax.set_ylabel("%s\n(%s per interval)" % (e, _label(rows[0]["unit"])), fontsize=8)
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("time since start (s); shaded: multiplexed, darker = ran less of the interval")
    fig.suptitle(_title(doc, "tally stat -I"), fontsize=9)
    _footnote(fig, doc)
    return fig


def plot_repeat(plt, doc):
    events = _counted_events(doc)
    fig, axes = _figure(plt, len(events), height=2.0)
    for ax, e in zip(axes, events):
        rows = [r for r in doc.rows if r["event"] == e and r["value"] is not None]
        xs, ys = [r["run"] for r in rows], [r["value"] for r in rows]
        mean = sum(ys) / len(ys)
        sd = (sum((y - mean) ** 2 for y in ys) / (len(ys) - 1)) ** 0.5 if len(ys) > 1 else 0.0
        ax.axhspan(mean - sd, mean + sd, color="#1f77b4", alpha=0.15, label="mean +- stddev")
        ax.axhline(mean, color="#1f77b4", lw=1, label="mean %.4g" % mean)
        ax.plot(xs, ys, "o", color="#d62728", label="each run")
        ax.set_ylabel("%s\n(%s)" % (e, _label(rows[0]["unit"])), fontsize=8)
        ax.set_xticks(xs)
        ax.legend(fontsize=7, loc="best", framealpha=0.6)
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("run")
    fig.suptitle(_title(doc, "tally stat -r %d" % len({r["run"] for r in doc.rows})), fontsize=9)
    _footnote(fig, doc)
    return fig


def _rank_values(doc, event):
    """{rank: value} from the rank files the merge read, where they can still be read."""
    values = {}
    for path in doc.data.get("files", []):
        try:
            rank_doc = load(path)
        except (OSError, ValueError):
            return None
        rank = rank_doc.data.get("rank")
        for r in rank_doc.rows:
            if r["event"] == event and r["value"] is not None:
                values[rank] = r["value"]
    return values or None


def plot_merge(plt, doc):
    rows = [r for r in doc.rows if r["scope"] == "all" and r["mean"] is not None]
    fig, axes = _figure(plt, len(rows), height=2.0)
    for ax, r in zip(axes, rows):
        per_rank = _rank_values(doc, r["event"])
        if per_rank:
            ranks = sorted(per_rank)
            colours = ["#d62728" if k == r["max_rank"] else "#1f77b4" for k in ranks]
            ax.bar([str(k) for k in ranks], [per_rank[k] for k in ranks], color=colours)
            ax.set_xlabel("rank (red: the largest)", fontsize=8)
        else:
            ax.bar(["min (rank %s)" % r["min_rank"], "mean", "max (rank %s)" % r["max_rank"]],
                   [r["min"], r["mean"], r["max"]], color=["#1f77b4", "#7f7f7f", "#d62728"])
        ax.axhline(r["mean"], color="k", ls="--", lw=1)
        ax.set_ylabel("%s\n(%s)" % (r["event"], _label(r["unit"])), fontsize=8)
        ax.set_title("imbalance (max / mean) %.2f" % r["imbalance"], fontsize=8, loc="right")
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(_title(doc, "tally merge of %d ranks (dashed: mean)" % doc.data.get("size", 0)),
                      fontsize=9)
    return fig


def plot_compare(plt, doc):
    rows = [r for r in doc.rows if r["relative"] is not None]
    fig, ax = plt.subplots(figsize=(8, 1.8 + 0.6 * len(rows)))
    ys = list(range(len(rows)))
    for y, r in zip(ys, rows):
        rel, lo, hi = (100 * r[k] for k in ("relative", "relative_low", "relative_high"))
        colour = VERDICT_COLOURS.get(r["verdict"], "#7f7f7f")
        ax.errorbar(rel, y, xerr=[[rel - lo], [hi - rel]], fmt="o", color=colour, capsize=4)
        ax.annotate("%+.2f%%\n%s" % (rel, r["verdict"]), (1.02, y), xycoords=("axes fraction", "data"),
                    fontsize=8, color=colour, va="center")
    ax.axvline(0, color="k", lw=0.8)
    ax.set_yticks(ys)
    ax.set_yticklabels([r["event"] for r in rows])
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.invert_yaxis()
    ax.set_xlabel("change of B against A, %% of A's mean, with its %g%% interval"
                  % (100 * doc.data.get("confidence", 0.95)))
    ax.grid(axis="x", alpha=0.3)
    fig.suptitle(_title(doc, "tally compare"), fontsize=9)
    return fig


def plot_regions(plt, doc):
    events = _counted_events(doc)
    fig, axes = _figure(plt, len(events), height=2.0)
    for ax, e in zip(axes, events):
        rows = [r for r in doc.rows if r["event"] == e and r["thread"] == "all" and r["mean"] is not None]
        clock = e.endswith("-clock")  # a clock counts ns: shown in msec, as tally stat shows it
        scale = 1e-6 if clock else 1.0
        names = ["%s\n(%d calls)" % (r["region"], r["calls"]) for r in rows]
        colours = ["#ff7f0e" if r["low"] else "#1f77b4" for r in rows]
        means = [r["mean"] * scale for r in rows]
        # One standard deviation each side, within the calls' own range: a count is never below its min.
        spread = [[min(r["stddev"], r["mean"] - r["min"]) * scale for r in rows],
                  [min(r["stddev"], r["max"] - r["mean"]) * scale for r in rows]]
        ax.bar(names, means, yerr=spread, capsize=4, color=colours)
        ax.set_ylabel("%s\nmean per call (%s)" % (e, "msec" if clock else "count"), fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(_title(doc, "tally regions (error bars: stddev within min..max; orange: under 10x tally's "
                             "overhead)"), fontsize=9)
    _footnote(fig, doc)
    return fig


def plot_stat(plt, doc):
    rows = [r for r in doc.rows if r["value"] is not None]
    fig, axes = _figure(plt, 1, height=0.5 * len(rows) + 1)
    ax = axes[0]
    ax.barh(["%s (%s)%s" % (r["event"], _label(r["unit"]), " " + r.get("cgroup", "") if r.get("cgroup") else "")
             for r in rows], [r["value"] for r in rows], color="#1f77b4")
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("count, in each event's unit (log scale)")
    ax.set_title(_title(doc, "tally stat"), fontsize=9)
    _footnote(fig, doc)
    return fig


PLOTS = {"interval": plot_interval, "repeat": plot_repeat, "merge": plot_merge, "compare": plot_compare,
         "regions": plot_regions, "stat": plot_stat}


def render(path, out):
    """Renders the document at path into out (.png or .svg, by its name); returns the document's kind."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    doc = load(path)
    if doc.kind == "stat" and doc.regions is not None and doc.regions.rows:
        doc = doc.regions
    fig = PLOTS[doc.kind](plt, doc)
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return doc.kind


def main(argv):
    p = argparse.ArgumentParser(prog="python3 -m tally")
    sub = p.add_subparsers(dest="command", required=True)
    plot = sub.add_parser("plot", help="plot a JSON document tally wrote")
    plot.add_argument("file")
    plot.add_argument("-o", "--output", help="OUT.png or OUT.svg (default: FILE with .png)")
    args = p.parse_args(argv)
    out = args.output or os.path.splitext(args.file)[0] + ".png"
    try:
        kind = render(args.file, out)
    except ImportError as e:
        print("python3 -m tally plot: plotting needs matplotlib (Debian: python3-matplotlib): %s" % e,
              file=sys.stderr)
        return 2
    except (OSError, ValueError) as e:
        print("python3 -m tally plot: %s: %s" % (args.file, e), file=sys.stderr)
        return 1
    print("%s: %s plot of %s" % (out, kind, args.file))
    return 0
