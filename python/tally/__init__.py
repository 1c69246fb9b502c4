# SPDX-License-Identifier: MIT
"""tally: count CPU performance-monitoring events from Python, over libtally's public API.

    import tally
    with tally.count("task-clock,page-faults,instructions:u") as c:
        work()
    c["page-faults"]          # the scaled count (raises if it did not count, never a silent 0)
    c.results                 # one tally.Result per event: name, value, enabled, running, scaled, ...

    with tally.region("solve"):   # or @tally.region("solve"): the C zero-configuration regions
        solve()

Errors are tally.Error (SpecError, NotSupportedError, PermissionError, UsageError) whose message is
tally's explanation, with .code (the library's, negative) and .errno. docs/python.md has the whole API.
"""
import fnmatch
import functools

from . import _tally
from ._tally import (Error, NotSupportedError, PermissionError, RegionSet, Result, Snapshot, SpecError,
                     UsageError, doctor, regions_write)
from .load import load

__all__ = ["Counter", "Error", "NotSupportedError", "PermissionError", "RegionSet", "Result", "Snapshot",
           "SpecError", "Stat", "UsageError", "count", "doctor", "list_events", "load", "region",
           "regions_write", "stat", "value_of", "version"]

__version__ = _tally.version()


def version():
    """libtally's version, "MAJOR.MINOR.PATCH"."""
    return _tally.version()


def value_of(result):
    """The count of one Result: its scaled value when it counted, else the exception that says why
    (NotSupportedError with the reason for an event this machine cannot count; Error when it never ran)."""
    if result.status in ("counted", "scaled"):
        return result.scaled
    if result.status == "not-supported":
        exc = _tally.exception(result.error or -19, "%s: not supported: %s" % (result.name, result.note))
        if not isinstance(exc, NotSupportedError):
            exc = NotSupportedError(str(exc))
            exc.code, exc.errno = result.error, None
        raise exc
    raise _tally.exception(_tally.ENOTCOUNTED, "%s: not counted%s" % (
        result.name, ": " + result.note if result.note else " (it never ran on a counter)"))


def _find(results, name):
    for r in results:
        if r.name == name:
            return r
    raise KeyError("%r: no such event (events: %s)" % (name, ", ".join(r.name for r in results)))


class Counter(_tally.Counter):
    """A counter (tally_counter): Counter(spec, *, pid=None, tid=None, cpus=None, command=None,
    inherit=True, process=False, metrics=None, no_packing=False, no_user_reads=False).

    The target is the calling thread unless one of pid (a process), tid (a thread id or a list),
    cpus (a CPU list such as "0-3", system-wide), command (an argv list tally launches) or
    process=True (this process and its later threads) says otherwise. Methods as in C: open, start,
    stop, resume, reset, read (a tuple of Result), read_values (the counts only), snapshot (after -
    before is the interval), wait (a command's exit, the GIL released), metrics, close.

    As in C, a counter is used by one thread at a time; only the thread that opened it reads from user
    space (any other thread reads through read(2)). A forked child's reads go through read(2) too.
    Also a context manager: open and start on entry, stop, read and close on exit."""

    results = ()

    def read(self):
        self.results = super().read()
        return self.results

    def __getitem__(self, name):
        """The count of event `name` from the latest read (see value_of)."""
        return value_of(_find(self.results, name))

    def __enter__(self):
        self.open()
        self.start()
        return self

    def __exit__(self, *exc):
        try:
            self.stop()
            self.read()
        finally:
            self.close()
        return False


def count(spec, **target):
    """A Counter on the calling thread (or the target given as Counter's keywords) that counts the
    `with` block: c["page-faults"] and c.results afterwards."""
    return Counter(spec, **target)


class region(_tally.Region):
    """A named region of the process-wide session (tally_region_begin/end: TALLY_EVENTS, TALLY_OUTPUT,
    the same calibration and output at exit as a C program). A context manager, and a decorator:

        with tally.region("solve"): ...
        @tally.region("solve")
        def solve(): ...

    For libraries, RegionSet(spec) is the handle form: set.region(name) is its context manager,
    set.read() its results, set.write("json") its output."""

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper


def list_events(pattern=None, tracepoints=True):
    """The event names tally can take here: built-ins, every PMU's sysfs aliases ("pmu/alias/") and
    tracepoints ("system:event"), as `tally list` gives them. pattern: a glob ("*fault*") or, without
    glob characters, a substring; None: everything."""
    names = []
    for name, alias, _kind in _tally.builtins():
        names.append(name)
        if alias:
            names.append(alias)
    names += _tally.pmu_events()
    if tracepoints:
        names += _tally.tracepoints()
    if pattern is None:
        return names
    if not any(ch in pattern for ch in "*?["):
        return [n for n in names if pattern in n]
    return [n for n in names if fnmatch.fnmatchcase(n, pattern)]


class Stat:
    """What stat() counted: results (a tuple of Result), exit (the command's exit: wall_s, user_s,
    sys_s, pid, status, code), metrics (the metrics asked for); stat["event"] is an event's count."""

    def __init__(self, results, exit, metrics):
        self.results, self.exit, self.metrics = results, exit, metrics

    def __getitem__(self, name):
        return value_of(_find(self.results, name))

    def __repr__(self):
        return "Stat(exit=%r, results=%r)" % (self.exit, self.results)


def stat(argv, events="task-clock,context-switches,page-faults", metrics=None, inherit=True):
    """Launches argv and counts it as `tally stat -e EVENTS -- ARGV` does (from its exec, children and
    threads too), waiting with the GIL released. Returns a Stat."""
    c = Counter(events, command=list(argv), metrics=metrics, inherit=inherit)
    c.open()
    try:
        c.start()
        exit = c.wait()
        results = c.read()
        return Stat(results, exit, c.metrics())
    finally:
        c.close()
