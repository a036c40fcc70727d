"""engine.snapshot.overlay: measured events placed on the prediction's axis at step and phase boundaries, the
user's shift and stretch, the curves' extremes kept, and the difference at the peak."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from engine.catalog import get_gpu, get_model
from engine.snapshot.overlay import Alignment, auto_first_step, default_alignment, overlay, peak_difference, places
from engine.snapshot.report import Measurement, measure
from engine.specs import TrainingSetup
from engine.training.timeline import Timeline, timeline
from tools.snapshot_fixtures import StepShape, training


@pytest.fixture(scope="module")
def measured() -> Measurement:
    return measure(training(StepShape(layers=4), steps=3, stacks="python").snapshot(), "s")


@pytest.fixture(scope="module")
def predicted() -> Timeline:
    return timeline(get_model("llama-3.2-1b"), TrainingSetup(seq_len=512), get_gpu("a100-80gb"))


def _step_two_start(t: Timeline) -> int:
    return next(p.index for p in t.points if p.step == 2)


def _phase_start(t: Timeline, step: int, phase: str) -> int:
    return next(p.index for p in t.points if p.step == step and p.phase == phase)


def test_steps_and_phases_land_on_the_predicted_boundaries(measured: Measurement, predicted: Timeline) -> None:
    r, t = measured.report, predicted
    a, n = _step_two_start(t), len(t.points)
    s1, s2, s3 = r.steps
    marks = [s1.first_event, s1.phases["backward"].first_event, s1.phases["optimizer_step"].first_event,
             s1.last_event + 1, s2.first_event, s2.phases["backward"].first_event, s2.last_event + 1,
             s3.last_event + 1]
    x = places(r, t, Alignment(first_step=1), marks)
    expected = [0, _phase_start(t, 1, "backward"), _phase_start(t, 1, "optimizer_step"), a, a,
                _phase_start(t, 2, "backward"), n, n + (n - a)]
    assert x.tolist() == pytest.approx(expected)


def test_halfway_through_a_phase_is_halfway_between_its_anchors(measured: Measurement, predicted: Timeline) -> None:
    s1 = measured.report.steps[0]
    b = s1.phases["backward"].first_event
    o = s1.phases["optimizer_step"].first_event
    x = places(measured.report, predicted, Alignment(), [b, (b + o) / 2, o])
    assert x[1] == pytest.approx((x[0] + x[2]) / 2)


def test_first_step_zero_draws_the_first_measured_step_as_step_two(measured: Measurement, predicted: Timeline) -> None:
    s1 = measured.report.steps[0]
    a, n = _step_two_start(predicted), len(predicted.points)
    x = places(measured.report, predicted, Alignment(first_step=0), [s1.first_event, s1.last_event + 1])
    assert x.tolist() == pytest.approx([a, n])


def test_shift_is_in_steps_and_scale_stretches_from_step_one(measured: Measurement, predicted: Timeline) -> None:
    events = [s.first_event for s in measured.report.steps]
    base = places(measured.report, predicted, Alignment(), events)
    width = len(predicted.points) - _step_two_start(predicted)
    moved = places(measured.report, predicted, Alignment(shift=-0.5, scale=2.0), events)
    assert moved.tolist() == pytest.approx((base * 2.0 - 0.5 * width).tolist())


def test_events_outside_steps_continue_at_the_nearest_pace(measured: Measurement, predicted: Timeline) -> None:
    r = measured.report
    x = places(r, predicted, Alignment(), [-1, 0, r.steps[0].first_event, r.events - 1])
    assert np.all(np.diff(x) >= 0)
    assert x[0] < 0  # the start of the recording, before step 1 began


def test_no_steps_found_spreads_the_recording_over_both_steps(predicted: Timeline) -> None:
    snap = training(steps=2, stacks="python").snapshot()
    for trace in snap["device_traces"]:
        for e in trace:
            e["frames"] = []
    for seg in snap["segments"]:
        for block in seg["blocks"]:
            block["frames"] = []
    m = measure(snap, "s")
    assert m.report.steps == []
    x = places(m.report, predicted, Alignment(), [-1, m.report.events])
    assert x.tolist() == pytest.approx([0, len(predicted.points)])
    assert overlay(m, predicted, Alignment()).drawn_steps == (None, None)


def test_the_default_alignment_follows_compare(measured: Measurement) -> None:
    assert measured.report.steps[0].optimizer_states_created_bytes > 0  # step 1 created AdamW's states
    assert auto_first_step(measured.report) == 1
    assert default_alignment(measured.report) == Alignment(first_step=1, shift=0.0, scale=1.0)


def test_a_recording_of_later_steps_only_starts_at_step_two(predicted: Timeline) -> None:
    snap = training(StepShape(layers=4), steps=3, stacks="python").snapshot()
    cut = measure(snap, "s").report.steps[1].first_event
    later = measure({**snap, "device_traces": [snap["device_traces"][0][cut:]]}, "s")  # step 1 not recorded
    assert later.report.steps
    assert all(s.optimizer_states_created_bytes == 0 for s in later.report.steps)
    assert auto_first_step(later.report) == 0
    first = later.report.steps[0]
    a, n = _step_two_start(predicted), len(predicted.points)
    assert places(later.report, predicted, default_alignment(later.report),
                  [first.first_event, first.last_event + 1]).tolist() == pytest.approx([a, n])


def test_the_overlay_keeps_the_extremes_and_the_window(measured: Measurement, predicted: Timeline) -> None:
    few = overlay(measured, predicted, Alignment(first_step=1), points=8)
    assert len(few.x) <= 2 * 8 + 2  # each bucket's extremes, and both ends
    assert np.all(np.diff(few.x) >= 0)
    allocated = np.concatenate(([measured.report.before_recording_bytes], measured.allocated))
    x_all = places(measured.report, predicted, Alignment(first_step=1), np.arange(-1, measured.report.events))
    inside = np.flatnonzero((x_all >= 0) & (x_all <= len(predicted.points)))
    window = allocated[inside[0] - 1:inside[-1] + 2]  # one moment beyond each end: lines reach the edges
    assert (few.allocated.max(), few.allocated.min()) == (window.max(), window.min())
    assert few.x[0] < 0
    assert few.x[-1] >= x_all[inside[-1]]
    assert few.reserved.max() == max(measured.reserved.max(), measured.report.timeline[0]["reserved_bytes"])
    full = overlay(measured, predicted, Alignment(first_step=1))
    assert full.allocated.tolist() == allocated[full.events + 1].tolist()
    assert full.drawn_steps == (1, 2)
    assert full.steps_found == 3


def test_the_difference_at_the_peak(measured: Measurement, predicted: Timeline) -> None:
    d = peak_difference(measured.report, predicted)
    assert d.predicted_bytes == predicted.peak_allocated_bytes
    assert d.measured_bytes == measured.report.peak_allocated_bytes
    assert d.bytes == measured.report.peak_allocated_bytes - predicted.peak_allocated_bytes
    assert d.percent == pytest.approx(100 * d.bytes / predicted.peak_allocated_bytes)
    step = next(s for s in measured.report.steps if s.first_event <= measured.report.peak_event <= s.last_event)
    assert d.measured_step == step.step
    assert d.measured_phase is not None
    phase = step.phases[d.measured_phase]
    assert phase.peak_allocated_bytes == measured.report.peak_allocated_bytes


@pytest.mark.parametrize("field", [{"shift": 1.5}, {"scale": 0.1}, {"first_step": -1}, {"other": 1}])
def test_alignment_bounds(field: dict[str, float]) -> None:
    with pytest.raises(ValidationError):
        Alignment(**field)
