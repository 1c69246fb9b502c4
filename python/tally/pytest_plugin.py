# SPDX-License-Identifier: MIT
"""The pytest plugin (entry point pytest11 `tally`; in a build tree `-p tally.pytest_plugin`).

    pytest --tally=instructions:u,page-faults [--tally-json=FILE] [--tally-strict]

counts each test's call (setup and teardown excluded) on the thread that runs it, prints a table in the
terminal summary (sorted by the first event, largest first) and, with --tally-json, writes
{"tests": [{"nodeid": ..., "events": {"page-faults": 1234, ...}, "status": {...}, "reasons": {...}}]}.
An event tally cannot count here is "not counted" with its reason (None in the JSON), never 0, and fails
the run only with --tally-strict. The fixture `tally_counts` gives a test its own counts so far:
`assert tally_counts["instructions:u"] < 2e6` (a count that cannot be taken skips the test, or fails it
with --tally-strict).
"""
import json

import pytest

import tally



class _Session:
    """The one counter of the run, its per-test records and the snapshot where the current test began."""

    def __init__(self, spec, strict):
        self.spec, self.strict = spec, strict
        self.records, self.begin, self.error = [], None, None
        self.counter = tally.Counter(spec)  # a bad spec raises here, with its caret
        try:
            self.counter.open()
            self.counter.start()
        except tally.Error as e:  # nothing of the spec counts here: every test says why
            self.error = str(e)

    def snapshot(self):
        return None if self.error else self.counter.snapshot()

    def delta(self, since):
        if self.error:
            return None
        return self.counter.snapshot() - since

    def record(self, nodeid, results):
        events, status, reasons = {}, {}, {}
        for name in self.counter.names:
            events[name], status[name], reasons[name] = None, "not-supported", self.error
        for r in results or ():
            counted = r.status in ("counted", "scaled")
            events[r.name] = r.scaled if counted else None
            status[r.name] = r.status
            reasons[r.name] = None if counted else (r.note or "it never ran on a counter")
        self.records.append({"nodeid": nodeid, "events": events, "status": status, "reasons": reasons})

    def not_counted(self):
        return [(rec["nodeid"], name, rec["reasons"][name]) for rec in self.records
                for name, v in rec["events"].items() if v is None]


class Counts:
    """The `tally_counts` fixture: counts[name] is the event's count since the test's call began."""

    def __init__(self, session):
        self._session = session

    def __getitem__(self, name):
        s = self._session
        if s.begin is None:
            raise tally.UsageError("tally_counts is read inside the test's call")
        results = s.delta(s.begin)
        if results is None:
            return self._cannot(name, s.error)
        for r in results:
            if r.name == name:
                try:
                    return tally.value_of(r)
                except tally.Error as e:
                    return self._cannot(name, str(e))
        raise KeyError("%r is not among --tally's events (%s)" % (name, ", ".join(s.counter.names)))

    def _cannot(self, name, reason):
        if self._session.strict:
            raise tally.NotSupportedError("%s: not counted: %s" % (name, reason))
        pytest.skip("tally cannot count %s here: %s" % (name, _one_line(reason)))


def pytest_addoption(parser):
    group = parser.getgroup("tally", "performance counters (tally)")
    group.addoption("--tally", metavar="SPEC", default=None,
                    help="count each test's call with these events (a tally/perf event spec)")
    group.addoption("--tally-json", metavar="FILE", default=None, help="write each test's counts to FILE")
    group.addoption("--tally-strict", action="store_true", default=False,
                    help="fail the run when an event cannot be counted")


def _session(config):
    return getattr(config, "_tally_session", None)


def pytest_configure(config):
    spec = config.getoption("--tally")
    if spec:
        try:
            config._tally_session = _Session(spec, config.getoption("--tally-strict"))
        except tally.Error as e:
            raise pytest.UsageError("--tally=%s: %s" % (spec, e))


@pytest.fixture
def tally_counts(request):
    """The test's own counts so far (needs --tally=SPEC; without it the test is skipped)."""
    s = _session(request.config)
    if s is None:
        pytest.skip("tally_counts needs --tally=SPEC")
    return Counts(s)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    s = _session(item.config)
    if s is None:
        yield
        return
    s.begin = s.snapshot()
    try:
        yield
    finally:
        s.record(item.nodeid, s.delta(s.begin))
        s.begin = None


def _one_line(text):
    return " ".join(line.strip() for line in (text or "?").splitlines())


def _cell(v):
    return "not counted" if v is None else "{:,}".format(v)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    s = _session(config)
    if s is None or not s.records:
        return
    names = list(s.counter.names)
    first = names[0]
    rows = sorted(s.records, key=lambda r: -1 if r["events"][first] is None else r["events"][first],
                  reverse=True)
    tr = terminalreporter
    tr.section("tally: %s per test (call only)" % s.spec)
    width = max(len(r["nodeid"]) for r in rows)
    tr.write_line("  ".join(["test".ljust(width)] + [n.rjust(max(14, len(n))) for n in names]))
    for r in rows:
        tr.write_line("  ".join([r["nodeid"].ljust(width)] +
                                [_cell(r["events"][n]).rjust(max(14, len(n))) for n in names]))
    reasons = dict.fromkeys((name, reason) for _, name, reason in s.not_counted())
    for name, reason in reasons:
        tr.write_line("not counted: %s: %s" % (name, _one_line(reason)))


def pytest_sessionfinish(session, exitstatus):
    s = _session(session.config)
    if s is None:
        return
    path = session.config.getoption("--tally-json")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"spec": s.spec, "tests": s.records}, f, indent=1)
    if s.strict and s.not_counted() and session.exitstatus == 0:
        session.exitstatus = 1


def pytest_unconfigure(config):
    s = _session(config)
    if s is not None:
        s.counter.close()
