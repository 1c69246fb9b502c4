# SPDX-License-Identifier: MIT
"""Counter, count(), results, snapshots, stat(), metrics: real counts from software events (this VM has no
hardware PMU), and `instructions` reported as not supported with its reason, never as 0."""
import mmap
import os
import threading

import pytest

import tally

# Whether a CPU PMU counts instructions here: a machine may have other hardware PMUs (RAPL's power) and none.
HW = tally.doctor()["nr_core_pmus"] > 0


def touch_pages(n):
    """Writes n fresh pages (an anonymous map: malloc could reuse pages already faulted in)."""
    buf = mmap.mmap(-1, n * 4096)
    for i in range(0, n * 4096, 4096):
        buf[i] = 1
    buf.close()


def test_count_gives_page_faults():
    with tally.count("task-clock,page-faults") as c:
        touch_pages(256)
    assert c["page-faults"] >= 200  # 256 fresh pages, each written once
    assert c["task-clock"] > 0
    r = c.results[1]
    assert isinstance(r, tally.Result)
    assert (r.name, r.status, r.ratio) == ("page-faults", "counted", 1.0)
    assert r.value == r.scaled and r.enabled > 0 and r.running == r.enabled


def test_result_is_immutable():
    with tally.count("task-clock") as c:
        pass
    with pytest.raises((AttributeError, TypeError)):
        c.results[0].value = 1


@pytest.mark.skipif(HW, reason="this machine has a hardware PMU: instructions counts here")
def test_not_supported_is_never_zero():
    with tally.count("page-faults,instructions") as c:
        touch_pages(4)
    r = c.results[1]
    assert r.status == "not-supported" and r.note and r.error < 0
    with pytest.raises(tally.NotSupportedError) as e:
        c["instructions"]
    assert "no hardware PMU" in str(e.value) or "no CPU PMU" in str(e.value)  # beside RAPL's power
    assert c["page-faults"] >= 4


def test_unknown_name_is_a_key_error():
    with tally.count("page-faults") as c:
        pass
    with pytest.raises(KeyError):
        c["cycles"]


def test_counter_methods_in_c_order():
    c = tally.Counter("page-faults,task-clock")
    assert c.names == ("page-faults", "task-clock")
    with pytest.raises(tally.UsageError):
        c.read()  # before open
    c.open()
    c.start()
    before = c.snapshot()
    touch_pages(64)
    after = c.snapshot()
    touch_pages(64)
    c.stop()
    total = c.read()
    delta = after - before
    assert 64 <= delta[0].scaled < total[0].scaled
    assert c.read_values()[0] == total[0].scaled
    c.reset()
    assert c.read()[0].scaled < 64
    c.close()


def test_counter_on_a_command():
    c = tally.Counter("task-clock,context-switches", command=["sleep", "0.01"])
    c.open()
    c.start()
    assert c.pid > 0
    exit = c.wait()
    assert exit["code"] == 0 and exit["wall_s"] >= 0.01
    assert c.read()[0].status == "counted"
    c.close()


def test_stat_counts_a_command_with_the_gil_released():
    ticks = []
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            ticks.append(1)
            stop.wait(0.001)

    t = threading.Thread(target=spin)
    t.start()
    try:
        s = tally.stat(["sleep", "0.1"], events="task-clock,page-faults")
    finally:
        stop.set()
        t.join()
    assert s.exit["code"] == 0
    assert s["page-faults"] > 0
    assert len(ticks) > 10  # the other thread ran while stat waited


def test_stat_of_a_missing_command_says_why():
    with pytest.raises(tally.Error) as e:
        tally.stat(["/nonexistent/prog"])
    assert e.value.code < 0


def test_pid_and_tid_targets():
    for kw in ({"pid": os.getpid()}, {"tid": [threading.get_native_id()]}):
        c = tally.Counter("page-faults", **kw)
        c.open()
        c.start()
        touch_pages(32)
        c.stop()
        assert c.read()[0].scaled >= 32
        c.close()


def test_metrics_are_evaluated_by_the_library():
    with tally.count("task-clock", metrics="CPUs_utilized") as c:
        sum(range(100000))
    m = c.metrics()
    assert [x["name"] for x in m] == ["CPUs_utilized"]
    assert m[0]["available"] and 0 < m[0]["value"] <= 1.5


def test_unknown_metric_says_did_you_mean():
    with pytest.raises(tally.Error) as e:
        tally.Counter("task-clock", metrics="IPx")
    assert "did you mean" in str(e.value)


def test_fork_child_counts_on_its_own():
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            with tally.count("page-faults") as c:
                touch_pages(16)
            os.write(w, b"%d" % c["page-faults"])
        finally:
            os._exit(0)
    os.close(w)
    got = os.read(r, 64)
    os.waitpid(pid, 0)
    assert int(got) >= 16


def test_list_events_and_doctor():
    assert "page-faults" in tally.list_events("fault")
    assert "cs" in tally.list_events("c?")
    assert all(n.startswith("sched:") for n in tally.list_events("sched:*", tracepoints=True))
    facts = tally.doctor()
    assert facts["kernel"] and facts["online_cpus"] >= 1
    assert "software" in facts["pmus"]


def test_a_counter_another_thread_waits_on_is_refused():
    c = tally.Counter("task-clock", command=["sleep", "1"])
    c.open()
    c.start()
    t = threading.Thread(target=c.wait)
    t.start()
    refused = None
    try:
        while t.is_alive() and refused is None:  # until the other thread is inside wait()
            try:
                c.read()
            except tally.UsageError as e:
                refused = str(e)
            threading.Event().wait(0.001)
    finally:
        t.join()
    assert refused and "in use" in refused
    assert c.read()[0].status == "counted"
    c.close()


@pytest.mark.skipif(HW, reason="IPC is available on this machine")
def test_a_metric_without_its_events_says_why():
    with tally.count("task-clock", metrics="IPC") as c:
        pass
    m = c.metrics()[0]
    assert m["name"] == "IPC" and not m["available"] and m["reason"] and m["value"] == 0
