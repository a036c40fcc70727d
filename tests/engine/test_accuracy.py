"""The estimate against every bundled measurement: the targets of issue 3, checked, not claimed."""

import pytest

from engine.training.accuracy import gpu_runs, summarize, traced_steps


def test_traced_steps_within_targets():
    s = summarize(traced_steps())
    assert s is not None
    assert s.runs >= 40
    assert s.median_abs_error <= 0.05
    assert s.worst_abs_error <= 0.10


def test_real_gpu_runs_within_two_percent():
    s = summarize(gpu_runs())
    assert s is not None
    assert s.runs == 8
    assert s.worst_abs_error <= 0.02


@pytest.mark.parametrize("run", [r for r in traced_steps() if r.comparable], ids=lambda r: r.id)
def test_each_traced_step_within_ten_percent(run):
    assert abs(run.error) <= 0.10, f"{run.described}: {run.error:+.2%}"
