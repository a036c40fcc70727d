"""What a snapshot says, for one device: peaks, timeline, steps, and the peak broken down by term.

``analyse`` runs the pieces in order: ``schema.check`` -> ``replay.replay`` (memory_viz's arithmetic) ->
``steps.find_phases`` (phases and steps from frames) -> ``attribution`` (terms at the peak), and checks the
allocator model against the recorded reserved bytes (``allocator_check``). ``measure`` does the
same and also keeps the allocated and reserved bytes after every event (a ``Measurement``), for a view that
draws the curves at its own resolution (the GUI's Timeline page).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from engine.snapshot import attribution, schema
from engine.snapshot.allocator_check import AllocatorCheck, simulate
from engine.snapshot.attribution import LiveBlock
from engine.snapshot.frames import Mark, Phase
from engine.snapshot.load import Progress, SnapshotError
from engine.snapshot.replay import Ints, Replay, replay
from engine.snapshot.steps import CORE_PHASES, Phases, Step, find_phases
from engine.terms import TermName

#: the timeline keeps at most this many points (each the largest moment of its share of the events)
TIMELINE_POINTS = 2000
#: the largest blocks live at the peak that the report lists with their frames
PEAK_BLOCKS = 20


@dataclass(frozen=True, slots=True)
class PhaseReport:
    """The largest allocated total during one phase of a step (over all its runs)."""

    first_event: int
    last_event: int
    peak_allocated_bytes: int


@dataclass(frozen=True, slots=True)
class StepReport:
    """One training step found in the trace."""

    step: int
    first_event: int
    last_event: int
    complete: bool  # reached an optimizer step
    peak_allocated_bytes: int
    peak_event: int
    optimizer_states_created_bytes: int  # > 0: this is the run's first optimizer step (states made lazily)
    phases: dict[str, PhaseReport]


@dataclass(frozen=True, slots=True)
class SnapshotReport:
    """Everything ``python -m engine snapshot`` prints (``to_json``)."""

    file: str
    device: int
    devices: list[int]
    events: int
    peak_allocated_bytes: int
    peak_event: int  # -1: before the first event
    peak_reserved_bytes: int
    before_recording_bytes: int  # allocated at the start: blocks alive before recording began
    final_allocated_bytes: int
    final_reserved_bytes: int
    stacks: str
    ooms: list[dict[str, Any]]
    timeline: list[dict[str, Any]]
    steps: list[StepReport]
    by_term: dict[str, int]
    attribution: str
    peak_blocks: list[LiveBlock] = field(default_factory=list)
    #: the allocator model replayed over the trace, against the recorded reserved bytes (issue 26)
    allocator_check: AllocatorCheck = field(default_factory=lambda: AllocatorCheck(False, "not run"))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _max_in(values: Ints, first: int, last: int) -> tuple[int, int]:
    part = values[first:last + 1]
    i = int(part.argmax())
    return int(part[i]), first + i


def _states_created(r: Replay, ph: Phases) -> tuple[Ints, Ints]:
    """Starts (ascending) and cumulative sizes of the elements that are optimizer states (attribution's rule:
    allocated in an optimizer step and outliving it, unless their category says otherwise)."""
    starts = r.starts
    ok = starts >= 0
    run_end = np.full(starts.shape, -1, dtype=np.int64)
    run_end[ok] = ph.run_end[starts[ok]]
    is_state = ok & (ph.phase == Phase.OPTIMIZER_STEP) & (r.ends > run_end) & ((ph.mark & int(Mark.CLIP)) == 0)
    candidates = np.flatnonzero(is_state)
    keep = [attribution.category_term(r, k) in (None, TermName.OPTIMIZER_STATES) for k in candidates.tolist()]
    chosen = candidates[np.asarray(keep, dtype=np.bool_)] if candidates.size else candidates
    return starts[chosen], np.cumsum(r.sizes[chosen])


def _step_report(r: Replay, s: Step, created: tuple[Ints, Ints]) -> StepReport:
    peak, at = _max_in(r.allocated, s.first, s.last)
    phases: dict[str, PhaseReport] = {}
    for run in s.runs:
        if run.phase not in CORE_PHASES:
            continue
        top, _ = _max_in(r.allocated, run.first, run.last)
        old = phases.get(run.phase.label)
        if old is None:
            phases[run.phase.label] = PhaseReport(run.first, run.last, top)
        else:
            phases[run.phase.label] = PhaseReport(old.first_event, run.last, max(old.peak_allocated_bytes, top))
    starts, cum = created
    lo, hi = np.searchsorted(starts, [s.first, s.last + 1])
    made = int(cum[hi - 1] - (cum[lo - 1] if lo else 0)) if hi > lo else 0
    return StepReport(s.index, s.first, s.last, s.complete, peak, at, made, phases)


def _timeline(r: Replay, ph: Phases, steps: tuple[Step, ...], points: int) -> list[dict[str, Any]]:
    """The start, then up to ``points`` moments: the largest allocated total of each equal share of events."""
    step_of = np.zeros(r.events, dtype=np.int64)
    for s in steps:
        step_of[s.first:s.last + 1] = s.index
    out = [{"event": -1, "allocated_bytes": r.initial_allocated, "reserved_bytes": r.initial_reserved,
            "phase": Phase.UNKNOWN.label, "step": 0}]
    n = r.events
    if n == 0:
        return out
    width = -(-n // min(points, n))
    buckets = -(-n // width)
    padded = np.full(buckets * width, np.iinfo(np.int64).min, dtype=np.int64)
    padded[:n] = r.allocated
    picks = padded.reshape(buckets, width).argmax(axis=1) + np.arange(buckets) * width
    reserved = np.maximum.reduceat(r.reserved, np.arange(0, n, width))
    for b, i in enumerate(picks.tolist()):
        out.append({"event": i, "allocated_bytes": int(r.allocated[i]), "reserved_bytes": int(reserved[b]),
                    "phase": Phase(int(ph.labels[i])).label, "step": int(step_of[i])})
    return out


@dataclass(frozen=True, slots=True)
class Measurement:
    """A report, and the allocated and reserved bytes after every event of its device (the report's own
    ``timeline`` keeps ``TIMELINE_POINTS`` moments of the whole recording)."""

    report: SnapshotReport
    allocated: Ints
    reserved: Ints
    #: the allocator model's reserved bytes after every event (empty when the check did not run)
    simulated_reserved: Ints = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


def analyse(snapshot: Any, name: str, device: int | None = None, points: int = TIMELINE_POINTS) -> SnapshotReport:
    """The report for ``device`` (default: the first device with events or segments, as memory_viz picks)."""
    return measure(snapshot, name, device, points).report


def measure(
    snapshot: Any, name: str, device: int | None = None, points: int = TIMELINE_POINTS,
    progress: Progress | None = None,
) -> Measurement:
    """``analyse``'s report with the curves it was made from; ``progress`` gets the fraction done after each
    stage (replaying and finding the phases take nearly all the time, about equally)."""
    tick = progress or (lambda _f: None)
    try:
        snap = schema.check(snapshot)
        devices = schema.devices(snap)
        if device is None:
            if not devices:
                raise SnapshotError("no events and no segments on any device: nothing was recorded (call "
                                    "torch.cuda.memory._record_memory_history() before the steps)")
            device = devices[0]
        elif device not in devices:
            raise SnapshotError(f"device {device} has no events or segments (devices: {devices or 'none'})")
        r = replay(snap, device)
        tick(0.35)
        ph = find_phases(r)
        tick(0.7)
        sim = simulate(snap, device, r)
        tick(0.9)
    except SnapshotError as err:
        raise SnapshotError(f"{name}: {err}") from None
    peak, at = r.peak_allocated
    blocks = attribution.live_blocks(r, ph, at)
    created = _states_created(r, ph)
    report = SnapshotReport(
        file=name, device=device, devices=devices, events=r.events,
        peak_allocated_bytes=peak, peak_event=at, peak_reserved_bytes=r.peak_reserved[0],
        before_recording_bytes=r.initial_allocated,
        final_allocated_bytes=int(r.allocated[-1]) if r.events else r.initial_allocated,
        final_reserved_bytes=int(r.reserved[-1]) if r.events else r.initial_reserved,
        stacks=ph.stacks,
        ooms=[{"event": i, "requested_bytes": size, "device_free_bytes": free} for i, size, free in r.ooms],
        timeline=_timeline(r, ph, ph.steps, points),
        steps=[_step_report(r, s, created) for s in ph.steps],
        by_term=attribution.by_term(blocks),
        attribution=attribution.explain(blocks, ph.stacks),
        peak_blocks=blocks[:PEAK_BLOCKS],
        allocator_check=sim.check,
    )
    tick(1.0)
    return Measurement(report, r.allocated, r.reserved, sim.reserved)
