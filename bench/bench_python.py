#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The cost of tally from Python, against the floors it cannot go under.

1. A region (begin + end) from Python: `with set.region("r"):` (RegionSet, the handle form) and
   `with tally.region("r"):` (the zero-configuration session), against
   - the empty `with` block of the cheapest C-extension context manager (tally._tally._Nop: __enter__
     and __exit__ in C doing nothing): what any Python context manager costs, and
   - the C region itself: the same set's begin_id + end_id in a C loop in this process (and, for
     reference, bench/bench_region's figure from the build, another process).
   The floor of a Python region is the two together; the goal is a Python region within 1.3x of it.
2. A read: c.read() (a tuple of Result) and c.read_values() (the counts only), against os.read of the
   same group (the same 4 events opened here through perf_event_open(2) with ctypes, one read(2) of its
   leader, nothing decoded): what a Python caller without a library pays.

Interleaved rounds, each side timed per round with perf_counter_ns; printed: medians of the ns per
operation and of the per-round ratios. One run, no threshold: the figures go in the commit or report.

    PYTHONPATH=build/python python3 bench/bench_python.py [build-dir] [ops-per-round [rounds]]
"""
import ctypes
import os
import statistics
import subprocess
import sys
import time

import tally
from tally import _tally

SPEC = "{task-clock,page-faults,minor-faults,context-switches}"
SW_CONFIGS = (1, 2, 6, 3)  # PERF_COUNT_SW_TASK_CLOCK, _PAGE_FAULTS, _PAGE_FAULTS_MIN, _CONTEXT_SWITCHES


def timed(fn, n):
    t = time.perf_counter_ns()
    fn(n)
    return (time.perf_counter_ns() - t) / n


def nop_with(n):
    nop = _tally._Nop()
    for _ in range(n):
        with nop:
            pass


def set_region(region):
    def run(n):
        for _ in range(n):
            with region:
                pass
    return run


class Attr(ctypes.Structure):
    """struct perf_event_attr up to config (the kernel takes a shorter struct by its size field)."""
    _fields_ = [("type", ctypes.c_uint32), ("size", ctypes.c_uint32), ("config", ctypes.c_uint64),
                ("sample_period", ctypes.c_uint64), ("sample_type", ctypes.c_uint64),
                ("read_format", ctypes.c_uint64), ("flags", ctypes.c_uint64), ("wakeup", ctypes.c_uint32),
                ("bp_type", ctypes.c_uint32), ("config1", ctypes.c_uint64)]


def bare_group():
    """The 4 software events as one group of this thread, as a caller without a library opens them."""
    libc = ctypes.CDLL(None, use_errno=True)
    nr_perf_event_open = {"x86_64": 298, "aarch64": 241}[os.uname().machine]
    fds = []
    for config in SW_CONFIGS:
        a = Attr(type=1, size=ctypes.sizeof(Attr), config=config, read_format=1 | 2 | 4 | 8)  # times, id, group
        fd = libc.syscall(nr_perf_event_open, ctypes.byref(a), 0, -1, fds[0] if fds else -1, 0)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "perf_event_open")
        fds.append(fd)
    return fds, 8 * (3 + 2 * len(fds))


def os_reads(fd, size):
    def run(n):
        for _ in range(n):
            os.read(fd, size)
    return run


def counter_reads(method):
    def run(n):
        for _ in range(n):
            method()
    return run


def rounds(sides, n, nr_rounds):
    """{name: [ns per op per round]}, the order of the sides alternating between rounds."""
    times = {name: [] for name in sides}
    names = list(sides)
    for r in range(nr_rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            times[name].append(timed(sides[name], n))
    return times


def ratio(times, a, b):
    return statistics.median(x / y for x, y in zip(times[a], times[b]))


def c_region_ns(build):
    path = os.path.join(build, "bench", "bench_region")
    if not os.access(path, os.X_OK):
        return None
    out = subprocess.run([path], capture_output=True, text=True).stdout
    # "region begin+end 1675 ns, two bare group reads 1448 ns (...)"
    words = out.split()
    return float(words[words.index("begin+end") + 1]) if "begin+end" in words else None


def main(argv):
    build = argv[0] if argv else "build"
    n = int(argv[1]) if len(argv) > 1 else 20000
    nr_rounds = int(argv[2]) if len(argv) > 2 else 11
    os.environ.setdefault("TALLY_EVENTS", SPEC)
    os.environ.setdefault("TALLY_OUTPUT", os.devnull)
    s = tally.RegionSet(SPEC)
    if s.error:
        print("bench_python: the region set cannot count here: " + s.error)
        return 1
    rid = s.id("r")
    sides = {"nop with": nop_with, "C region": lambda k: s._loop(rid, k), "RegionSet with": set_region(s.region("r")),
             "tally.region with": set_region(tally.region("r"))}
    t = rounds(sides, n, nr_rounds)
    c_ns = c_region_ns(build)
    med = {k: statistics.median(v) for k, v in t.items()}
    print("regions, %d rounds of %d, ns per begin+end (medians):" % (nr_rounds, n))
    for k, v in med.items():
        print("  %-20s %8.0f ns" % (k, v))
    if c_ns:
        print("  %-20s %8.0f ns (another process)" % ("bench/bench_region", c_ns))
    floor = [c + w for c, w in zip(t["C region"], t["nop with"])]
    for k in ("RegionSet with", "tally.region with"):
        print("  %s / (C region + nop with) %.3fx (per-round median; goal 1.3x)"
              % (k, statistics.median(x / f for x, f in zip(t[k], floor))))

    fds, size = bare_group()
    c = tally.Counter(SPEC)
    c.open()
    c.start()
    reads = {"os.read": os_reads(fds[0], size), "c.read()": counter_reads(c.read),
             "c.read_values()": counter_reads(c.read_values)}
    t = rounds(reads, n, nr_rounds)
    c.close()
    for fd in fds:
        os.close(fd)
    print("reads of the 4-event group, ns per read (medians):")
    for k, v in t.items():
        print("  %-20s %8.0f ns" % (k, statistics.median(v)))
    print("  c.read() / os.read %.2fx, c.read_values() / os.read %.2fx (per-round medians)"
          % (ratio(t, "c.read()", "os.read"), ratio(t, "c.read_values()", "os.read")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
