# SPDX-License-Identifier: MIT
"""Errors are exceptions carrying tally's explanation, the library's code and errno."""
import pytest

import tally


def test_bad_spec_has_caret_and_did_you_mean():
    with pytest.raises(tally.SpecError) as e:
        tally.Counter("task-clok,page-faults")
    msg = str(e.value)
    assert "did you mean 'task-clock'" in msg
    assert "^" in msg
    assert e.value.code == tally._tally.ESPEC and e.value.errno is None
    assert isinstance(e.value, tally.Error) and isinstance(e.value, ValueError)


def test_usage_error_for_a_read_before_open():
    c = tally.Counter("page-faults")
    with pytest.raises(tally.UsageError) as e:
        c.read()
    assert e.value.code == tally._tally.ESTATE


@pytest.mark.skipif(tally.doctor()["nr_core_pmus"] > 0, reason="instructions counts on this machine (a CPU PMU)")
def test_not_supported_alone_fails_open_with_the_reason():
    c = tally.Counter("instructions")
    with pytest.raises(tally.NotSupportedError) as e:
        c.open()
    assert ("no hardware PMU" in str(e.value) or "no CPU PMU" in str(e.value)) and e.value.code < 0


def test_permission_error_class_and_attributes():
    exc = tally._tally.exception(-13, "perf_event_paranoid 3 refuses this")
    assert isinstance(exc, tally.PermissionError) and isinstance(exc, PermissionError)
    assert exc.errno == 13 and exc.code == -13 and "paranoid" in str(exc)
