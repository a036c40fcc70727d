"""A measured snapshot drawn over the predicted timeline: its events placed on the prediction's axis, aligned at
step and phase boundaries, and the difference between the two peaks.

**The axis.** The predicted timeline (``engine.training.timeline``) has moments ``0 .. N-1``: step 1's, then step
2's. Read as a continuous axis, step 1 spans ``[0, a)`` (``a``: step 2's first moment) and step 2 ``[a, N)``.

**Slots.** Each measured step (``engine.snapshot.steps``) is drawn in a slot of that axis: the measured step
``first_step`` in step 1's, the next one in step 2's, later ones after it and earlier ones before step 1, each
as wide as step 2 (every later step is like step 2). ``first_step`` 0 draws the recording's first step as step 2:
a recording that began after the run's first optimizer step. The default is ``engine.snapshot.compare``'s rule
(``estimate_step``): the first measured step that is the estimate's step 1, else 0.

**Within a slot** the events are spread linearly between anchors: the step's first event at the slot's start,
the first event of its backward and of its optimizer step at the predicted moments where those phases begin,
and the event after its last at the slot's end. Events between two steps sit on their boundary; events before
the first step or after the last continue at the pace of the nearest anchors. A recording in which no step was
found is spread evenly over both steps.

**The user's adjustment** (``Alignment``): ``x' = x * scale + shift * (N - a)``: ``shift`` in steps, ``scale``
about the start of step 1.

**The peaks** compared are the recording's (the top of memory_viz's curve, ``SnapshotReport``) and the
prediction's (the estimate's allocated peak), as ``python -m engine snapshot --compare`` compares them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from engine.snapshot.compare import estimate_step
from engine.snapshot.report import Measurement, SnapshotReport, StepReport
from engine.training.timeline import Timeline

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]

#: the measured step drawn as step 1 (0: the recording's first step is drawn as step 2)
FirstStep = Annotated[int, Field(ge=0, le=10_000_000)]
#: how far the measured curves are moved along the axis, in steps (of step 2's width)
Shift = Annotated[float, Field(ge=-1.0, le=1.0)]
#: how much the measured curves are stretched along the axis, about the start of step 1
Scale = Annotated[float, Field(ge=0.5, le=2.0)]
#: the measured curves keep at most this many buckets (each drawn by its lowest and highest moment)
POINTS = 2000
#: the phases whose first event anchors a measured step to the prediction (forward starts the step)
_ANCHORED = ("backward", "optimizer_step")


class Alignment(BaseModel):
    """How the measured steps are laid over the predicted ones (module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    first_step: FirstStep = 1
    shift: Shift = 0.0
    scale: Scale = 1.0


@dataclass(frozen=True, slots=True)
class PeakDifference:
    """The recording's allocated peak against the prediction's; where in the recording it was."""

    predicted_bytes: int
    measured_bytes: int
    measured_step: int | None  # the measured step holding the peak (None: outside every step found)
    measured_phase: str | None  # forward, backward, optimizer_step (None: not inside one phase)

    @property
    def bytes(self) -> int:
        """Measured less predicted: positive when the run held more than predicted."""
        return self.measured_bytes - self.predicted_bytes

    @property
    def percent(self) -> float | None:
        """The difference in percent of the prediction (None for a prediction of nothing)."""
        return 100.0 * self.bytes / self.predicted_bytes if self.predicted_bytes else None


@dataclass(frozen=True, slots=True)
class Overlay:
    """The measured curves on the prediction's axis (``x``, in moments; each point the state after ``events``:
    -1 is the start of the recording), the measured peak's place on it, and the difference at the peak."""

    x: Floats
    events: Ints
    allocated: Ints
    reserved: Ints
    peak_x: float
    drawn_steps: tuple[int | None, int | None]  # the measured steps in step 1's and step 2's slots
    steps_found: int
    difference: PeakDifference


def auto_first_step(report: SnapshotReport) -> int:
    """The measured step to draw as step 1: the first that is the estimate's step 1, else 0 (module docstring)."""
    return next((s.step for s in report.steps if estimate_step(s) == 1), 0)


def default_alignment(report: SnapshotReport) -> Alignment:
    """The alignment a newly opened snapshot gets: ``auto_first_step``, no shift, no stretch."""
    return Alignment(first_step=auto_first_step(report))


@dataclass(frozen=True, slots=True)
class _Axis:
    """The prediction's axis: where step 2 starts, where it ends, and each step's phase starts (offsets)."""

    step2: int
    end: int
    offsets: dict[int, dict[str, int]]

    @classmethod
    def of(cls, t: Timeline) -> _Axis:
        starts: dict[int, int] = {}
        firsts: dict[tuple[int, str], int] = {}
        for p in t.points:
            starts.setdefault(p.step, p.index)
            firsts.setdefault((p.step, p.phase), p.index)
        offsets: dict[int, dict[str, int]] = {1: {}, 2: {}}
        for (step, phase), i in firsts.items():
            offsets[step][phase] = i - starts[step]
        return cls(starts.get(2, len(t.points)), len(t.points), offsets)

    def slot(self, k: int) -> tuple[float, float, dict[str, int]]:
        """Start, width and phase offsets of slot ``k`` (0: step 1's; 1: step 2's; others: as wide as step 2)."""
        width = self.end - self.step2
        if k == 0:
            return 0.0, float(self.step2), self.offsets[1]
        start = self.step2 + (k - 1) * width if k > 0 else k * width
        return float(start), float(width), self.offsets[2]


def _step_anchors(s: StepReport, start: float, width: float, offsets: dict[str, int]) -> list[tuple[int, float]]:
    found = [(s.first_event, start)]
    for phase in _ANCHORED:
        if phase in s.phases and phase in offsets:
            found.append((s.phases[phase].first_event, start + offsets[phase]))
    found.append((s.last_event + 1, start + width))
    return found


def _anchors(report: SnapshotReport, axis: _Axis, first_step: int) -> tuple[Floats, Floats]:
    """Events and their places, both increasing (an anchor that would go back is dropped)."""
    if not report.steps:
        return np.array([-1.0, float(report.events)]), np.array([0.0, float(axis.end)])
    raw = [a for s in report.steps for a in _step_anchors(s, *axis.slot(s.step - first_step))]
    events: list[float] = []
    places: list[float] = []
    for e, x in sorted(raw):
        if not events or (e > events[-1] and x >= places[-1]):
            events.append(float(e))
            places.append(x)
    if len(events) == 1:
        events.append(events[0] + 1.0)
        places.append(places[0] + 1.0)
    return np.asarray(events), np.asarray(places)


def places(report: SnapshotReport, t: Timeline, a: Alignment, events: npt.ArrayLike) -> Floats:
    """Where events (-1: the start) fall on the prediction's axis under alignment ``a`` (module docstring)."""
    axis = _Axis.of(t)
    ev, xs = _anchors(report, axis, a.first_step)
    e = np.asarray(events, dtype=np.float64)
    x = np.interp(e, ev, xs)
    left, right = e < ev[0], e > ev[-1]
    x[left] = xs[0] - (ev[0] - e[left]) * (xs[1] - xs[0]) / (ev[1] - ev[0])
    x[right] = xs[-1] + (e[right] - ev[-1]) * (xs[-1] - xs[-2]) / (ev[-1] - ev[-2])
    return x * a.scale + a.shift * (axis.end - axis.step2)


def _buckets(lo: int, hi: int, values: Ints, points: int) -> Ints:
    """Indices in ``[lo, hi)``: all of them, or the ends and each bucket's lowest and highest moment, in order."""
    n = hi - lo
    if n <= 2 * points:
        return np.arange(lo, hi, dtype=np.int64)
    width = -(-n // points)
    count = -(-n // width)
    part = values[lo:hi]
    padded_hi = np.full(count * width, np.iinfo(np.int64).min, dtype=np.int64)
    padded_hi[:n] = part
    padded_lo = np.full(count * width, np.iinfo(np.int64).max, dtype=np.int64)
    padded_lo[:n] = part
    base = np.arange(count, dtype=np.int64) * width + lo
    tops = padded_hi.reshape(count, width).argmax(axis=1) + base
    lows = padded_lo.reshape(count, width).argmin(axis=1) + base
    return np.unique(np.concatenate((tops, lows, [lo, hi - 1])))


def peak_difference(report: SnapshotReport, t: Timeline) -> PeakDifference:
    """The recording's allocated peak against the prediction's, and the step and phase that held it."""
    at = report.peak_event
    step = next((s for s in report.steps if s.first_event <= at <= s.last_event), None)
    phase = None
    if step is not None:
        phase = next((name for name, p in step.phases.items()
                      if p.first_event <= at <= p.last_event and p.peak_allocated_bytes == report.peak_allocated_bytes),
                     None)
    return PeakDifference(t.peak_allocated_bytes, report.peak_allocated_bytes,
                          None if step is None else step.step, phase)


def overlay(m: Measurement, t: Timeline, a: Alignment, points: int = POINTS) -> Overlay:
    """The measured allocated and reserved curves over the prediction's two steps (with one point beyond each
    end, so that lines reach the edges), at most ``2 * points + 2`` points: both ends, and each bucket's extremes."""
    r = m.report
    initial_reserved = int(r.timeline[0]["reserved_bytes"]) if r.timeline else 0
    allocated = np.concatenate(([r.before_recording_bytes], m.allocated)).astype(np.int64)
    reserved = np.concatenate(([initial_reserved], m.reserved)).astype(np.int64)
    x = places(r, t, a, np.arange(-1, r.events))
    axis = _Axis.of(t)
    lo = max(int(np.searchsorted(x, 0.0, side="left")) - 1, 0)
    hi = min(int(np.searchsorted(x, float(axis.end), side="right")) + 1, x.size)
    keep = _buckets(lo, hi, allocated, points)
    drawn = tuple(a.first_step + k if 1 <= a.first_step + k <= len(r.steps) else None for k in (0, 1))
    return Overlay(
        x=x[keep], events=keep - 1, allocated=allocated[keep], reserved=_bucket_reserved(reserved, keep, hi),
        peak_x=float(places(r, t, a, [r.peak_event])[0]), drawn_steps=(drawn[0], drawn[1]),
        steps_found=len(r.steps), difference=peak_difference(r, t),
    )


def _bucket_reserved(reserved: Ints, keep: Ints, hi: int) -> Ints:
    """Reserved bytes at the kept points, each the largest from it up to the next kept point (a segment held
    only between two kept points still shows)."""
    if keep.size == 0:
        return reserved[keep]
    return np.maximum.reduceat(reserved[:hi], keep).astype(np.int64)
